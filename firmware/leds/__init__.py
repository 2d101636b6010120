"""The board's LEDs as one picture composed from the layers their owners light (pure: no asyncio, no I/O)."""
