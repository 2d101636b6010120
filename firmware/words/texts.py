"""The players' texts filled in from their language's catalogue: SAN in its letters, pieces and squares by name.

``lang`` is a language of ``LANGS`` (firmware.words.languages: one catalogue each, ``en.py``,
``fr.py``, ``de.py``...); anything else reads as English. The words are in the catalogues; here
is only how they are put together: which template, with what in it.
"""
from __future__ import annotations

from functools import reduce
from typing import Callable, Union

from chess_core import PAWN, Move, Outcome, Position, Termination, san
from chess_core.notation import LETTERS
from chess_core.squares import SQUARE_NAMES

from .catalogue import Catalogue
from .languages import FALLBACK, LANGS, module_of


def _catalogue(lang: str) -> Catalogue:
    found = getattr(module_of(lang), "CATALOGUE", None)
    if not isinstance(found, Catalogue):
        raise TypeError(f"firmware/words/{lang}.py: its CATALOGUE is not a Catalogue")
    if lang not in LETTERS:
        raise ImportError(f"firmware/words/{lang}.py: no SAN letters for {lang!r} in chess_core.notation.LETTERS")
    return found


CATALOGUES: dict[str, Catalogue] = {lang: _catalogue(lang) for lang in LANGS}
ENGLISH = CATALOGUES[FALLBACK]
# A side's default name as the record keeps it (the PGN's): "White", "Black"; shown in each language.
DEFAULT_NAMES = ENGLISH.sides

# The catalogues' sections by language, as the page (GET /api/words) and the session read them.
PAGE = {lang: c.page for lang, c in CATALOGUES.items()}
LED_ROLES = {lang: c.leds for lang, c in CATALOGUES.items()}
PIECES = {lang: c.pieces for lang, c in CATALOGUES.items()}
SIDES = {lang: c.sides for lang, c in CATALOGUES.items()}

_FIRST_RANKS = 0xFF000000000000FF


def _lang(lang: str) -> str:
    return lang if lang in CATALOGUES else FALLBACK


def catalogue_of(lang: str) -> Catalogue:
    """The catalogue of ``lang`` (English for a language it does not know)."""
    return CATALOGUES[_lang(lang)]


def prompt(key: str, lang: str = FALLBACK, **values: object) -> str:
    """The template ``key`` of ``lang``'s prompts with ``values`` filled in."""
    return catalogue_of(lang).prompts[key].format(**values)


def _lower_first(text: str) -> str:
    return f"{text[0].lower()}{text[1:]}"


def piece_name(piece_type: int, lang: str = FALLBACK, *, article: bool = True) -> str:
    """"the knight" / "le cavalier" ("la tour")."""
    words = catalogue_of(lang)
    return words.the_pieces[piece_type] if article else words.pieces[piece_type]


def side_to_move(side: int, lang: str = FALLBACK, check: bool = False) -> str:
    """"White to move (check)" / "Trait aux Blancs (échec)"."""
    return prompt("to_move_check" if check else "to_move", lang, side=catalogue_of(lang).sides[side])


def player_name(name: str, side: int, lang: str = FALLBACK) -> str:
    """A player's name as ``lang`` shows it: a side's default name, the side itself in English
    ("White" playing White, as the PGN keeps it), reads as that side in ``lang`` ("Blancs");
    any other name stays as the players gave it."""
    return catalogue_of(lang).sides[side] if name == DEFAULT_NAMES[side] else name


def opponent_plays(position: Position, move: Move, who: str, lang: str = FALLBACK) -> str:
    """"Black to move: Stockfish plays Nf6" / "Trait aux Noirs : Stockfish joue Cf6"."""
    lang = _lang(lang)
    return prompt("opponent_plays", lang, to_move=side_to_move(position.turn, lang), who=who,
                  san=san(position, move, lang))


def outcome_text(outcome: Outcome, lang: str = FALLBACK) -> str:
    """"Black wins by checkmate" / "Les Noirs gagnent par mat"; "Draw by stalemate" / "Nulle par pat"."""
    words = catalogue_of(lang)
    reason = words.terminations[outcome.termination]
    if outcome.winner is None:
        return prompt("draw_by", lang, reason=reason)
    side = words.sides[outcome.winner]
    if outcome.termination is Termination.TIME_FORFEIT:
        return prompt("wins_on_time", lang, side=side)
    return prompt("wins_by", lang, side=side, reason=reason)


def takeback_text(before: Position, move: Move, lang: str = FALLBACK) -> str:
    """"Take back Nf3: put the knight back on g1" / "Reprenez Cf3 : remettez le cavalier en g1"."""
    lang = _lang(lang)
    piece = before.piece_at(move.from_square)
    back = put_back(piece.piece_type if piece else PAWN, move.from_square, lang)
    return prompt("takeback", lang, san=san(before, move, lang), put_back=_lower_first(back))


def put_back(piece_type: int, square: int, lang: str = FALLBACK) -> str:
    """"Put the knight back on g1" / "Remettez le cavalier en g1"."""
    return prompt("put_back", lang, piece=piece_name(piece_type, lang), square=SQUARE_NAMES[square])


def remove(piece_type: int | None, square: int, lang: str = FALLBACK) -> str:
    """"Remove the knight on g1" / "Retirez le cavalier de g1"; with no type, "the piece"."""
    if piece_type is None:
        return prompt("remove_any", lang, square=SQUARE_NAMES[square])
    return prompt("remove_piece", lang, piece=piece_name(piece_type, lang), square=SQUARE_NAMES[square])


def _bb(square: int) -> int:
    return 1 << square


def board_hint(position: Position, occupied: int, lang: str = FALLBACK) -> str | None:
    """What to do when the board (``occupied``) does not show ``position``: a castling or an en
    passant capture half done, else the first pieces to put back or remove. None: it shows it."""
    lang = _lang(lang)
    if occupied == position.occupied:
        return None
    for move in position.legal_moves():
        if position.is_castling(move):
            king_from, king_to, rook_from, rook_to = position.castling_squares(move)
            king_done = position.occupied & ~_bb(king_from) | _bb(king_to)
            if occupied == king_done and king_from != king_to:
                return prompt("castle_rook", lang, rook_from=SQUARE_NAMES[rook_from], rook_to=SQUARE_NAMES[rook_to])
        elif position.is_en_passant(move):
            victim = move.to_square - 8 if position.turn == 0 else move.to_square + 8
            mover_done = position.occupied & ~_bb(move.from_square) | _bb(move.to_square)
            if occupied == mover_done:
                return prompt("en_passant", lang, remove=remove(PAWN, victim, lang))
    steps = []
    missing = position.occupied & ~occupied
    extra = occupied & ~position.occupied
    if missing and extra and not missing & (missing - 1) and not extra & (extra - 1):   # one piece misplaced
        home, there = missing.bit_length() - 1, extra.bit_length() - 1
        piece = position.piece_at(home)
        assert piece is not None   # ``missing`` is a square of the position's
        return prompt("misplaced", lang, piece=piece_name(piece.piece_type, lang), there=SQUARE_NAMES[there],
                      home=SQUARE_NAMES[home])
    for square in range(64):
        if missing & _bb(square):
            piece = position.piece_at(square)
            assert piece is not None
            steps.append(put_back(piece.piece_type, square, lang))
    if extra & (extra - 1):   # several pieces to take off: one step, their squares together
        steps.append(prompt("remove_pieces", lang, squares=squares_text(extra, lang)))
    elif extra:
        steps.append(remove(None, extra.bit_length() - 1, lang))
    if not steps:
        return None
    shown = steps[:3]
    more = len(steps) - len(shown)
    text = ", ".join(shown[:1] + [_lower_first(s) for s in shown[1:]])
    if more:
        text += f" (+{prompt('n_more', lang, n=more)})"
    return text


def _and(items: list[str], lang: str) -> str:
    """"a1, c1 and f1" / "a1, c1 et f1"."""
    return items[0] if len(items) == 1 else prompt("and", lang, items=", ".join(items[:-1]), last=items[-1])


def squares_text(bb: int, lang: str = FALLBACK) -> str:
    """Squares as a player says them: "every square", "ranks 1, 2, 7 and 8", "the a-file",
    "a1, c1 and f1" (French: "toutes les cases", "les rangées 1, 2, 7 et 8", "la colonne a")."""
    lang = _lang(lang)
    full = (1 << 64) - 1
    if bb & full == full:
        return prompt("every_square", lang)
    ranks = [r for r in range(8) if bb >> (8 * r) & 0xFF == 0xFF]
    for r in ranks:
        bb &= ~(0xFF << (8 * r))
    column = 0x0101010101010101
    files = [f for f in range(8) if bb & (column << f) == column << f]
    for f in files:
        bb &= ~(column << f)
    parts = []
    if ranks:
        parts.append(prompt("rank" if len(ranks) == 1 else "ranks", lang,
                            numbers=_and([str(r + 1) for r in ranks], lang)))
    if files:
        parts.append(prompt("file" if len(files) == 1 else "files", lang,
                            letters=_and([SQUARE_NAMES[f][0] for f in files], lang)))
    singles = [SQUARE_NAMES[sq] for sq in range(64) if bb >> sq & 1]
    if len(singles) > 10:
        singles = singles[:8] + [prompt("n_more", lang, n=len(singles) - 8)]
    parts += singles
    return _and(parts, lang) if parts else ""


def _first_rank(position: Position, lang: str) -> str:
    """White's first rank as FEN writes it, in the piece letters of ``lang`` (R N B Q K are T C F D R in French)."""
    rank = position.fen().split("/")[7].split()[0]
    english, chosen = LETTERS[FALLBACK], LETTERS[lang]
    return rank.translate(str.maketrans("".join(english.values()), "".join(chosen[p] for p in english)))


def setup_text(position: Position, occupied: int, wrong: int, lang: str = FALLBACK, *,
               number: int | None = None) -> str:
    """What to do before a game starts from ``position`` with the board showing ``occupied`` and the
    squares ``wrong`` lit to put right: the position (a Chess960 one by ``number`` and its first rank in the chosen
    letters), then the next steps: pieces to take off, squares to fill, and the pieces to lift and
    set anew (sensors that see no piece types cannot tell a rearranged first rank)."""
    lang = _lang(lang)
    if number is not None:
        head = prompt("setup_960_number", lang, number=number, rank=_first_rank(position, lang))
        guide = prompt("guide_first_rank", lang)
    elif position.chess960:
        head = prompt("setup_960", lang)
        guide = prompt("guide_shown", lang)
    else:
        head = prompt("setup", lang)
        guide = ""   # the usual start position: everyone knows it
    extra = wrong & occupied & ~position.occupied
    missing = wrong & position.occupied & ~occupied
    lift = wrong & occupied & position.occupied
    steps = []
    if extra:
        one = not extra & (extra - 1)
        steps.append(prompt("take_off_one" if one else "take_off_many", lang, where=squares_text(extra, lang)))
    if lift:
        steps.append(prompt("lift_lit", lang, where=squares_text(lift, lang),
                            guide=guide or prompt("in_its_place", lang)))
    if missing:
        one = not missing & (missing - 1)
        how = f" {guide}" if guide and missing & _FIRST_RANKS else ""    # only the first ranks have an order to follow
        steps.append(prompt("put_one" if one else "put_many", lang, where=squares_text(missing, lang), how=how))
    if not steps:
        return head
    return prompt("setup_steps", lang, head=head,
                  steps=reduce(lambda first, next_: prompt("then", lang, first=first, next=next_), steps))


def refused_text(who: str, move: Move, reason: str, lang: str = FALLBACK, before: Position | None = None) -> str:
    """The other end refused a move of the board: "Lichess refused Nf3 (reason): put the pieces
    back as shown" / "Lichess a refusé Cf3 (reason) : remettez les pièces comme indiqué" (SAN
    when the position ``before`` it is known, else UCI; ``who`` "Lichess" or "" for another end)."""
    lang = _lang(lang)
    text = san(before, move, lang) if before is not None else move.uci()
    return prompt("refused", lang, who=who or prompt("other_end", lang), move=text, reason=reason)


def opponent_line(kind: str, name: str | None, sides: list[int], lang: str = FALLBACK) -> str:
    """Who plays off the board, for the page: "Stockfish 15.1 plays Black." / "Stockfish 15.1
    joue les Noirs."; online: "Online on Lichess: Mary plays White." / "En ligne sur Lichess :
    Mary joue les Blancs." (``kind``: "engine" or "lichess")."""
    lang = _lang(lang)
    who = name or ("Lichess" if kind == "lichess" else "Stockfish")
    played = _and([catalogue_of(lang).sides_played[s] for s in sorted(sides)], lang) if sides else ""
    if kind == "lichess":
        return prompt("online_plays", lang, who=who, sides=played) if sides else prompt("online", lang)
    return prompt("engine_plays", lang, who=who, sides=played) if sides else prompt("plays_no_side", lang, who=who)


def void_text(status: str, lang: str = FALLBACK) -> str:
    """The other end voided the game ("aborted" on Lichess): "The game was aborted at the other
    end: it does not count" / "La partie a été annulée à l'autre bout : elle ne compte pas"."""
    return prompt("void", lang, status=catalogue_of(lang).void_statuses.get(status, status))


def illegal_text(position: Position, occupied: int, lang: str = FALLBACK) -> str:
    """A problem: the board shows no legal move of the side to move; what to do about it."""
    lang = _lang(lang)
    hint = board_hint(position, occupied, lang) or prompt("as_shown", lang)
    return prompt("illegal", lang, side=catalogue_of(lang).sides[position.turn], hint=_lower_first(hint))


def paused_text(hint: str, lang: str = FALLBACK) -> str:
    """The board changed while the clock is paused: "Clock paused: put the pawn on e5 back on e7,
    then resume the clock to play on" / "Pendule arrêtée : remettez le pion de e5 en e7, puis..."."""
    return prompt("clock_paused_put_back", lang, hint=_lower_first(hint))


# A value of a refusal's template: the same in every language (a square, a number, a name), or
# given by language (a side, a SAN, an outcome).
Value = Union[str, int, Callable[[str], str]]


def in_english(detail: str, otherwise: str = "") -> Callable[[str], str]:
    """A refusal's value that is a machine's English (an exception's message from a part without
    words: the rules' parsers, the configuration): the English quotes it; another language shows
    ``otherwise`` (what it names, or nothing), its template saying in its own words what is wrong."""
    return lambda lang: detail if _lang(lang) == FALLBACK else otherwise


def refusal(key: str, lang: str = FALLBACK, /, **values: Value) -> str:
    """The refusal ``key`` of ``lang`` with ``values`` filled in (a callable value called with the language)."""
    lang = _lang(lang)
    filled = {name: value(lang) if callable(value) else value for name, value in values.items()}
    return catalogue_of(lang).refusals[key].format(**filled)


class Refusal(Exception):
    """A command that cannot be carried out now, in a player's words: ``key`` names its template in
    every catalogue's ``refusals``, ``values`` fill it in. ``str()`` is the English (the journal,
    the answer's "error"); ``text(lang)`` any language's (the answer's "error_fr")."""

    def __init__(self, key: str, /, **values: Value) -> None:
        self.key = key
        self.values = values
        super().__init__(refusal(key, FALLBACK, **values))   # (an unknown key fails here, at once)

    def text(self, lang: str) -> str:
        return refusal(self.key, lang, **self.values)

    def without(self, secret: str) -> "Refusal":
        """The same refusal with ``secret`` (a token a value might quote) written ``<token>``."""
        return type(self)(self.key, **{name: value.replace(secret, "<token>") if isinstance(value, str) else value
                                       for name, value in self.values.items()})


def draw_offers_from(from_move: int, move: int, lang: str = FALLBACK) -> str:
    """Why a draw may not be offered yet: "Draw offers are allowed from move 20 on (this is move
    12): play on." / "La nulle se propose à partir du coup 20 (c’est le coup 12) : jouez."."""
    return prompt("draw_offers_from", lang, from_move=from_move, move=move)


__all__ = ["CATALOGUES", "LANGS", "FALLBACK", "DEFAULT_NAMES", "PAGE", "LED_ROLES", "PIECES", "SIDES", "catalogue_of", "prompt", "piece_name",
           "side_to_move", "opponent_plays", "outcome_text", "takeback_text", "put_back", "remove", "board_hint",
           "squares_text", "setup_text", "refused_text", "opponent_line", "void_text", "illegal_text",
           "draw_offers_from", "paused_text", "refusal", "Refusal", "Value", "player_name", "in_english"]
