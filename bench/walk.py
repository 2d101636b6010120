"""Benchmark of the structure: the walk of one reading and of one online move through the code, the rooms entered and the climbs back up.

A session alone (its default configuration, a door that carries each message out at once) plays
1. e2e4 on the board; the walk of the reading that lands the pawn on e4 and of the poll that
commits it after the settle time is traced (sys.setprofile), then the walk of the opponent's
answer e7e5 told by the opponent's listener. For each walk it prints the calls into our code,
the rooms (modules) entered, how many times the walk enters each room from another, and the
climbs: a call into a room that is already on the call stack further up (a part calling back
into the session that called it, say). Then the classes of firmware/ with the most methods (every
def in the class body) and how many modules and classes reach into the session's fields.
``--tree PATH`` walks another checkout (main, to compare): the same script, that tree's code.

Run: .venv/bin/python bench/walk.py [--tree PATH]
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import sys
import tempfile
from pathlib import Path

OURS = ("chess_core", "board_driver", "netserver", "club_wire", "uci", "durable", "firmware")


class Walk:
    """The modules one call tree enters, as sys.setprofile sees them."""

    def __init__(self) -> None:
        self.stack: list[str] = []
        self.calls = 0
        self.entries: collections.Counter[str] = collections.Counter()
        self.climbs: collections.Counter[str] = collections.Counter()

    def __call__(self, frame, event, arg) -> None:
        if event not in ("call", "return"):
            return
        module = frame.f_globals.get("__name__", "")
        ours = module.split(".")[0] in OURS
        if event == "call":
            if ours:
                self.calls += 1
                caller = self.stack[-1] if self.stack else None
                if module != caller:
                    self.entries[module] += 1
                    if module in self.stack:
                        self.climbs[f"{caller} -> {module}"] += 1
            self.stack.append(module if ours else (self.stack[-1] if self.stack else ""))
        elif self.stack:
            self.stack.pop()

    def report(self, title: str) -> None:
        print(f"{title}: {self.calls} calls into our code, {len(self.entries)} rooms entered, "
              f"{sum(self.entries.values())} entries, {sum(self.climbs.values())} climbs back up")
        for module, count in self.entries.most_common():
            print(f"    {count:4d}  {module}")
        for climb, count in self.climbs.most_common():
            print(f"    climb {count:3d}  {climb}")


def _own(path: str):
    """A module of this checkout (the walk's fakes), whichever tree is walked."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(Path(path).stem, Path(__file__).resolve().parents[1] / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def traced(fn) -> Walk:
    walk = Walk()
    sys.setprofile(walk)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return walk


async def main(state: Path) -> None:
    from board_driver.reading import Reading
    from chess_core import Move, Position, parse_square
    from firmware.config import loads_config
    from firmware.session.session import Session
    ListeningOpponent = _own("tests/fakes/listening_opponent.py").ListeningOpponent

    config = loads_config(f'[board]\nsensors = "sim"\n[storage]\ndir = "{state}"\n[game]\ntime_control = "300+2"\n')
    opponent = ListeningOpponent()   # (the other end of an online game, as far as the walk needs)
    session = Session(config, opponent=opponent)
    await session.start_opponent()
    settle = config.board.settle_ms / 1000
    occupied, t = Position().occupied, 1.0
    session.feed(Reading(t, occupied))
    session.poll(t + settle)
    e2, e4 = parse_square("e2"), parse_square("e4")
    t += 1
    session.feed(Reading(t, occupied & ~(1 << e2)))
    session.poll(t + settle)
    t += 1
    landed = Reading(t, occupied & ~(1 << e2) | (1 << e4))
    reading = traced(lambda: (session.feed(landed), session.poll(t + settle)))
    assert [m.uci() for m in session.game.moves] == ["e2e4"], session.game.moves
    reading.report("a reading that lands e2-e4, and its poll")
    answer = traced(lambda: opponent.listener.opponent_move(Move.from_uci("e7e5")))
    assert session.board_state.play.expected_move == Move.from_uci("e7e5")
    answer.report("the opponent's move e7e5, told by its listener")
    await session.aclose()


def members(tree: Path, most: int = 12) -> None:
    """The largest classes of firmware/ by their methods."""
    import ast
    sizes = []
    for path in sorted((tree / "firmware").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                count = sum(isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) for b in node.body)
                sizes.append((count, f"{path.relative_to(tree).with_suffix('')}.{node.name}".replace("/", ".")))
    print(f"the {most} largest classes of firmware/ (methods):")
    for count, name in sorted(sizes, reverse=True)[:most]:
        print(f"    {count:4d}  {name}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(Path(tmp)))
    members(args.tree.resolve())
