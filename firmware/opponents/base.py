"""The opponent interface: what the session gives an opponent, and what the opponent tells it back.

An *opponent* plays one side (or, after a take-over, both sides) of the game on the board. The
session owns the game, the clock and the LEDs; the opponent only proposes moves and decisions.
Two objects meet here:

``Opponent`` (implemented in this package: ``EngineOpponent``, ``LichessOpponent``)
    ``name``                 shown on the page and written to the PGN player tag.
    ``assistance_allowed``   False during an online game: the session must switch off engine
                             help, hints and takebacks made on the board alone.
    ``await start(listener)`` begins; idempotent. Everything the opponent has to say goes to
                             ``listener`` (below), from the session's asyncio loop.
    ``on_move(move)``        a move committed on the board. Never blocks: the opponent queues it
                             (and, for Lichess, sends it exactly once). The session passes the
                             opponent's own move too, once carried out (it is recognised; an
                             opponent also takes the next local move to imply it). When the engine
                             plays both sides (a take-over), that call is how it knows the board
                             has caught up.
    ``on_reset(fen, moves)`` the session's game changed in another way (takeback on the board, new
                             game, position set up): the opponent re-reads the whole game. Lichess
                             ignores it and answers with ``game_sync`` (the server's game wins).
    ``await act(action)``    a decision of the local player (``Action``): resign, offer a draw,
                             answer an offer... ``ActionNotSupported`` when this opponent has no such
                             thing (the session then decides alone, e.g. a resignation against the
                             engine is just ``match.resign``).
    ``await stop()``         ends; idempotent; no task or process is left behind.

``OpponentListener`` (a Protocol, implemented by the session's seat; subclassing it gives do-nothing defaults)
    ``opponent_move(move)``  the opponent played ``move``: show it on the LEDs and wait for the
                             board to carry it out (``match.expect(move)``); a wrong execution is
                             pointed out like an illegal move.
    ``game_sync(sync)``      the authoritative game (start FEN, every move, who plays which side):
                             rebuild the session's game from it and let the LEDs guide the pieces
                             into its position. Sent on joining a game (also one in progress), after
                             a takeback and whenever the server's game and the board's differ.
    ``clock_sync(clock)``    the server's clock (``ServerClock``, counted down with ``remaining``).
    ``offer(offer)``         the opponent offers (or withdraws) a draw or a takeback.
    ``move_rejected(move, reason)`` the other end refused a move of the board (e.g. Lichess's 400):
                             undo it on the board like an illegal move; a ``game_sync`` follows.
    ``game_over(end)``       the game ended over there (mate, resignation, flag, abort...).
    ``chat(line)``, ``opponent_gone(gone)``, ``challenge(event)``: online extras for the page.
    ``link(state, detail)``  connection or engine health for the page (``LinkState``).

Squares and colours follow chess_core (WHITE = 0, BLACK = 1); times are ints of milliseconds.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Protocol, Sequence

from board_driver.retry import LinkState
from uci.engine import ClockTimes   # (the times an engine is told: the driver's, used by every opponent)
from chess_core import BLACK, STARTING_FEN, WHITE, Move, Outcome

from firmware.config import OpponentKind


class Action(enum.Enum):
    """A decision of the local player that the opponent may have to carry to the other end."""

    RESIGN = "resign"
    ABORT = "abort"                        # only before both sides have moved (Lichess)
    OFFER_DRAW = "offer draw"              # also the answer "yes" when the opponent offered one
    ACCEPT_DRAW = "accept draw"
    DECLINE_DRAW = "decline draw"
    PROPOSE_TAKEBACK = "propose takeback"
    ACCEPT_TAKEBACK = "accept takeback"
    DECLINE_TAKEBACK = "decline takeback"
    CLAIM_VICTORY = "claim victory"        # the opponent is gone long enough (Lichess)
    CLAIM_DRAW = "claim draw"              # ... or end it as a draw instead (Lichess)


class ActionNotSupported(Exception):
    """This opponent has no such decision; the session handles it alone."""


class ActionRefused(Exception):
    """The other end refused the decision (e.g. Lichess: 'This is not the time to claim victory')."""


class OfferKind(enum.Enum):
    DRAW = "draw"
    TAKEBACK = "takeback"


@dataclass(frozen=True)
class Player:
    """A player as the other end knows them."""

    name: str
    rating: int | None = None
    id: str | None = None
    title: str | None = None


@dataclass(frozen=True)
class GameSync:
    """The whole game as the opponent's end knows it: the session rebuilds its game from this."""

    start_fen: str = STARTING_FEN
    moves: tuple[Move, ...] = ()
    local_colors: frozenset[int] = frozenset({WHITE, BLACK})  # the sides played on the board
    white: Player | None = None
    black: Player | None = None
    game_id: str | None = None
    time_control: str | None = None    # PGN TimeControl spelling, e.g. "600+5"
    rated: bool = False
    speed: str | None = None           # lichess: "rapid", "classical", "correspondence", ...
    created_at_ms: int | None = None   # when the game was created over there (ms since the epoch, UTC)
    variant: str | None = None         # the server's name of the variant ("Standard", "Chess960"); None: standard

    @property
    def chess960(self) -> bool:
        return (self.variant or "").replace(" ", "").lower() == "chess960"


@dataclass(frozen=True)
class ServerClock:
    """Both clocks as the server last stated them, and when (monotonic seconds) we heard it.

    ``running`` is the side whose time is running (None before the clocks start).
    """

    white_ms: int
    black_ms: int
    running: int | None
    at: float
    white_inc_ms: int = 0
    black_inc_ms: int = 0
    first_move_ms: int | None = None   # before both first moves: ms left before the server aborts the game

    def remaining(self, side: int, now: float) -> int:
        """``side``'s time at ``now`` (monotonic seconds), counted down locally; never below 0.

        >>> ServerClock(60_000, 50_000, running=WHITE, at=10.0).remaining(WHITE, 12.5)
        57500
        >>> ServerClock(60_000, 50_000, running=WHITE, at=10.0).remaining(BLACK, 12.5)
        50000
        """
        base = self.white_ms if side == WHITE else self.black_ms
        if side != self.running:
            return base
        elapsed = max(0.0, now - self.at)
        return max(0, base - int(round(elapsed * 1000)))


@dataclass(frozen=True)
class Offer:
    kind: OfferKind
    by: int              # the colour that offers
    active: bool = True  # False: the offer was withdrawn or declined


@dataclass(frozen=True)
class GameEnd:
    """The end of the game over there: ``status`` in the other end's words, ``outcome`` in ours.

    ``outcome`` is None when the game is void (aborted before it began).
    """

    status: str
    outcome: Outcome | None
    winner: int | None = None


@dataclass(frozen=True)
class ChatLine:
    room: str        # "player" or "spectator"
    username: str
    text: str


@dataclass(frozen=True)
class OpponentGone:
    gone: bool
    claim_win_in_seconds: int | None = None   # 0: victory may be claimed now


@dataclass(frozen=True)
class ChallengeEvent:
    """An incoming or outgoing challenge, or its cancellation / refusal."""

    kind: str                   # "challenge", "challengeCanceled", "challengeDeclined"
    id: str
    challenger: Player | None = None
    dest: Player | None = None
    rated: bool = False
    speed: str | None = None
    time_control: str | None = None
    color: str | None = None
    decline_reason: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


class OpponentListener(Protocol):
    """What an opponent tells the session; see the module docstring. A Protocol with every method
    written out: a listener implements them all (or subclasses this class, whose methods do
    nothing); nothing fills in a missing one behind its back."""

    def opponent_move(self, move: Move) -> None:
        return None

    def game_sync(self, sync: GameSync) -> None:
        return None

    def clock_sync(self, clock: ServerClock) -> None:
        return None

    def offer(self, offer: Offer) -> None:
        return None

    def move_rejected(self, move: Move, reason: str) -> None:
        return None

    def game_over(self, end: GameEnd) -> None:
        return None

    def chat(self, line: ChatLine) -> None:
        return None

    def opponent_gone(self, gone: OpponentGone) -> None:
        return None

    def challenge(self, event: ChallengeEvent) -> None:
        return None

    def link(self, state: LinkState, detail: str = "") -> None:
        return None


class QuietListener(OpponentListener):
    """A listener that hears nothing: an opponent's before it is started."""


class Opponent:
    """The side of the game that is not played on the board; see the module docstring.

    A backend **must** set ``kind`` and ``name`` and override ``start``, ``on_move`` and
    ``stop``; it **may** override the rest, whose defaults say "not with this opponent"
    (``act`` and ``take_over`` raise ActionNotSupported, the others do nothing). ``name`` and
    ``sides`` are read-only here (the session only reads them): a backend gives them as class
    attributes (declared in the class if it assigns them later) or as properties.
    """

    kind: OpponentKind = OpponentKind.ENGINE
    assistance_allowed: bool = True     # False online: no engine help, hints or board takebacks
    account_id: str | None = None    # the account it plays as (online)

    @property
    def name(self) -> str:
        """Its name for the page, the players and the log."""
        return "Opponent"

    @property
    def sides(self) -> frozenset[int]:
        """The colours it plays now."""
        return frozenset()

    async def start(self, listener: OpponentListener) -> None:
        raise NotImplementedError

    def on_move(self, move: Move) -> None:
        raise NotImplementedError

    def on_reset(self, start_fen: str, moves: Sequence[Move]) -> None:
        """The game changed otherwise than by a move: read it again (default: nothing to do)."""

    async def act(self, action: Action) -> None:
        raise ActionNotSupported(action.value)

    async def stop(self) -> None:
        raise NotImplementedError

    def closing(self) -> None:
        """A stop has begun (``stop`` follows): start nothing new from now on, an engine that ends
        is not started again; default: nothing to hold back."""

    def use_clock(self, times: Callable[[], ClockTimes | None]) -> None:
        """Where to read the clock when it thinks (an engine); default: it needs no clock."""

    def take_over(self, side: int, player: str = "") -> Any:
        """Play ``side`` for the rest of the game (its player left); returns the take-over record."""
        raise ActionNotSupported(f"{self.name} cannot take a side over")

    def give_back(self, side: int) -> None:
        """Stop playing ``side``, taken over before (its player is back)."""
        raise ActionNotSupported(f"{self.name} plays no side for a player")

    def set_sides(self, sides: int | Iterable[int]) -> None:
        """Play ``sides`` from the next game on (an engine); default: it keeps its own."""

    def set_level(self, level: Any) -> None:
        """Play at ``level`` from its next move (an engine); default: no level to set."""

    def resume(self, game_id: str) -> None:
        """Follow the online game ``game_id`` again (cut by a restart); default: no such game."""

    def game_url(self, game_id: str) -> str | None:
        """The address of an online game (the PGN Site), or None."""
        return None


__all__ = ["Action", "ActionNotSupported", "ActionRefused", "ChallengeEvent", "ChatLine", "ClockTimes",
           "GameEnd", "GameSync", "LinkState", "Offer", "OfferKind", "Opponent", "OpponentGone",
           "OpponentKind", "OpponentListener", "Player", "QuietListener", "ServerClock"]
