"""A player's ear for the tests: a move said in words ("Stockfish joue fou c4, ...") read back into the move, independently of the code that says it."""
from __future__ import annotations

import re

from chess_core import Move, Position
from chess_core.squares import SQUARE_NAMES

# (German is heard in lower case: it writes its nouns with a capital, "Springer f3")
PIECES = {"fr": {"pion": 1, "cavalier": 2, "fou": 3, "tour": 4, "dame": 5, "roi": 6},
          "en": {"pawn": 1, "knight": 2, "bishop": 3, "rook": 4, "queen": 5, "king": 6},
          "de": {"bauer": 1, "springer": 2, "läufer": 3, "turm": 4, "dame": 5, "könig": 6}}
TAKES = {"fr": "prend", "en": "takes", "de": "schlägt"}
CASTLES = {"fr": ("petit roque", "grand roque"), "en": ("short castle", "long castle"),
           "de": ("kurze rochade", "lange rochade")}
PROMOTION = {"fr": ", promotion en ", "en": ", promotion to ", "de": ", umwandlung in "}
CHECK = {"fr": (", échec et mat", ", échec"), "en": (", checkmate", ", check"), "de": (", schachmatt", ", schach")}
OPPONENT = {"fr": re.compile(r"^(?P<who>.+?) joue (?P<move>.+), à vous de le jouer sur l'échiquier$"),
            "en": re.compile(r"^(?P<who>.+?) plays (?P<move>.+), make it on the board$"),
            "de": re.compile(r"^(?P<who>.+?) spielt (?P<move>.+), führen Sie den Zug auf dem Brett aus$")}


def heard_opponent(text: str, lang: str) -> tuple[str, str] | None:
    """(who, the move's words) of an announcement of the opponent's move to carry out, else None."""
    for sentence in text.split(". "):
        m = OPPONENT[lang].match(sentence)
        if m:
            return m["who"], m["move"]
    return None


def heard_move(position: Position, text: str, lang: str) -> tuple[Move, str]:
    """The one legal move of ``position`` that ``text`` names, and the mark said ("", "check", "mate").
    AssertionError if the words name no legal move or several."""
    said = text.strip()
    said = said.lower() if lang == "de" else said[0].lower() + said[1:]
    mark = ""
    for word, name in zip(CHECK[lang], ("mate", "check")):
        if said.endswith(word):
            said, mark = said[: -len(word)], name
            break
    legal = position.legal_moves()
    short, long = CASTLES[lang]
    if said in (short, long):
        found = [m for m in legal if position.is_castling(m)
                 and ((m.to_square & 7) > (m.from_square & 7)) == (said == short)]
        assert len(found) == 1, (text, found)
        return found[0], mark
    promotion = None
    if PROMOTION[lang] in said:
        said, promo_word = said.split(PROMOTION[lang])
        promotion = PIECES[lang][promo_word]
    en_passant = said.endswith(" en passant")
    if en_passant:
        said = said[: -len(" en passant")]
    tokens = said.split()
    capture = TAKES[lang] in tokens
    tokens = [t for t in tokens if t != TAKES[lang]]
    piece = PIECES[lang].get(tokens[0]) if tokens else None
    if piece is None:
        assert len(tokens) == 1 and not capture, text    # a pawn's push: its square alone
        piece = 1
    else:
        tokens = tokens[1:]
    *origin, to = tokens
    assert len(origin) <= 1 and re.fullmatch(r"[a-h][1-8]", to), text
    found = []
    for move in legal:
        frm = SQUARE_NAMES[move.from_square]
        p = position.piece_at(move.from_square)
        if (p is None or p.piece_type != piece or SQUARE_NAMES[move.to_square] != to or position.is_castling(move)
                or position.is_capture(move) != capture or move.promotion != promotion
                or position.is_en_passant(move) != en_passant or (origin and origin[0] not in frm)):
            continue
        found.append(move)
    assert len(found) == 1, (text, [m.uci() for m in found])
    return found[0], mark
