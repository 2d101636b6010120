"""Opponents of the board's player: the interface (base), a UCI engine, and Lichess's Board API."""
