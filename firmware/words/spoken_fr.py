"""The board's spoken words in French, in the FIDE rule texts' terms: échec, mat, pat, nulle, roque, prise en passant, abandon."""
from __future__ import annotations

import re

from typing import Any

SPOKEN: dict[str, Any] = {
    "espeak": "fr",
    "respell": ((re.compile(r"\s*→\s*"), " en "),),   # a step of a position set up by hand: "g1 → f3"
    "says": {
        # un coup : pièces et cases en mots (« Cavalier f3 »), un coup de pion par sa case seule (« e4 »)
        "move": "{piece} {to}",
        "move_from": "{piece} {origin} {to}",             # deux pièces pouvaient y aller : « cavalier b d7 »
        "capture": "{piece} prend {to}",
        "capture_from": "{piece} {origin} prend {to}",
        "pawn_move": "{to}",
        "en_passant": "{capture} en passant",
        "short_castle": "petit roque",
        "long_castle": "grand roque",
        "promotion": "{move}, promotion en {piece}",
        "check": "{move}, échec",
        "checkmate": "{move}, échec et mat",
        # ce qui arrive aux coups
        "opponent_plays": "{who} joue {move}, à vous de le jouer sur l'échiquier",
        "taken_back": "Coup repris : {move}",
        "corrected": "Coup corrigé : {move}",
        "last_move": "Dernier coup : {move}",
        "no_move_yet": "Aucun coup joué",
        # la fin de la partie
        "wins": "les {side} gagnent",
        "mate_wins": "échec et mat, les {side} gagnent",
        "stalemate": "pat",
        "draw_repetition": "nulle par répétition",
        "draw_fifty": "nulle par la règle des 50 coups",
        "draw_seventyfive": "nulle par la règle des 75 coups",
        "draw_material": "nulle, matériel insuffisant",
        "resigns": "les {loser} abandonnent, les {side} gagnent",
        "on_time": "les {side} gagnent au temps",
        "time_vs_material": "temps écoulé, mais le mat est impossible : nulle",
        "agreement": "nulle par accord mutuel",
        "abandoned": "partie abandonnée",
        # les pendules
        "clock": "{side} : {time}",
        "hour": "1 heure",
        "hours": "{n} heures",
        "minute": "1 minute",
        "minutes": "{n} minutes",
        "second": "1 seconde",
        "seconds": "{n} secondes",
        "no_clock": "Pas de pendule",
        "clock_resumed": "La pendule repart",
        "game_starts": "La partie commence",
        # la position, camp par camp
        "side_pieces": "{side} : {pieces}",
        "piece_on": "{piece} {squares}",
        "empty_square": "{square}, vide",
        "square_piece": "{square}, {piece}",
        "expected_square": "{square}, vide, attendu : {piece}",
        "unknown_square": "{square}, une pièce",
    },
    "plurals": {1: "pions", 2: "cavaliers", 3: "fous", 4: "tours", 5: "dames", 6: "rois"},
    "coloured": {(0, 1): "pion blanc", (0, 2): "cavalier blanc", (0, 3): "fou blanc", (0, 4): "tour blanche",
                 (0, 5): "dame blanche", (0, 6): "roi blanc", (1, 1): "pion noir", (1, 2): "cavalier noir",
                 (1, 3): "fou noir", (1, 4): "tour noire", (1, 5): "dame noire", (1, 6): "roi noir"},
}
