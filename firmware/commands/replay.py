"""`echiquier replay`: run a capture file through the game pipeline and print its games (PGN or JSON).

The capture's readings go through the same :class:`firmware.referee.match.Match` as on the board
(debounce, inference, clock, draw rules), with the capture's own times, polled at the deadlines
it names as the service does, and the same gestures (:mod:`firmware.referee.gestures`: a result
set with the kings, taken back in time), acted on as the session acts on them
for two players over the board (``Match.gestures``: what fired). A capture of an evening holds
several games: as under ``run``, the start position set up mid-game and held 2 s ends the game
there, unfinished (``Termination "abandoned"``), and the start position set up again after a
finished game begins the next. Every game is printed: in PGN one after the other (``Round``
numbering them when there are several), with the ``ECO`` and ``Opening`` tags that ``run``
records (``firmware.openings``); in JSON one object, the first game's fields at the top
as when a replay printed one game, and ``games``: every game's, in order. A malformed line is
reported on stderr with its line number, recorded in ``problems``, and skipped; the replay
goes on. Exit 0 when the capture was read, 2 when it cannot be opened or an option is wrong.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from board_driver.capture import CaptureError, PromoteChoice, iter_capture
from chess_core import FenError
from chess_core.pgn import write_pgn
from chess_core.chess960 import VARIANTS, start_fen
from chess_core.timecontrol import TimeControlError

from firmware.commands.fen_check import read_fen
from firmware.openings import classify
from firmware.referee.gestures import DrawGesture, GestureUndone, Resign, draw_decision
from firmware.referee.match import Match, MatchConfig, ProblemFound
from firmware.referee.orders import ChoosePromotion, ClaimDraw, Order, ResignGame
from firmware.referee.referee import NextGameSetUp, Referee, Stage, StartPosition, Tick


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="replay a capture file and print its games",
                       description="Replays a capture through the same pipeline as `run` and prints every game in "
                       "it (games end where the players set up the start position again): in PGN one after the "
                       "other; in JSON one object, the first game's fields at the top and 'games', every game's.")
    p.add_argument("capture", metavar="CAPTURE", help="capture file (format v1); - reads stdin")
    p.add_argument("--fen", default=None, help="start position (default: the initial position)")
    p.add_argument("--variant", choices=VARIANTS, default="standard",
                   help="chess960: castling with the rook of each right (the start from --fen or --start-position)")
    p.add_argument("--start-position", type=int, default=None, metavar="N",
                   help="Chess960 start position number 0-959 (implies --variant chess960; 518 is the usual start)")
    p.add_argument("--time-control", default="-", help="time control, e.g. 300+3 (default: - for none)")
    p.add_argument("--rules", choices=("fide", "casual"), default="fide", help="rule profile (default: fide)")
    p.add_argument("--clock-start", choices=("first_move", "at_once"), default="first_move",
                   help="when the clocks start, as [game] clock_start (default: first_move, as `run`)")
    p.add_argument("--format", choices=("pgn", "json"), default="pgn",
                   help="output format (default: pgn); json: the first game's moves, san, fen, result, termination, "
                   "problems, gestures, and 'games': the same for every game, in order")
    p.set_defaults(func=run)


def replay(lines: Iterable[str], config: MatchConfig | None = None,
           errors_to: TextIO | None = None, *, gestures: bool = True) -> Match:
    """The capture's first game (see ``replay_games``)."""
    return replay_games(lines, config, errors_to, gestures=gestures)[0]


def replay_games(lines: Iterable[str], config: MatchConfig | None = None,
                 errors_to: TextIO | None = None, *, gestures: bool = True) -> list[Match]:
    """Feed a capture (lines or text) through a Match per game and finish the last; returns every
    game, in order (each Match's ``gestures``: the gestures acted on, in words). A game ends where
    the players set up the next one, as under ``run``: the start position held mid-game (this
    game left unfinished, ``abandoned``), or set up again after a finished game. A game that
    began and saw no move, nor any result, is left out (``run`` keeps no file of it), unless
    it is the only one."""
    player = _Player(Match(config), gestures, errors_to)
    errors: list[CaptureError] = []
    reported = 0
    for event in iter_capture(lines, errors):
        reported = _report(player.match, errors, reported, errors_to)
        player.until(event.time)
        if isinstance(event, PromoteChoice):
            player.act(player.referee.step(ChoosePromotion(event.piece), event.time), event.time)
        else:
            player.act(player.referee.step(event, event.time), event.time)
        player.watch(event.time)
    match = player.match
    _report(match, errors, reported, errors_to)
    player.act(player.referee.step(Order.FINISH, 0.0), None)
    settled = player.referee.board
    player.watch(settled.time if settled is not None else 0.0)
    match.gestures = player.fired
    games = player.games + [match]
    return [g for g in games if g.game.moves or g.game.outcome is not None] or games[:1]


class _Player:
    """Drives the referee as the session does for two players over the board: ticks at its
    deadlines, reads each settled reading, orders what the gestures it reports call for, and
    begins the next game when the players set it up (the games before in ``games``). ``match``:
    the game on the board, given to the referee, which the replay prints; the replay notes on it
    what it acted on (problems, gestures, a game left unfinished), never plays it."""

    def __init__(self, match: Match, gestures: bool, errors_to: TextIO | None) -> None:
        self.match = match
        self.referee = Referee(match)
        self.gestures = gestures
        self.errors_to = errors_to
        self.fired: list[str] = []
        self.games: list[Match] = []
        self.cleared = False   # over, and the board has left the start position since

    def stage(self) -> Stage:
        referee, config = self.referee, self.match.config
        started, over = referee.started, referee.game.is_over
        return Stage(live=started and not over, over=started and over,
                     gestures=self.gestures, start_fen=config.fen, chess960=config.chess960)

    def until(self, t: float) -> None:
        """Run the timers due before ``t``."""
        while True:
            due = self.referee.next_deadline(self.stage().live)
            if due is None or due > t:
                return
            self.act(self.referee.step(Tick(self.stage()), due), due)
            self.watch(due)

    def watch(self, now: float) -> None:
        self.act(self.referee.watch(now, self.stage()), now)

    def next_game(self, now: float) -> None:
        """The game on the board ends here; the next one, from the same start, begins."""
        match = self.match
        match.gestures, self.fired = self.fired, []
        self.games.append(match)
        self.cleared = False
        self.match = Match(match.config)
        self.act(self.referee.begin(self.match, now), now)

    def act(self, events: list[Any], now: float | None) -> None:
        """Carry out what the referee reports: problems of a board forming a gesture dropped,
        gestures acted on as the session acts on them, the next game set up begun."""
        referee, match = self.referee, self.match
        for event in events:
            if isinstance(event, ProblemFound):
                if self.gestures and referee.forming():
                    match.problems.remove(event.message)   # the kings on their way to the centre
            elif isinstance(event, NextGameSetUp):
                match.abandoned = True
                text = f"{event.time:.3f} s: the start position was set up: the game is left unfinished, the next one begins"
                match.problems.append(text)
                if self.errors_to is not None:
                    print(f"echiquier replay: {text}", file=self.errors_to)
                self.next_game(event.time)
                return   # (what came with it was the game left's)
            elif isinstance(event, StartPosition):
                if not referee.game.is_over:
                    continue   # (the game was reopened: a result taken back)
                if not event.shown:
                    self.cleared = True
                elif self.cleared:
                    self.next_game(event.time)
                    return
            elif isinstance(event, GestureUndone) and now is not None:
                if referee.game.is_over:
                    try:
                        self.act(referee.step(Order.REOPEN, now), now)
                        self.fired.append(f"{now:.3f} s: {event.result} taken back")
                    except ValueError:
                        pass
            elif isinstance(event, Resign) and now is not None and self.stage().live:
                self.fired.append(f"{now:.3f} s: {'0-1' if event.color == 0 else '1-0'} (resigned by gesture)")
                self.act(referee.step(ResignGame(event.color), now), now)
            elif isinstance(event, DrawGesture) and now is not None and self.stage().live:
                decision = draw_decision(event, bool(referee.game.claimable_draws()), False, False)
                self.fired.append(f"{now:.3f} s: 1/2-1/2 ({decision} by gesture)")
                self.act(referee.step(ClaimDraw() if decision == "claim" else Order.AGREE_DRAW, now), now)


def game_pgn(match: Match, headers: dict[str, str] | None = None) -> str:
    """A game of the replay in PGN: its moves, result, time control and clocks (when timed), ``headers`` over them."""
    tags = {"TimeControl": str(match.time_control)}
    tags.update(headers or {})
    clocks = match.timing.after_move if match.time_control.timed else None
    return write_pgn(match.game, tags, clocks)


def game_json(match: Match) -> dict[str, Any]:
    """A game of the replay as JSON values: ``moves``, ``san``, ``fen``, ``result``, ``termination``,
    ``problems`` and the ``gestures`` acted on."""
    outcome = match.game.outcome
    return {
        "moves": [m.uci() for m in match.game.moves],
        "san": match.game.san_moves(),
        "fen": match.game.fen(),
        "result": outcome.result() if outcome else "*",
        "termination": outcome.termination.value if outcome else None,
        "problems": list(match.problems),
        "gestures": list(match.gestures),
    }


def _report(match: Match, errors: list[CaptureError], reported: int, out: TextIO | None) -> int:
    for error in errors[reported:]:
        text = f"line {error.line}: {error.reason}"
        match.problems.append(text)
        if out is not None:
            print(f"echiquier replay: {text}", file=out)
    return len(errors)


def run(args: argparse.Namespace) -> int:
    fen, chess960 = args.fen, args.variant == "chess960"
    if args.start_position is not None:
        if fen is not None:
            print("echiquier replay: give --fen or --start-position, not both", file=sys.stderr)
            return 2
        try:
            fen, chess960 = start_fen(args.start_position), True
        except ValueError as exc:
            print(f"echiquier replay: bad --start-position: {exc}", file=sys.stderr)
            return 2
    try:
        if fen is not None:
            read_fen(fen, chess960=chess960)   # what is wrong with it, and --variant chess960 only if that reads it
        config = MatchConfig(rules=args.rules, time_control=args.time_control, fen=fen, chess960=chess960,
                             clock_start=args.clock_start)
        Match(config)
    except FenError as exc:
        print(f"echiquier replay: bad --fen: {exc}", file=sys.stderr)
        return 2
    except TimeControlError as exc:
        print(f"echiquier replay: bad --time-control: {exc}", file=sys.stderr)
        return 2
    try:
        if args.capture == "-":
            games = replay_games(sys.stdin, config, sys.stderr)
        else:
            with open(args.capture, encoding="utf-8", errors="replace") as f:
                games = replay_games(f, config, sys.stderr)
    except OSError as exc:
        print(f"echiquier replay: cannot read {args.capture}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    first = games[0]
    if not first.started and first.debouncer.settled is not None:
        where = "the position of --fen" if fen else "the initial position"
        text = (f"the board never showed the start position ({where}), so no game began: "
                "give --fen with the position the capture starts from")
        first.problems.append(text)
        print(f"echiquier replay: {text}", file=sys.stderr)
    if args.format == "json":
        # The first game's fields at the top, as when a replay printed one game; every game in "games".
        print(json.dumps({**game_json(first), "games": [game_json(g) for g in games]}, indent=2, ensure_ascii=False))
        return 0
    name = "stdin" if args.capture == "-" else args.capture
    for number, match in enumerate(games, 1):
        tags = {"Event": f"Replay of {name}", "Site": "Échiquier"}
        if len(games) > 1:
            tags["Round"] = str(number)
        if match.abandoned:
            tags["Termination"] = "abandoned"
        opening = classify(match.game)   # (as the session names it, move by move: the latest named position)
        if opening is not None:
            tags.update(ECO=opening.eco, Opening=opening.name)
        sys.stdout.write(("\n" if number > 1 else "") + game_pgn(match, tags))
    return 0
