"""Lichess Board API events read into the opponent interface's values: games, states, clocks, endings."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chess_core import BLACK, KING, ROOK, STARTING_FEN, WHITE, Game, Move, Outcome, Position, Termination

from firmware.opponents.base import ChallengeEvent, GameEnd, GameSync, Player, ServerClock

PLAYING_STATUSES = frozenset({"created", "started"})
VOID_STATUSES = frozenset({"aborted"})            # the game never counted: no outcome
TERMINATIONS = {
    "mate": Termination.CHECKMATE,
    "resign": Termination.RESIGNATION,
    "stalemate": Termination.STALEMATE,
    "timeout": Termination.ABANDONED,             # a player left and the other claimed the win
    "draw": Termination.AGREEMENT,                # or what the position shows: see draw_termination
    "outoftime": Termination.TIME_FORFEIT,
    "cheat": Termination.ABANDONED,
    "noStart": Termination.ABANDONED,
    "unknownFinish": Termination.ABANDONED,
    "insufficientMaterialClaim": Termination.INSUFFICIENT_MATERIAL,
    "variantEnd": Termination.ABANDONED,
}
CLOCK_START_PLIES = 2   # Lichess starts the clocks once both sides have made their first move


def color_of(name: Any) -> int | None:
    return {"white": WHITE, "black": BLACK}.get(name) if isinstance(name, str) else None


def start_fen_of(initial_fen: Any) -> str:
    return STARTING_FEN if not initial_fen or initial_fen == "startpos" else str(initial_fen)


# The variants the board plays, by Lichess key, with their names ("fromPosition" is standard chess).
PLAYABLE_VARIANTS = {"standard": "Standard", "chess960": "Chess960", "fromPosition": "From Position"}


def variant_of(data: Any) -> tuple[str, str]:
    """(key, name) of the ``variant`` of a ``gameFull``, a ``gameStart`` game or a challenge."""
    variant = data.get("variant") if isinstance(data, dict) else None
    if isinstance(variant, dict):
        key = str(variant.get("key") or "standard")
        return key, str(variant.get("name") or PLAYABLE_VARIANTS.get(key, key))
    if isinstance(variant, str) and variant:
        return variant, PLAYABLE_VARIANTS.get(variant, variant)
    return "standard", "Standard"


def not_playable(game_id: Any, name: str) -> str:
    """What the page says of a game in a variant the board cannot play (it is not joined)."""
    return f"the {name} game {game_id} is not playable on this board: play it on lichess.org"


def normalize_castling(position: Position, move: Move) -> Move:
    """Lichess may write castling king-to-rook (``e1h1``): make it king-two-squares (``e1g1``).
    (In Chess960 king-to-rook is how castling is written: kept.)"""
    if position.chess960:
        return move
    piece = position.piece_at(move.from_square)
    target = position.piece_at(move.to_square)
    if (piece is not None and piece.piece_type == KING and target is not None and target.piece_type == ROOK
            and target.color == piece.color):
        step = 2 if move.to_square > move.from_square else -2
        return Move(move.from_square, move.from_square + step)
    return move


def parse_moves(start_fen: str, text: str, chess960: bool = False) -> tuple[Move, ...]:
    """The moves of a ``moves`` string, checked to be legal one after the other (ValueError)."""
    return MovesReader(start_fen, chess960).read(text)


class MovesReader:
    """Reads successive ``moves`` strings of one game, redoing only what changed since the last.

    Each state repeats the whole game; on a Pi, checking 150 moves at every state adds up.
    """

    def __init__(self, start_fen: str, chess960: bool = False) -> None:
        self.start_fen = start_fen
        self._position = Position(start_fen, chess960=chess960)
        self._words: list[str] = []
        self._moves: list[Move] = []

    def read(self, text: str) -> tuple[Move, ...]:
        words = (text or "").split()
        same = 0
        for old, new in zip(self._words, words):
            if old != new:
                break
            same += 1
        while len(self._words) > same:        # a takeback, or a different game: unwind
            self._words.pop()
            self._moves.pop()
            self._position.pop()
        for word in words[same:]:
            move = normalize_castling(self._position, Move.from_uci(word))
            if not self._position.is_legal(move):
                raise ValueError(f"Lichess sent {word}, which is illegal after "
                                 f"{' '.join(self._words) or 'the start'}")
            self._position.push(move)
            self._words.append(word)
            self._moves.append(move)
        return tuple(self._moves)


@dataclass(frozen=True)
class BoardState:
    """A ``gameState`` (or the ``state`` of a ``gameFull``): the moves so far, clocks, status, offers."""

    moves_text: str
    wtime: int
    btime: int
    winc: int
    binc: int
    status: str
    winner: int | None = None
    draw_offers: frozenset[int] = frozenset()
    takeback_offers: frozenset[int] = frozenset()
    expiration: dict | None = None

    @classmethod
    def from_event(cls, event: dict) -> "BoardState":
        return cls(moves_text=str(event.get("moves") or ""), wtime=int(event.get("wtime") or 0),
                   btime=int(event.get("btime") or 0), winc=int(event.get("winc") or 0),
                   binc=int(event.get("binc") or 0), status=str(event.get("status") or "started"),
                   winner=color_of(event.get("winner")),
                   draw_offers=frozenset(c for c, k in ((WHITE, "wdraw"), (BLACK, "bdraw")) if event.get(k)),
                   takeback_offers=frozenset(c for c, k in ((WHITE, "wtakeback"), (BLACK, "btakeback"))
                                             if event.get(k)),
                   expiration=event.get("expiration") if isinstance(event.get("expiration"), dict) else None)

    @property
    def over(self) -> bool:
        return self.status not in PLAYING_STATUSES

    def plies(self) -> int:
        return len(self.moves_text.split())

    def clock(self, first_to_move: int, at: float) -> ServerClock:
        """The server's clocks as of ``at`` (monotonic s): running for the side to move, if started."""
        plies = self.plies()
        running = None
        if not self.over and plies >= CLOCK_START_PLIES:
            running = first_to_move ^ (plies & 1)
        return ServerClock(self.wtime, self.btime, running, at, self.winc, self.binc, self.expiration_ms)

    @property
    def expiration_ms(self) -> int | None:
        """Before both sides have moved: ms left to make the first move before Lichess aborts the
        game (``expiration``: ``millisToMove - idleMillis``), None when Lichess gives none."""
        data = self.expiration
        if not isinstance(data, dict) or self.over:
            return None
        try:
            return max(0, int(data["millisToMove"]) - int(data.get("idleMillis") or 0))
        except (KeyError, TypeError, ValueError):
            return None

    def end(self, start_fen: str = STARTING_FEN, moves: tuple[Move, ...] = (),
            claimed_draw: bool = False, chess960: bool = False) -> GameEnd:
        """How the game ended, in our terms (only meaningful when ``over``).

        Lichess's ``draw`` covers an agreement, a threefold repetition or fifty moves, a dead
        position, and the draw claimed after the opponent left: the game's moves (``start_fen``,
        ``moves``) and whether this board claimed it (``claimed_draw``) tell which.
        """
        if self.status in VOID_STATUSES:
            return GameEnd(self.status, None, None)
        if self.status == "draw":
            return GameEnd(self.status, Outcome(draw_termination(start_fen, moves, claimed_draw, chess960)), None)
        termination = TERMINATIONS.get(self.status, Termination.ABANDONED)
        if termination is Termination.TIME_FORFEIT and self.winner is None:
            termination = Termination.TIME_VS_INSUFFICIENT
        if termination in (Termination.STALEMATE, Termination.AGREEMENT, Termination.INSUFFICIENT_MATERIAL):
            return GameEnd(self.status, Outcome(termination), None)
        return GameEnd(self.status, Outcome(termination, self.winner), self.winner)


def draw_termination(start_fen: str, moves: tuple[Move, ...], claimed_draw: bool = False,
                     chess960: bool = False) -> Termination:
    """Why a game that Lichess calls ``draw`` was drawn: the position's reason if it has one."""
    if claimed_draw:
        return Termination.ABANDONED           # the opponent left; this board claimed the draw
    game = Game(start_fen, chess960=chess960)
    try:
        for move in moves:
            if game.outcome is not None:
                break                      # the rules ended it there (K v K...)
            game.push(move)
    except ValueError:
        return Termination.AGREEMENT
    if game.outcome is not None and game.outcome.winner is None:
        return game.outcome.termination    # a dead position, fivefold repetition, 75 moves
    claims = game.claimable_draws()
    for claim in (Termination.THREEFOLD_REPETITION, Termination.FIFTY_MOVES):
        if claim in claims:
            return claim
    return Termination.AGREEMENT


def player_of(data: Any) -> Player | None:
    if not isinstance(data, dict):
        return None
    if data.get("aiLevel"):
        return Player(f"Stockfish level {data['aiLevel']}", None, None, None)
    name = data.get("name") or data.get("username") or data.get("id") or "?"
    rating = data.get("rating")
    return Player(str(name), int(rating) if isinstance(rating, int) else None, data.get("id"), data.get("title"))


def time_control_of(full: dict) -> str:
    """The PGN TimeControl of a ``gameFull``: ``600+5`` (seconds), ``1/86400`` style days, or ``-``."""
    clock = full.get("clock")
    if isinstance(clock, dict) and clock.get("initial") is not None:
        initial = int(clock["initial"]) // 1000
        increment = int(clock.get("increment") or 0) // 1000
        return f"{initial}+{increment}"
    days = full.get("daysPerTurn")
    if days:
        return f"1/{int(days) * 86400}"
    return "-"


def game_sync_of(full: dict, local_color: int, moves: tuple[Move, ...]) -> GameSync:
    """A ``gameFull`` as the whole game for the session (``moves`` already parsed)."""
    return GameSync(start_fen=start_fen_of(full.get("initialFen")), moves=moves,
                    local_colors=frozenset({local_color}), white=player_of(full.get("white")),
                    black=player_of(full.get("black")), game_id=full.get("id"),
                    time_control=time_control_of(full), rated=bool(full.get("rated")),
                    speed=full.get("speed"),
                    created_at_ms=full["createdAt"] if isinstance(full.get("createdAt"), int) else None,
                    variant=variant_of(full)[1])


def challenge_of(event: dict) -> ChallengeEvent:
    data = event.get("challenge") or {}
    control = data.get("timeControl") or {}
    if control.get("type") == "clock":
        tc = f"{control.get('limit')}+{control.get('increment')}"
    elif control.get("type") == "correspondence":
        tc = f"1/{int(control.get('daysPerTurn') or 1) * 86400}"
    else:
        tc = "-"
    return ChallengeEvent(kind=str(event.get("type")), id=str(data.get("id") or ""),
                          challenger=player_of(data.get("challenger")), dest=player_of(data.get("destUser")),
                          rated=bool(data.get("rated")), speed=data.get("speed"), time_control=tc,
                          color=data.get("finalColor") or data.get("color"),
                          decline_reason=data.get("declineReason"), raw=data)


def game_id_of(game: dict) -> str | None:
    """The id in a ``gameStart``/``gameFinish`` event's ``game`` (``gameId``, or ``id``)."""
    value = game.get("gameId") or game.get("id")
    return str(value) if value else None


__all__ = ["BoardState", "PLAYING_STATUSES", "TERMINATIONS", "challenge_of", "color_of", "draw_termination",
           "game_id_of",
           "game_sync_of", "MovesReader", "normalize_castling", "PLAYABLE_VARIANTS", "variant_of", "not_playable", "parse_moves", "player_of", "start_fen_of", "time_control_of"]
