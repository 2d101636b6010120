"""Power cuts with corrections and a new capture after each cut (issue 12): `echiquier run` killed
at random moments while the hands often put a piece down and move it on; after each cut the board
gives a *new* stream of readings from the pieces where the hands left them (a correction cut in
the middle is finished in the new capture), exactly as a real board after a power cut.

Every committed move must be in the PGN exactly once, one PGN for the game, the saved game never
shorter than at an earlier cut, and the game must complete.
"""
from __future__ import annotations

import io
import json
import random
import subprocess
from pathlib import Path

import chess
import chess.pgn
import pytest

from tests.fakes.hands import CARRY, Hands, _Player

from .test_powercut import ECHIQUIER, OPERA

SPEED = 12          # the game replays in about 4 s: most kills land mid-game
KILLS = 12
MAX_KILLS_PER_ROUND = 8


def continuation(saved: list[str], seed: int) -> str:
    """The capture after a cut: the board as the hands left it (the saved game), a correction cut
    in the middle finished (the piece moved on from the square it was saved on), then the rest
    of the game, with many corrections (``amend_rate``)."""
    rng = random.Random(seed)
    board = chess.Board()
    for uci in saved:
        board.push_uci(uci)
    hands = Hands(rng, colour=False, bounce=True)
    hands.lines.append(f"# continuation after a cut, {len(saved)} moves saved, seed {seed}")
    hands.setup(board)
    hands.wait(300, 1500)
    k = len(saved)
    if saved != OPERA[:k]:
        # The cut came while a piece was being corrected: it stands where it was first put down.
        assert saved[:-1] == OPERA[:k - 1], saved
        first, meant = chess.Move.from_uci(saved[-1]), chess.Move.from_uci(OPERA[k - 1])
        assert first.from_square == meant.from_square, (first, meant)
        colour = board.color_at(first.to_square)
        board.pop()
        hands.contact(first.to_square, None)
        hands.wait(*CARRY)
        hands.contact(meant.to_square, colour)
        board.push(meant)
    player = _Player(hands, rng, amend_rate=0.35, hesitate_rate=0.08)
    for uci in OPERA[len(board.move_stack):]:
        move = chess.Move.from_uci(uci)
        player.play(board, move)
        board.push(move)
    hands.wait(500, 1500)
    return "\n".join(hands.lines) + "\n"


def _config(directory: Path, capture: Path) -> Path:
    path = directory / "config.toml"
    path.write_text(f'[board]\nsensors = "replay"\ncapture = "{capture}"\nspeed = {SPEED}\n'
                    f'[game]\ntime_control = "300+2"\nwhite = "Morphy"\nblack = "Duke and Count"\n'
                    f'[storage]\ndir = "{directory / "state"}"\n[web]\nenabled = false\n')
    return path


def _saved(state: Path) -> tuple[list[str], list[str], int]:
    current = state / "current.json"
    moves = json.loads(current.read_text())["moves"] if current.exists() else []
    pgns = sorted((state / "games").glob("*.pgn")) if (state / "games").exists() else []
    pgn_moves: list[str] = []
    if pgns:
        game = chess.pgn.read_game(io.StringIO(pgns[0].read_text(encoding="utf-8")))
        assert game is not None and not game.errors
        pgn_moves = [m.uci() for m in game.mainline_moves()]
    return moves, pgn_moves, len(pgns)


def _mid_correction(state: Path) -> bool:
    """Whether the saved game ends with a move its hand is about to move on (not the game's)."""
    try:
        moves = json.loads((state / "current.json").read_text())["moves"]
    except (OSError, ValueError, KeyError):
        return False
    return bool(moves) and moves != OPERA[:len(moves)]


def _wait_or_kill(proc: subprocess.Popen, state: Path, rng: random.Random, *, watch: bool,
                  timeout: float) -> int | None:
    """The exit code, or None once killed: at ``timeout``, or (``watch``) as soon as the saved game
    shows a correction in the middle (then the cut hits exactly the case of issue 12)."""
    if watch:
        for _ in range(int(timeout / 0.004) + 1):
            try:
                return proc.wait(timeout=0.004)
            except subprocess.TimeoutExpired:
                if _mid_correction(state):
                    break
    else:
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pass
    if proc.poll() is not None:
        return proc.returncode
    proc.kill()   # SIGKILL: no handler runs, no file is closed
    proc.wait()
    return None


def _one_game(directory: Path, rng: random.Random, budget: int) -> tuple[int, int]:
    """Play the game to its end in ``directory``, killed up to ``budget`` times; (kills, corrections cut)."""
    state = directory / "state"
    state.mkdir(parents=True)
    kills = runs = corrections_cut = 0
    seen: list[str] = []
    pgn_moves: list[str] = []
    while True:
        runs += 1
        capture = directory / f"after-cut-{runs}.cap"
        capture.write_text(continuation(seen, seed=rng.randrange(10**6)))
        proc = subprocess.Popen([str(ECHIQUIER), "run", "--config", str(_config(directory, capture)),
                                 "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        rc = _wait_or_kill(proc, state, rng, watch=kills < budget and rng.random() < 0.6,
                           timeout=rng.uniform(0.4, 3.0) if kills < budget else 120)
        if rc is None:
            kills += 1
        else:
            assert rc == 0, proc.stderr.read().decode()
        proc.stderr.close()
        moves, pgn_moves, files = _saved(state)
        assert files <= 1, "one PGN per game"
        # The saved game: the game so far, or it with its last move as first put down (a correction cut).
        assert not moves or moves[:-1] == OPERA[:len(moves) - 1], moves
        if moves and moves != OPERA[:len(moves)]:
            corrections_cut += 1
        assert len(moves) >= len(seen), f"moves lost: {seen} before, {moves} now"
        assert pgn_moves in (moves, moves[:-1]), "the PGN is neither the saved game nor one move behind"
        seen = moves
        current = state / "current.json"
        record = json.loads(current.read_text()) if current.exists() else {}
        if record.get("outcome"):
            break
        assert runs < 40, "the game does not complete"
    assert seen == OPERA and pgn_moves == OPERA          # every committed move exactly once
    assert record["outcome"] == ["checkmate", 0]
    return kills, corrections_cut


@pytest.mark.slow
def test_cuts_while_correcting_and_a_new_capture_after_each_cut_lose_nothing(tmp_path):
    rng = random.Random(1858)
    kills = corrections = games = 0
    while kills < KILLS:
        games += 1
        k, c = _one_game(tmp_path / f"game{games}", rng, MAX_KILLS_PER_ROUND)
        kills += k
        corrections += c
    print(f"\npower cuts with corrections: {kills} kills in {games} games, a new capture after each, "
          f"{corrections} cut in the middle of a correction; nothing lost")
