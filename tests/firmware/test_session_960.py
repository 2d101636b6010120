"""A Chess960 game through the session: [game] variant and start_position, castling on the board, the PGN
with Variant "Chess960" and its FEN, and the game continued after a restart."""
from __future__ import annotations

from chess_core import read_game
from chess_core.chess960 import start_fen

from .session_support import Table

MOVES = "g2g3 g7g6 g1f3 d7d6 e1f1 d8d7 d2d3 e8c8"   # O-O with the rook staying; O-O-O onto the rook's square


def test_a_960_game_is_played_recorded_and_continued_after_a_restart(tmp_path):
    table = Table(tmp_path, variant="chess960", start_position=323)
    table.setup(start_fen(323))
    table.play_all(MOVES)
    snap = table.session.snapshot()
    assert snap["moves"]["uci"] == MOVES.split()
    assert snap["moves"]["san"][4] == "O-O" and snap["moves"]["san"][7] == "O-O-O"
    record = table.session.recorder.load()
    assert record.variant == "chess960" and record.start_fen == start_fen(323)
    pgn = (table.session.recorder.games_dir / record.pgn_name).read_text()
    assert '[Variant "Chess960"]' in pgn and f'[FEN "{start_fen(323)}"]' in pgn
    assert read_game(pgn).game.fen() == table.session.game.fen()
    # A power cut: the game continues in Chess960 (the next castling rights are the 960 ones).
    table.board.stop()
    session = table.new_session()
    table.session = session
    assert session.restore(table.t)
    table.board.start(table.feed)
    table.wait(0.5)
    assert session.game.chess960 and session.snapshot()["moves"]["uci"] == MOVES.split()
    table.play("a2a3")
    assert session.snapshot()["moves"]["uci"][-1] == "a2a3"
