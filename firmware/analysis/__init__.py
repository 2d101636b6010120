"""Computer analysis of a game: Stockfish's evaluations, the judgement of each move and each side's accuracy, as Lichess gives them."""
