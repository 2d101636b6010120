"""What the board says to players, chosen as messages (a template's key and its values) that any language's catalogue fills in.

The words are in the catalogues (``en.py``, ``fr.py``...); here is only what to say: which
template, with what in it (:mod:`firmware.words.message`: a side, a piece, a SAN...). A
message is said in a language by ``render`` (or ``Message.text(lang)``); ``lang`` anywhere here
is a catalogue's code, and a language without a catalogue reads as English.
"""
from __future__ import annotations

from chess_core import PAWN, Move, Outcome, Position, Termination, san
from chess_core.squares import SQUARE_NAMES

from .message import (And, Ended, English, Lower, Message, Piece, San, Side, SidePlayed, Steps, Then, Value, VoidStatus,
                      render, replaced)
from .catalogues import CATALOGUES, DEFAULT_NAMES, ENGLISH, FALLBACK, LANGS, catalogue_of


# The catalogues' sections by language, as the page (GET /api/words) and the session read them.
PAGE = {lang: c.page for lang, c in CATALOGUES.items()}
LED_ROLES = {lang: c.leds for lang, c in CATALOGUES.items()}
PIECES = {lang: c.pieces for lang, c in CATALOGUES.items()}
SIDES = {lang: c.sides for lang, c in CATALOGUES.items()}

_FIRST_RANKS = 0xFF000000000000FF


def prompt(key: str, lang: str = FALLBACK, **values: object) -> str:
    """The template ``key`` of ``lang``'s prompts with ``values`` filled in (as they are)."""
    return catalogue_of(lang).prompts[key].format(**values)


def piece_name(piece_type: int, lang: str = FALLBACK, *, article: bool = True) -> str:
    """"the knight" / "le cavalier" ("la tour")."""
    words = catalogue_of(lang)
    return words.the_pieces[piece_type] if article else words.pieces[piece_type]


def side_to_move(side: int, check: bool = False) -> Message:
    """"White to move (check)" / "Trait aux Blancs (échec)"."""
    return Message.of("to_move_check" if check else "to_move", side=Side(side))


def player_name(name: str, side: int, lang: str = FALLBACK) -> str:
    """A player's name as ``lang`` shows it: a side's default name, the side itself in English
    ("White" playing White, as the PGN keeps it), reads as that side in ``lang`` ("Blancs");
    any other name stays as the players gave it."""
    return catalogue_of(lang).sides[side] if name == DEFAULT_NAMES[side] else name


def player(name: str, side: int) -> Value:
    """A player's name as a message's value: a side's default name says the side in each language."""
    return Side(side) if name == DEFAULT_NAMES[side] else name


def opponent_plays(position: Position, move: Move, who: str) -> Message:
    """"Black to move: Stockfish plays Nf6" / "Trait aux Noirs : Stockfish joue Cf6"."""
    return Message.of("opponent_plays", to_move=side_to_move(position.turn), who=who, san=San(san(position, move)))


def outcome_text(outcome: Outcome) -> Message:
    """"Black wins by checkmate" / "Les Noirs gagnent par mat"; "Draw by stalemate" / "Nulle par pat"."""
    reason = Ended(outcome.termination.value)
    if outcome.winner is None:
        return Message.of("draw_by", reason=reason)
    if outcome.termination is Termination.TIME_FORFEIT:
        return Message.of("wins_on_time", side=Side(outcome.winner))
    return Message.of("wins_by", side=Side(outcome.winner), reason=reason)


def takeback_text(before: Position, move: Move) -> Message:
    """"Take back Nf3: put the knight back on g1" / "Reprenez Cf3 : remettez le cavalier en g1"."""
    piece = before.piece_at(move.from_square)
    back = put_back(piece.piece_type if piece else PAWN, move.from_square)
    return Message.of("takeback", san=San(san(before, move)), put_back=Lower(back))


def put_back(piece_type: int, square: int) -> Message:
    """"Put the knight back on g1" / "Remettez le cavalier en g1"."""
    return Message.of("put_back", piece=Piece(piece_type), square=SQUARE_NAMES[square])


def remove(piece_type: int | None, square: int) -> Message:
    """"Remove the knight on g1" / "Retirez le cavalier de g1"; with no type, "the piece"."""
    if piece_type is None:
        return Message.of("remove_any", square=SQUARE_NAMES[square])
    return Message.of("remove_piece", piece=Piece(piece_type), square=SQUARE_NAMES[square])


def _bb(square: int) -> int:
    return 1 << square


def board_hint(position: Position, occupied: int) -> Message | None:
    """What to do when the board (``occupied``) does not show ``position``: a castling or an en
    passant capture half done, else the first pieces to put back or remove. None: it shows it."""
    if occupied == position.occupied:
        return None
    for move in position.legal_moves():
        if position.is_castling(move):
            king_from, king_to, rook_from, rook_to = position.castling_squares(move)
            king_done = position.occupied & ~_bb(king_from) | _bb(king_to)
            if occupied == king_done and king_from != king_to:
                return Message.of("castle_rook", rook_from=SQUARE_NAMES[rook_from], rook_to=SQUARE_NAMES[rook_to])
        elif position.is_en_passant(move):
            victim = move.to_square - 8 if position.turn == 0 else move.to_square + 8
            mover_done = position.occupied & ~_bb(move.from_square) | _bb(move.to_square)
            if occupied == mover_done:
                return Message.of("en_passant", remove=remove(PAWN, victim))
    steps: list[Value] = []
    missing = position.occupied & ~occupied
    extra = occupied & ~position.occupied
    if missing and extra and not missing & (missing - 1) and not extra & (extra - 1):   # one piece misplaced
        home, there = missing.bit_length() - 1, extra.bit_length() - 1
        piece = position.piece_at(home)
        assert piece is not None   # ``missing`` is a square of the position's
        return Message.of("misplaced", piece=Piece(piece.piece_type), there=SQUARE_NAMES[there],
                          home=SQUARE_NAMES[home])
    for square in range(64):
        if missing & _bb(square):
            piece = position.piece_at(square)
            assert piece is not None
            steps.append(put_back(piece.piece_type, square))
    if extra & (extra - 1):   # several pieces to take off: one step, their squares together
        steps.append(Message.of("remove_pieces", squares=squares_text(extra)))
    elif extra:
        steps.append(remove(None, extra.bit_length() - 1))
    if not steps:
        return None
    return Message.of("steps", steps=Steps(tuple(steps[:3]), len(steps) - len(steps[:3])))


def _and(items: list[Value]) -> Value:
    """"a1, c1 and f1" / "a1, c1 et f1"."""
    return items[0] if len(items) == 1 else And(tuple(items))


def squares_text(bb: int) -> Value:
    """Squares as a player says them: "every square", "ranks 1, 2, 7 and 8", "the a-file",
    "a1, c1 and f1" (French: "toutes les cases", "les rangées 1, 2, 7 et 8", "la colonne a")."""
    full = (1 << 64) - 1
    if bb & full == full:
        return Message.of("every_square")
    ranks = [r for r in range(8) if bb >> (8 * r) & 0xFF == 0xFF]
    for r in ranks:
        bb &= ~(0xFF << (8 * r))
    column = 0x0101010101010101
    files = [f for f in range(8) if bb & (column << f) == column << f]
    for f in files:
        bb &= ~(column << f)
    parts: list[Value] = []
    if ranks:
        parts.append(Message.of("rank" if len(ranks) == 1 else "ranks", numbers=_and([str(r + 1) for r in ranks])))
    if files:
        parts.append(Message.of("file" if len(files) == 1 else "files",
                                letters=_and([SQUARE_NAMES[f][0] for f in files])))
    singles: list[Value] = [SQUARE_NAMES[sq] for sq in range(64) if bb >> sq & 1]
    if len(singles) > 10:
        singles = singles[:8] + [Message.of("n_more", n=len(singles) - 8)]
    parts += singles
    return _and(parts) if parts else ""


def _first_rank(position: Position) -> San:
    """White's first rank as FEN writes it (R N B Q K), said in the language's piece letters."""
    return San(position.fen().split("/")[7].split()[0])


def setup_text(position: Position, occupied: int, wrong: int, *, number: int | None = None) -> Message:
    """What to do before a game starts from ``position`` with the board showing ``occupied`` and the
    squares ``wrong`` lit to put right: the position (a Chess960 one by ``number`` and its first rank in the chosen
    letters), then the next steps: pieces to take off, squares to fill, and the pieces to lift and
    set anew (sensors that see no piece types cannot tell a rearranged first rank)."""
    guide: Message | None
    if number is not None:
        head = Message.of("setup_960_number", number=number, rank=_first_rank(position))
        guide = Message.of("guide_first_rank")
    elif position.chess960:
        head, guide = Message.of("setup_960"), Message.of("guide_shown")
    else:
        head, guide = Message.of("setup"), None   # the usual start position: everyone knows it
    extra = wrong & occupied & ~position.occupied
    missing = wrong & position.occupied & ~occupied
    lift = wrong & occupied & position.occupied
    steps: list[Value] = []
    if extra:
        one = not extra & (extra - 1)
        steps.append(Message.of("take_off_one" if one else "take_off_many", where=squares_text(extra)))
    if lift:
        steps.append(Message.of("lift_lit", where=squares_text(lift), guide=guide or Message.of("in_its_place")))
    if missing:
        one = not missing & (missing - 1)
        how: Value = Message.of("space_before", text=guide) if guide and missing & _FIRST_RANKS else ""
        steps.append(Message.of("put_one" if one else "put_many", where=squares_text(missing), how=how))
    if not steps:
        return head
    return Message.of("setup_steps", head=head, steps=Then(tuple(steps)))


def setup_step(piece: str, source: int | None, target: int | None, *, in_hand: bool = False) -> Message:
    """One step of a position set up by hand (``piece``: its FEN letter, "?" for one the board
    never saw placed; None: the box): "white knight g1 → f3", "a black pawn from the box to d5",
    "the white bishop c1 to the box"."""
    if piece == "?" and source is not None:
        return Message.of("setup_unknown_to_box", source=SQUARE_NAMES[source])
    man = f"{'w' if piece.isupper() else 'b'}{piece.lower()}"
    if source is None and target is not None:
        return Message.of("setup_from_hand" if in_hand else "setup_from_box", man=Message.of(f"man_{'the' if in_hand else 'a'}_{man}"),
                          target=SQUARE_NAMES[target])
    if target is None and source is not None:
        return Message.of("setup_to_box", man=Message.of(f"man_the_{man}"), source=SQUARE_NAMES[source])
    if source is None or target is None:
        raise ValueError("a step goes from a square or the box to a square or the box")
    return Message.of("setup_move", man=Message.of(f"man_bare_{man}"), source=SQUARE_NAMES[source],
                      target=SQUARE_NAMES[target])


def refused_text(who: str, move: Move, reason: str, before: Position | None = None) -> Message:
    """The other end refused a move of the board: "Lichess refused Nf3 (reason): put the pieces
    back as shown" / "Lichess a refusé Cf3 (reason) : remettez les pièces comme indiqué" (SAN
    when the position ``before`` it is known, else UCI; ``who`` "Lichess" or "" for another end)."""
    said: Value = San(san(before, move)) if before is not None else move.uci()
    return Message.of("refused", who=who or Message.of("other_end"), move=said, reason=reason)


def opponent_line(kind: str, name: str | None, sides: list[int]) -> Message:
    """Who plays off the board, for the page: "Stockfish 15.1 plays Black." / "Stockfish 15.1
    joue les Noirs."; online: "Online on Lichess: Mary plays White." / "En ligne sur Lichess :
    Mary joue les Blancs." (``kind``: "engine" or "lichess")."""
    who = name or ("Lichess" if kind == "lichess" else "Stockfish")
    played = _and([SidePlayed(s) for s in sorted(sides)]) if sides else ""
    if kind == "lichess":
        return Message.of("online_plays", who=who, sides=played) if sides else Message.of("online")
    return Message.of("engine_plays", who=who, sides=played) if sides else Message.of("plays_no_side", who=who)


def void_text(status: str) -> Message:
    """The other end voided the game ("aborted" on Lichess): "The game was aborted at the other
    end: it does not count" / "La partie a été annulée à l'autre bout : elle ne compte pas"."""
    return Message.of("void", status=VoidStatus(status))


def illegal_text(position: Position, occupied: int) -> Message:
    """A problem: the board shows no legal move of the side to move; what to do about it."""
    hint = board_hint(position, occupied) or Message.of("as_shown")
    return Message.of("illegal", side=Side(position.turn), hint=Lower(hint))


def paused_text(hint: Value) -> Message:
    """The board changed while the clock is paused: "Clock paused: put the pawn on e5 back on e7,
    then resume the clock to play on" / "Pendule arrêtée : remettez le pion de e5 en e7, puis..."."""
    return Message.of("clock_paused_put_back", hint=Lower(hint))


def in_english(detail: str, otherwise: str = "") -> English:
    """A refusal's value that is a machine's English (an exception's message from a part without
    words: the rules' parsers, the configuration): the English quotes it; another language shows
    ``otherwise`` (what it names, or nothing), its template saying in its own words what is wrong."""
    return English(detail, otherwise)


def refusal(key: str, lang: str = FALLBACK, /, **values: Value) -> str:
    """The refusal ``key`` of ``lang`` with ``values`` filled in."""
    return render(Message(key, tuple(values.items()), "refusals"), lang)


class Refusal(Exception):
    """A command that cannot be carried out now, in a player's words: ``key`` names its template in
    every catalogue's ``refusals``, ``values`` fill it in. ``str()`` is the English (the journal,
    the answer's "error"); ``message`` the words to fill in in any language (the answer's
    "message"); ``text(lang)`` any language's."""

    def __init__(self, key: str, /, **values: Value) -> None:
        self.key = key
        self.values = values
        super().__init__(refusal(key, FALLBACK, **values))   # (an unknown key fails here, at once)

    @property
    def message(self) -> Message:
        return Message(self.key, tuple(self.values.items()), "refusals")

    def text(self, lang: str) -> str:
        return render(self.message, lang)

    def without(self, secret: str) -> "Refusal":
        """The same refusal with ``secret`` (a token a value might quote) written ``<token>``."""
        return type(self)(self.key, **{name: replaced(value, secret, "<token>") for name, value in self.values.items()})


def draw_offers_from(from_move: int, move: int) -> Message:
    """Why a draw may not be offered yet: "Draw offers are allowed from move 20 on (this is move
    12): play on." / "La nulle se propose à partir du coup 20 (c’est le coup 12) : jouez."."""
    return Message.of("draw_offers_from", from_move=from_move, move=move)


__all__ = ["CATALOGUES", "LANGS", "FALLBACK", "DEFAULT_NAMES", "PAGE", "LED_ROLES", "PIECES", "SIDES", "catalogue_of", "prompt", "piece_name",
           "side_to_move", "opponent_plays", "outcome_text", "takeback_text", "put_back", "remove", "board_hint",
           "squares_text", "setup_text", "refused_text", "opponent_line", "void_text", "illegal_text",
           "draw_offers_from", "paused_text", "refusal", "Refusal", "Value", "player_name", "player", "in_english", "Message", "render"]
