"""Sub-commands of the `echiquier` command, one module each."""
