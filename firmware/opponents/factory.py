"""The opponent the configuration names (``[game] opponent``, ``[engine]``, ``[lichess]``), built for the session."""
from __future__ import annotations

import logging
from typing import Any, Iterable, Sequence

from chess_core import BLACK, STARTING_FEN, WHITE, Move

from firmware.opponents.base import ActionRefused, LinkState, Opponent, OpponentKind, OpponentListener

log = logging.getLogger(__name__)

SIDE_NAMES = {"white": WHITE, "black": BLACK}


def kind_of(opponent: Opponent | None) -> OpponentKind:
    """What plays the sides not played over the board: NONE without an opponent."""
    return OpponentKind.NONE if opponent is None else opponent.kind


def engine_side(side: str | int, *, previous: int | None = None) -> int:
    """The colour the engine plays for ``[engine] side``: "white", "black", or "alternate" (the
    other colour than ``previous``; Black first)."""
    if side in (WHITE, BLACK) and type(side) is int:
        return side
    if side == "alternate":
        return BLACK if previous is None else previous ^ 1
    if side not in SIDE_NAMES:
        raise ValueError(f"the engine plays 'white', 'black' or 'alternate', not {side!r}")
    return SIDE_NAMES[side]


def build_engine(config: Any, sides: int | Iterable[int] | None = None, *, start_fen: str = STARTING_FEN,
                 moves: Sequence[Move] = ()) -> Opponent:
    """An ``EngineOpponent`` for ``[engine]`` (path, level, elo, move_time), playing ``sides``
    (default: ``[engine] side``) from the game of ``start_fen`` and ``moves``."""
    from uci.engine import EngineLaunch
    from firmware.opponents.engine.opponent import EngineOpponent
    from firmware.opponents.engine.levels import Level
    if sides is None:
        sides = engine_side(config.engine.side)
    return EngineOpponent(sides, level=Level.from_config(config.engine), config=EngineLaunch(path=config.engine.path),
                          start_fen=start_fen, moves=moves,
                          chess960=config.game.variant == "chess960")


def build_lichess(config: Any) -> Opponent:
    """A ``LichessOpponent`` with the token kept at ``config.lichess_token_path``; without a usable
    token, a stand-in that says so on the page (``LinkState.FAILED``) until the player logs in."""
    from firmware.opponents.lichess.client import LichessClient, LichessConfig
    from firmware.opponents.lichess.opponent import LichessOpponent
    from firmware.opponents.lichess.token import TokenError
    path = config.lichess_token_path
    try:
        client = LichessClient(LichessConfig(base_url=config.lichess.base_url, token_file=str(path)))
    except TokenError as exc:
        return NotLoggedIn(str(exc))
    return LichessOpponent(client, close_client=True)


def build_opponent(config: Any, kind: str | None = None) -> Opponent | None:
    """The opponent of ``[game] opponent`` (or ``kind``): None for "none" (two players over the
    board), an engine on ``[engine] side``, or Lichess. Not started: the session starts it.

    Nothing is started or connected here, so this never fails for a missing engine or token:
    those show as the opponent's link state once the session starts it.
    """
    chosen = OpponentKind(kind or config.game.opponent)   # ValueError names a wrong one
    if chosen is OpponentKind.NONE:
        return None
    if chosen is OpponentKind.ENGINE:
        return build_engine(config)
    return build_lichess(config)


class NotLoggedIn(Opponent):
    """Lichess without an account: the board plays over the board; the page asks for a token."""

    kind = OpponentKind.LICHESS
    name = "Lichess"
    assistance_allowed = False

    def __init__(self, reason: str) -> None:
        self.reason = reason

    async def start(self, listener: OpponentListener) -> None:
        listener.link(LinkState.FAILED, self.reason)

    def on_move(self, move: Move) -> None:
        pass

    async def act(self, action: Any) -> None:
        raise ActionRefused(self.reason)

    async def stop(self) -> None:
        pass


__all__ = ["NotLoggedIn", "build_engine", "build_lichess", "build_opponent", "engine_side", "kind_of"]
