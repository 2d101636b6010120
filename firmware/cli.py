"""The `echiquier` command: one sub-command per module in firmware.commands."""
from __future__ import annotations

import argparse
import importlib
import sys

# Each name is a module firmware.commands.<name> with `register(subparsers)` that adds its
# sub-command and sets `func` (taking the parsed args, returning an exit code).
COMMANDS = ("perft", "hwtest", "replay", "sim", "run", "lichess", "hub", "analyse", "puzzles")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every sub-command, or of ``only`` (one name of COMMANDS): a command run
    imports its own module alone, not every other command's (start-up time and memory)."""
    parser = argparse.ArgumentParser(prog="echiquier", description="Échiquier sensor chessboard")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in (only,) if only else COMMANDS:
        importlib.import_module(f"firmware.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # The first word names the command (the top-level parser has no option but --help).
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
