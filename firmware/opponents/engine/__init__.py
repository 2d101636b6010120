"""A UCI engine (Stockfish) as the board's opponent: the client, its levels, and the opponent."""
