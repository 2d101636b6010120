"""Benchmark: the whole service's memory, start-up time and reading-to-LED latency, beside peers.

The service runs in its default configuration: the web page on (no browser connected), the
exact dead-position check on. Prints:

* resident memory (VmRSS) of the service once the board is read, and after a 200-move game,
  beside a bare Python interpreter (peer); after the same game with a page open all along (a
  websocket client in another process, reading every state pushed, answering the heartbeat);
  and of ``echiquier run`` itself through the same game (its readings replayed from the capture
  in real time) with a page open, at the game's end and at its peak (VmHWM); and of ``echiquier run`` itself (the command as
  systemd starts it, median of 7) 0.3 s after its page listens;
* time from ``echiquier run`` to READY=1 on the sd_notify socket and to the web page's port
  accepting connections (median of 7), beside the start and exit of a bare interpreter (peer);
* latency from the instant a reading settles (its time + settle_ms) to the LED frame leaving
  the service (the sink's ``show``), through the whole shell: a scanner thread delivering a
  200-move game in real time (stamped with time.monotonic, as the GPIO scanner does), the
  asyncio queue, the timer that wakes the loop, the session (debounce, inference, game, clock,
  feedback) and the LED sink; median and p99, all frames and frames that commit a move. The
  peer is the session alone (no thread, no queue, no timer) on the same readings.

A Pi-class profile (unless --no-pi; first, and alone with --pi-only): the same start-up and game
again on a CPU about six times slower than this machine's, as a Raspberry Pi Zero 2 W's
Cortex-A53 at 1 GHz runs Python (four to eight times by earlier measurements; six is the
middle). By default (--pi-model duty) the children run pinned to one CPU on which a real-time
process spins 5/6 of every ~0.3 ms and sleeps the rest: they run in the gaps, so every step of
C ms here takes about 6 C ms, at any size, like a slower clock (the spin is calibrated so a busy
loop runs x6 slower there; the spin costs 5/6 of a CPU while the profile runs, about a
minute and a half). --pi-model quota is the first model, a CPU cgroup of 1000 us per
6000 us: right on average but not in shape. A step runs at full speed until the period's
millisecond is spent, then waits up to 5 ms: medians come out shorter than a Pi's, and the tail
follows the period (frame p99 after start 11.7 ms at 1000/6000, 10.8 at 2000/12000 and 33.8 at
10000/60000, one session, the same code; cpu.stat counted throttling in 60 % of the periods).
Each frame's latency is also split: the wait from the settle instant until the loop begins the
step that shows it (the loop was busy with another step), the rest being that step's own work.
Other programs on the pinned CPU share its gaps: the Pi figures vary with the machine's load.
Both models need root (real-time priority, or a writable /sys/fs/cgroup/cpu); skipped otherwise.

Goals: RSS <= 35 MB, READY <= 0.3 s, listening <= 0.5 s, p99 <= 5 ms (on this machine).
Run: .venv/bin/python bench/service.py [--no-pi | --pi-only] [--pi-model duty|quota]
"""
from __future__ import annotations

import asyncio
import json
import os
import re
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
GOALS = {"rss_mb": 35.0, "ready_s": 0.3, "listen_s": 0.5, "p99_ms": 5.0}
PI_CGROUP = Path("/sys/fs/cgroup/cpu/echiquier-bench-pi")
PI_SLOWER = 6  # the Pi Zero 2 W runs Python about this many times slower than this machine
ECHIQUIER = Path(sys.executable).with_name("echiquier")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def config_text(state_dir: str, port: int) -> str:
    """The default configuration, on the simulated sensors, a state directory and a free port."""
    return (f'[board]\nsensors = "sim"\n[storage]\ndir = "{state_dir}"\n[game]\ntime_control = "3600+5"\n'
            f'[web]\nhost = "127.0.0.1"\nport = {port}\n')


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

# A page: the websocket opened as the browser opens it, every state read, counted (printed at SIGTERM).
PAGE_CLIENT = """
import asyncio, base64, os, signal, sys
count = 0
def done(*_):
    print(count, flush=True)
    os._exit(0)
signal.signal(signal.SIGTERM, done)
async def main(port):
    global count
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET /ws HTTP/1.1\\r\\nHost: 127.0.0.1:{port}\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n"
                  f"Sec-WebSocket-Key: {key}\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n").encode())
    await reader.readuntil(b"\\r\\n\\r\\n")
    mask = os.urandom(4)
    while True:
        first, second = await reader.readexactly(2)
        n = second & 0x7F
        if n == 126:
            n = int.from_bytes(await reader.readexactly(2), "big")
        elif n == 127:
            n = int.from_bytes(await reader.readexactly(8), "big")
        payload = await reader.readexactly(n)
        if first & 0x0F == 0x9:   # the heartbeat: answered as a browser does
            writer.write(bytes([0x8A, 0x80 | n]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        elif first & 0x0F == 0x1:
            count += 1
try:
    asyncio.run(main(int(sys.argv[1])))
except (asyncio.IncompleteReadError, ConnectionError):
    done()   # the service ended
"""


def child(capture_path: str, state_dir: str, mode: str) -> None:
    from board_driver.capture import parse_capture
    from board_driver.leds import LedSink
    from board_driver.reading import Reading
    from board_driver.sensors import SensorSource
    from firmware.config import loads_config

    config = loads_config(config_text(state_dir, free_port()))
    events = [e for e in parse_capture(Path(capture_path).read_text()) if isinstance(e, Reading)]
    settle = config.board.settle_ms / 1000

    if mode.startswith("peer"):
        from firmware.session.session import Session
        from board_driver.backends.sim_leds import RecordingLedSink

        class Stamp(RecordingLedSink):
            def show(self, colours) -> None:
                self.at = time.perf_counter()

        sink = Stamp()
        session = Session(config, leds=sink)
        samples = []
        for reading in events:
            for _ in range(1000):  # the deadlines before the reading, polled as the service does (untimed)
                deadline = session.next_deadline(reading.time, blink=False)
                if deadline is None or deadline > reading.time:
                    break
                session.poll(deadline)
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
            self.cpu_at_show: list[int] = []

        def show(self, colours) -> None:
            self.shown.append(time.monotonic())
            self.cpu_at_show.append(time.thread_time_ns())

    source, sink = PacedSource(), TimingSink()
    # A sample: a reading settles (the session sees a new settled reading) and the same pass
    # shows a frame; the latency runs from the settle instant (reading time + settle_ms).
    from firmware.session.session import Session
    frames: list[float] = []
    waits: list[float] = []   # of each frame: from the settle instant to the start of the loop's step that shows it
    step_start = [0.0]
    original_refresh = Session.refresh
    seen = [None]   # the settled reading the last refresh read

    def timed_refresh(self, now):
        settled = self.referee.board
        fresh = settled is not None and settled is not seen[0]   # not read by a refresh yet
        seen[0] = settled
        shown = len(sink.shown)
        original_refresh(self, now)
        if fresh and len(sink.shown) > shown:
            frames.append((sink.shown[shown] - (settled.time + settle)) * 1000)
            waits.append((step_start[0] - (settled.time + settle)) * 1000)

    Session.refresh = timed_refresh
    # CPU of each step of the loop that shows a frame (a reading handled, a poll at a deadline):
    # the work behind a frame, free of whatever else the machine runs meanwhile.
    cpu: list[float] = []
    cpu_to_frame: list[float] = []   # the same steps' CPU until their frame is shown (the contact -> LED path)

    def cpu_timed(method):
        def timed(self, item):
            shown = len(sink.shown)
            step_start[0] = time.monotonic()
            start = time.thread_time_ns()
            method(self, item)
            if len(sink.shown) > shown:
                cpu.append((time.thread_time_ns() - start) / 1e6)
                cpu_to_frame.append((sink.cpu_at_show[shown] - start) / 1e6)
        return timed

    Service._on_reading = cpu_timed(Service._on_reading)
    Service._on_tick = cpu_timed(Service._on_tick)
    from firmware.commands.run import _web  # the page, as `echiquier run` starts it
    service = Service(config, source=source, leds=sink, companions=(_web,))
    result: dict = {}

    async def main() -> None:
        task = asyncio.create_task(service.run())
        await service.ready.wait()
        while True:  # the page is started once the board is read: measured when it listens
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", config.web.port)) == 0:
                    break
            await asyncio.sleep(0.01)
        result["frames_before_listening"] = len(frames)
        result["rss_start_mb"] = rss_mb()
        page = None
        if mode == "service-page":   # a page open all game long, in a process of its own
            page = subprocess.Popen([sys.executable, "-c", PAGE_CLIENT, str(config.web.port)], stdout=subprocess.PIPE,
                                    text=True)
        while not source.done.is_set():
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        result["rss_end_mb"] = rss_mb()
        if page is not None:
            page.terminate()
            result["page_messages"] = int(page.communicate()[0].split()[-1])
        result["moves"] = len(service.session.game.moves)
        result["problems"] = [f"{t:.3f} s: {text.text()}" for t, text in service.session.state().problems[:3]]
        outcome = service.session.game.outcome
        result["outcome"] = outcome.describe() if outcome else None
        service.stop()
        await task

    asyncio.run(main())
    result["samples"] = frames
    result["waits"] = waits
    result["cpu"] = cpu
    result["cpu_to_frame"] = cpu_to_frame
    print(json.dumps(result))


# -- the Pi-class CPU ---------------------------------------------------------------------------

def eater(cpu: int, spin_us: float, rest_us: float, seconds: float) -> None:
    """The duty-cycle model's other half: on ``cpu`` at real-time priority, spin ``spin_us`` then
    sleep ``rest_us``, over and over, so a normal process pinned there runs only in the gaps;
    stops after ``seconds`` or when its parent is gone."""
    os.sched_setaffinity(0, {cpu})
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    parent, clock = os.getppid(), time.perf_counter
    spin, rest, end = spin_us / 1e6, rest_us / 1e6, clock() + seconds
    rounds = 0
    while clock() < end:
        until = clock() + spin
        while clock() < until:
            pass
        time.sleep(rest)
        rounds += 1
        if rounds % 1000 == 0 and os.getppid() != parent:
            return


class PiModel:
    """A CPU about PI_SLOWER times slower than this machine's, for the Pi-class profile (see the
    module's docstring): "duty" (an eater on the children's CPU) or "quota" (a CPU cgroup)."""

    SPIN_US, REST_US = 250.0, 50.0

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.cpus = os.sched_getaffinity(0)
        self.cpu = max(self.cpus)
        self.spin_us = self.SPIN_US
        self.eater: subprocess.Popen | None = None
        self.ratio = self.calm = self.slow = 0.0
        self.stat_before: dict[str, int] = {}

    def setup(self) -> bool:
        try:
            if self.kind == "quota":
                PI_CGROUP.mkdir(exist_ok=True)
                (PI_CGROUP / "cpu.cfs_period_us").write_text("6000")
                (PI_CGROUP / "cpu.cfs_quota_us").write_text(str(6000 // PI_SLOWER))
                self.calm = busy_loop_seconds(None)
            else:
                if len(self.cpus) < 2:
                    raise OSError("one CPU only: the eater would stop everything else")
                self.calm = busy_loop_seconds(self)
                for _ in range(2):   # the spin that gives the ratio, measured with the eater
                    self.start()
                    self.slow = busy_loop_seconds(self)
                    self.stop()
                    self.ratio = self.slow / self.calm
                    if abs(self.ratio - PI_SLOWER) < 0.3:
                        break
                    self.spin_us *= (PI_SLOWER - 1) / max(self.ratio - 1, 0.5)
            if self.kind == "quota":
                self.slow = busy_loop_seconds(self)
                self.ratio = self.slow / self.calm
            return True
        except (OSError, subprocess.CalledProcessError) as exc:
            self.stop()
            print(f"Pi-class profile skipped: cannot set up the {self.kind} model ({exc})")
            return False

    def start(self) -> None:
        """Before the runs in the model: the eater (duty) or cpu.stat's counts (quota)."""
        if self.kind == "quota":
            self.stat_before = self.stat()
            return
        # this process (the timer of the start-up figures) keeps off the eater's CPU meanwhile
        os.sched_setaffinity(0, self.cpus - {self.cpu})
        self.eater = subprocess.Popen([sys.executable, __file__, "--eater", str(self.cpu), str(self.spin_us),
                                       str(self.REST_US), "900"])
        time.sleep(0.2)
        if self.eater.poll() is not None:
            raise OSError("the eater could not take real-time priority")

    def stop(self) -> None:
        if self.eater is not None:
            self.eater.terminate()
            self.eater.wait()
            self.eater = None
            os.sched_setaffinity(0, self.cpus)

    def preexec(self) -> None:
        """preexec_fn of a child in the model."""
        if self.kind == "quota":
            (PI_CGROUP / "cgroup.procs").write_text(str(os.getpid()))
        else:
            os.sched_setaffinity(0, {self.cpu})

    def stat(self) -> dict[str, int]:
        return {k: int(v) for k, v in (line.split() for line in (PI_CGROUP / "cpu.stat").read_text().splitlines())}

    def close(self) -> None:
        self.stop()
        if self.kind == "quota":
            PI_CGROUP.rmdir()

    def describe(self) -> str:
        if self.kind == "quota":
            return (f"1/{PI_SLOWER} of a CPU by cgroup quota ({6000 // PI_SLOWER} us per 6000 us; see the docstring: "
                    f"too kind to medians, tails that follow the period)")
        return (f"duty cycle on CPU {self.cpu}: a real-time spin of {self.spin_us:.0f} us then a {self.REST_US:.0f} us "
                f"sleep, the service pinned there runs in the gaps")

    def throttling(self) -> str:
        if self.kind != "quota":
            return ""
        now = self.stat()
        return (f"; throttled in {now['nr_throttled'] - self.stat_before['nr_throttled']} of "
                f"{now['nr_periods'] - self.stat_before['nr_periods']} periods, "
                f"{(now['throttled_time'] - self.stat_before['throttled_time']) / 1e9:.1f} s in all")


def run_child(capture: Path, state: Path, mode: str, pi: PiModel | None = None) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(capture), str(state), mode],
                         capture_output=True, text=True, timeout=1800, preexec_fn=pi.preexec if pi else None)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- READY and listening ------------------------------------------------------------------------

def start_times(tmp: Path, runs: int = 7, pi: PiModel | None = None) -> tuple[list[float], list[float], list[float]]:
    """Seconds from `echiquier run` (default configuration) to READY=1 and to the page's port
    accepting a connection, and its resident MB 0.3 s after that, each run."""
    path = str(tmp / ("notify-pi" if pi else "notify"))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.setblocking(False)
    ready, listening, rss = [], [], []
    for run in range(runs):
        port = free_port()
        config = tmp / "start.toml"
        config.write_text(config_text(str(tmp / "start-state"), port))
        start = time.monotonic()
        proc = subprocess.Popen([str(ECHIQUIER), "run", "--config", str(config), "--log-level", "warning"],
                                env=dict(os.environ, NOTIFY_SOCKET=path), preexec_fn=pi.preexec if pi else None)
        got_ready = got_listen = None
        while got_ready is None or got_listen is None:
            if time.monotonic() - start > 60 or proc.poll() is not None:
                raise RuntimeError("the service did not start")
            try:
                if b"READY=1" in sock.recv(4096):
                    got_ready = time.monotonic() - start
            except BlockingIOError:
                pass
            if got_listen is None:
                with socket.socket() as probe:
                    if probe.connect_ex(("127.0.0.1", port)) == 0:
                        got_listen = time.monotonic() - start
            time.sleep(0.002)
        ready.append(got_ready)
        listening.append(got_listen)
        time.sleep(0.3)
        rss.append(rss_mb(proc.pid))
        proc.terminate()
        proc.wait()
    sock.close()
    return ready, listening, rss


def busy_loop_seconds(pi: PiModel | None) -> float:
    """Wall time of a fixed pure-Python loop in a child (in the Pi model or not)."""
    code = "import time\nt = time.monotonic()\nn = 0\nfor i in range(3_000_000): n += i & 7\nprint(time.monotonic() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         preexec_fn=pi.preexec if pi else None)
    return float(out.stdout)


def replayed_with_page(tmp: Path, capture: Path) -> dict:
    """``echiquier run`` itself (default configuration but its readings replayed from ``capture``
    in real time) with a page open all game long: its VmRSS sampled every 0.25 s until the game
    ends and the service exits; the last sample and the peak (VmHWM)."""
    port = free_port()
    config = tmp / "replayed.toml"
    config.write_text(config_text(str(tmp / "replayed-state"), port).replace(
        'sensors = "sim"', f'sensors = "replay"\ncapture = "{capture}"\nspeed = 1.0'))
    proc = subprocess.Popen([str(ECHIQUIER), "run", "--config", str(config), "--log-level", "warning"])
    start = time.monotonic()
    while True:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        if time.monotonic() - start > 60 or proc.poll() is not None:
            raise RuntimeError("the replayed service did not start")
        time.sleep(0.01)
    page = subprocess.Popen([sys.executable, "-c", PAGE_CLIENT, str(port)], stdout=subprocess.PIPE, text=True)
    last = peak = 0.0
    while proc.poll() is None:
        try:
            status = Path(f"/proc/{proc.pid}/status").read_text()
        except OSError:
            break
        fields = {line.split(":")[0]: line.split()[1] for line in status.splitlines() if line.startswith("Vm")}
        if "VmRSS" in fields:
            last, peak = int(fields["VmRSS"]) / 1024, int(fields["VmHWM"]) / 1024
        time.sleep(0.25)
    page.terminate()
    messages = int(page.communicate()[0].split()[-1])
    pgn = "\n".join(f.read_text() for f in (tmp / "replayed-state").rglob("*.pgn"))
    plies = len(re.findall(r"\[%clk ", pgn))   # each move of the record carries its clock
    return {"last_mb": last, "peak_mb": peak, "messages": messages, "exit": proc.wait(), "plies": plies}


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


def latency_row(name: str, samples: list[float]) -> str:
    return (f"{name:34s} median {statistics.median(samples):6.2f} ms  p99 {pct(samples, 0.99):6.2f} ms  "
            f"max {max(samples):6.2f} ms  ({len(samples)} frames)")


def pi_report(model: PiModel, live: dict, peer: dict, ready: list[float], listening: list[float]) -> None:
    print(f"Pi-class profile: {model.describe()}; a busy loop ran x{model.ratio:.1f} slower in it "
          f"({model.slow:.2f} s against {model.calm:.2f} s)")
    print(f"game: {live['moves']} moves; session alone: {peer['moves']} moves{live.get('throttling', '')}")
    if live["moves"] != peer["moves"]:
        print(f"  the live run stopped short: {live.get('outcome')}; problems: {live['problems']}")
    print(f"start to READY=1 (median)       {statistics.median(ready):6.3f} s   "
          f"[{', '.join(f'{r:.2f}' for r in ready)}]")
    print(f"start to listening (median)     {statistics.median(listening):6.3f} s   "
          f"[{', '.join(f'{r:.2f}' for r in listening)}]")
    lat, base = live["samples"], peer["samples"]
    print(latency_row("settled reading -> LED frame", lat))
    print(latency_row("  session alone (peer)", base) +
          f"  (service p99 / peer p99 x{pct(lat, 0.99) / max(pct(base, 0.99), 1e-6):.1f})")
    early = live["frames_before_listening"]
    if 0 < early < len(lat):
        print(latency_row("  frames before the page listened", lat[:early]))
        print(latency_row("  frames after", lat[early:]))
    print(latency_row("  of which waiting for the loop", [max(0.0, w) for w in live["waits"]]) +
          "  (settle instant -> its step begins)")
    steps = live["cpu"]
    print(latency_row("CPU of the loop step behind a frame", steps).replace("frames)", "steps)"))


def main() -> int:
    model = None
    if "--no-pi" not in sys.argv:
        model = PiModel(sys.argv[sys.argv.index("--pi-model") + 1] if "--pi-model" in sys.argv else "duty")
        model = model if model.setup() else None
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        capture = tmp / "game.cap"
        capture.write_text(make_capture(make_game()))
        if model is not None:
            try:
                model.start()
                pi_live = run_child(capture, tmp / "pi-live", "service", pi=model)
                pi_live["throttling"] = model.throttling()
                pi_peer = run_child(capture, tmp / "pi-peer", "peer", pi=model)
                pi_ready, pi_listening, _ = start_times(tmp, pi=model)
            finally:
                model.close()
            if "--pi-only" in sys.argv:
                pi_report(model, pi_live, pi_peer, pi_ready, pi_listening)
                return 0
        live = run_child(capture, tmp / "live", "service")
        paged = run_child(capture, tmp / "paged", "service-page")
        peer = run_child(capture, tmp / "peer", "peer")
        ready, listening, run_rss = start_times(tmp)
        replayed = replayed_with_page(tmp, capture)
    py_start, py_rss = bare_python()
    lat, base = live["samples"], peer["samples"]
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
          "(real-time figures include the scheduling of everything else running)")
    print("default configuration: web page on (no browser connected), exact dead-position check on")
    print(f"game: {live['moves']} moves replayed live ({len(lat)} LED frames); session alone: {peer['moves']} moves")
    if live["moves"] != peer["moves"]:
        print(f"  the live run stopped short: {live.get('outcome')}; problems: {live['problems']}")
    print(f"resident memory after start     {live['rss_start_mb']:6.1f} MB   bare python {py_rss:5.1f} MB  "
          f"(x{live['rss_start_mb'] / py_rss:.1f})  goal <= {GOALS['rss_mb']:.0f} MB")
    print(f"resident memory after the game  {live['rss_end_mb']:6.1f} MB")
    print(f"  the same with a page open     {paged['rss_end_mb']:6.1f} MB   (its websocket got {paged['page_messages']} "
          f"states; the client runs in a process of its own)")
    print(f"`echiquier run` when listening  {statistics.median(run_rss):6.1f} MB   (median of {len(run_rss)}; the "
          f"figures above are of the bench's child, which runs the service in-process)")
    print(f"`echiquier run`, the game replayed with a page open: {replayed['last_mb']:.1f} MB at its end, peak "
          f"{replayed['peak_mb']:.1f} MB ({replayed['plies']} moves recorded, {replayed['messages']} states pushed)")
    ready_med, listen_med = statistics.median(ready), statistics.median(listening)
    print(f"start to READY=1 (median of {len(ready)})  {ready_med:6.3f} s    bare python start+exit {py_start:.3f} s "
          f"(x{ready_med / py_start:.1f})  goal <= {GOALS['ready_s']} s   [{', '.join(f'{r:.2f}' for r in ready)}]")
    print(f"start to listening (median)     {listen_med:6.3f} s    goal <= {GOALS['listen_s']} s   "
          f"[{', '.join(f'{r:.2f}' for r in listening)}]")
    print(latency_row("settled reading -> LED frame", lat) + f"  goal p99 <= {GOALS['p99_ms']:.0f} ms")
    print(latency_row("  session alone (peer)", base) +
          f"  (service p99 / peer p99 x{pct(lat, 0.99) / max(pct(base, 0.99), 1e-6):.1f})")
    steps = live["cpu"]
    print(latency_row("CPU of the loop step behind a frame", steps).replace("frames)", "steps)") +
          f"  x{PI_SLOWER} on a Zero 2 W: p99 {pct(steps, 0.99) * PI_SLOWER:.1f} ms, max {max(steps) * PI_SLOWER:.1f} ms")
    to_frame = live["cpu_to_frame"]
    print(latency_row("  of which until its frame shows", to_frame).replace("frames)", "steps)") +
          f"  goal max <= 5 ms; x{PI_SLOWER}: max {max(to_frame) * PI_SLOWER:.1f} ms")
    ok = (max(live["rss_end_mb"], paged["rss_end_mb"], replayed["peak_mb"]) <= GOALS["rss_mb"] and ready_med <= GOALS["ready_s"]
          and listen_med <= GOALS["listen_s"] and pct(lat, 0.99) <= GOALS["p99_ms"])
    print("goals met" if ok else "goals NOT all met")
    if model is not None:
        print()
        pi_report(model, pi_live, pi_peer, pi_ready, pi_listening)
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4])
        sys.exit(0)
    if len(sys.argv) == 6 and sys.argv[1] == "--eater":
        eater(int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]))
        sys.exit(0)
    sys.exit(main())
