"""The hub's state: the latest game of every board, the round, the pairings and the ratings.

Single-threaded: the MQTT client hands every message over to the hub's loop, which calls
:meth:`Hub.receive`. Each accepted message is queued for the disk (hub.store writes it
on its own thread) and the listeners (the page, the broadcast) hear of it; a rejected one is
logged and dropped.
"""
from __future__ import annotations

import logging
import re
import time
from typing import Any, Callable

from club_wire.message import pairing_message
from club_wire.topics import NAME
from club_hub.elo import RatingList
from club_hub.games import BoardGame, MessageError, check_message
from club_hub.pairings import Pairing
from club_hub.store import HubStore

log = logging.getLogger(__name__)


def board_key(board: str) -> tuple:
    """Boards in hall order: 2 before 10."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", board))


class Hub:
    """See the module docstring. ``round``: the round shown and put in /round.pgn (None: every
    game kept); ``rules``: the round's settings sent with the pairings (time_control, rules,
    draw_offers_from_move, event)."""

    def __init__(self, state_dir: Any, *, site: str = "?", round: str | None = None,
                 rules: dict | None = None, wall: Callable[[], float] = time.time) -> None:
        self.store = HubStore(state_dir)
        self.site = site
        self.round = round
        self._round_given = round is not None   # else the pairing file's round is the round
        self.rules = dict(rules or {})
        self.wall = wall
        self.boards: dict[str, BoardGame] = {}            # the latest game of each board
        self.games: dict[tuple[str, str], BoardGame] = {}  # (board, game id) -> its latest message
        self.online: dict[str, bool] = {}
        self.pairings: dict[str, Pairing] = {}
        self.ratings = RatingList()
        self.listeners: list[Callable[[str], None]] = []
        self.accepted = self.dropped = 0

    # -- start -------------------------------------------------------------------------------

    def load(self) -> None:
        """Everything kept on disk: the games (checked again) and the rating list."""
        data = self.store.load_ratings()
        if data is not None:
            self.ratings = RatingList.from_json(data)
        for board, payload in self.store.games():
            try:
                found = check_message(payload, board)
            except MessageError as exc:
                log.error("kept game of board %s not loaded: %s", board, exc)
                continue
            self._keep(found)
        log.info("hub state: %d games of %d boards", len(self.games), len(self.boards))

    def set_pairings(self, pairings: list[Pairing]) -> None:
        self.pairings = {p.board: p for p in pairings}
        rounds = {p.round for p in pairings if p.round}
        if len(rounds) == 1 and not self._round_given:
            self.round = rounds.pop()

    def pairings_shown(self) -> None:
        """Tell the listeners (the page) about every paired board: the pairings changed."""
        for board in self.pairings:
            self._tell(board)

    def pairing_messages(self) -> list[tuple[str, bytes]]:
        """(board, message) of every pairing, with the round's settings."""
        out = []
        for p in self.pairings.values():
            out.append((p.board, pairing_message(p.white, p.black, round=p.round or self.round, **self.rules)))
        return out

    # -- messages ------------------------------------------------------------------------------

    def receive(self, board: str, leaf: str, payload: bytes) -> bool:
        """A message from ``board``'s topic ``leaf``; True when it changed what the hub shows."""
        if not NAME.fullmatch(board):
            log.warning("message on a topic with a bad board name dropped")
            self.dropped += 1
            return False
        if leaf == "status":
            online = payload == b"online"
            if payload not in (b"online", b"offline"):
                log.warning("board %s: status %r dropped", board, payload[:40])
                self.dropped += 1
                return False
            if self.online.get(board) == online:
                return False
            self.online[board] = online
            self._tell(board)
            return True
        if leaf != "game":
            return False
        previous = self.boards.get(board)
        try:
            found = check_message(payload, board, previous)
        except MessageError as exc:
            log.warning("board %s: message dropped: %s", board, exc)
            self.dropped += 1
            return False
        if found.game_id is not None:
            kept = self.games.get((board, found.game_id))
            if kept is not None and kept.sent > found.sent:
                log.info("board %s: an older message of %s dropped", board, found.game_id)
                return False
            self.store.save_game(board, found.game_id, found.body())
        self.accepted += 1
        self._keep(found)
        if found.over and found.game_id is not None:
            self._rate(found)
        self._tell(board)
        return True

    def _keep(self, found: BoardGame) -> None:
        latest = self.boards.get(found.board)
        if latest is None or found.sent >= latest.sent or found.game_id == latest.game_id:
            self.boards[found.board] = found
        if found.game_id is not None:
            self.games[(found.board, found.game_id)] = found

    def _rate(self, found: BoardGame) -> None:
        if self.ratings.rate(f"{found.board}/{found.game_id}", found.white, found.black, found.result):
            self.store.save_ratings(self.ratings.to_json())

    def _tell(self, board: str) -> None:
        for listener in list(self.listeners):
            try:
                listener(board)
            except Exception:
                log.exception("hub listener failed")

    # -- what the hub serves ---------------------------------------------------------------------

    def round_games(self, round: str | None = None) -> list[BoardGame]:
        """The games of ``round`` (default: the current one; every game kept when there is none)."""
        round = round if round is not None else self.round
        games = [g for g in self.games.values() if round is None or g.round == round]
        return sorted(games, key=lambda g: (board_key(g.board), g.game_id))

    def round_pgn(self, round: str | None = None) -> str:
        return "\n".join(g.pgn(self.site) for g in self.round_games(round))

    def board_pgn(self, board: str) -> str | None:
        games = [g for g in self.round_games() if g.board == board]
        if not games and board in self.boards and self.boards[board].game_id is not None:
            games = [self.boards[board]]
        return "\n".join(g.pgn(self.site) for g in games) if games else None

    def board_view(self, board: str) -> dict[str, Any]:
        """What the hall page shows of a board."""
        g = self.boards.get(board)
        pairing = self.pairings.get(board)
        white = g.white if g is not None else (pairing.white if pairing else "?")
        black = g.black if g is not None else (pairing.black if pairing else "?")
        view: dict[str, Any] = {"board": board, "online": self.online.get(board, g is not None),
                                "white": white, "black": black,
                                "white_elo": self._elo(white), "black_elo": self._elo(black)}
        if g is not None:
            view.update(game=g.game_id, sent=g.sent, fen=g.fen, san=list(g.san), last=g.moves[-1] if g.moves else None,
                        clocks=list(g.remaining), running=g.running, result=g.result, status=g.status,
                        round=g.round, time_control=g.time_control, variant=g.variant)
        return view

    def _elo(self, name: str) -> int | None:
        p = self.ratings.players.get(name)
        return round(p.rating) if p is not None else None

    def board_names(self) -> list[str]:
        return sorted(set(self.boards) | set(self.pairings) | set(self.online), key=board_key)

    def ratings_view(self) -> list[dict[str, Any]]:
        return [{"name": p.name, "rating": round(p.rating), "games": p.games, "wins": p.wins, "draws": p.draws,
                 "losses": p.losses} for p in self.ratings.standings()]
