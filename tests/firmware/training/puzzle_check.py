"""An independent check of puzzles: python-chess's rules and its own chess.engine driving Stockfish, deeper than the miner, confirm every solver move is the only winning one.

Nothing of the miner is used: the moves are replayed by python-chess, the engine is driven by
python-chess's ``chess.engine`` with MultiPV 2 at ``CHECK_NODES`` (the miner's solver moves had
400,000), and Lichess's winning chances are written again here. A solver move passes when it is
the engine's best and either there is no second move, or its winning chances exceed the second's
by more than 0.7, or it mates at once and the second neither mates at once nor has winning
chances above 0.6 (lichess-puzzler's rule). Run it over a file (``python -m
tests.firmware.training.puzzle_check FILE [--drop]``): it prints each refusal and the figure,
and ``--drop`` rewrites the file without the refused puzzles.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import chess
import chess.engine

STOCKFISH = "/usr/games/stockfish"
CHECK_NODES = 1_000_000


def winning_chances(score: chess.engine.Score) -> float:
    mate = score.mate()
    if mate is not None:
        return 1.0 if mate > 0 else -1.0
    cp = score.score()
    assert cp is not None
    return 2 / (1 + math.exp(-0.00368208 * cp)) - 1


def replay(record: dict) -> tuple[chess.Board, list[chess.Move]]:
    """The puzzle's position and solution as python-chess reads them (ValueError when illegal)."""
    if record.get("before"):
        board = chess.Board(record["before"])
        board.push(board.parse_uci(record["blunder"]))
        if board.fen().split()[:4] != record["fen"].split()[:4]:
            raise ValueError("the blunder does not lead to the puzzle's position")
    board = chess.Board(record["fen"])
    moves, probe = [], board.copy()
    for text in record["solution"]:
        move = probe.parse_uci(text)
        moves.append(move)
        probe.push(move)
    return board, moves


def refusal(engine: chess.engine.SimpleEngine, record: dict, nodes: int = CHECK_NODES) -> str | None:
    """Why the puzzle fails the check, or None when every solver move is the only winning one."""
    try:
        board, moves = replay(record)
    except ValueError as exc:
        return f"illegal: {exc}"
    if len(moves) % 2 == 0:
        return "the solution does not end with the solver's move"
    engine.configure({"Clear Hash": None})
    for ply, move in enumerate(moves):
        if ply % 2 == 0:
            infos = engine.analyse(board, chess.engine.Limit(nodes=nodes), multipv=2)
            best = infos[0]["pv"][0]
            score = infos[0]["score"].pov(board.turn)
            second = infos[1]["score"].pov(board.turn) if len(infos) > 1 else None
            if best != move:
                return f"move {ply // 2 + 1}: the engine prefers {best.uci()} to {move.uci()}"
            if second is not None:
                if score.mate() == 1:
                    if second.mate() == 1 or winning_chances(second) > 0.6:
                        return f"move {ply // 2 + 1}: a second move also wins ({second})"
                elif not winning_chances(score) > winning_chances(second) + 0.7:
                    return f"move {ply // 2 + 1}: a second move also wins ({score} against {second})"
        board.push(move)
    if "mate" in record.get("themes", []) and not board.is_checkmate():
        return "tagged a mate but does not end in checkmate"
    return None


def main(argv: list[str]) -> int:
    path = Path(argv[0])
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    kept, refused = [], 0
    with chess.engine.SimpleEngine.popen_uci(STOCKFISH) as engine:
        engine.configure({"Threads": 1, "Hash": 64})
        for record in records:
            why = refusal(engine, record)
            if why is None:
                kept.append(record)
            else:
                refused += 1
                print(f"{record['id']}: {why}", flush=True)
    print(f"{len(kept)} of {len(records)} pass ({100 * len(kept) / max(1, len(records)):.1f} %), {refused} refused")
    if "--drop" in argv[1:]:
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept))
    return 0 if not refused else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
