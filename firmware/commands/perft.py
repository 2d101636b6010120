"""`echiquier perft`: count the leaves of the legal move tree of a position."""
from __future__ import annotations

import argparse
import sys

from chess_core import STARTING_FEN, FenError, divide, perft
from chess_core.chess960 import VARIANTS

from firmware.commands.fen_check import NO_VALIDATE, VARIANT, read_fen


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("perft", help="count the legal move tree's leaves (move generator check)")
    p.add_argument("--fen", default=STARTING_FEN, help="position (default: the initial position)")
    p.add_argument("--depth", type=int, required=True, help="plies to search (>= 0)")
    p.add_argument("--divide", action="store_true", help="print the count below each first move")
    p.add_argument("--every-leaf", action="store_true",
                   help="make and unmake every leaf instead of counting the last ply's moves (slower)")
    p.add_argument("--variant", choices=VARIANTS, default="standard",
                   help="chess960: castling with the rook of each right, written king-takes-rook (e1h1)")
    p.add_argument("--no-validate", action="store_true",
                   help="count positions that fail the legality checks (impossible checks, too many pieces), "
                        "as composed and 'tricky' perft suites need; the FEN syntax is still checked")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.depth < 0:
        print("echiquier perft: --depth must be >= 0", file=sys.stderr)
        return 2
    try:
        pos = read_fen(args.fen, validate=not args.no_validate, chess960=args.variant == "chess960",
                       options=(VARIANT, NO_VALIDATE))
    except FenError as exc:
        print(f"echiquier perft: bad --fen: {exc}", file=sys.stderr)
        return 2
    if args.divide and args.depth >= 1:
        split = divide(pos, args.depth, bulk=not args.every_leaf)
        for uci in sorted(split):
            print(f"{uci}: {split[uci]}")
        print(f"\nNodes: {sum(split.values())}")
    else:
        print(perft(pos, args.depth, bulk=not args.every_leaf))
    return 0
