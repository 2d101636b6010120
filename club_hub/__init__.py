"""The club hub: every board's game from the broker, on a hall page, in PGN, rated, broadcast."""
