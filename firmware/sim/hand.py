"""The simulator's hand: the pieces on the simulated board, which of them are held, and where they go.

The sensors of a board only know which squares hold a piece. To draw the simulated board as it
is (a knight put on a wrong square is still a knight) and to know what a click puts down, the
simulator keeps the hand on the server side: it knows the piece on every square of the simulated
board, since it starts from the game's position and every change goes through here. The page
only sends where the mouse went; everything the sensors see still goes through the
:class:`~board_driver.backends.sim.SimulatedBoard`, so the session's debouncer and inference judge it
exactly as they judge a real board.

* ``lift(square)`` takes the piece there into the hand (two at most: a capture, castling);
  ``from_box(symbol)`` takes a piece of that kind from the box beside the board (a position set
  up by hand: the sensors see nothing until it goes down);
* ``place(square)`` puts a held piece down: the one chosen on the page, else the last lifted
  piece of the side to move (so that in "lift the bishop, lift the pawn it takes, put down"
  the bishop goes down), else the last lifted;
* ``captures(square, ...)``: the held piece going down on ``square`` would take the piece there
  (the other colour's); ``take(square)`` then lifts that piece off and puts it aside, and the
  held piece goes down a moment later (the sensors see the victim go, then the mover land);
* ``pass_over(square)`` is a held piece carried low over an empty square: its magnet closes the
  sensor for an instant, which the debouncer must ignore;
* ``sync(position)``: when the sensors agree with the game's position, the pieces take the
  game's identities (a promoted pawn becomes the chosen piece) and what is left in the hand
  of the pieces lifted (the captured pieces) is put aside, a piece taken from the box stays
  held; not while a held piece is still needed (see ``sync``);
  the caller does not sync while a position is being set up by hand (the game's position is then
  the target, not what stands on the board).
"""
from __future__ import annotations

from dataclasses import dataclass

from board_driver.backends.sim import SimulatedBoard
from chess_core import Position, square_name

from firmware.web.backend import CommandRefused

MAX_HELD = 2


class HandError(CommandRefused, ValueError):
    """A hand movement that cannot be done (nothing to lift there, nothing held, hand full), in
    the player's words: ``HandError(key, **values)``, a refusal of firmware/words."""


PIECE_LETTERS = "KQRBNPkqrbnp"   # the pieces the box holds (FEN letters, upper case: white)


@dataclass(frozen=True)
class Held:
    symbol: str                 # "P", "n"... (upper case: white)
    origin: int | None = None   # the square it was lifted from; None: taken from the box

    @property
    def colour(self) -> str:
        return "white" if self.symbol.isupper() else "black"


class SimHand:
    """The pieces on a :class:`SimulatedBoard` and in the hand above it."""

    def __init__(self, board: SimulatedBoard, position: Position | None = None) -> None:
        self.board = board
        self.pieces: dict[int, str] = {}
        self.held: list[Held] = []
        if position is not None:
            self.pieces = _placement(position)
            extra = board.occupied & ~position.occupied
            for sq in range(64):
                if extra >> sq & 1:
                    self.pieces[sq] = "P"
            for sq in list(self.pieces):
                if not board.occupied >> sq & 1:
                    del self.pieces[sq]

    # -- the hand's movements ------------------------------------------------------------------
    def lift(self, square: int) -> Held:
        if square not in self.pieces:
            raise HandError("hand_nothing_there", square=square_name(square))
        if len(self.held) >= MAX_HELD:
            raise HandError("hand_full", n=MAX_HELD)
        piece = Held(self.pieces[square], square)
        self.board.lift(square)
        del self.pieces[square]
        self.held.append(piece)
        return piece

    def from_box(self, symbol: str) -> Held:
        """Take a piece of kind ``symbol`` (a FEN letter) from the box into the hand; the box
        never runs out (a set of spare pieces)."""
        if symbol not in PIECE_LETTERS or len(symbol) != 1:
            raise ValueError(f"not a piece's FEN letter: {symbol!r}")
        if len(self.held) >= MAX_HELD:
            raise HandError("hand_full", n=MAX_HELD)
        piece = Held(symbol)
        self.held.append(piece)
        return piece

    def choose(self, turn_colour: str | None, index: int | None = None) -> int:
        """Which held piece goes down next (index into ``held``)."""
        if not self.held:
            raise HandError("hand_empty")
        if index is not None:
            if not 0 <= index < len(self.held):
                raise HandError("hand_no_such_piece", n=len(self.held), index=index)
            return index
        for i in range(len(self.held) - 1, -1, -1):
            if self.held[i].colour == turn_colour:
                return i
        return len(self.held) - 1

    def place(self, square: int, turn_colour: str | None = None, index: int | None = None) -> Held:
        if square in self.pieces:
            raise HandError("square_taken", square=square_name(square))
        i = self.choose(turn_colour, index)
        piece = self.held.pop(i)
        self.pieces[square] = piece.symbol
        self.board.place(square, piece.colour if self.board.colour else None)
        return piece

    def captures(self, square: int, turn_colour: str | None = None, index: int | None = None) -> bool:
        """Whether the held piece that goes down next would take the piece on ``square``."""
        if not self.held or square not in self.pieces:
            return False
        piece = self.held[self.choose(turn_colour, index)]
        return ("white" if self.pieces[square].isupper() else "black") != piece.colour

    def take(self, square: int) -> str:
        """Lift the piece on ``square`` off the board and put it aside (taken); its symbol."""
        if square not in self.pieces:
            raise HandError("hand_nothing_there", square=square_name(square))
        self.board.lift(square)
        return self.pieces.pop(square)

    def click(self, square: int, turn_colour: str | None = None, index: int | None = None) -> str:
        """A click: lift the piece on ``square``, or put the held piece down there (a capture:
        see ``captures``; the caller takes the victim off first)."""
        if square in self.pieces:
            self.lift(square)
            return "lift"
        self.place(square, turn_colour, index)
        return "place"

    def pass_over(self, square: int) -> bool:
        """A held piece carried over ``square``: an empty square's sensor blinks once."""
        if not self.held or square in self.pieces:
            return False
        colour = self.held[-1].colour if self.board.colour else None
        self.board.place(square, colour)
        self.board.lift(square)
        return True

    def put_aside(self, index: int | None = None) -> Held:
        """Put a held piece beside the board, in the box (a captured piece, one set up away)."""
        i = self.choose(None, index if index is not None else len(self.held) - 1)
        return self.held.pop(i)

    # -- the game's view -------------------------------------------------------------------------
    def changing(self, position: Position) -> int:
        """Squares that hold a piece now and in ``position`` but not the same piece (a Chess960
        first rank): the sensors see them set anew only if they are lifted first."""
        placement = _placement(position)
        squares = 0
        for sq, symbol in self.pieces.items():
            if sq in placement and placement[sq] != symbol and self.board.occupied >> sq & 1:
                squares |= 1 << sq
        return squares

    def lift_off(self, squares: int) -> None:
        """Lift the pieces on ``squares`` off the board at once (the arbiter clearing them)."""
        for sq in range(64):
            if squares >> sq & 1:
                self.pieces.pop(sq, None)
        white, black = self.board.white, self.board.black
        if white is not None and black is not None:   # (a colour-sensing board)
            self.board.set_colours(white & ~squares, black & ~squares)
        else:
            self.board.set_occupied(self.board.occupied & ~squares)

    def setup(self, position: Position) -> None:
        """Set every piece of ``position`` on its square at once (the arbiter sets the board up)."""
        self.held.clear()
        self.pieces = _placement(position)
        if self.board.colour:
            self.board.set_colours(position.occupied_by(0), position.occupied_by(1))
        else:
            self.board.set_occupied(position.occupied)

    def sync(self, position: Position) -> bool:
        """When the sensors agree with ``position``, take its identities and empty the hand of
        the pieces lifted (a piece taken from the box stays held: it has not been put down yet).

        Not while the game has a piece of a held piece's side standing where the board has the
        other side's: it read a capture the hand has not made (a pawn held to think, its square
        alone emptied, read as the victim swept off unseen, promoting too), and a real hand would
        still hold the pawn over the victim."""
        if self.board.occupied != position.occupied:
            return False
        if self.board.colour and (self.board.white != position.occupied_by(0)):
            return False
        placement = _placement(position)
        lifted = [h for h in self.held if h.origin is not None]   # (a piece from the box was no part of the game)
        held = {h.symbol.isupper() for h in lifted}   # the colours held (True: white)
        if any(symbol.isupper() in held and (there := self.pieces.get(sq)) is not None
               and there.isupper() != symbol.isupper() for sq, symbol in placement.items()):
            return False   # the game has a held side's piece (a pawn promoted) where the other side's stands
        self.pieces = placement
        self.held = [h for h in self.held if h.origin is None]
        return True

    def state(self) -> dict:
        """For the page: the piece on each square, and the held pieces with their origins (None:
        from the box)."""
        return {
            "pieces": {square_name(sq): sym for sq, sym in sorted(self.pieces.items())},
            "hand": [{"piece": h.symbol, "from": None if h.origin is None else square_name(h.origin)}
                     for h in self.held],
        }


def _placement(position: Position) -> dict[int, str]:
    return {sq: piece.symbol() for sq, piece in position.placement()}


__all__ = ["SimHand", "HandError", "Held", "MAX_HELD", "PIECE_LETTERS"]
