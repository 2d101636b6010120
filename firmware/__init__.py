"""The board service: inference, feedback, session, opponents, web companion and the CLI."""
