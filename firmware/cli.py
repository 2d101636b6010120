"""The `echiquier` command: one sub-command per module in firmware.commands."""
from __future__ import annotations

import argparse
import importlib
import sys

# Each name is a module firmware.commands.<name> with `register(subparsers)` that adds its
# sub-command and sets `func` (taking the parsed args, returning an exit code).
COMMANDS = ("perft", "hwtest", "replay", "sim", "run", "lichess", "hub")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="echiquier", description="Échiquier sensor chessboard")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"firmware.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
