"""SAN in English (K Q R B N), French (R D T F C) and German (K D T L S) letters, out and in, and UCI parsing."""
from __future__ import annotations

import re

from .move import FLAG_CASTLE, NULL_MOVE, AmbiguousMoveError, IllegalMoveError, InvalidMoveError, Move, decode
from .position import Position
from .squares import (ANTI_ATTACKS, ANTI_MASKS, BISHOP, DIAG_ATTACKS, DIAG_MASKS, FILE_ATTACKS, FILE_MASKS,
                      FILE_NAMES, KING, KNIGHT, KNIGHT_ATTACKS, PAWN, QUEEN, RANK_ATTACKS, RANK_MASKS, RANK_NAMES,
                      ROOK, SQUARE_NAMES, parse_square, scan_squares)

# The piece letters of each notation language (König, Dame, Turm, Läufer, Springer in German);
# firmware.words' languages take their SAN from here.
LETTERS = {
    "en": {KING: "K", QUEEN: "Q", ROOK: "R", BISHOP: "B", KNIGHT: "N"},
    "fr": {KING: "R", QUEEN: "D", ROOK: "T", BISHOP: "F", KNIGHT: "C"},
    "de": {KING: "K", QUEEN: "D", ROOK: "T", BISHOP: "L", KNIGHT: "S"},
}
_READ = {lang: {letter: piece for piece, letter in table.items()} for lang, table in LETTERS.items()}
LANGUAGES = tuple(LETTERS)

_SAN_RE = re.compile(
    r"^(?P<piece>[KQRBNDTFCLS])?(?P<file>[a-h])?(?P<rank>[1-8])?(?P<capture>[x:])?[-]?"
    r"(?P<to>[a-h][1-8])(?:=?\(?(?P<promo>[QRBNDTFCLSqrbndtfcls])\)?)?$")
_CASTLE_RE = re.compile(r"^([O0o])-?([O0o])(-?([O0o]))?$")
_CASTLE_CODE = FLAG_CASTLE << 15  # move codes at or above this castle
_SUFFIX_RE = re.compile(r"(?:e\.?p\.?|[+#‡†!?]|\s)+$")


def san(pos: Position, move: Move, lang: str = "en") -> str:
    """The SAN of a legal ``move`` with check/mate marks, in the letters of ``lang`` (a language of ``LETTERS``).

    >>> san(Position(), Move.from_uci("g1f3"), "fr")
    'Cf3'
    """
    if move == NULL_MOVE:
        return "--"  # as python-chess and ChessBase write a null move
    pos._make_legal(move)  # IllegalMoveError for an illegal move
    try:
        check = pos.is_check()
        mate = check and not pos.legal_codes()
    finally:
        pos.unmake()
    text = _san_body(pos, move, lang)
    return text + "#" if mate else text + "+" if check else text


def _san_body(pos: Position, move: Move, lang: str) -> str:
    letters = LETTERS[lang]
    frm, to = move.from_square, move.to_square
    kind = pos.board[frm] & 7
    if pos.is_castling(move):  # h side or a side (Chess960: the king takes its rook)
        return "O-O" if to & 7 > frm & 7 else "O-O-O"
    target = SQUARE_NAMES[to]
    if kind == PAWN:
        text = (FILE_NAMES[frm & 7] + "x" + target) if pos.is_capture(move) else target
        if move.promotion:
            text += "=" + letters[move.promotion]
        return text
    text = letters[kind]
    if kind != KING:
        # Rivals: other pieces of the kind that could go to the same square (legally).
        same = pos.bb_piece[kind] & pos.bb_color[pos.turn] & ~(1 << frm)
        if kind == KNIGHT:
            same &= KNIGHT_ATTACKS[to]
        elif same:
            occ = pos.bb_color[0] | pos.bb_color[1]
            reach = 0
            if kind != BISHOP:
                reach = RANK_ATTACKS[to][occ & RANK_MASKS[to]] | FILE_ATTACKS[to][occ & FILE_MASKS[to]]
            if kind != ROOK:
                reach |= DIAG_ATTACKS[to][occ & DIAG_MASKS[to]] | ANTI_ATTACKS[to][occ & ANTI_MASKS[to]]
            same &= reach
        rivals = [r for r in scan_squares(same) if pos.is_legal(Move(r, to))] if same else None
        if rivals:
            same_file = any(r & 7 == frm & 7 for r in rivals)
            same_rank = any(r >> 3 == frm >> 3 for r in rivals)
            if not same_file:
                text += FILE_NAMES[frm & 7]
            elif not same_rank:
                text += RANK_NAMES[frm >> 3]
            else:
                text += SQUARE_NAMES[frm]
    if pos.board[to]:
        text += "x"
    return text + target


def parse_san(pos: Position, text: str, lang: str = "auto") -> Move:
    """The legal move that ``text`` names; accepts what players write (``e8Q``, ``0-0``, ``Ng1f3``).

    ``lang`` is a language of ``LETTERS`` ("en", "fr", "de") or "auto" (letters decide, tried in
    that order; ``R`` reads as an English rook when a rook move fits, else as a French king).
    Raises InvalidMoveError, IllegalMoveError or AmbiguousMoveError.
    """
    if not isinstance(text, str):
        raise InvalidMoveError(f"a move must be a string, not {type(text).__name__}")
    if lang != "auto" and lang not in LETTERS:
        raise ValueError(f"unknown notation language {lang!r}")
    clean = _SUFFIX_RE.sub("", text.strip())
    if not clean:
        raise InvalidMoveError(f"empty move {text!r}")
    castle = _CASTLE_RE.match(clean)
    if castle:
        return _parse_castling(pos, text, long=bool(castle.group(3)))
    if clean in ("--", "Z0", "0000", "@@@@"):
        raise IllegalMoveError(f"null move {text!r} is not a move on a board")
    m = _SAN_RE.match(clean)
    if not m:
        raise InvalidMoveError(f"cannot read move {text!r}")
    langs = LANGUAGES if lang == "auto" else (lang,)
    errors = []
    for each in langs:  # English first: in "auto", R is a rook unless only a king move fits
        try:
            found = _candidates(pos, m, each, text)
        except InvalidMoveError as exc:
            errors.append(exc)
            continue
        if found:
            return found[0]
    if len(errors) < len(langs):
        # Some language read every letter and no legal move fits: the move is illegal (even if
        # the other language cannot read it, as "Bc4" in French letters).
        side = "white" if pos.turn == 0 else "black"
        raise IllegalMoveError(f"illegal move {text!r} for {side} in {pos.fen()}")
    raise errors[0]


def _candidates(pos: Position, m: re.Match[str], lang: str, text: str) -> list[Move]:
    table = _READ[lang]
    letter = m.group("piece")
    if letter is None:
        kind = PAWN
    elif letter in table:
        kind = table[letter]
    else:
        raise InvalidMoveError(f"{letter!r} is not a piece letter in {lang} notation: {text!r}")
    promo: int | None = None
    if m.group("promo"):
        promo = table.get(m.group("promo").upper())
        if promo is None or promo == KING:
            raise InvalidMoveError(f"cannot promote to {m.group('promo')!r}: {text!r}")
        if kind != PAWN:
            raise InvalidMoveError(f"only a pawn can promote: {text!r}")
    to = parse_square(m.group("to"))
    ffile = FILE_NAMES.index(m.group("file")) if m.group("file") else None
    frank = RANK_NAMES.index(m.group("rank")) if m.group("rank") else None
    if kind == PAWN and ffile is None:
        ffile = to & 7  # "d5" is a push: a capture names the file it comes from ("exd5")
    result = []
    needs_piece = False
    board = pos.board
    chess960 = pos.chess960
    for code in pos.legal_codes():
        if (code >> 6) & 63 != to or board[code & 63] & 7 != kind:
            continue
        if chess960 and code >= _CASTLE_CODE:  # the king onto its own rook: castling is O-O
            continue
        move = decode(code)
        if ffile is not None and move.from_square & 7 != ffile:
            continue
        if frank is not None and move.from_square >> 3 != frank:
            continue
        if move.promotion != promo:
            if move.promotion is not None and promo is None:
                needs_piece = True
            continue
        result.append(move)
    if not result and needs_piece:
        raise InvalidMoveError(f"a pawn reaching the last rank must name its promotion piece: {text!r}")
    if len(result) > 1:
        names = ", ".join(sorted(_san_body(pos, mv, "en") for mv in result))
        raise AmbiguousMoveError(f"move {text!r} is ambiguous: it could be {names}")
    return result


def _parse_castling(pos: Position, text: str, long: bool) -> Move:
    ksq = pos.king[pos.turn]
    for code in pos.legal_codes():
        if code >= _CASTLE_CODE and code & 63 == ksq and (((code >> 6) & 63) < ksq) == long:
            return decode(code)
    side = "white" if pos.turn == 0 else "black"
    raise IllegalMoveError(f"castling {text!r} is not legal for {side} in {pos.fen()}")


def parse_uci(pos: Position, text: str) -> Move:
    """The legal move written in UCI (``e2e4``, ``e7e8q``); errors as parse_san."""
    move = Move.from_uci(text.strip() if isinstance(text, str) else text)
    if not pos.is_legal(move):
        raise IllegalMoveError(f"illegal move {text!r} in {pos.fen()}")
    return move


def parse_move(pos: Position, text: str, lang: str = "auto") -> Move:
    """A move in SAN (any language of ``LETTERS``) or UCI."""
    stripped = text.strip() if isinstance(text, str) else text
    if isinstance(stripped, str) and re.fullmatch(r"[a-h][1-8][a-h][1-8][qrbn]?", stripped):
        return parse_uci(pos, stripped)
    return parse_san(pos, text, lang)


def detect_language(tokens: list[str]) -> str:
    """'fr' when move tokens use French-only letters (D, T, F, C), else 'en'."""
    for token in tokens:
        t = token.lstrip("0123456789. ")
        if t[:1] in ("D", "T", "F", "C") or re.search(r"=[DTFC]", t):
            return "fr"
        if t[:1] in ("K", "Q", "B", "N") or re.search(r"=[QBN]", t):
            return "en"
    return "en"
