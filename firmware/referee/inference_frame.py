"""Move shapes and frames for the move inference: how each legal move looks to occupancy sensors.

A *shape* is one legal move seen by the sensors: the squares it empties (``src``: the mover, the
castling rook, the en-passant victim), the empty squares it fills (``dst``), the square whose
occupant it replaces (``cap``, a normal capture), the squares a sliding hand may rest on on
the way (``path``) and the occupancy (and colours) it leaves behind (``after``).

A *frame* follows the settled readings from one base position (the position a player is
moving from) and classifies each against the base's shapes:

* STABLE: the board shows the base position;
* COMPLETE: the board shows the position after one move, and the lifts seen on the way
  account for it (a capture needs its victim's square to have been emptied and filled again
  after the mover was lifted, or, on a colour-sensing board, the mover's colour there);
* SWEPT: the board shows a capture's result but its victim's square never read empty, which
  on occupancy alone looks exactly like the mover still held in the hand;
* PARTIAL: pieces in hand, or resting on the way, consistent with some move(s); or only
  pieces of the side to move lifted, even pieces that cannot move (a hesitation);
* NONE: no legal move explains the board.

Chess960 castling may leave a piece where it stood or put each on the other's square, so its
end state can look like a king or rook move, or like no change at all. Such a castling shape
``needs`` the squares of the pieces that end where a piece began to have been seen empty (the
king lifted, the rook lifted) when a king or rook move leaves the same board: then it is
COMPLETE, and preferred to that move; before that it is PARTIAL. A king and rook that swap
squares read as castling when both were lifted since the board last showed the base position.

A frame may be *blind* on some squares (``blind``: sensors found dead or stuck, see
:mod:`firmware.referee.sensor_watch`): their readings are ignored, and a move is read from the
other squares. A move onto a blind square (or a capture there) never shows its landing, so it
reads as SWEPT: like a piece still in the hand until the opponent starts or the time runs out.

The frame remembers which squares were seen empty (``lifted``) and when each square last
emptied and filled, because the end state of a capture (the mover's square empty) is the same
as a piece in the hand: only the history tells them apart.
"""
from __future__ import annotations

import enum
from collections.abc import Sequence

from chess_core import Move, Position
from chess_core.move import FLAG_CASTLE, FLAG_EN_PASSANT
from chess_core.squares import BETWEEN, BISHOP, PAWN, QUEEN, ROOK, WHITE

# Shape kinds.
QUIET, CAPTURE, EN_PASSANT, CASTLE = range(4)
FULL = (1 << 64) - 1  # every square
_SLIDERS = (BISHOP, ROOK, QUEEN)


class Fit(enum.Enum):
    """How a reading fits a frame (see the module docstring)."""

    STABLE = "stable"
    COMPLETE = "complete"
    SWEPT = "swept"
    PARTIAL = "partial"
    NONE = "none"


class Shape:
    """One legal move as the sensors see it; promotions have one shape per square pair."""

    __slots__ = ("code", "move", "kind", "piece", "frm", "to", "src", "dst", "cap", "victims", "path", "after",
                 "after_white", "after_black", "lifts", "needs")

    def __init__(self, pos: Position, code: int) -> None:
        self.code = code  # the generator's code of the move (a queen for a promotion)
        frm, to, flag = code & 63, (code >> 6) & 63, code >> 15
        us = pos.turn
        own, their = pos.bb_color[us], pos.bb_color[us ^ 1]
        self.piece = pos.board[frm] & 7
        self.frm, self.to = frm, to
        self.move = Move(frm, to, QUEEN if (code >> 12) & 7 else None)
        fb, tb = 1 << frm, 1 << to
        cap = victims = path = needs = 0
        lifts = None
        if flag == FLAG_CASTLE:
            kf, kt, rf, rt = pos.castling_squares(self.move)
            self.kind = CASTLE
            before, after = 1 << kf | 1 << rf, 1 << kt | 1 << rt
            src, dst = before & ~after, after & ~before
            path = BETWEEN[kf][kt] | BETWEEN[rf][rt]
            lifts = before  # both pieces may be in the hand, even one that ends where it began
            # Chess960: a piece ending where one of the two began must have been lifted (a rook
            # that stays need not: the king's move alone is no other legal move).
            needs = before & after & ~(1 << rf if rf == rt else 0)
        elif flag == FLAG_EN_PASSANT:
            self.kind = EN_PASSANT
            victims = 1 << (to - 8 if us == WHITE else to + 8)
            src, dst = fb | victims, tb
        else:
            src = fb
            if tb & their:
                self.kind, cap, victims, dst = CAPTURE, tb, tb, 0
            else:
                self.kind, dst = QUIET, tb
            if self.piece in _SLIDERS or (self.piece == PAWN and abs(to - frm) == 16):
                path = BETWEEN[frm][to]
        self.src, self.dst, self.cap, self.victims, self.path = src, dst, cap, victims, path
        self.lifts = src if lifts is None else lifts  # the squares this move may leave empty on the way
        self.needs = needs
        after_own = (own & ~src) | dst | cap
        after_their = their & ~victims
        self.after = after_own | after_their
        if us == WHITE:
            self.after_white, self.after_black = after_own, after_their
        else:
            self.after_white, self.after_black = after_their, after_own

    def __repr__(self) -> str:
        return f"<Shape {self.move.uci()}>"

    def play(self, pos: Position, promotion: int | None = None) -> Position:
        """A copy of ``pos`` (this shape's base) after the move, promoting to ``promotion``."""
        after = pos.copy(stack=True)
        code = self.code
        if promotion:
            code = (code & ~(7 << 12)) | promotion << 12
        after.make(code)
        return after


def build_shapes(pos: Position, allowed: Move | None = None) -> list[Shape]:
    """The shapes of the legal moves of ``pos`` (only ``allowed``'s squares, if given)."""
    shapes = []
    for code in pos.legal_codes():
        promo = (code >> 12) & 7
        if promo and promo != QUEEN:
            continue
        if allowed is not None and (allowed.from_square != code & 63 or allowed.to_square != (code >> 6) & 63):
            continue
        shapes.append(Shape(pos, code))
    if pos.chess960:
        # A castling that leaves the board as no other move does needs no particular lift (the
        # rook over a king that stays); one that looks like no change at all does.
        others = {s.after for s in shapes if s.kind != CASTLE}
        for s in shapes:
            if s.needs and s.src and s.after not in others:
                s.needs = 0
    return shapes


class Evaluation:
    """A reading classified against a frame: the fit and the shapes behind it."""

    __slots__ = ("fit", "complete", "swept", "partial")

    def __init__(self, fit: Fit, complete: Sequence[Shape] = (), swept: Sequence[Shape] = (),
                 partial: Sequence[Shape] = ()) -> None:
        self.fit = fit
        self.complete = complete
        self.swept = swept
        self.partial = partial

    @property
    def consistent(self) -> bool:
        return self.fit is not Fit.NONE

    def shapes(self) -> list[Shape]:
        return [*self.complete, *self.swept, *self.partial]

    def __repr__(self) -> str:
        return f"<Evaluation {self.fit.value} complete={self.complete} swept={self.swept} partial={self.partial}>"


class Frame:
    """Settled readings followed from a base position; see the module docstring."""

    __slots__ = ("pos", "occ", "white", "black", "us", "to_move", "allowed", "_shapes", "lifted", "prev", "seq",
                 "emptied", "filled", "first_lift", "blind", "keep")

    def __init__(self, pos: Position, allowed: Move | None = None, blind: int = 0) -> None:
        self.pos = pos
        self.blind = blind         # squares whose sensor is not trusted: their readings are ignored
        self.keep = ~blind & FULL  # the others
        self.white, self.black = pos.bb_color[0], pos.bb_color[1]
        self.occ = self.white | self.black
        self.us = pos.turn
        self.to_move = pos.bb_color[pos.turn]  # the pieces of the side to move
        self.allowed = allowed
        self._shapes: list[Shape] | None = None
        self.reset()

    @property
    def shapes(self) -> list[Shape]:
        """The legal moves' shapes, built when first needed (many frames are dropped unused)."""
        if self._shapes is None:
            self._shapes = build_shapes(self.pos, self.allowed)
        return self._shapes

    def reset(self) -> None:
        """Forget the history: the board is taken to show the base position now."""
        self.lifted = 0          # base squares seen empty
        self.prev = self.occ     # the last reading's occupancy
        self.seq = 0             # a counter of changes, to order the events below
        self.emptied: dict[int, int] = {}  # square -> seq when it last went empty
        self.filled: dict[int, int] = {}   # square -> seq when it last filled
        self.first_lift: int | None = None  # the first piece of the side to move that was lifted

    def update(self, occ: int) -> None:
        """Take one more settled reading into the history."""
        changed = (self.prev ^ occ) & self.keep
        if not changed:
            return
        self.seq += 1
        seq = self.seq
        while changed:
            low = changed & -changed
            changed ^= low
            sq = low.bit_length() - 1
            if occ & low:
                self.filled[sq] = seq
            else:
                self.emptied[sq] = seq
        gone = self.occ & ~occ & self.keep
        if self.first_lift is None and gone & self.to_move:
            low = gone & self.to_move
            self.first_lift = (low & -low).bit_length() - 1
        self.lifted |= gone
        self.prev = occ

    def slid_to(self, s: Shape) -> bool:
        """Was every square on the way of ``s`` (a line with at least one) filled since the
        board was last as expected, i.e. the piece slid all the way toward ``s.to``?"""
        path = s.path
        if not path or s.frm not in self.emptied:
            return False
        filled = self.filled
        while path:
            low = path & -path
            path ^= low
            if low.bit_length() - 1 not in filled:
                return False
        return True

    def started(self) -> int:
        """The pieces of the side to move lifted so far (that side has begun a move)."""
        return self.lifted & self.to_move

    def evaluate(self, occ: int, white: int | None = None, black: int | None = None) -> Evaluation:
        """Classify the reading ``occ`` (with colours, if sensed) given the history so far."""
        keep = self.keep
        if not (occ ^ self.occ) & keep and (white is None or black is None
                                              or not ((white ^ self.white) | (black ^ self.black)) & keep):
            if self.lifted & (self.lifted - 1) and self.pos.chess960:
                swaps = [s for s in self.shapes if s.kind == CASTLE and not s.src and not s.needs & ~self.lifted]
                if swaps:
                    return Evaluation(Fit.COMPLETE, swaps)  # king and rook swapped squares
            if self.blind and self.lifted:
                # A capture from a blind square: its victim's square emptied, then filled again
                # (the mover set down there), nothing else to see. Like a swept capture, only
                # the time or the opponent's start tells it from a piece adjusted.
                hidden = [s for s in self.shapes if s.cap and s.src & self.blind and self.lifted & s.cap
                          and self.filled.get(s.to, -1) > self.emptied.get(s.to, 1 << 62)]
                if hidden:
                    return Evaluation(Fit.SWEPT, (), hidden, ())
            return Evaluation(Fit.STABLE)
        gone = self.occ & ~occ & keep
        new = occ & ~self.occ & keep
        blind = self.blind
        if white is not None and black is not None:
            coloured = True
            recoloured = ((white & self.black) | (black & self.white)) & keep
            new_wrong = new & (black if self.us == WHITE else white)
        else:
            coloured = False
            recoloured = new_wrong = 0
        complete: list[Shape] = []
        swept: list[Shape] = []
        partial: list[Shape] = []
        lifted, emptied, filled = self.lifted, self.emptied, self.filled
        for s in self.shapes:
            if not (occ ^ s.after) & keep and not s.needs & ~lifted & keep:
                if (s.dst | s.cap) & blind:
                    swept.append(s)   # its landing unseen: like the piece still in the hand
                    continue
                if white is not None and black is not None:
                    if not ((white ^ s.after_white) | (black ^ s.after_black)) & keep:
                        complete.append(s)
                        continue
                elif not s.cap:
                    complete.append(s)
                    continue
                elif lifted & s.cap and filled.get(s.to, -1) >= emptied.get(s.to if s.src & blind else s.frm, 1 << 62):
                    complete.append(s)
                    continue
                else:
                    swept.append(s)
                    continue
            if gone & ~(s.lifts | s.cap) or new & ~(s.dst | s.path):
                continue
            if new and new.bit_count() > (gone & s.lifts).bit_count():
                continue  # every piece set down must have been lifted
            if coloured and (new_wrong or recoloured & ~s.cap):
                continue
            partial.append(s)
        if complete:
            if len(complete) > 1:  # Chess960 castling that ends as a king or rook move would
                castles = [s for s in complete if s.needs]
                complete = castles or complete
            return Evaluation(Fit.COMPLETE, complete, swept, partial)
        if swept:
            return Evaluation(Fit.SWEPT, complete, swept, partial)
        if partial or (not new and not gone & ~self.to_move and not recoloured):
            return Evaluation(Fit.PARTIAL, complete, swept, partial)  # (or pieces that cannot move, in hand)
        return Evaluation(Fit.NONE)
