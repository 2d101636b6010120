"""Benchmark: the memory of the whole service's process tree with an engine opponent, the coach on, an analysis running and 200 hints asked, beside Stockfish alone and the old way (one Stockfish a request).

The service runs as the user runs it: ``echiquier sim --config FILE`` (the default configuration,
plus ``[game] opponent = "engine"`` and ``[coach] white = true``), its state directory holding one
finished game of 80 plies. The bench then asks, over HTTP as the page does: the analysis of that
game (``POST /api/games/<id>/analysis``), 200 hints at once (``POST /api/coach/hint``, 8
connections as a browser opens), then White's move e2-e4 on the simulated board (the opponent
thinks its second). Meanwhile, every 50 ms, it reads the service's process tree in /proc: the
sum of VmRSS (what ``ps`` shows; pages shared by two Stockfish, the binary's, count twice) and
of Pss from smaps_rollup (each shared page split between its sharers: the tree's real cost), and
how many Stockfish processes run. Prints median and max, before the work (idle, the opponent's
engine started) and during it, with the goal (under 300 MB).

Peers, in the same run: Stockfish alone with the same settings (after one search), and the old
way's hints, each request its own Stockfish (``OLD_WAY`` requests at once: the issue saw 106; a
shared machine is spared the rest), the figure for 106 extrapolated from it.

The Pi Zero 2 W's figure: this machine's PSS with the same settings. Nearly all of it is data whose
size does not depend on the processor: Stockfish's NNUE network (its ~45 MB embedded file, and the
weights read from it), its hash (``Hash``) and one search thread's tables (``Threads`` 1), and
Python's heap (64-bit on both, Raspberry Pi OS 64-bit running Debian's arm64 stockfish 15.1 and the
same net). The machine code differs (arm64 against x86-64) by a few MB at most. Not measured on a Pi.

Run: .venv/bin/python bench/engines_memory.py   (about 40 s)
"""
from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from chess_core import Game, Move, write_pgn  # noqa: E402
from uci.helper import HASH_MB, NICE  # noqa: E402
from uci.engine import EngineLaunch, SearchLimit, UciEngine  # noqa: E402

STOCKFISH = "/usr/games/stockfish"
ECHIQUIER = Path(sys.executable).with_name("echiquier")
HINTS = 200
OLD_WAY = 12            # the old way's requests measured at once (the issue saw 106)
GOAL_MB = 300.0
SAMPLE_S = 0.05
GAME_ID = "2025-03-01_1000_Anna-vs-Ben"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def config_text(state_dir: Path, port: int) -> str:
    return (f'[board]\nsensors = "sim"\n[storage]\ndir = "{state_dir}"\n[game]\nopponent = "engine"\n'
            f'[coach]\nwhite = true\n[web]\nhost = "127.0.0.1"\nport = {port}\n')


def library_game(games: Path) -> None:
    """A finished game of 80 plies (random legal moves, seeded) in the library."""
    rng, game = random.Random(32), Game()
    while len(game.moves) < 80 and not game.is_over:
        game.push(rng.choice(sorted(game.position.legal_moves(), key=Move.uci)))
    games.mkdir(parents=True, exist_ok=True)
    (games / f"{GAME_ID}.pgn").write_text(write_pgn(game, {"White": "Anna", "Black": "Ben", "Date": "2025.03.01",
                                                           "Result": "1/2-1/2"}))


# -- /proc -----------------------------------------------------------------------------------------

def tree(root: int) -> list[int]:
    """``root`` and its descendants."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def memory_kb(pid: int) -> tuple[int, int, str]:
    """(VmRSS, Pss) in kB and the command name of ``pid`` (zeros if it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        name = Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return 0, 0, ""

    def field(text: str, key: str) -> int:
        for line in text.splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
        return 0
    return field(status, "VmRSS"), field(rollup, "Pss"), name


def sample(root: int) -> tuple[float, float, int]:
    """The tree's (RSS MB, PSS MB, Stockfish processes)."""
    rss = pss = engines = 0
    for pid in tree(root):
        r, p, name = memory_kb(pid)
        rss, pss, engines = rss + r, pss + p, engines + (name == "stockfish")
    return rss / 1024, pss / 1024, engines


class Sampler:
    def __init__(self, root: int) -> None:
        self.root = root
        self.samples: list[tuple[float, float, int]] = []
        self.running = True

    async def run(self) -> None:
        while self.running:
            self.samples.append(await asyncio.to_thread(sample, self.root))
            await asyncio.sleep(SAMPLE_S)


def row(label: str, samples: list[tuple[float, float, int]]) -> None:
    rss = [s[0] for s in samples]
    pss = [s[1] for s in samples]
    engines = max(s[2] for s in samples)
    print(f"{label:46s} RSS median {statistics.median(rss):6.1f} max {max(rss):6.1f} MB   "
          f"PSS median {statistics.median(pss):6.1f} max {max(pss):6.1f} MB   Stockfish at most {engines}"
          f"   ({len(samples)} samples)")


# -- the page's requests ---------------------------------------------------------------------------

def post(port: int, path: str, body: dict | None = None) -> int:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body or {}).encode(),
                                     headers={"Content-Type": "application/json",
                                              "Origin": f"http://127.0.0.1:{port}"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def get_json(port: int, path: str) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as answer:
        return json.loads(answer.read())


async def wait_listening(port: int, within: float = 20.0) -> None:
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            await asyncio.sleep(0.05)
    raise SystemExit(f"the service did not listen on {port}")


async def the_service() -> None:
    with tempfile.TemporaryDirectory(prefix="echiquier-bench-") as tmp:
        state = Path(tmp) / "state"
        library_game(state / "games")
        port = free_port()
        config = Path(tmp) / "config.toml"
        config.write_text(config_text(state, port))
        proc = subprocess.Popen([str(ECHIQUIER), "sim", "--config", str(config), "--state-dir", str(state),
                                 "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            await wait_listening(port)
            await asyncio.sleep(2.0)                     # (the opponent's Stockfish started, the page up)
            sampler = Sampler(proc.pid)
            task = asyncio.ensure_future(sampler.run())
            await asyncio.sleep(2.0)
            idle = list(sampler.samples)
            started = len(sampler.samples)
            analysis = await asyncio.to_thread(post, port, f"/api/games/{GAME_ID}/analysis")
            with ThreadPoolExecutor(max_workers=8) as pool:
                t0 = time.monotonic()
                statuses = await asyncio.gather(*(asyncio.get_running_loop().run_in_executor(
                    pool, post, port, "/api/coach/hint") for _ in range(HINTS)))
                hints_s = time.monotonic() - t0
            await asyncio.sleep(0.5)
            moved = [await asyncio.to_thread(post, port, "/api/sim/click", {"square": sq}) for sq in ("e2", "e4")]
            end = time.monotonic() + 30
            while time.monotonic() < end:                # until the analysis is kept (or 30 s)
                game = await asyncio.to_thread(get_json, port, f"/api/games/{GAME_ID}")
                if game.get("analysis") is not None or (game.get("analysing") or {}).get("state") == "failed":
                    break
                await asyncio.sleep(0.5)
            sampler.running = False
            await task
            busy = sampler.samples[started:]
            counts = {s: statuses.count(s) for s in sorted(set(statuses))}
            print(f"the service (echiquier sim, engine opponent, coach on) pid {proc.pid}: analysis asked "
                  f"{analysis}, {HINTS} hints in {hints_s:.2f} s answered {counts}, e2-e4 {moved}, "
                  f"analysis {'kept' if game.get('analysis') else game.get('analysing')}")
            row("service tree, idle (opponent's engine up)", idle)
            row("service tree, analysis + 200 hints + a move", busy)
            worst = max(s[1] for s in busy)
            print(f"goal: whole tree PSS under {GOAL_MB:.0f} MB: {'met' if worst < GOAL_MB else 'NOT met'} "
                  f"(max {worst:.1f} MB; RSS max {max(s[0] for s in busy):.1f} MB counts the shared binary twice)")
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


# -- the peers -------------------------------------------------------------------------------------

HELPER_OPTIONS = {"Threads": 1, "Hash": HASH_MB, "UCI_AnalyseMode": True}


async def stockfish_alone() -> None:
    async with UciEngine(EngineLaunch(STOCKFISH, options=HELPER_OPTIONS)) as engine:
        await engine.new_game()
        await engine.play("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", [], SearchLimit(movetime_ms=500))
        assert engine.pid is not None
        rss, pss, _ = memory_kb(engine.pid)
    print(f"{'peer: Stockfish alone (after a 0.5 s search)':46s} RSS {rss / 1024:6.1f} MB   PSS {pss / 1024:6.1f} MB")


async def old_way() -> None:
    """The old coach's hints: each its own Stockfish, all searching at once."""
    engines = [UciEngine(EngineLaunch(STOCKFISH, options=HELPER_OPTIONS)) for _ in range(OLD_WAY)]
    try:
        await asyncio.gather(*(e.start() for e in engines))
        for e in engines:
            if e.pid is not None:
                os.setpriority(os.PRIO_PROCESS, e.pid, NICE)
        searches = [asyncio.ensure_future(e.play("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", [],
                                                 SearchLimit(movetime_ms=500))) for e in engines]
        await asyncio.sleep(0.3)
        rss = pss = 0
        for e in engines:
            if e.pid is not None:
                r, p, _ = memory_kb(e.pid)
                rss, pss = rss + r, pss + p
        await asyncio.gather(*searches)
    finally:
        await asyncio.gather(*(e.close() for e in engines))
    per_rss, per_pss = rss / 1024 / OLD_WAY, pss / 1024 / OLD_WAY
    print(f"{f'peer: the old way, {OLD_WAY} hints at once':46s} RSS {rss / 1024:6.1f} MB   PSS {pss / 1024:6.1f} MB"
          f"   (Stockfish only; {per_pss:.1f} MB PSS each: 106 at once ~ {106 * per_pss / 1024:.1f} GB)")


def settings() -> None:
    print(f"engines as a Pi Zero 2 W runs them: the opponent's Stockfish Threads 1, Hash 16 MB (Stockfish's "
          f"defaults: [engine] sets neither); the helper (coach, hints, analyses) Threads 1, Hash {HASH_MB} MB, "
          f"nice {NICE}, quit after 60 s idle")
    print("Pi Zero 2 W figure: the PSS above (the memory is the net, the hash, one thread's tables and Python's "
          "heap, none of which depends on the CPU; arm64 code differs by a few MB); the Pi has 512 MB, "
          "about 420 MB of it for programs")


async def main() -> None:
    if not os.access(STOCKFISH, os.X_OK) or not ECHIQUIER.exists():
        raise SystemExit("needs /usr/games/stockfish and the echiquier command (make install-dev)")
    settings()
    await the_service()
    await stockfish_alone()
    await old_way()


if __name__ == "__main__":
    asyncio.run(main())
