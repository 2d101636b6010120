"""Benchmark: CPU per settled reading and commit latency of the move inference, beside a naive peer.

Generated games (tests/fakes/hands.py: human-like hands, contact bounce, slides, swept captures,
castling in every order...) run through the same Match as ``echiquier replay``, with the timers
polled at their deadlines as the live service does. Measured:

* CPU time of ``MoveInference.feed`` per settled reading (median, p99, max, microseconds);
* commit latency in simulated time, from the move's last contact (the time of the settled
  reading that showed it complete) to the instant it was committed (median, p99, ms), split by
  what the move is: moves that cannot be extended (captures seen, knights, moves against a
  blocker, promotions, castling) and moves that can (a slider, king or pawn that could go on
  along its line, a rook move that begins castling). Swept captures (the victim's square never
  read empty: invisible to occupancy sensors) and moves the hands amended are shown apart.

* CPU time of each call into Match (a raw reading fed, or a poll at a deadline): the whole
  contact -> LED step, with the exact dead-position check on as in the default configuration
  (median, p99, p99.9, max). Beside it, in the same run on the same games, the same Match with
  each search run to its end at once (analysis_steps=0, as before the searches ran in slices).
  chess_core.dead's memory of proved verdicts is cleared before each game, so that a verdict
  proved in one run is not found for free in the other.

The peer, measured on the same settled readings in the same run, is the usual DIY-board rule:
compare the board with the board after each legal move, and commit a unique match once the board
has been still for PEER_WAIT (it must wait that long after *every* move, or slides are recorded
short), or at once when the next reading no longer matches any move (the opponent started). Goals here: CPU p99 <= 2 ms; latency p99 <= 100 ms for moves that cannot be extended.

    .venv/bin/python bench/inference.py            # 300 games
    .venv/bin/python bench/inference.py --games 1000 --colour
"""
from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from board_driver.capture import PromoteChoice, iter_capture  # noqa: E402
from chess_core import KNIGHT, Move, Position  # noqa: E402
from chess_core.dead import forget_proofs  # noqa: E402
from chess_core.squares import BETWEEN  # noqa: E402
from firmware.referee.match import Match, MatchConfig, MoveMade, TakenBack  # noqa: E402
from tests.fakes.hands import capture_game, random_game  # noqa: E402

PEER_WAIT = 0.3  # s of stillness before the naive peer commits (shorter records slides short)
SEED0 = 10_000   # games unlike the tests' (seeds 0..999)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def extendable(pos: Position, move: Move) -> bool:
    """Could the board after ``move`` still be a step of a longer legal move? (By the rules only.)"""
    if move.promotion or pos.is_capture(move) or pos.piece_at(move.from_square).piece_type == KNIGHT:
        return False
    for other in pos.legal_moves():
        if other.from_square == move.from_square and BETWEEN[move.from_square][other.to_square] >> move.to_square & 1:
            return True  # the same piece could go on along the line (a slide, a double step, castling)
        if pos.is_castling(other) and not pos.is_castling(move):
            rook_from, rook_to = (other.to_square + 1, other.to_square - 1) if other.to_square & 7 == 6 \
                else (other.to_square - 2, other.to_square + 1)
            if (move.from_square, move.to_square) == (rook_from, rook_to):
                return True  # the rook half of castling
    return False


class NaivePeer:
    """Commits the unique legal move whose board matches, after PEER_WAIT of stillness.

    It tries each legal move with Position.push/pop (the public API, as fast as python-chess's)."""

    def __init__(self, pos: Position) -> None:
        self.pos = pos.copy()
        self.pending: tuple[float, Move] | None = None
        self.moves: list[str] = []

    def feed(self, t: float, occ: int) -> None:
        found = self._matches(occ)
        if self.pending and not found and occ != self.pos.occupied:
            self.poll(float("inf"))  # the board moved on: the opponent has started
            found = self._matches(occ)
        self.pending = None
        if len({(m.from_square, m.to_square) for m in found}) == 1:
            self.pending = (t, found[0])

    def _matches(self, occ: int) -> list[Move]:
        found = []
        for move in self.pos.legal_moves():
            self.pos.push(move)
            if self.pos.occupied == occ:
                found.append(move)
            self.pos.pop()
        return found

    def poll(self, now: float) -> None:
        if self.pending and now >= self.pending[0] + PEER_WAIT:
            self.pos.push(self.pending[1])
            self.moves.append(self.pending[1].uci())
            self.pending = None


def match_calls(capture, steps: int) -> list[float]:
    """CPU (us) of every call into a default Match, given the capture (its own run)."""
    forget_proofs()
    match = Match(MatchConfig() if steps is None else MatchConfig(analysis_steps=steps))
    spent = []
    clock = time.process_time_ns
    for event in iter_capture(capture.lines, []):
        while True:
            d = match.next_deadline()
            if d is None or d > event.time:
                break
            start = clock()
            match.poll(d)
            spent.append((clock() - start) / 1000)
        start = clock()
        if isinstance(event, PromoteChoice):
            match.promote(event.piece, event.time)
        else:
            match.feed(event)
        spent.append((clock() - start) / 1000)
    while (d := match.next_deadline()) is not None:
        start = clock()
        match.poll(d)
        spent.append((clock() - start) / 1000)
    return spent


def run_game(seed: int, colour: bool, stats: dict) -> None:
    moves = random_game(seed, max_plies=80)
    capture = capture_game(moves, seed=seed, colour=colour)
    sliced = hasattr(MatchConfig, "analysis_steps")  # (also runs on trees from before the slices)
    stats["match"] += match_calls(capture, None)
    if sliced:
        stats["match_unsliced"] += match_calls(capture, 0)
    forget_proofs()
    match = Match(MatchConfig())
    inference = match.inference
    settled: list[tuple[float, int]] = []
    feed = inference.feed

    def timed_feed(t, occ, white=None, black=None):
        start = time.process_time_ns()
        out = feed(t, occ, white, black)
        stats["cpu"].append((time.process_time_ns() - start) / 1000)
        settled.append((t, occ))
        return out

    # Match.reset builds a new inference only in new_game; wrap the one it has.
    inference.feed = timed_feed
    events = [e for e in iter_capture(capture.lines, [])]
    committed: list[tuple[float, MoveMade | TakenBack]] = []

    def handle(now: float, out: list) -> None:
        committed.extend((now, e) for e in out if isinstance(e, (MoveMade, TakenBack)))

    for i, event in enumerate(events):
        while True:
            d = match.next_deadline()
            if d is None or d > event.time:
                break
            handle(d, match.poll(d))
        if isinstance(event, PromoteChoice):
            handle(event.time, match.promote(event.piece, event.time))
        else:
            handle(event.time, match.feed(event))
    while (d := match.next_deadline()) is not None:
        handle(d, match.poll(d))
    got = [m.uci() for m in match.game.moves]
    stats["games"] += 1
    stats["exact"] += got == moves and not match.problems

    # Latency of the last commit of each move (an amend replaces the first, a takeback drops it).
    final: dict[int, tuple[float, MoveMade]] = {}
    ply = 0
    for now, e in committed:
        if isinstance(e, TakenBack):
            ply -= 1
            final.pop(ply, None)
            stats["taken back"] += 1
        elif e.amended:
            final[ply - 1] = (now, e)
            stats["amended"] += 1
        else:
            final[ply] = (now, e)
            ply += 1
    pos = Position()
    for index, uci in enumerate(moves):
        move = Move.from_uci(uci)
        patterns = capture.per_move[index]
        if index in final and final[index][1].move == move:
            now, e = final[index]
            latency = (now - e.time) * 1000
            if "amend" in patterns or "slide pause (amend)" in patterns:
                kind = "amended by the hands"
            elif "capture, swept" in patterns and not colour:
                kind = "swept captures"
            elif extendable(pos, move):
                kind = "can be extended"
            else:
                kind = "cannot be extended"
            stats["latency"].setdefault(kind, []).append(latency)
        pos.push(move)

    # The naive peer on the same settled readings.
    peer = NaivePeer(Position())
    for t, occ in settled[1:]:
        peer.poll(t)
        start = time.process_time_ns()
        peer.feed(t, occ)
        stats["peer_cpu"].append((time.process_time_ns() - start) / 1000)
    peer.poll(float("inf"))
    stats["peer_exact"] += peer.moves == moves
    right = next((i for i, (a, b) in enumerate(zip(peer.moves, moves)) if a != b), min(len(peer.moves), len(moves)))
    stats["peer_first_error"].append(right)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--colour", action="store_true", help="a colour-sensing board")
    args = parser.parse_args()
    stats: dict = {"cpu": [], "peer_cpu": [], "match": [], "match_unsliced": [], "latency": {}, "games": 0, "exact": 0, "peer_exact": 0,
                   "amended": 0, "taken back": 0, "peer_first_error": []}
    pauses: list[float] = []
    gc_started = [0]

    def on_gc(phase: str, info: dict) -> None:  # how long the collector held the process, CPU
        if phase == "start":
            gc_started[0] = time.process_time_ns()
        else:
            pauses.append((time.process_time_ns() - gc_started[0]) / 1000)

    gc.callbacks.append(on_gc)
    wall = time.perf_counter()
    for seed in range(SEED0, SEED0 + args.games):
        run_game(seed, args.colour, stats)
        gc.freeze()  # the bench's growing lists out of the collector's full passes, as the service's start-up
    wall = time.perf_counter() - wall

    board = "a colour-sensing" if args.colour else "an occupancy-only"
    print(f"{stats['games']} generated games on {board} board, {len(stats['cpu'])} settled readings "
          f"({wall:.1f} s)")
    print(f"  games replayed exactly: inference {stats['exact']}/{stats['games']}, "
          f"naive peer {stats['peer_exact']}/{stats['games']} (its first error at ply "
          f"{statistics.median(stats['peer_first_error']):.0f}, median)")
    moves = sum(len(v) for v in stats["latency"].values())
    print(f"  {moves} moves; on the way the inference amended {stats['amended']} and took back "
          f"{stats['taken back']} (a piece held in the hand longer than WAIT_SWEPT)")
    print()
    print("CPU per settled reading (us)           median      p99      max")
    for name, values in (("inference (MoveInference.feed)", stats["cpu"]),
                         ("peer (all legal boards compared)", stats["peer_cpu"])):
        print(f"  {name:36s} {statistics.median(values):6.1f} {pct(values, 0.99):8.1f} {max(values):8.1f}")
    print()
    print("CPU per call into Match (us), dead check on     calls   median      p99    p99.9      max")
    for name, values in (("sliced searches (default)", stats["match"]),
                         ("each search at once (analysis_steps=0)", stats["match_unsliced"])):
        if not values:
            continue
        print(f"  {name:44s} {len(values):6d} {statistics.median(values):8.1f} {pct(values, 0.99):8.1f} "
              f"{pct(values, 0.999):8.1f} {max(values):8.1f}")
    print()
    print("commit latency, last contact -> committed (ms)     moves  median      p99      max")
    for kind in ("cannot be extended", "can be extended", "swept captures", "amended by the hands"):
        values = stats["latency"].get(kind, [])
        if values:
            print(f"  {kind:44s} {len(values):6d} {statistics.median(values):7.0f} {pct(values, 0.99):8.0f} "
                  f"{max(values):8.0f}")
    print(f"  {'peer (every move)':44s} {'':6s} {PEER_WAIT * 1000:7.0f} {PEER_WAIT * 1000:8.0f}")
    print()
    print(f"garbage collections during the run: {len(pauses)}, longest {max(pauses or [0]):.0f} us CPU "
          "(inside whichever call it fell in; the bench's own lists are frozen after each game)")
    worst = max(stats["match"])
    print(f"goal no call into Match above 5000 us: max {worst:.0f} us {'OK' if worst <= 5000 else 'MISSED'} "
          f"(each search at once: max {max(stats['match_unsliced'] or [0]):.0f} us)")
    cpu_p99 = pct(stats["cpu"], 0.99)
    lat_p99 = pct(stats["latency"].get("cannot be extended", []), 0.99)
    print(f"goal CPU p99 <= 2000 us: {cpu_p99:.0f} us {'OK' if cpu_p99 <= 2000 else 'MISSED'}; "
          f"ratio to peer (median) {statistics.median(stats['cpu']) / statistics.median(stats['peer_cpu']):.2f}")
    print(f"goal latency p99 <= 100 ms (cannot be extended): {lat_p99:.0f} ms {'OK' if lat_p99 <= 100 else 'MISSED'}; "
          f"ratio to peer {lat_p99 / (PEER_WAIT * 1000):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
