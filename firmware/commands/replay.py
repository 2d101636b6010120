"""`echiquier replay`: run a capture file through the game pipeline and print the game (PGN or JSON).

The capture's readings go through the same :class:`firmware.referee.match.Match` as on the board
(debounce, inference, clock, draw rules), with the capture's own times. A malformed line is
reported on stderr with its line number, recorded in ``problems``, and skipped; the replay
goes on. Exit 0 when the capture was read, 2 when it cannot be opened or an option is wrong.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import TextIO

from board_driver.capture import CaptureError, PromoteChoice, iter_capture
from chess_core import FenError
from chess_core.timecontrol import TimeControlError

from firmware.referee.match import Match, MatchConfig


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="replay a capture file and print the game")
    p.add_argument("capture", metavar="CAPTURE", help="capture file (format v1); - reads stdin")
    p.add_argument("--fen", default=None, help="start position (default: the initial position)")
    p.add_argument("--time-control", default="-", help="time control, e.g. 300+3 (default: - for none)")
    p.add_argument("--rules", choices=("fide", "casual"), default="fide", help="rule profile (default: fide)")
    p.add_argument("--format", choices=("pgn", "json"), default="pgn", help="output format (default: pgn)")
    p.set_defaults(func=run)


def replay(lines: Iterable[str], config: MatchConfig | None = None,
           errors_to: TextIO | None = None) -> Match:
    """Feed a capture (lines or text) through a Match and finish it; returns the Match."""
    match = Match(config)
    errors: list[CaptureError] = []
    reported = 0
    for event in iter_capture(lines, errors):
        reported = _report(match, errors, reported, errors_to)
        if isinstance(event, PromoteChoice):
            match.promote(event.piece, event.time)
        else:
            match.feed(event)
    _report(match, errors, reported, errors_to)
    match.finish()
    return match


def _report(match: Match, errors: list[CaptureError], reported: int, out: TextIO | None) -> int:
    for error in errors[reported:]:
        text = f"line {error.line}: {error.reason}"
        match.problems.append(text)
        if out is not None:
            print(f"echiquier replay: {text}", file=out)
    return len(errors)


def run(args: argparse.Namespace) -> int:
    try:
        config = MatchConfig(rules=args.rules, time_control=args.time_control, fen=args.fen)
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
    if args.format == "json":
        print(json.dumps(match.to_json(), indent=2, ensure_ascii=False))
    else:
        name = "stdin" if args.capture == "-" else args.capture
        sys.stdout.write(match.to_pgn({"Event": f"Replay of {name}", "Site": "Échiquier"}))
    return 0
