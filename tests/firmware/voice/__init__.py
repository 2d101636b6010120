"""Tests of the board's voice (firmware.voice): what it says, how it says it, a game played by ear."""
