"""The board's spoken words in English: moves as players say them, endings, clocks, the position described."""
from __future__ import annotations

import re
from typing import Any

SPOKEN: dict[str, Any] = {
    "espeak": "en",
    # a file "a" alone is the letter, not the article ("rook A d1", "pawn A takes b6")
    "respell": ((re.compile(r"\ba(?= (?:takes |[a-h][1-8]\b))"), "A"),
                # a step of a position set up by hand: "white knight g1 → f3" said "g1 to f3"
                (re.compile(r"\s*→\s*"), " to ")),
    "says": {
        # a move: pieces and squares as words ("Knight f3"), a pawn's move by its square alone ("e4")
        "move": "{piece} {to}",
        "move_from": "{piece} {origin} {to}",             # two pieces could go there: "knight b d7"
        "capture": "{piece} takes {to}",
        "capture_from": "{piece} {origin} takes {to}",
        "pawn_move": "{to}",
        "en_passant": "{capture} en passant",
        "short_castle": "short castle",
        "long_castle": "long castle",
        "promotion": "{move}, promotion to {piece}",
        "check": "{move}, check",
        "checkmate": "{move}, checkmate",
        # what happened to the moves
        "opponent_plays": "{who} plays {move}, make it on the board",
        "taken_back": "Move taken back: {move}",
        "corrected": "Move corrected: {move}",
        "last_move": "Last move: {move}",
        "no_move_yet": "No move yet",
        # how a game ends
        "wins": "{side} wins",
        "mate_wins": "checkmate, {side} wins",
        "stalemate": "stalemate",
        "draw_repetition": "draw by repetition",
        "draw_fifty": "draw by the fifty-move rule",
        "draw_seventyfive": "draw by the seventy-five-move rule",
        "draw_material": "draw, insufficient material",
        "resigns": "{loser} resigns, {side} wins",
        "on_time": "{side} wins on time",
        "time_vs_material": "time is up, but mate is impossible: draw",
        "agreement": "draw agreed",
        "abandoned": "game abandoned",
        # the clocks
        "clock": "{side}: {time}",
        "hour": "1 hour",
        "hours": "{n} hours",
        "minute": "1 minute",
        "minutes": "{n} minutes",
        "second": "1 second",
        "seconds": "{n} seconds",
        "no_clock": "No clock",
        "clock_resumed": "The clock runs again",
        "game_starts": "The game begins",
        # the position, side by side
        "side_pieces": "{side}: {pieces}",
        "piece_on": "{piece} {squares}",
        "empty_square": "{square}, empty",
        "square_piece": "{square}, {piece}",
        "expected_square": "{square}, empty, expected: {piece}",   # the game has a piece there the board lacks
        "unknown_square": "{square}, a piece",                      # a piece the sensors see, the game none
    },
    "plurals": {1: "pawns", 2: "knights", 3: "bishops", 4: "rooks", 5: "queens", 6: "kings"},
    "coloured": {(0, 1): "white pawn", (0, 2): "white knight", (0, 3): "white bishop", (0, 4): "white rook",
                 (0, 5): "white queen", (0, 6): "white king", (1, 1): "black pawn", (1, 2): "black knight",
                 (1, 3): "black bishop", (1, 4): "black rook", (1, 5): "black queen", (1, 6): "black king"},
}
