"""Training at the board (issue 35): setting up any position by the board's guidance, exercises, puzzles; pure parts first."""
