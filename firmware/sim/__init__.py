"""The simulator: the board's service on a simulated board, its hand and the page's commands that move it (``echiquier sim``)."""
