"""What the board says, in words (pure): a move, an ending, the clocks, the position, in each language of firmware.words.

The words are firmware.words' (the piece names, the sides, the prompts the LEDs and the page
show) and its spoken catalogues (``firmware/words/spoken_en.py``, ``spoken_fr.py``...); here is
only how they are put together. Letters are said as words: "Cavalier f3", never "Cf3"; a pawn's
move is its square ("e4"), a pawn's capture names the pawn ("pion prend d6"), with its file only
when another pawn could take there too. Nothing here speaks: ``firmware.voice.speaker`` does.
"""
from __future__ import annotations

import re

from chess_core import PAWN, Move, Outcome, Position, Termination, san
from chess_core.squares import SQUARE_NAMES, scan_squares

import firmware.words as words
from firmware.words.spoken import spoken

# SAN in English letters, as chess_core writes it: piece, origin (file, rank or both), capture, target, promotion.
_SAN = re.compile(r"^(?P<piece>[KQRBN])?(?P<origin>[a-h]?[1-8]?)(?P<capture>x)?(?P<to>[a-h][1-8])"
                  r"(?:=(?P<promo>[QRBN]))?(?P<mark>[+#])?$")
_TYPES = {"K": 6, "Q": 5, "R": 4, "B": 3, "N": 2}
_SQUARE_FIRST = re.compile(r"^[a-h][1-8]\b")
# The order a player describes a side in: king, queen, rooks, bishops, knights, pawns.
DESCRIBE_ORDER = (6, 5, 4, 3, 2, 1)
LOW_TIME_S = (60, 30, 10)   # the clock of a side at the board is said as it passes each


def say(key: str, lang: str, **values: object) -> str:
    """The spoken template ``key`` of ``lang`` with ``values`` filled in."""
    return spoken(lang).says[key].format(**values)


def sentence(text: str) -> str:
    """``text`` as the start of a sentence: its first letter a capital, unless it begins with a
    square ("e8, promotion en dame" stays as it is)."""
    if not text or _SQUARE_FIRST.match(text):
        return text
    return text[0].upper() + text[1:]


def _piece(piece_type: int, lang: str) -> str:
    return words.catalogue_of(lang).pieces[piece_type]


def move_words(position: Position, move: Move, lang: str = words.FALLBACK) -> str:
    """A legal ``move`` of ``position`` as a player says it, with check or mate but no result:
    "cavalier f3", "dame prend e5, échec", "petit roque", "pion prend d6 en passant",
    "e8, promotion en dame" (lower case: :func:`sentence` begins a sentence with it)."""
    text = san(position, move)   # (in English letters, which _SAN reads)
    mark = text[-1] if text[-1] in "+#" else ""
    body = text.rstrip("+#")
    if body in ("O-O", "O-O-O"):
        said = say("short_castle" if body == "O-O" else "long_castle", lang)
    else:
        m = _SAN.match(text)
        if m is None:   # (chess_core writes every other move this way)
            raise ValueError(f"unexpected SAN {text!r}")
        to = m["to"]
        if m["piece"] is None:   # a pawn
            said = _pawn_words(position, move, to, bool(m["capture"]), lang)
        else:
            piece = _piece(_TYPES[m["piece"]], lang)
            origin = m["origin"]
            key = ("capture" if m["capture"] else "move") + ("_from" if origin else "")
            said = say(key, lang, piece=piece, origin=origin, to=to)
        if m["promo"]:
            said = say("promotion", lang, move=said, piece=_piece(_TYPES[m["promo"]], lang))
    if mark == "#":
        return say("checkmate", lang, move=said)
    if mark == "+":
        return say("check", lang, move=said)
    return said


def _pawn_words(position: Position, move: Move, to: str, capture: bool, lang: str) -> str:
    if not capture:
        return say("pawn_move", lang, to=to)
    rivals = [m for m in position.legal_moves() if m.to_square == move.to_square and m.from_square != move.from_square
              and (p := position.piece_at(m.from_square)) is not None and p.piece_type == PAWN]
    origin = SQUARE_NAMES[move.from_square][0] if rivals else ""
    said = say("capture_from" if origin else "capture", lang, piece=_piece(PAWN, lang), origin=origin, to=to)
    return say("en_passant", lang, capture=said) if position.is_en_passant(move) else said


_ENDINGS = {Termination.STALEMATE: "stalemate", Termination.THREEFOLD_REPETITION: "draw_repetition",
            Termination.FIVEFOLD_REPETITION: "draw_repetition", Termination.FIFTY_MOVES: "draw_fifty",
            Termination.SEVENTYFIVE_MOVES: "draw_seventyfive", Termination.INSUFFICIENT_MATERIAL: "draw_material",
            Termination.TIME_VS_INSUFFICIENT: "time_vs_material", Termination.AGREEMENT: "agreement",
            Termination.ABANDONED: "abandoned"}


def ending_words(outcome: Outcome, lang: str = words.FALLBACK, *, after_mate: bool = False) -> str:
    """How the game ended: "échec et mat, les Blancs gagnent", "pat", "nulle par répétition",
    "les Noirs abandonnent, les Blancs gagnent", "les Blancs gagnent au temps"; ``after_mate``:
    the mating move has just said "échec et mat", so only "les Blancs gagnent"."""
    sides = words.catalogue_of(lang).sides
    termination, winner = outcome.termination, outcome.winner
    if winner is not None:
        side = sides[winner]
        if termination is Termination.CHECKMATE:
            return say("wins" if after_mate else "mate_wins", lang, side=side)
        if termination is Termination.RESIGNATION:
            return say("resigns", lang, side=side, loser=sides[1 - winner])
        if termination is Termination.TIME_FORFEIT:
            return say("on_time", lang, side=side)
        return say("wins", lang, side=side)
    return say(_ENDINGS.get(termination, "agreement"), lang)


def move_said(position: Position, move: Move, lang: str = words.FALLBACK, outcome: Outcome | None = None) -> str:
    """A move as the board announces it, and the end it brought if any: "Dame prend f7, échec et
    mat, les Blancs gagnent"; "Dame g6, pat"; "Cavalier g1, nulle par répétition"."""
    text = move_words(position, move, lang)
    if outcome is not None:
        mate = outcome.termination is Termination.CHECKMATE
        text = f"{text}, {ending_words(outcome, lang, after_mate=mate)}"
    return sentence(text)


def opponent_plays(position: Position, move: Move, who: str, lang: str = words.FALLBACK) -> str:
    """The opponent's move for the player to carry out: "Stockfish joue fou c4, à vous de le jouer
    sur l'échiquier" / "Stockfish plays bishop c4, make it on the board"."""
    return sentence(say("opponent_plays", lang, who=who, move=move_words(position, move, lang)))


def duration_words(ms: int, lang: str = words.FALLBACK) -> str:
    """A clock as said: "4 minutes 12", "1 minute", "30 secondes", "1 heure 5 minutes"."""
    seconds = max(0, ms) // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)

    def unit(n: int, one: str, many: str) -> str:
        return say(one, lang) if n == 1 else say(many, lang, n=n)

    if hours:
        return unit(hours, "hour", "hours") + (f" {unit(minutes, 'minute', 'minutes')}" if minutes else "")
    if minutes:
        return unit(minutes, "minute", "minutes") + (f" {secs}" if secs else "")
    return unit(secs, "second", "seconds")


def clocks_words(clocks: tuple[int | None, int | None], lang: str = words.FALLBACK) -> str:
    """Both clocks: "Blancs : 4 minutes 12, Noirs : 3 minutes 58"; "Pas de pendule" without one."""
    sides = words.catalogue_of(lang).sides
    said = [say("clock", lang, side=sides[side], time=duration_words(ms, lang))
            for side, ms in enumerate(clocks) if ms is not None]
    return ", ".join(said) if said else say("no_clock", lang)


def _and(items: list[str], lang: str) -> str:
    return items[0] if len(items) == 1 else words.prompt("and", lang, items=", ".join(items[:-1]), last=items[-1])


def describe(position: Position, lang: str = words.FALLBACK) -> str:
    """The position side by side, piece by piece, as a blind player asks for it at the board:
    "Blancs : roi g1, dame d1, tours a1 et f1, ... Noirs : ... Trait aux Blancs"."""
    said = []
    for side in (0, 1):
        pieces = []
        for piece_type in DESCRIBE_ORDER:
            squares = [SQUARE_NAMES[sq] for sq in scan_squares(position.pieces(piece_type, side))]
            if squares:
                name = _piece(piece_type, lang) if len(squares) == 1 else spoken(lang).plurals[piece_type]
                pieces.append(say("piece_on", lang, piece=name, squares=_and(squares, lang)))
        said.append(say("side_pieces", lang, side=words.catalogue_of(lang).sides[side], pieces=", ".join(pieces)))
    said.append(words.side_to_move(position.turn, position.is_check()).text(lang))
    return ". ".join(said)


def square_label(position: Position, square: int, lang: str = words.FALLBACK) -> str:
    """A square as the page names it for a screen reader: "e4, white pawn" / "e4, pion blanc";
    "e5, empty" / "e5, vide"."""
    piece = position.piece_at(square)
    name = SQUARE_NAMES[square]
    if piece is None:
        return say("empty_square", lang, square=name)
    return say("square_piece", lang, square=name, piece=spoken(lang).coloured[(piece.color, piece.piece_type)])


def speakable(text: str, lang: str) -> str:
    """``text`` as the speech synthesizer should read it, by its language's ``respell`` (the
    spoken catalogue's): in English a file "a" alone is the letter, not the article ("rook A d1",
    "pawn A takes b6")."""
    for pattern, replacement in spoken(lang).respell:
        text = pattern.sub(replacement, text)
    return text


__all__ = ["say", "sentence", "move_words", "move_said", "ending_words", "opponent_plays", "duration_words",
           "clocks_words", "describe", "square_label", "speakable", "LOW_TIME_S", "DESCRIBE_ORDER"]
