"""The board's spoken words in German, in the FIDE Laws' German terms: Schach, Schachmatt, Patt, Remis, Rochade, en passant, Umwandlung, Aufgabe."""
from __future__ import annotations

import re
from typing import Any

SPOKEN: dict[str, Any] = {
    "espeak": "de",
    # what espeak-ng's German reads as German spelling, given as its phonemes: "Remis" is [rəˈmiː]
    # (not "Reemiss"), "Remisangebot" too; "en passant" is said the French way
    "respell": ((re.compile(r"\bRemis"), "[[r@m'i:]]"), (re.compile(r"\ben passant\b"), "[[A~ pas'A~]]"),
                (re.compile(r"\s*→\s*"), " nach ")),   # a step of a position set up by hand: "g1 → f3"
    "says": {
        # ein Zug: Figuren und Felder als Wörter („Springer f3“), ein Bauernzug nur mit seinem Feld („e4“)
        "move": "{piece} {to}",
        "move_from": "{piece} {origin} {to}",             # zwei Figuren konnten dorthin: „Springer b d7“
        "capture": "{piece} schlägt {to}",
        "capture_from": "{piece} {origin} schlägt {to}",
        "pawn_move": "{to}",
        "en_passant": "{capture} en passant",
        "short_castle": "kurze Rochade",
        "long_castle": "lange Rochade",
        "promotion": "{move}, Umwandlung in {piece}",
        "check": "{move}, Schach",
        "checkmate": "{move}, Schachmatt",
        # was mit den Zügen geschieht
        "opponent_plays": "{who} spielt {move}, führen Sie den Zug auf dem Brett aus",
        "taken_back": "Zug zurückgenommen: {move}",
        "corrected": "Zug korrigiert: {move}",
        "last_move": "Letzter Zug: {move}",
        "no_move_yet": "Noch kein Zug",
        # wie eine Partie endet
        "wins": "{side} gewinnt",
        "mate_wins": "Schachmatt, {side} gewinnt",
        "stalemate": "Patt, Remis",
        "draw_repetition": "Remis durch Stellungswiederholung",
        "draw_fifty": "Remis nach der 50-Züge-Regel",
        "draw_seventyfive": "Remis nach der 75-Züge-Regel",
        "draw_material": "Remis, ungenügendes Material",
        "resigns": "{loser} gibt auf, {side} gewinnt",
        "on_time": "{side} gewinnt durch Zeitüberschreitung",
        "time_vs_material": "Zeit abgelaufen, aber Matt ist unmöglich: Remis",
        "agreement": "Remis vereinbart",
        "abandoned": "Partie abgebrochen",
        # die Uhren
        "clock": "{side}: {time}",
        "hour": "1 Stunde",
        "hours": "{n} Stunden",
        "minute": "1 Minute",
        "minutes": "{n} Minuten",
        "second": "1 Sekunde",
        "seconds": "{n} Sekunden",
        "no_clock": "Keine Uhr",
        "clock_resumed": "Die Uhr läuft wieder",
        "game_starts": "Die Partie beginnt",
        # die Stellung, Seite für Seite
        "side_pieces": "{side}: {pieces}",
        "piece_on": "{piece} {squares}",
        "empty_square": "{square}, leer",
        "square_piece": "{square}, {piece}",
        "expected_square": "{square}, leer, erwartet: {piece}",
        "unknown_square": "{square}, eine Figur",
    },
    "plurals": {1: "Bauern", 2: "Springer", 3: "Läufer", 4: "Türme", 5: "Damen", 6: "Könige"},
    "coloured": {(0, 1): "weißer Bauer", (0, 2): "weißer Springer", (0, 3): "weißer Läufer", (0, 4): "weißer Turm",
                 (0, 5): "weiße Dame", (0, 6): "weißer König", (1, 1): "schwarzer Bauer", (1, 2): "schwarzer Springer",
                 (1, 3): "schwarzer Läufer", (1, 4): "schwarzer Turm", (1, 5): "schwarze Dame",
                 (1, 6): "schwarzer König"},
}
