"""The game library: the recorded and imported games listed and read within a budget (``games``), and their computer analyses run one after the other (``analyses``)."""
