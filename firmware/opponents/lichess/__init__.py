"""Lichess's Board API as the board's opponent: the client, its streams, the token, games and the opponent."""
