"""`echiquier replay`: run a capture file through the game pipeline and print the game (PGN or JSON).

The capture's readings go through the same :class:`firmware.referee.match.Match` as on the board
(debounce, inference, clock, draw rules), with the capture's own times, polled at the deadlines
it names as the service does, and the same gestures (:mod:`firmware.referee.gestures`: a result
set with the kings, taken back in time), acted on as the session acts on them
for two players over the board (``Match.gestures``: what fired). The start position set up
mid-game and held 2 s ends the game there, unfinished (``Termination "abandoned"``), as under
``run`` (which goes on with the next game in a PGN of its own). A malformed line is
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
from chess_core.chess960 import VARIANTS, start_fen
from chess_core.timecontrol import TimeControlError

from firmware.commands.fen_check import read_fen
from firmware.referee.gestures import DrawGesture, GestureUndone, Resign, draw_decision
from firmware.referee.match import Match, MatchConfig, ProblemFound
from firmware.referee.referee import NextGameSetUp, Referee, Stage


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="replay a capture file and print the game")
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
    p.add_argument("--format", choices=("pgn", "json"), default="pgn", help="output format (default: pgn)")
    p.set_defaults(func=run)


def replay(lines: Iterable[str], config: MatchConfig | None = None,
           errors_to: TextIO | None = None, *, gestures: bool = True) -> Match:
    """Feed a capture (lines or text) through a Match and finish it; returns the Match (its
    ``gestures``: the gestures acted on, in words)."""
    match = Match(config)
    player = _Player(Referee(match), gestures)
    errors: list[CaptureError] = []
    reported = 0
    for event in iter_capture(lines, errors):
        reported = _report(match, errors, reported, errors_to)
        player.until(event.time)
        if player.abandoned_at is not None:
            break   # the start position set up mid-game: this game ends here, unfinished, as under `run`
        if isinstance(event, PromoteChoice):
            player.act(match.promote(event.piece, event.time), event.time)
        else:
            player.act(player.referee.feed(event), event.time)
        player.watch(event.time)
    _report(match, errors, reported, errors_to)
    if player.abandoned_at is None:
        player.act(match.finish(), None)
        settled = match.debouncer.settled
        player.watch(settled.time if settled is not None else 0.0)
    else:
        text = (f"{player.abandoned_at:.3f} s: the start position was set up: the game is left unfinished "
                f"(a new game follows, which `echiquier run` records in a PGN of its own)")
        match.problems.append(text)
        if errors_to is not None:
            print(f"echiquier replay: {text}", file=errors_to)
    match.gestures = player.fired
    match.abandoned = player.abandoned_at is not None
    return match


class _Player:
    """Drives the referee as the session does for two players over the board: polls at its
    deadlines, reads each settled reading, and carries out the gestures it reports on the match."""

    def __init__(self, referee: Referee, gestures: bool) -> None:
        self.referee = referee
        self.gestures = gestures
        self.fired: list[str] = []
        self.abandoned_at: float | None = None

    def stage(self) -> Stage:
        match = self.referee.match
        return Stage(live=match.started and not match.game.is_over, gestures=self.gestures)

    def until(self, t: float) -> None:
        """Run the timers due before ``t``."""
        while self.abandoned_at is None:
            due = self.referee.next_deadline(self.stage().live)
            if due is None or due > t:
                return
            self.act(self.referee.poll(due, self.stage()), due)
            self.watch(due)

    def watch(self, now: float) -> None:
        self.act(self.referee.watch(now, self.stage()), now)

    def act(self, events: list[Any], now: float | None) -> None:
        """Carry out what the referee reports: problems of a board forming a gesture dropped,
        gestures acted on as the session acts on them, the next game set up noted."""
        referee = self.referee
        match = referee.match
        for event in referee.adopt(events, now or 0.0):
            if isinstance(event, ProblemFound):
                if self.gestures and referee.forming():
                    match.problems.remove(event.message)   # the kings on their way to the centre
            elif isinstance(event, NextGameSetUp):
                self.abandoned_at = event.time
            elif isinstance(event, GestureUndone) and now is not None:
                if match.game.is_over:
                    try:
                        self.act(match.reopen(now), now)
                        self.fired.append(f"{now:.3f} s: {event.result} taken back")
                    except ValueError:
                        pass
            elif isinstance(event, Resign) and now is not None and self.stage().live:
                self.fired.append(f"{now:.3f} s: {'0-1' if event.color == 0 else '1-0'} (resigned by gesture)")
                self.act(match.resign(event.color, now), now)
            elif isinstance(event, DrawGesture) and now is not None and self.stage().live:
                decision = draw_decision(event, bool(match.game.claimable_draws()), False, False)
                self.fired.append(f"{now:.3f} s: 1/2-1/2 ({decision} by gesture)")
                self.act(match.claim_draw(now) if decision == "claim" else match.agree_draw(now), now)


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
            match = replay(sys.stdin, config, sys.stderr)
        else:
            with open(args.capture, encoding="utf-8", errors="replace") as f:
                match = replay(f, config, sys.stderr)
    except OSError as exc:
        print(f"echiquier replay: cannot read {args.capture}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if not match.started and match.debouncer.settled is not None:
        where = "the position of --fen" if fen else "the initial position"
        text = (f"the board never showed the start position ({where}), so no game began: "
                "give --fen with the position the capture starts from")
        match.problems.append(text)
        print(f"echiquier replay: {text}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps(match.to_json(), indent=2, ensure_ascii=False))
    else:
        name = "stdin" if args.capture == "-" else args.capture
        tags = {"Event": f"Replay of {name}", "Site": "Échiquier"}
        if getattr(match, "abandoned", False):
            tags["Termination"] = "abandoned"
        sys.stdout.write(match.to_pgn(tags))
    return 0
