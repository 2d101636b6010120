"""Benchmark: the whole service's memory, start-up time and reading-to-LED latency, beside peers.

Prints:

* resident memory (VmRSS) of the service once the board is read, and after a 200-move game,
  beside a bare Python interpreter (peer);
* time from ``echiquier run`` to READY=1 on the sd_notify socket (median of 5), beside the
  start and exit of a bare interpreter (peer);
* latency from the instant a reading settles (its time + settle_ms) to the LED frame leaving
  the service (the sink's ``show``), through the whole shell: a scanner thread delivering a
  200-move game in real time (stamped with time.monotonic, as the GPIO scanner does), the
  asyncio queue, the timer that wakes the loop, the session (debounce, inference, game, clock,
  feedback) and the LED sink; median and p99, all frames and frames that commit a move. The
  peer is the session alone (no thread, no queue, no timer) on the same readings.

Goals: <= 40 MB, READY <= 1 s, p99 <= 5 ms (on this machine). Run: .venv/bin/python bench/service.py
"""
from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PLIES = 200
STEP_MS = 70          # between the contacts of one move (well above the 30 ms settle time)
BETWEEN_MS = 90       # between two moves
GOALS = {"rss_mb": 40.0, "ready_s": 1.0, "p99_ms": 5.0}
ECHIQUIER = Path(sys.executable).with_name("echiquier")


def rss_mb(pid: int | str = "self") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


# -- the game: 200 plies without promotions (no blinking LEDs), played by quick, clean hands --

def make_game() -> list[str]:
    import random

    import chess
    for seed in range(1000):
        rng = random.Random(seed)
        board = chess.Board()
        moves = []
        while len(moves) < PLIES and not board.is_game_over(claim_draw=False):
            legal = [m for m in board.legal_moves if not m.promotion]
            if not legal:
                break
            move = rng.choice(legal)
            moves.append(move.uci())
            board.push(move)
        if len(moves) == PLIES:
            return moves
    raise RuntimeError("no 200-ply game found")


def make_capture(moves: list[str]) -> str:
    """Capture lines (format v1): lift and place, the mover first, the rook after the king."""
    import chess
    board = chess.Board()
    occ = int(board.occupied)
    t = 0
    lines = ["# bench/service.py", f"{t} {occ:016x}"]

    def contact(square: int, present: bool) -> None:
        nonlocal occ, t
        t += STEP_MS
        occ = occ | (1 << square) if present else occ & ~(1 << square)
        lines.append(f"{t} {occ:016x}")

    t += 500
    for uci in moves:
        move = chess.Move.from_uci(uci)
        contact(move.from_square, False)
        if board.is_en_passant(move):
            contact(move.to_square + (-8 if board.turn else 8), False)
        elif board.is_capture(move):
            contact(move.to_square, False)
        contact(move.to_square, True)
        if board.is_castling(move):
            rook_from, rook_to = {6: (7, 5), 2: (0, 3), 62: (63, 61), 58: (56, 59)}[move.to_square]
            contact(rook_from, False)
            contact(rook_to, True)
        board.push(move)
        t += BETWEEN_MS
    return "\n".join(lines) + "\n"


# -- the child: the service in this process, on a paced source ---------------------------------

def child(capture_path: str, state_dir: str, mode: str) -> None:
    from board_driver.capture import parse_capture
    from board_driver.leds import LedSink
    from board_driver.reading import Reading
    from board_driver.sensors import SensorSource
    from firmware.config import loads_config

    config = loads_config(f'[board]\nsensors = "sim"\n[storage]\ndir = "{state_dir}"\n[game]\ntime_control = "3600+5"\n')
    events = [e for e in parse_capture(Path(capture_path).read_text()) if isinstance(e, Reading)]
    settle = config.board.settle_ms / 1000

    if mode.endswith("material"):  # dead positions by material alone: the exact search's cost apart
        from firmware import session as session_module
        original = session_module.Session._match_config
        session_module.Session._match_config = lambda self, **kw: dataclasses.replace(
            original(self, **kw), exact_dead_positions=False)

    if mode.startswith("peer"):
        from firmware.session.session import Session
        from board_driver.sim_leds import RecordingLedSink

        class Stamp(RecordingLedSink):
            def show(self, colours) -> None:
                self.at = time.perf_counter()

        sink = Stamp()
        session = Session(config, leds=sink)
        samples = []
        for reading in events:
            session.feed(reading)
            sink.at = None
            start = time.perf_counter()
            session.poll(reading.time + settle)
            if sink.at is not None:
                samples.append((sink.at - start) * 1000)
        session.finish(events[-1].time + 1)
        print(json.dumps({"samples": samples, "moves": len(session.game.moves)}))
        return

    from firmware.service import Service

    class PacedSource(SensorSource):
        """Delivers the capture in real time, stamped like a live scanner (time.monotonic)."""

        def __init__(self) -> None:
            super().__init__()
            self.delivered: list[tuple[float, int]] = []
            self.done = threading.Event()

        def read_once(self) -> Reading:
            return Reading(time.monotonic(), events[0].occupied)

        def _run(self) -> None:
            start = time.monotonic()
            t0 = events[0].time
            for reading in events:
                delay = start + (reading.time - t0) - time.monotonic()
                if delay > 0 and self._stopping.wait(delay):
                    return
                now = time.monotonic()
                self.delivered.append((now, reading.occupied))
                self._deliver(Reading(now, reading.occupied))
            self.done.set()

    class TimingSink(LedSink):
        def __init__(self) -> None:
            self.shown: list[float] = []

        def show(self, colours) -> None:
            self.shown.append(time.monotonic())

    source, sink = PacedSource(), TimingSink()
    # A sample: a reading settles (the session sees a new settled reading) and the same pass
    # shows a frame; the latency runs from the settle instant (reading time + settle_ms).
    from firmware.session.session import Session
    frames: list[float] = []
    original_after = Session._after

    def timed_after(self, now):
        settled = self.match.debouncer.settled
        fresh = settled is not None and settled is not self.settled
        shown = len(sink.shown)
        original_after(self, now)
        if fresh and len(sink.shown) > shown:
            frames.append((sink.shown[shown] - (settled.time + settle)) * 1000)

    Session._after = timed_after
    service = Service(config, source=source, leds=sink)
    result: dict = {}

    async def main() -> None:
        task = asyncio.create_task(service.run())
        await service.ready.wait()
        result["rss_start_mb"] = rss_mb()
        while not source.done.is_set():
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        result["rss_end_mb"] = rss_mb()
        result["moves"] = len(service.session.game.moves)
        result["problems"] = service.session.match.problems[:3]
        service.stop()
        await task

    asyncio.run(main())
    result["samples"] = frames
    print(json.dumps(result))


def run_child(capture: Path, state: Path, mode: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(capture), str(state), mode],
                         capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- READY -------------------------------------------------------------------------------------

def ready_time(tmp: Path, runs: int = 5) -> list[float]:
    path = str(tmp / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(30)
    config = tmp / "ready.toml"
    config.write_text(f'[board]\nsensors = "sim"\n[storage]\ndir = "{tmp / "ready-state"}"\n[web]\nenabled = false\n')
    times = []
    for _ in range(runs):
        start = time.monotonic()
        proc = subprocess.Popen([str(ECHIQUIER), "run", "--config", str(config), "--log-level", "warning"],
                                env=dict(os.environ, NOTIFY_SOCKET=path))
        while b"READY=1" not in sock.recv(4096):
            pass
        times.append(time.monotonic() - start)
        proc.terminate()
        proc.wait()
    sock.close()
    return times


def bare_python() -> tuple[float, float]:
    start = time.monotonic()
    out = subprocess.run([sys.executable, "-c", "print(open('/proc/self/status').read())"], capture_output=True,
                         text=True)
    elapsed = time.monotonic() - start
    rss = next(int(l.split()[1]) for l in out.stdout.splitlines() if l.startswith("VmRSS:")) / 1024
    return elapsed, rss


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        capture = tmp / "game.cap"
        capture.write_text(make_capture(make_game()))
        live = run_child(capture, tmp / "live", "service")
        peer = run_child(capture, tmp / "peer", "peer")
        material = run_child(capture, tmp / "material", "service-material")
        peer_material = run_child(capture, tmp / "peer-material", "peer-material")
        ready = ready_time(tmp)
    py_start, py_rss = bare_python()
    lat, base = live["samples"], peer["samples"]
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
          "(real-time figures include the scheduling of everything else running)")
    print(f"game: {live['moves']} moves replayed live ({len(lat)} LED frames); session alone: {peer['moves']} moves")
    print(f"resident memory after start     {live['rss_start_mb']:6.1f} MB   bare python {py_rss:5.1f} MB  "
          f"(x{live['rss_start_mb'] / py_rss:.1f})  goal <= {GOALS['rss_mb']:.0f} MB")
    print(f"resident memory after the game  {live['rss_end_mb']:6.1f} MB")
    ready_med = statistics.median(ready)
    print(f"start to READY=1 (median of {len(ready)})  {ready_med:6.3f} s    bare python start+exit {py_start:.3f} s "
          f"(x{ready_med / py_start:.1f})  goal <= {GOALS['ready_s']:.0f} s   [{', '.join(f'{r:.2f}' for r in ready)}]")
    print(f"settled reading -> LED frame    median {statistics.median(lat):.2f} ms  p99 {pct(lat, 0.99):.2f} ms  "
          f"max {max(lat):.2f} ms  goal p99 <= {GOALS['p99_ms']:.0f} ms")
    print(f"  session alone (peer)          median {statistics.median(base):.2f} ms  p99 {pct(base, 0.99):.2f} ms  "
          f"(service p99 / peer p99 x{pct(lat, 0.99) / max(pct(base, 0.99), 1e-6):.1f})")
    lm, pm = material["samples"], peer_material["samples"]
    print("  with dead positions by material only (chess_core.dead's exact search left out):")
    print(f"    service                     median {statistics.median(lm):.2f} ms  p99 {pct(lm, 0.99):.2f} ms  "
          f"max {max(lm):.2f} ms ({material['moves']} moves)")
    print(f"    session alone (peer)        median {statistics.median(pm):.2f} ms  p99 {pct(pm, 0.99):.2f} ms")
    ok = (live["rss_end_mb"] <= GOALS["rss_mb"] and ready_med <= GOALS["ready_s"]
          and pct(lat, 0.99) <= GOALS["p99_ms"])
    print("goals met" if ok else "goals NOT all met")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4])
        sys.exit(0)
    sys.exit(main())
