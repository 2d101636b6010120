"""Benchmark: latency from a sensor change to the websocket update the page receives.

Runs the simulator in this process (the real Session: debouncer, inference, clock, recorder,
LED feedback; the web companion on 127.0.0.1) and a websocket client in another thread, as a
browser would be. The simulated hand changes the sensors; each sample is the time from that
change to the first websocket message that shows it:

* sensor change -> page   -- a piece lifted: the page shows the square empty (raw occupancy,
                             pushed at once, before debouncing);
* move on board -> page   -- a piece put down that completes a move: the page shows the move
                             in its list. This includes the debounce settle time (60 ms by
                             default), which is there on purpose, and the inference.

The peer, measured in the same run on the same events, is the session's own subscriber: the
moment the session's snapshot shows the change, before any web work. The ratio is page / peer.
Both go through the service's shell (reading handed over to the loop, session fed, polled at
its deadlines), as in ``echiquier run``.
Run: .venv/bin/python bench/web.py [--moves N]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp  # noqa: E402

from chess_core import parse_square  # noqa: E402
from firmware.sim.simulator import Simulator, simulator_config  # noqa: E402

# Four knights out and home again: every move is a knight's, committed as soon as it settles.
DANCE = [("g1", "f3"), ("g8", "f6"), ("b1", "c3"), ("b8", "c6"),
         ("c3", "b1"), ("c6", "b8"), ("f3", "g1"), ("f6", "g8")]
CYCLES_PER_GAME = 2          # 16 moves: no position stands five times (fivefold would end the game)


class PageClient:
    """A websocket client on its own thread and loop; hands each state to the main loop, stamped."""

    def __init__(self, url: str, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue) -> None:
        self.url = url
        self.main_loop = loop
        self.queue = queue
        self.ready = threading.Event()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), name="page", daemon=True)

    async def _run(self) -> None:
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(self.url + "ws") as ws:
                self.ready.set()
                while not self.stop.is_set():
                    try:
                        msg = await ws.receive(timeout=0.5)
                    except asyncio.TimeoutError:
                        continue
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        break
                    stamp = time.perf_counter()
                    data = json.loads(msg.data)
                    if data.get("type") == "state":
                        self.main_loop.call_soon_threadsafe(self.queue.put_nowait, (stamp, data["state"]))


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


async def measure(moves: int) -> dict[str, list[float]]:
    state_dir = tempfile.mkdtemp(prefix="echiquier-bench-")
    sim = Simulator(simulator_config(None, state_dir), port=0)
    service = asyncio.create_task(sim.run())
    url = await sim.started()
    loop = asyncio.get_running_loop()
    pages: asyncio.Queue = asyncio.Queue()
    client = PageClient(url, loop, pages)
    client.thread.start()
    await loop.run_in_executor(None, client.ready.wait)

    peer_log: list[tuple[float, dict]] = []
    unsubscribe = sim.session.subscribe(lambda snap: peer_log.append((time.perf_counter(), snap)))
    results: dict[str, list[float]] = {"lift_page": [], "lift_peer": [], "move_page": [], "move_peer": []}

    async def page_shows(predicate, t0: float) -> float:
        while True:
            try:
                stamp, state = await asyncio.wait_for(pages.get(), timeout=5)
            except asyncio.TimeoutError:
                snap = sim.session.snapshot()
                raise RuntimeError(f"no update: {snap['status']} {snap['moves']['san']} {snap['problems'][-2:]}") from None
            if stamp >= t0 and predicate(state):
                return stamp - t0

    def peer_shows(predicate, t0: float) -> float:
        for stamp, snap in peer_log:
            if stamp >= t0 and predicate(snap):
                return stamp - t0
        raise RuntimeError("the session never showed the change")

    async def drain() -> None:
        await asyncio.sleep(0.15)   # let blinking and late pushes pass between samples
        while not pages.empty():
            pages.get_nowait()
        peer_log.clear()

    try:
        done = 0
        while done < moves:
            sim.backend.new_game(white="A", black="B", time_control="-", rules="fide", colours="as-entered",
                                 now=sim.clock())
            sim.hand.setup(sim.backend.position())
            sim.companion.changed()
            await drain()
            await asyncio.sleep(0.2)
            for frm, to in DANCE * CYCLES_PER_GAME:
                if done >= moves:
                    break
                await drain()
                turn = "white" if sim.backend.position().turn == 0 else "black"
                plies = len(sim.session.game.moves)
                t0 = time.perf_counter()
                sim.hand.lift(parse_square(frm))
                results["lift_page"].append(await page_shows(lambda s: frm not in s["occupied"], t0))
                results["lift_peer"].append(peer_shows(lambda s: frm not in s["occupied"], t0))
                await drain()
                t0 = time.perf_counter()
                sim.hand.place(parse_square(to), turn)
                results["move_page"].append(await page_shows(lambda s: len(s["moves"]["san"]) > plies, t0))
                results["move_peer"].append(peer_shows(lambda s: len(s["moves"]["san"]) > plies, t0))
                done += 1
    finally:
        unsubscribe()
        client.stop.set()
        await loop.run_in_executor(None, client.thread.join)
        sim.stop()
        await service
    return results


def report(results: dict[str, list[float]]) -> None:
    def ms(x: float) -> str:
        return f"{x * 1000:7.2f} ms"

    for key, words in (("lift", "sensor change -> page"), ("move", "move on board -> page")):
        page, peer = results[f"{key}_page"], results[f"{key}_peer"]
        pm, pp = statistics.median(page), percentile(page, 99)
        qm, qp = statistics.median(peer), percentile(peer, 99)
        print(f"{words:24s} median {ms(pm)}  p99 {ms(pp)}   ({len(page)} samples)")
        print(f"{'  peer: session snapshot':24s} median {ms(qm)}  p99 {ms(qp)}   ratio page/peer "
              f"{pm / qm:5.2f} (median)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=120, help="moves to measure (default 120)")
    args = parser.parse_args()
    results = asyncio.run(measure(args.moves))
    report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
