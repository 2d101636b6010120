"""Human-like hands on a sensor board: turns games into raw captures (format v1), for tests and benches.

``capture_game(moves, seed=...)`` plays a game (UCI moves) with simulated hands and returns a
:class:`Capture`: its lines, the moves, and which physical patterns were used. For every move
the hands pick at random among the patterns that apply:

* quiet moves carried through the air, or slid over the squares on the way (sliders, and pawns
  going two squares), sometimes with a long pause mid-slide (then the move is amended);
* captures with the victim lifted first, the mover lifted first, or the victim swept off as the
  mover lands (its square never reads empty). When a swept capture is ambiguous on occupancy
  alone (several captures from that square), the hand reacts to the LEDs and touches the
  square it captured on;
* castling king first (placed, or slid over the square between), rook first (carried or slid),
  or both lifted before either is placed;
* en passant with the victim removed before or after the capturing pawn lands;
* promotion, with a ``promote`` line for under-promotions (and now and then for a queen), and
  most often the usual exchange after it (FIDE 3.7.5.3): the pawn set on the last rank, then
  lifted off and the new piece set down on that square, after a pause of 0.1 to 10 s, the square
  empty for 0.3 to 10 s (fetching the piece), sometimes straightened afterwards;
* hesitations: a piece lifted, held, put back, then the real move;
* amends: the piece set down on another square it could legally reach, then moved on;
* contact bounce: a few ms of flicker when a piece leaves or lands on a square;
* think times between 50 ms and a few seconds.

Optionally the board senses colours (``colour=True``): lines carry white and black bitboards,
and a swept capture shows as the square changing colour.

``random_game(seed)`` makes a legal game biased toward castling, en passant, promotions and
under-promotions. Both use python-chess (a test-only oracle), never the code under test.

:class:`Hand` is a hand for unit tests of the inference itself: it lifts and places pieces by
square name and feeds the *settled* readings straight to a ``MoveInference``.
"""
from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field

import chess

from chess_core import STARTING_FEN, Move, Position, parse_square
from firmware.referee.inference import MoveInference, Verdict, VerdictKind

# Timing (ms). The inference waits 200 ms before committing a move that could be extended,
# so a steady slide steps faster than that; longer pauses mid-slide are amends.
SLIDE_STEP = (30, 140)
CARRY = (120, 900)
THINK = (50, 3000)
BETWEEN_HANDS = (60, 1200)
BOUNCE_SPAN = 8  # flicker lasts at most this many ms
# Noise levels: contact bounce (probability, flickers, span in ms) and how often a piece just set
# down is re-seated (lifted and set down again on its square).
NOISE = {
    "clean": (0.0, 1, 1, 0.0),
    "bounce": (0.7, 3, BOUNCE_SPAN, 0.0),
    "rough": (1.0, 6, 25, 0.08),
}
HOLD = (3000, 20000)  # a piece held in the hand while its player thinks (ms)
# The promotion exchange: the pawn stands on the last rank this long, then its square stays empty
# this long while the new piece is fetched (ms); how often a promotion is exchanged at all.
EXCHANGE_PAUSE = (100, 10000)
EXCHANGE_FETCH = (300, 10000)
EXCHANGE_RATE = 0.75
TWO_HANDS = 100       # two-handed captures: victim and mover lifted within this many ms
# A hand does not take the piece the opponent has just set down sooner than this (the other
# hand is still leaving it): removing it as a victim waits at least REACT ms after it landed.
REACT = 300


@dataclass
class Capture:
    """A generated capture: the lines of the file and what it should replay to."""

    lines: list[str]
    moves: list[str]
    fen: str
    colour: bool
    patterns: Counter = field(default_factory=Counter)
    end_ms: int = 0
    per_move: list[set[str]] = field(default_factory=list)  # the patterns each move was played with

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _log_uniform(rng: random.Random, lo: float, hi: float) -> int:
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


class Hands:
    """Physical board state and the lines it produces as pieces are moved."""

    def __init__(self, rng: random.Random, *, colour: bool, bounce: bool, noise: str = "bounce") -> None:
        self.rng = rng
        self.colour = colour
        self.bounce = bounce and noise != "clean"
        self.noise = NOISE[noise if bounce else "clean"]
        self.t = 0
        self.white = 0
        self.black = 0
        self.lines: list[str] = []
        self._last = None

    # -- output ----------------------------------------------------------------------------

    def emit(self) -> None:
        # A scanner writes a line only when what it reads changes (occupancy alone: not a colour).
        state = (self.white, self.black) if self.colour else self.white | self.black
        if state == self._last:
            return
        self._last = state
        if self.colour:
            self.lines.append(f"{self.t} {self.white:016x} {self.black:016x}")
        else:
            self.lines.append(f"{self.t} {self.white | self.black:016x}")

    def wait(self, lo: float, hi: float) -> None:
        self.t += _log_uniform(self.rng, lo, hi)

    def promote(self, piece: str) -> None:
        self.lines.append(f"{self.t} promote {piece}")

    # -- contacts --------------------------------------------------------------------------

    def _set(self, sq: int, colour: bool | None) -> None:
        bit = 1 << sq
        self.white &= ~bit
        self.black &= ~bit
        if colour is chess.WHITE:
            self.white |= bit
        elif colour is chess.BLACK:
            self.black |= bit

    def contact(self, sq: int, colour: bool | None) -> None:
        """A piece of ``colour`` lands on ``sq`` (None: the piece on it leaves), with bounce."""
        before = chess.WHITE if self.white >> sq & 1 else chess.BLACK if self.black >> sq & 1 else None
        chance, flickers, span, _ = self.noise
        if self.bounce and self.rng.random() < chance:
            end = self.t + self.rng.randint(2, span)
            state = colour
            for _ in range(self.rng.randint(1, flickers)):
                self._set(sq, state)
                self.emit()
                self.t = min(end, self.t + self.rng.randint(1, 3))
                state = before if state == colour else colour
                self._set(sq, state)
                self.emit()
                self.t = min(end, self.t + self.rng.randint(1, 3))
            self.t = end
        self._set(sq, colour)
        self.emit()

    def swap(self, sq: int, colour: bool) -> None:
        """The piece on ``sq`` is swept off as a piece of ``colour`` lands: never reads empty."""
        self._set(sq, colour)
        self.emit()

    def setup(self, board: chess.Board) -> None:
        """Pieces set up on the board; sometimes the position is reached after a few misplacements."""
        final = (board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK])
        if self.rng.random() < 0.3:
            for _ in range(self.rng.randint(1, 4)):
                self.white = final[0] & self.rng.getrandbits(64)
                self.black = final[1] & self.rng.getrandbits(64)
                self.emit()
                self.wait(200, 2000)
        self.white, self.black = final
        self.emit()


def _path(frm: int, to: int) -> list[int]:
    """The squares strictly between ``frm`` and ``to`` on a line, in order."""
    return [sq for sq in chess.SquareSet(chess.between(frm, to))] if frm < to else \
        sorted(chess.SquareSet(chess.between(frm, to)), reverse=True)


class _Player:
    """Chooses and performs the physical pattern for each move."""

    def __init__(self, hands: Hands, rng: random.Random, *, amend_rate: float, hesitate_rate: float,
                 hold_rate: float = 0.0, touch_rate: float = 0.0, correct_rate: float = 0.0,
                 adjust_rate: float = 0.0) -> None:
        self.h = hands
        self.rng = rng
        self.amend_rate = amend_rate
        self.hesitate_rate = hesitate_rate
        self.hold_rate = hold_rate
        self.touch_rate = touch_rate
        self.correct_rate = correct_rate
        self.adjust_rate = adjust_rate
        self.patterns: Counter = Counter()
        self.per_move: list[set[str]] = []
        self.last_to: int | None = None  # where the previous move landed, and when
        self.last_time = 0

    def note(self, pattern: str) -> None:
        self.patterns[pattern] += 1
        self.per_move[-1].add(pattern)

    # -- building blocks -------------------------------------------------------------------

    def travel(self, board: chess.Board, frm: int, to: int, colour: bool, *, slide_ok: bool, swept: bool = False,
               long_pause: bool = False) -> None:
        """Take the piece from ``frm`` to ``to``: carried, or slid over the squares between."""
        h = self.h
        path = _path(frm, to) if slide_ok else []
        if path and self.rng.random() < 0.5:
            self.note("slide")
            squares = [frm, *path]
            pause_at = self.rng.randrange(1, len(squares)) if long_pause else None
            for i in range(1, len(squares)):
                self._step(squares[i - 1], squares[i], colour)
                if i == pause_at:
                    self.note("slide pause (amend)")
                    h.wait(400, 2500)
                else:
                    h.wait(*SLIDE_STEP)
            self._land(squares[-1], to, colour, swept)
            return
        h.contact(frm, None)
        h.wait(*CARRY)
        if swept:
            h.swap(to, colour)
        else:
            h.contact(to, colour)

    def _step(self, a: int, b: int, colour: bool) -> None:
        """Slide one square: ``a`` empties and ``b`` fills, a few ms apart in either order."""
        h = self.h
        if self.rng.random() < 0.5:
            h.contact(a, None)
            h.t += self.rng.randint(0, 6)
            h.contact(b, colour)
        else:
            h.contact(b, colour)
            h.t += self.rng.randint(0, 6)
            h.contact(a, None)

    def _land(self, a: int, to: int, colour: bool, swept: bool) -> None:
        h = self.h
        if swept:
            h.contact(a, None)
            h.t += self.rng.randint(0, 6)
            h.swap(to, colour)
        else:
            self._step(a, to, colour)

    @staticmethod
    def slides(board: chess.Board, move: chess.Move) -> bool:
        piece = board.piece_type_at(move.from_square)
        if piece in (chess.BISHOP, chess.ROOK, chess.QUEEN):
            return True
        return piece == chess.PAWN and abs(move.to_square - move.from_square) == 16

    # -- one move --------------------------------------------------------------------------

    def play(self, board: chess.Board, move: chess.Move) -> None:
        h = self.h
        rng = self.rng
        us = board.turn
        self.per_move.append(set())
        h.wait(*THINK)
        r = rng.random()
        if r < self.hesitate_rate:
            self.hesitate(board, move)
        elif r < self.hesitate_rate + self.touch_rate:
            self.touch_and_return(board)
        if rng.random() < self.correct_rate:
            self.correction(board, move)
        if rng.random() < self.hold_rate and not board.is_castling(move) and not move.promotion:
            self.held(board, move)
            self.last_to = move.to_square
            self.last_time = h.t
            return
        if move.promotion and (move.promotion != chess.QUEEN or rng.random() < 0.2):
            if rng.random() < 0.5:
                h.promote(chess.piece_symbol(move.promotion))
                choice_later = False
                if self.adjust_rate and rng.random() < self.adjust_rate:
                    self.adjust_other(board, move)
            else:
                choice_later = True
        else:
            choice_later = False
        if board.is_castling(move):
            self.castle(board, move)
        elif board.is_en_passant(move):
            self.en_passant(board, move)
        elif board.is_capture(move):
            self.capture(board, move, choice_later)
        else:
            self.quiet(board, move, choice_later)
        if move.promotion and rng.random() < EXCHANGE_RATE:
            self.exchange(board, move)
        self.last_to = move.to_square
        self.last_time = h.t
        del us
        castled960 = board.chess960 and board.is_castling(move)  # (its to_square is the rook's, now empty)
        if h.noise[3] and not castled960 and rng.random() < h.noise[3]:
            self.note("re-seated")  # the piece just set down is lifted and set down again
            h.wait(250, 600)
            h.contact(move.to_square, None)
            h.wait(30, 200)
            h.contact(move.to_square, board.turn)
            self.last_time = h.t

    def exchange(self, board: chess.Board, move: chess.Move) -> None:
        """The pawn just set on the last rank is exchanged on that square for the new piece: lifted
        off after a pause, the piece fetched, set down (its player's clock running or not)."""
        h = self.h
        pause = _log_uniform(self.rng, *EXCHANGE_PAUSE)
        fetch = _log_uniform(self.rng, *EXCHANGE_FETCH)
        self.note("promotion exchange")
        self.note("promotion exchange, after a capture" if board.is_capture(move) else "promotion exchange, quiet")
        if max(pause, fetch) >= 5000:
            self.note("promotion exchange, long pause")
        h.t += pause
        h.contact(move.to_square, None)
        h.t += fetch
        h.contact(move.to_square, board.turn)

    def held(self, board: chess.Board, move: chess.Move) -> None:
        """The mover lifted and held in the hand for seconds (its player thinking), then played."""
        h = self.h
        us = board.turn
        frm, to = move.from_square, move.to_square
        king = board.piece_type_at(frm) == chess.KING
        self.note("king held" if king else "piece held")
        h.contact(frm, None)
        h.wait(*HOLD)
        if board.is_en_passant(move):
            h.contact(to, us)
            h.wait(*BETWEEN_HANDS)
            h.contact(to + (-8 if us == chess.WHITE else 8), None)
        elif board.is_capture(move):
            h.contact(to, None)  # the victim taken off, then the piece in hand set down
            h.wait(*BETWEEN_HANDS)
            h.contact(to, us)
        else:
            h.contact(to, us)

    def touch_and_return(self, board: chess.Board) -> None:
        """A piece of the mover touched: lifted and set back on its square at once (one or two)."""
        h = self.h
        own = list(chess.SquareSet(board.occupied_co[board.turn]))
        self.note("touch and return")
        for sq in self.rng.sample(own, min(len(own), self.rng.randint(1, 2))):
            h.contact(sq, None)
            h.wait(60, 600)
            h.contact(sq, board.turn)
            h.wait(80, 600)

    def adjust_other(self, board: chess.Board, move: chess.Move) -> None:
        """After the promotion's piece is chosen, another piece of the mover (not the pawn) is
        straightened: lifted and set back on its square, before the pawn goes."""
        h = self.h
        pawns = {m.from_square for m in board.legal_moves if m.promotion}   # lifting one ends the choice
        own = [sq for sq in chess.SquareSet(board.occupied_co[board.turn]) if sq not in pawns]
        if not own:
            return
        self.note("adjusted after the promotion's choice")
        sq = self.rng.choice(own)
        h.wait(150, 1500)
        h.contact(sq, None)
        h.wait(60, 600)
        h.contact(sq, board.turn)
        h.wait(80, 600)

    def correction(self, board: chess.Board, move: chess.Move) -> None:
        """A wrong legal move made (the inference records it), then undone on the board before the
        real move: the piece back, the victim of a wrong capture back on its square."""
        h = self.h
        us = board.turn
        options = []
        for other in board.legal_moves:
            if other == move or board.is_castling(other) or board.is_en_passant(other) or other.promotion:
                continue
            board.push(other)
            ends = (board.is_checkmate() or board.is_stalemate() or board.is_insufficient_material()
                    or board.is_fivefold_repetition() or board.is_seventyfive_moves()
                    or board.can_claim_threefold_repetition())
            board.pop()
            if not ends:
                options.append(other)
        if not options:
            return
        wrong = self.rng.choice(options)
        frm, to = wrong.from_square, wrong.to_square
        victim = board.color_at(to)
        self.note("correction")
        if victim is not None:
            if to == self.last_to:
                h.t = max(h.t, self.last_time + REACT)
            h.contact(to, None)
            h.wait(*BETWEEN_HANDS)
        h.contact(frm, None)
        h.wait(*CARRY)
        h.contact(to, us)
        h.wait(400, 2500)   # then the player sees the mistake
        h.contact(to, None)
        h.wait(*CARRY)
        if victim is not None:
            h.contact(to, victim)
            h.wait(*BETWEEN_HANDS)
        h.contact(frm, us)
        h.wait(*BETWEEN_HANDS)

    def hesitate(self, board: chess.Board, move: chess.Move) -> None:
        """Lift a piece of the mover (often the one that will move), hold it, put it back."""
        h = self.h
        own = list(chess.SquareSet(board.occupied_co[board.turn]))
        sq = move.from_square if self.rng.random() < 0.6 else self.rng.choice(own)
        king = board.king(board.turn)
        if self.rng.random() < 0.25:
            sq = king  # holding the king while thinking: never a resignation
            self.note("king held and put back")
            hold = HOLD
        else:
            hold = (200, 2500)
        self.note("hesitation")
        h.contact(sq, None)
        h.wait(*hold)
        h.contact(sq, board.turn)
        h.wait(*BETWEEN_HANDS)

    def _maybe_choose(self, move: chess.Move, later: bool) -> None:
        if later:
            self.h.promote(chess.piece_symbol(move.promotion))

    def _amend_square(self, board: chess.Board, move: chess.Move) -> int | None:
        """Another square the mover could legally go to first, without ending the game."""
        options = []
        for other in board.legal_moves:
            if other.from_square != move.from_square or other.to_square == move.to_square:
                continue
            if board.is_capture(other) or board.is_castling(other) or other.promotion:
                continue
            board.push(other)
            ends = (board.is_checkmate() or board.is_stalemate() or board.is_insufficient_material()
                    or board.is_fivefold_repetition() or board.is_seventyfive_moves()
                    or board.can_claim_threefold_repetition())
            board.pop()
            if not ends:
                options.append(other.to_square)
        return self.rng.choice(options) if options else None

    def quiet(self, board: chess.Board, move: chess.Move, choose_later: bool) -> None:
        h = self.h
        us = board.turn
        frm, to = move.from_square, move.to_square
        slide = self.slides(board, move)
        if self.rng.random() < self.amend_rate and not move.promotion:
            first = self._amend_square(board, move)
            if first is not None:
                self.note("amend")
                h.contact(frm, None)
                h.wait(*CARRY)
                h.contact(first, us)
                h.wait(100, 2500)
                h.contact(first, None)
                h.wait(*CARRY)
                h.contact(to, us)
                self.note("quiet")
                return
        long_pause = slide and len(_path(frm, to)) >= 2 and self.rng.random() < self.amend_rate
        self.note("promotion" if move.promotion else "quiet")
        if choose_later:
            h.contact(frm, None)
            h.wait(*CARRY)
            self._maybe_choose(move, True)
            h.wait(50, 300)
            h.contact(to, us)
            return
        self.travel(board, frm, to, us, slide_ok=slide, long_pause=long_pause)

    def capture(self, board: chess.Board, move: chess.Move, choose_later: bool) -> None:
        h = self.h
        rng = self.rng
        us = board.turn
        frm, to = move.from_square, move.to_square
        slide = self.slides(board, move)
        captures_here = {m.to_square for m in board.legal_moves
                         if m.from_square == frm and board.is_capture(m) and not board.is_en_passant(m)}
        style = rng.choice(("victim first", "mover first", "swept", "mover first, slid", "two hands"))
        if style == "mover first, slid" and not (slide and _path(frm, to)):
            style = "mover first"
        if style.startswith("mover first") and len(captures_here) > 1:
            self.note("mover first, another capture available")
        if move.promotion:
            self.note("promotion")
        if style == "victim first":
            if to == self.last_to:
                h.t = max(h.t, self.last_time + REACT)
            h.contact(to, None)
            h.wait(*BETWEEN_HANDS)
            self._maybe_choose(move, choose_later)
            self.travel(board, frm, to, us, slide_ok=slide)
        elif style == "mover first":
            h.contact(frm, None)
            h.wait(*CARRY)
            h.contact(to, None)
            h.wait(*BETWEEN_HANDS)
            self._maybe_choose(move, choose_later)
            h.contact(to, us)
        elif style == "mover first, slid":
            # The mover lifted, the victim taken off with the other hand, then the mover set down
            # on the line and slid to the victim's square.
            path = _path(frm, to)
            h.contact(frm, None)
            h.wait(100, 200)
            h.contact(to, None)
            h.wait(60, 400)
            self._maybe_choose(move, choose_later)
            start = rng.randrange(len(path))
            h.contact(path[start], us)
            h.wait(*SLIDE_STEP)
            squares = path[start:] + [to]
            for i in range(1, len(squares)):
                self._step(squares[i - 1], squares[i], us)
                if i < len(squares) - 1:
                    h.wait(*SLIDE_STEP)
        elif style == "two hands":
            # Both pieces lifted at once (within TWO_HANDS ms, either first), the mover set down.
            first, second = (frm, to) if rng.random() < 0.5 else (to, frm)
            if to == self.last_to:
                h.t = max(h.t, self.last_time + REACT)
            h.contact(first, None)
            h.t += rng.randint(0, TWO_HANDS)
            h.contact(second, None)
            h.wait(*CARRY)
            self._maybe_choose(move, choose_later)
            h.contact(to, us)
        else:
            self._maybe_choose(move, choose_later)
            self.travel(board, frm, to, us, slide_ok=slide, swept=True)
            if not self.h.colour and len(captures_here) > 1:
                # The LEDs show the candidates: the hand touches the square it captured on.
                self.note("swept, touched to resolve")
                h.wait(300, 1500)
                h.contact(to, None)
                h.wait(80, 400)
                h.contact(to, us)
        self.note(f"capture, {style}")

    def castle(self, board: chess.Board, move: chess.Move) -> None:
        """King first, rook first or both lifted. In Chess960 a piece may stay where it is (it is
        lifted and set back: the king must be, or the move is a rook move) or land where the other
        stands (that one is lifted first, both then in the hand)."""
        h = self.h
        us = board.turn
        king_from = move.from_square
        rank = chess.square_rank(king_from)
        kingside = board.is_kingside_castling(move)
        king_to = chess.square(6 if kingside else 2, rank)
        rook_to = chess.square(5 if kingside else 3, rank)
        rook_from = move.to_square if board.chess960 else chess.square(7 if kingside else 0, rank)
        style = self.rng.choice(("king first", "rook first", "both lifted"))
        self.note(f"castling, {style}")
        standard = {king_from, rook_from}.isdisjoint({king_to, rook_to})
        if board.chess960:
            if king_from == king_to:
                self.note("castling 960, king stays")
            elif rook_from == rook_to:
                self.note("castling 960, rook stays")
            elif king_to == rook_from and rook_to == king_from:
                self.note("castling 960, swap")
            elif not standard:
                self.note("castling 960, onto the other's square")
        if standard:
            self._castle_apart(board, style, king_from, king_to, rook_from, rook_to)
            return
        # Pieces go into the hand in order; one is set down as soon as its square is free.
        order = {"king first": [(king_from, king_to), (rook_from, rook_to)],
                 "rook first": [(rook_from, rook_to), (king_from, king_to)],
                 "both lifted": self.rng.sample([(king_from, king_to), (rook_from, rook_to)], 2)}[style]
        held: list[tuple[int, int]] = []
        for frm, to in order:
            h.contact(frm, None)
            held.append((frm, to))
            h.wait(30, 400) if style == "both lifted" else h.wait(*CARRY)
            if style == "both lifted" and len(held) < 2:
                continue
            for piece in list(held):
                if not (h.white | h.black) >> piece[1] & 1:
                    h.contact(piece[1], us)
                    held.remove(piece)
                    h.wait(*BETWEEN_HANDS)
        for _frm, to in held:
            h.contact(to, us)
            h.wait(30, 400)

    def _castle_apart(self, board: chess.Board, style: str, king_from: int, king_to: int, rook_from: int,
                      rook_to: int) -> None:
        """Castling whose four squares are all different (as in standard chess)."""
        h = self.h
        us = board.turn
        if style == "king first":
            self.travel(board, king_from, king_to, us, slide_ok=self._clear(king_from, king_to))
            h.wait(*BETWEEN_HANDS)
            h.contact(rook_from, None)
            h.wait(*CARRY)
            h.contact(rook_to, us)
        elif style == "rook first":
            self.travel(board, rook_from, rook_to, us, slide_ok=self._clear(rook_from, rook_to))
            h.wait(*BETWEEN_HANDS)
            h.contact(king_from, None)
            h.wait(*CARRY)
            h.contact(king_to, us)
        else:
            first, second = (king_from, rook_from) if self.rng.random() < 0.5 else (rook_from, king_from)
            h.contact(first, None)
            h.wait(30, 400)
            h.contact(second, None)
            h.wait(*CARRY)
            places = [king_to, rook_to]
            self.rng.shuffle(places)
            h.contact(places[0], us)
            h.wait(30, 400)
            h.contact(places[1], us)

    def _clear(self, frm: int, to: int) -> bool:
        """No piece between ``frm`` and ``to`` now (a Chess960 rook may stand in the king's way)."""
        return not any((self.h.white | self.h.black) >> sq & 1 for sq in _path(frm, to))

    def en_passant(self, board: chess.Board, move: chess.Move) -> None:
        h = self.h
        us = board.turn
        victim = move.to_square + (-8 if us == chess.WHITE else 8)
        if self.rng.random() < 0.5:
            self.note("en passant, victim before")
            h.contact(victim, None)
            h.wait(*BETWEEN_HANDS)
            self.travel(board, move.from_square, move.to_square, us, slide_ok=False)
        else:
            self.note("en passant, victim after")
            self.travel(board, move.from_square, move.to_square, us, slide_ok=False)
            h.wait(*BETWEEN_HANDS)
            h.contact(victim, None)


def capture_game(moves: list[str], *, fen: str = chess.STARTING_FEN, seed: int = 0, colour: bool = False,
                 bounce: bool = True, amend_rate: float = 0.05, hesitate_rate: float = 0.08, noise: str = "bounce",
                 hold_rate: float = 0.0, touch_rate: float = 0.0, correct_rate: float = 0.0,
                 adjust_rate: float = 0.0, chess960: bool = False) -> Capture:
    """A capture of ``moves`` (UCI) played by simulated hands from ``fen``.

    ``noise``: "clean", "bounce" or "rough" (see NOISE); ``hold_rate``: moves whose piece is held
    for seconds first; ``touch_rate``: moves preceded by a touch-and-return; ``correct_rate``:
    moves preceded by a wrong move made and undone; ``adjust_rate``: promotions whose piece is
    chosen first, then another piece of the mover straightened before the pawn goes."""
    rng = random.Random(seed)
    board = chess.Board(fen, chess960=chess960)
    hands = Hands(rng, colour=colour, bounce=bounce, noise=noise)
    hands.lines.append(f"# generated by tests/fakes/hands.py, seed {seed}, noise {noise}")
    hands.setup(board)
    player = _Player(hands, rng, amend_rate=amend_rate, hesitate_rate=hesitate_rate, hold_rate=hold_rate,
                     touch_rate=touch_rate, correct_rate=correct_rate, adjust_rate=adjust_rate)
    for uci in moves:
        move = chess.Move.from_uci(uci)
        if move not in board.legal_moves:
            raise ValueError(f"illegal move {uci} in {board.fen()}")
        player.play(board, move)
        board.push(move)
        after = (board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK])
        if (hands.white, hands.black) != after:
            raise AssertionError(f"hands left the board wrong after {uci}")
    hands.wait(500, 1500)
    return Capture(hands.lines, list(moves), fen, colour, player.patterns, hands.t, player.per_move)


@dataclass
class Evening:
    """A capture of games played back to back on one board: each game's moves and how it ended
    ("mate": over on the board; "abandoned", "drawn": left unfinished, the board set up again)."""

    capture: Capture
    games: list[tuple[str, list[str]]]


FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]
SCHOLARS_MATE = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]


def capture_evening(games: int, *, seed: int = 0, noise: str = "bounce", first: int = 0) -> Evening:
    """``games`` games at one board, one capture: the players set the start position up after each
    (held a few seconds before the first move: they sit down), some games mated, some abandoned
    half-way, some drawn without a word (the players just set up again)."""
    rng = random.Random(seed)
    hands = Hands(rng, colour=False, bounce=True, noise=noise)
    hands.lines.append(f"# an evening at the board: {games} games, generated by tests/fakes/hands.py, seed {seed}")
    player = _Player(hands, rng, amend_rate=0.0, hesitate_rate=0.05, hold_rate=0.0, touch_rate=0.0, correct_rate=0.0)
    played: list[tuple[str, list[str]]] = []
    all_moves: list[str] = []
    for number in range(games):
        kind = ("mate", "abandoned", "drawn")[(number + first) % 3]
        if kind == "mate":
            moves = FOOLS_MATE if number % 2 else SCHOLARS_MATE
        else:
            whole = random_game(seed * 1000 + number, max_plies=60)
            moves = whole[:max(6, min(len(whole), rng.randint(10, 40)))]
            board = chess.Board()
            for uci in moves:
                board.push_uci(uci)
            while moves and (board.is_game_over() or board.occupied == chess.BB_RANK_1 | chess.BB_RANK_2 |
                                                                       chess.BB_RANK_7 | chess.BB_RANK_8):
                moves = moves[:-1]   # an unfinished game (and not one back on the start squares)
                board.pop()
        board = chess.Board()
        hands.setup(board)
        hands.wait(3000, 6000)              # the start position stands: they sit down
        for uci in moves:
            move = chess.Move.from_uci(uci)
            player.play(board, move)
            board.push(move)
        hands.wait(1500, 4000)              # a handshake, a word (or none)
        played.append((kind, list(moves)))
        all_moves += moves
    hands.setup(chess.Board())
    hands.wait(3000, 4000)
    hands.contact(chess.E2, None)           # the last game set up, a first pawn touched: the evening ends
    return Evening(Capture(hands.lines, all_moves, chess.STARTING_FEN, False, player.patterns, hands.t), played)


def random_game(seed: int, *, fen: str = chess.STARTING_FEN, max_plies: int = 120, chess960: bool = False) -> list[str]:
    """A legal game (UCI moves) biased toward castling, en passant and (under-)promotions."""
    rng = random.Random(seed)
    board = chess.Board(fen, chess960=chess960)
    moves: list[str] = []
    while len(moves) < max_plies and not board.is_game_over(claim_draw=False):
        legal = list(board.legal_moves)
        weights = []
        for m in legal:
            w = 1.0
            if board.is_castling(m):
                w = 40.0
            elif board.is_en_passant(m):
                w = 60.0
            elif m.promotion:
                w = 30.0 if m.promotion != chess.QUEEN else 15.0
            elif board.is_capture(m):
                w = 3.0
            elif board.piece_type_at(m.from_square) == chess.PAWN:
                w = 2.5
                if abs(m.to_square - m.from_square) == 16:
                    w = 4.0  # double steps make en passant possible
            weights.append(w)
        move = rng.choices(legal, weights)[0]
        moves.append(move.uci())
        board.push(move)
    return moves


def stepped_lines(occupied: int, t_ms: float, steps: list[tuple[float, list[str], list[str]]], *,
                  unit_ms: float = 1.0) -> tuple[list[str], float, int]:
    """Capture lines of a hand's few steps by name, for a test to spell out: from ``occupied`` at
    ``t_ms``, at each (time after the previous step, in ``unit_ms``, squares lifted, squares
    placed) step a reading (occupancy only). Returns the lines, the last step's time (ms) and the
    occupancy then."""
    lines = []
    t = t_ms
    for dt, lift, place in steps:
        t += dt * unit_ms
        for name in lift:
            occupied &= ~(1 << parse_square(name))
        for name in place:
            occupied |= 1 << parse_square(name)
        lines.append(f"{int(round(t))} {occupied:016x}")
    return lines, t, occupied


# -- a hand that feeds settled readings to the inference --------------------------------------


def bb(*names: str) -> int:
    out = 0
    for name in names:
        out |= 1 << parse_square(name)
    return out


class Hand:
    """Settled readings built from a FEN by lifting and placing pieces, fed to a MoveInference.

    Each action happens ``dt`` seconds after the previous one (0.5 s by default). With
    ``colour=True`` the readings carry white and black bitboards, as on a colour-sensing board.
    """

    def __init__(self, fen: str = STARTING_FEN, *, colour: bool = False, chess960: bool = False, **options) -> None:
        pos = Position(fen, chess960=chess960)
        self.white, self.black = pos.bb_color
        self.inference = MoveInference(pos, **options)
        self.colour = colour
        self.t = 0.0
        self.verdicts: list[Verdict] = []
        self.held: list[int] = []  # colours of the pieces in the hand, last lifted last

    # -- actions ---------------------------------------------------------------------------

    def lift(self, name: str, dt: float = 0.5) -> list[Verdict]:
        bit = bb(name)
        assert (self.white | self.black) & bit, f"nothing to lift on {name}"
        self.held.append(0 if self.white & bit else 1)
        self.white &= ~bit
        self.black &= ~bit
        return self._feed(dt)

    def place(self, name: str, colour: int | None = None, dt: float = 0.5) -> list[Verdict]:
        bit = bb(name)
        if colour is None:
            colour = self.held.pop() if self.held else 0
        self.white &= ~bit
        self.black &= ~bit
        if colour == 0:
            self.white |= bit
        else:
            self.black |= bit
        return self._feed(dt)

    def sweep(self, name: str, colour: int | None = None, dt: float = 0.5) -> list[Verdict]:
        """The piece held lands on ``name``, sweeping off the one there: the square never empties."""
        return self.place(name, colour, dt)

    def move(self, frm: str, to: str, dt: float = 0.5) -> list[Verdict]:
        """Lift and place (a quiet move, or a capture whose victim was lifted before)."""
        return self.lift(frm, dt) + self.place(to, dt=dt)

    def slide(self, *squares: str, step: float = 0.06) -> list[Verdict]:
        """Slide a piece over ``squares[1:-1]`` to ``squares[-1]``, one settled reading per square."""
        out = self.lift(squares[0])
        for i, name in enumerate(squares[1:]):
            out += self.place(name, dt=step if i else 0.5)
            if i < len(squares) - 2:
                self.held.append(self._colour_at(name))
                bit = bb(name)
                self.white &= ~bit
                self.black &= ~bit
        return out

    def wait(self, seconds: float) -> list[Verdict]:
        """Let time pass without a change (``poll`` at the end)."""
        self.t += seconds
        out = self.inference.poll(self.t)
        self.verdicts += out
        return out

    def settle(self) -> list[Verdict]:
        """Let any waiting move commit."""
        deadline = self.inference.next_deadline()
        if deadline is None:
            return []
        return self.wait(max(0.0, deadline - self.t))

    # -- reading ---------------------------------------------------------------------------

    @property
    def occupied(self) -> int:
        return self.white | self.black

    @property
    def position(self) -> Position:
        return self.inference.position

    def moves(self) -> list[str]:
        """The UCI moves of the game as the verdicts so far tell it (amends and takebacks applied)."""
        moves: list[str] = []
        for v in self.verdicts:
            if v.kind is VerdictKind.MOVE:
                moves.append(v.move.uci())
            elif v.kind is VerdictKind.AMEND:
                moves[-1] = v.move.uci()
            elif v.kind is VerdictKind.TAKEBACK:
                moves.pop()
        return moves

    def kinds(self) -> list[VerdictKind]:
        return [v.kind for v in self.verdicts]

    def last(self) -> Verdict:
        return self.verdicts[-1]

    def _colour_at(self, name: str) -> int:
        return 0 if self.white & bb(name) else 1

    def _feed(self, dt: float) -> list[Verdict]:
        self.t += dt
        if self.colour:
            out = self.inference.feed(self.t, self.occupied, self.white, self.black)
        else:
            out = self.inference.feed(self.t, self.occupied)
        self.verdicts += out
        return out


def uci(text: str) -> Move:
    return Move.from_uci(text)
