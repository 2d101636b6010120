"""A Chess960 game through the session: [game] variant and start_position, castling on the board, the PGN
with Variant "Chess960" and its FEN, and the game continued after a restart."""
from __future__ import annotations

from chess_core import read_game
from chess_core.chess960 import start_fen

from .session_support import Table
from tests.said import english, french

MOVES = "g2g3 g7g6 g1f3 d7d6 e1f1 d8d7 d2d3 e8c8"   # O-O with the rook staying; O-O-O onto the rook's square


def test_a_960_game_is_played_recorded_and_continued_after_a_restart(tmp_path):
    table = Table(tmp_path, variant="chess960", start_position=323)
    table.setup(start_fen(323))
    table.play_all(MOVES)
    snap = english(table.session.snapshot())
    assert snap["moves"]["uci"] == MOVES.split()
    assert snap["moves"]["san"][4] == "O-O" and snap["moves"]["san"][7] == "O-O-O"
    record = table.session.file.recorder.load()
    assert record.variant == "chess960" and record.start_fen == start_fen(323)
    pgn = (table.session.file.recorder.games_dir / record.pgn_name).read_text()
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


def test_at_power_on_a_real_board_is_told_to_lift_the_pieces_a_960_start_rearranges(tmp_path):
    """Reed switches see no piece types: the board at power-on may show the usual first ranks. The
    game waits until each piece that position 323 puts elsewhere was lifted, and says so."""
    from firmware.config import loads_config
    from .session_support import config_text
    table = Table(tmp_path)
    text = config_text(str(tmp_path / "state"), variant="chess960", start_position=323)
    table.config = loads_config(text.replace('sensors = "sim"', 'sensors = "gpio"') + "[leds]\nbrightness = 1.0\n")
    table.session = table.new_session()
    table.setup()                                   # the usual arrangement: the same squares filled
    snap = english(table.session.snapshot())
    assert not table.session.referee.started
    assert snap["status"] == ("Set up Chess960 position 323 to start: first rank BNRQKRNB, Black's mirrors it; "
                              "lift the lit pieces (a1, c1, f1, h1, a8, c8, f8 and h8) and set each down as the "
                              "first rank says")
    assert french(table.session.snapshot())["status"] == ("Placez la position Chess960 n° 323 pour commencer : première rangée FCTDRTCF, "
                                 "celle des Noirs en miroir ; soulevez les pièces éclairées (a1, c1, f1, h1, a8, c8, "
                                 "f8 et h8) et reposez chacune comme le dit la première rangée")
    assert table.lit_names() == {"a1", "c1", "f1", "h1", "a8", "c8", "f8", "h8"}
    for name in ("a1", "c1", "f1", "h1", "a8", "c8", "f8"):
        table.lift(name)
        table.place(name)
    assert english(table.session.snapshot())["status"].endswith("lift the lit pieces (h8) and set each down as the first rank says")
    table.lift("h8")
    table.place("h8")
    assert english(table.session.snapshot())["status"] == "White to move" and table.session.referee.started


def test_a_960_set_up_from_a_played_board_says_each_next_step(tmp_path):
    table = Table(tmp_path, variant="chess960", start_position=323)
    table.setup(start_fen(323))
    table.play_all("g2g3 g7g6")
    table.session.new_game(table.t, variant="chess960", start_position=100)
    table.wait(0.5)
    snap = english(table.session.snapshot())
    assert snap["status"] == ("Set up Chess960 position 100 to start: first rank QBBNRNKR, Black's mirrors it; "
                              "take the pieces off g3 and g6, then lift the lit pieces (ranks 1 and 8) and set each "
                              "down as the first rank says, then put the pieces on g2 and g7")
    assert french(table.session.snapshot())["status"] == ("Placez la position Chess960 n° 100 pour commencer : première rangée DFFCTCRT, "
                                 "celle des Noirs en miroir ; retirez les pièces de g3 et g6, puis soulevez les pièces "
                                 "éclairées (les rangées 1 et 8) et reposez chacune comme le dit la première rangée, "
                                 "puis posez les pièces sur g2 et g7")
    table.board.set_occupied(0)                     # everything off: where the pieces go
    table.wait(0.5)
    assert english(table.session.snapshot())["status"].endswith("; put the pieces on ranks 1, 2, 7 and 8 as the first rank says")
