"""Benchmark: the CPU a reading costs the session with a page subscribed (the state built and handed over), beside another checkout.

A session alone (default configuration, no page server: the subscriber is a function writing
the state's JSON, as the page's push does) replays bench/service.py's 200-ply game
reading by reading, polled at its deadlines as the service does. Each sample is the thread CPU of
one reading's step and its poll at the settle time (the LEDs computed, the state built for the
subscriber and written as JSON, as the page's push does). A second figure is the CPU of one
``session.state()`` and its JSON alone, at every ply. Each
checkout runs in a child process of its own (its code, this script's game), alternately, ``--runs``
times; medians and p99 over all samples. ``--tree PATH`` adds a second checkout (main, to compare).

Run: .venv/bin/python bench/state_build.py [--tree PATH] [--runs N]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def child(tree: str, capture: str) -> None:
    sys.path.insert(0, str(HERE / "bench"))
    import service as bench_service   # the game's capture and the default configuration's text (first:
    sys.path.insert(0, tree)          # it puts this checkout on the path, which the tree's must precede)
    from board_driver.capture import parse_capture
    from board_driver.reading import Reading
    from firmware.config import loads_config
    from firmware.session.session import Session
    from firmware.session.state import to_json

    assert Session.__module__ == "firmware.session.session" and sys.modules["firmware"].__file__.startswith(tree)

    with tempfile.TemporaryDirectory() as state_dir:
        config = loads_config(bench_service.config_text(state_dir, 8080))   # (no server: the port is not opened)
        session = Session(config)
        states = []
        session.subscribe(lambda state: states.append(to_json(state)))   # (as the page's push: its JSON)
        settle = config.board.settle_ms / 1000
        events = [e for e in parse_capture(Path(capture).read_text()) if isinstance(e, Reading)]
        steps, builds = [], []
        for reading in events:
            for _ in range(1000):
                deadline = session.next_deadline(reading.time, blink=False)
                if deadline is None or deadline > reading.time:
                    break
                session.poll(deadline)
            start = time.thread_time_ns()
            session.feed(reading)
            session.poll(reading.time + settle)
            steps.append((time.thread_time_ns() - start) / 1e6)
            start = time.thread_time_ns()
            to_json(session.state(reading.time + settle))
            builds.append((time.thread_time_ns() - start) / 1e6)
        print(json.dumps({"steps": steps, "builds": builds, "moves": len(session.game.moves),
                          "states": len(states)}))


def p99(values: list[float]) -> float:
    return sorted(values)[min(len(values) - 1, int(len(values) * 0.99))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", default=None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", nargs=2, default=None)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    sys.path.insert(0, str(HERE / "bench"))
    import service as bench_service
    trees = {"this": str(HERE)} | ({"other": str(Path(args.tree).resolve())} if args.tree else {})
    results: dict[str, dict[str, list[float]]] = {name: {"steps": [], "builds": []} for name in trees}
    with tempfile.TemporaryDirectory() as tmp:
        capture = Path(tmp) / "game.txt"
        capture.write_text(bench_service.make_capture(bench_service.make_game()))
        for _ in range(args.runs):
            for name, tree in trees.items():
                out = subprocess.run([sys.executable, __file__, "--child", tree, str(capture)], capture_output=True,
                                     text=True, check=True)
                got = json.loads(out.stdout.strip().splitlines()[-1])
                assert got["moves"] == bench_service.PLIES, got["moves"]
                results[name]["steps"] += got["steps"]
                results[name]["builds"] += got["builds"]
    for name, tree in trees.items():
        steps, builds = results[name]["steps"], results[name]["builds"]
        print(f"{name} ({tree}): {len(steps)} readings; step with the state built: median "
              f"{statistics.median(steps):.3f} ms, p99 {p99(steps):.3f} ms; state() alone: median "
              f"{statistics.median(builds):.3f} ms, p99 {p99(builds):.3f} ms")


if __name__ == "__main__":
    main()
