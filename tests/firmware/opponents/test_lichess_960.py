"""Lichess Chess960 games through the real Session (castling king-takes-rook both ways), and variants the
board cannot play shown as such and never joined."""
from __future__ import annotations

import pytest

from chess_core import WHITE, Game, Move, read_game
from chess_core.chess960 import start_fen
from firmware.opponents.lichess.models import parse_moves, variant_of

from .test_session_lichess import carry_out, online, tables, until  # noqa: F401 (tables: a fixture)

START = start_fen(323)   # bnrqkrnb: the king on e1 between rooks on c1 and f1
OPENING = ("g2g3", "g7g6", "g1f3", "d7d6")


def test_960_moves_are_read_king_takes_rook():
    assert variant_of({"variant": {"key": "chess960", "name": "Chess960"}}) == ("chess960", "Chess960")
    assert variant_of({"variant": "crazyhouse"}) == ("crazyhouse", "crazyhouse")
    moves = parse_moves(START, " ".join(OPENING) + " e1f1", chess960=True)
    assert moves[-1] == Move.from_uci("e1f1")
    with pytest.raises(ValueError):
        parse_moves(START, " ".join(OPENING) + " e1g1", chess960=True)


async def test_a_lichess_960_game_is_played_on_the_board(tables, tmp_path, fake, client):  # noqa: F811
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=WHITE, moves=OPENING,
                                            initial_fen=START, variant="chess960", script=("d8d7", "e8c8"))
    session = table.session
    assert session.game.chess960 and session.game.start_fen == START
    after = Game(START, chess960=True)
    for uci in OPENING:
        after.push(Move.from_uci(uci))
    table.setup(after.fen())
    assert session.snapshot()["status"] == "White to move"
    table.lift("e1")          # O-O: the king over its rook, which stays on f1
    table.place("g1")
    await until(lambda: session.board_state.play.expected_move is not None)
    carry_out(table, "d8d7")
    table.play("d2d3")
    await until(lambda: len(fake.games[game_id].moves) >= 8)
    assert fake.games[game_id].moves[4:] == ["e1f1", "d8d7", "d2d3", "e8c8"]   # sent and answered king-takes-rook
    await until(lambda: session.board_state.play.expected_move is not None)
    assert session.board_state.play.expected_move == Move.from_uci("e8c8")
    table.lift("e8")          # O-O-O: the king onto the rook's square, the rook to d8
    table.lift("c8")
    table.place("c8")
    table.place("d8")
    assert [m.uci() for m in session.game.moves][4:] == ["e1f1", "d8d7", "d2d3", "e8c8"]
    assert session.snapshot()["moves"]["san"][4::3] == ["O-O", "O-O-O"]
    await session.aclose()
    record = session.file.recorder.load()
    assert record.variant == "chess960"
    pgn = session.file.recorder.pgn_path(record).read_text()
    assert '[Variant "Chess960"]' in pgn and f'[FEN "{START}"]' in pgn
    assert read_game(pgn).game.fen() == session.game.fen()


async def test_a_variant_the_board_cannot_play_is_not_joined_and_says_so(tables, tmp_path, fake, client):  # noqa: F811
    from .test_session_lichess import Table, LichessOpponent
    table = Table(tmp_path)
    tables.append(table)
    opponent = LichessOpponent(client)
    await table.session.start_opponent(opponent)
    table.setup()
    game = fake.start_game("Bobby", color=WHITE, variant="crazyhouse")
    await until(lambda: "not playable" in ((table.session.snapshot()["opponent"]["link"] or {}).get("detail") or ""))
    detail = table.session.snapshot()["opponent"]["link"]["detail"]
    assert detail == f"the Crazyhouse game {game.id} is not playable on this board: play it on lichess.org"
    assert opponent.game is None and table.session.seat.online_sync is None
