"""Benchmark: the board's voice: a move committed -> its speech process started, and the contact -> LED frame latency with and without the voice.

The service runs as ``echiquier run`` runs it (the web page on, no browser), on a paced source
that delivers a 200-ply game in real time (stamped with time.monotonic, as the GPIO scanner
does; bench/service.py's game and capture), once with ``[voice]`` off and once on. The voice is
the real one: its thread, the announcer, real espeak-ng processes synthesizing every
utterance (to stdout, thrown away: this machine has no sound card; on a board, espeak-ng plays
for seconds, mostly waiting on the card). Measured:

* move committed -> speech process started: from the LED frame that shows a move committed (the
  sink's ``show``, the moment the player sees it) to the ``Popen`` of the utterance that says
  that move having returned; and the part from the state handed to the voice (after the save);
* settled reading -> LED frame (bench/service.py's figure): median and p99, voice off and on:
  what the voice costs the board's loop while it speaks.

Goals: move -> speech started p99 <= 100 ms; the LED frame's p99 within 1 ms of the run without
the voice (bench/service.py's goal, p99 <= 5 ms, holds on a quiet machine; the loop's CPU until
the frame is printed too: it does not depend on what else the machine runs).
Run: .venv/bin/python bench/voice.py [--plies N]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GOAL_SPEECH_P99_MS = 100.0
GOAL_FRAME_SLACK_MS = 1.0   # the LED frame's p99 with the voice, beside the run without it


def child(capture_path: str, state_dir: str, voice_on: bool) -> None:
    """The service on the paced capture; prints the samples as JSON."""
    import asyncio
    import threading

    from bench.service import config_text, free_port
    from board_driver.capture import parse_capture
    from board_driver.leds import LedSink
    from board_driver.reading import Reading
    from board_driver.sensors import SensorSource
    from firmware.config import loads_config

    text = config_text(state_dir, free_port()) + ('[voice]\nenabled = true\nlanguage = "fr"\n' if voice_on else "")
    config = loads_config(text)
    events = [e for e in parse_capture(Path(capture_path).read_text()) if isinstance(e, Reading)]
    settle = config.board.settle_ms / 1000

    class PacedSource(SensorSource):
        def __init__(self) -> None:
            super().__init__()
            self.done = threading.Event()

        def read_once(self) -> Reading:
            return Reading(time.monotonic(), events[0].occupied)

        def _run(self) -> None:
            start, t0 = time.monotonic(), events[0].time
            for reading in events:
                delay = start + (reading.time - t0) - time.monotonic()
                if delay > 0 and self._stopping.wait(delay):
                    return
                self._deliver(Reading(time.monotonic(), reading.occupied))
            self.done.set()

    class TimingSink(LedSink):
        def __init__(self) -> None:
            self.shown: list[float] = []
            self.cpu_at_show: list[int] = []

        def show(self, colours) -> None:
            self.shown.append(time.perf_counter())
            self.cpu_at_show.append(time.thread_time_ns())

    from firmware.session.session import Session
    source, sink = PacedSource(), TimingSink()
    frames: list[float] = []            # settled reading -> LED frame (ms)
    commits: list[tuple[int, float]] = []   # (moves, perf_counter of the frame that showed them committed)
    original_refresh = Session.refresh
    known = [0]   # moves shown so far (a move is committed before the refresh that shows it)
    seen = [None]   # the settled reading the last refresh read

    def timed_refresh(self, now):
        settled = self.referee.board
        fresh = settled is not None and settled is not seen[0]
        seen[0] = settled
        shown = len(sink.shown)
        original_refresh(self, now)
        if len(sink.shown) > shown:
            if fresh:   # (perf_counter and monotonic are the same clock on Linux)
                frames.append((sink.shown[shown] - (settled.time + settle)) * 1000)
            if len(self.game.moves) > known[0]:
                commits.append((len(self.game.moves), sink.shown[shown]))
        known[0] = len(self.game.moves)

    Session.refresh = timed_refresh
    # The loop's own CPU from the start of a step to its frame (free of what else the machine runs).
    cpu_to_frame: list[float] = []

    def cpu_timed(method):
        def timed(self, item):
            shown, start = len(sink.shown), time.thread_time_ns()
            method(self, item)
            if len(sink.shown) > shown:
                cpu_to_frame.append((sink.cpu_at_show[shown] - start) / 1e6)
        return timed

    from firmware.service import Service
    Service._on_reading = cpu_timed(Service._on_reading)
    Service._on_tick = cpu_timed(Service._on_tick)
    said: list[tuple[tuple[str, ...], float, float | None]] = []   # (kinds, handed over, process started)
    if voice_on:
        from firmware.voice import companion, speaker

        def spawn(argv: list[str]):
            # real synthesis, to stdout thrown away (no sound card here): the process as on a board
            return subprocess.Popen(argv[:-2] + ["--stdout"] + argv[-2:], stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True)

        original_init = speaker.Speaker.__init__

        def init(self, settings, **kwargs):
            original_init(self, settings, **{**kwargs, "spawn": spawn, "clock": time.perf_counter})
        speaker.Speaker.__init__ = init
        original_say = companion.Voice._say

        def record(self, utterance, heard_at):
            before = len(self.latencies)
            original_say(self, utterance, heard_at)
            if utterance is not None and heard_at is not None:
                started = heard_at + self.latencies[-1] if len(self.latencies) > before else None
                said.append((utterance.kinds, heard_at, started))
        companion.Voice._say = record

    from firmware.commands.run import _voice, _web
    service = Service(config, source=source, leds=sink, companions=(_web,) + ((_voice,) if voice_on else ()))
    result: dict = {}

    async def main() -> None:
        task = asyncio.create_task(service.run())
        await service.ready.wait()
        while True:   # the page is started once the board is read: the frames counted from when it listens
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", config.web.port)) == 0:
                    break
            await asyncio.sleep(0.01)
        result["early"] = len(frames)
        while not source.done.is_set():
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)
        result["moves"] = len(service.session.game.moves)
        voice = getattr(service, "voice", None)
        result["utterances"] = len(voice.spoken) if voice is not None else 0
        result["cut"] = voice.speaker.cut if voice is not None else 0
        service.stop()
        await task

    asyncio.run(main())
    speech, handed = [], []
    for kinds, heard_at, started in said:
        if started is None or "move" not in kinds:
            continue
        commit = max((t for _, t in commits if t <= heard_at), default=None)
        if commit is not None:
            speech.append((started - commit) * 1000)
            handed.append((started - heard_at) * 1000)
    result.update(frames=frames[result["early"]:], speech=speech, handed=handed, cpu=cpu_to_frame[result["early"]:])
    print(json.dumps(result))


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def row(name: str, samples: list[float], unit: str = "frames") -> str:
    return (f"{name:40s} median {statistics.median(samples):6.2f} ms  p99 {pct(samples, 0.99):6.2f} ms  "
            f"max {max(samples):6.2f} ms  ({len(samples)} {unit})")


def run_child(capture: Path, state: Path, voice_on: bool) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(capture), str(state), "on" if voice_on else "off"],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=200)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.child[2] == "on")
        return 0
    if shutil.which("espeak-ng") is None:
        print("bench/voice.py needs espeak-ng (scripts/install-system-deps.sh)", file=sys.stderr)
        return 2
    import bench.service as service_bench
    service_bench.PLIES = args.plies
    with tempfile.TemporaryDirectory() as tmp:
        capture = Path(tmp) / "game.cap"
        capture.write_text(service_bench.make_capture(service_bench.make_game()))
        off = run_child(capture, Path(tmp) / "off", False)
        on = run_child(capture, Path(tmp) / "on", True)
    print(f"game: {args.plies} plies in real time; committed {off['moves']} (voice off), {on['moves']} (voice on); "
          f"{on['utterances']} utterances, {on['cut']} cut by a newer one")
    print(row("move committed -> speech process started", on["speech"], "moves") +
          f"  goal p99 <= {GOAL_SPEECH_P99_MS:.0f} ms")
    print(row("  state handed to the voice -> started", on["handed"], "moves"))
    print(row("settled reading -> LED frame, voice off", off["frames"]))
    print(row("settled reading -> LED frame, voice on", on["frames"]) +
          f"  goal p99 within {GOAL_FRAME_SLACK_MS:.0f} ms of the run without")
    print(row("  loop CPU until the frame, voice off", off["cpu"], "steps"))
    print(row("  loop CPU until the frame, voice on", on["cpu"], "steps"))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (the real-time figures include the "
          "scheduling of everything else running; the CPU figures do not)")
    ok = (pct(on["speech"], 0.99) <= GOAL_SPEECH_P99_MS
          and pct(on["frames"], 0.99) <= pct(off["frames"], 0.99) + GOAL_FRAME_SLACK_MS)
    print("goals met" if ok else "goals NOT all met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
