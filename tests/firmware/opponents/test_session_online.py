"""Online play as the player sees it: the Session against the fake Lichess (restarts, takebacks, the PGN, the page's words)."""
from __future__ import annotations

import pytest

from chess_core import BLACK, WHITE, Move, read_game
from firmware.session.online_answers import accept_takeback, claim_when_gone
from firmware.opponents.lichess.opponent import LichessOpponent
from firmware.session.game_commands import offer_draw, takeback

from .test_session_lichess import carry_out, online, tables, until  # noqa: F401 - tables is a fixture


async def test_an_online_game_cut_by_a_restart_takes_the_end_it_had_meanwhile(tables, tmp_path, fake, client):
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=WHITE)
    session = table.session
    table.play("e2e4")
    await until(lambda: session.board_state.play.expected_move is not None)
    table.play(session.board_state.play.expected_move.uci())
    await session.aclose()            # the power goes
    fake.opponent_resigns(game_id)    # ... and the game ends over there meanwhile
    restarted = table.new_session()
    table.session = restarted
    tables.append(table)
    assert restarted.restore(table.t) and not restarted.file.record.is_over
    await restarted.start_opponent(LichessOpponent(client))
    await until(lambda: restarted.file.record.is_over)
    assert restarted.game.outcome.describe() == "White wins by resignation"
    pgn = read_game(restarted.file.recorder.pgn_path(restarted.file.record).read_text(encoding="utf-8"))
    assert pgn.result == "1-0" and len(pgn.moves) == 2


async def test_the_pgn_of_an_online_game_has_what_lichess_exports(tables, tmp_path, fake, client):
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=BLACK, limit_ms=900_000,
                                            increment_ms=10_000)
    session = table.session
    await until(lambda: len(session.game.moves) == 1)   # White's first move, made before the board joined
    carry_out(table, session.game.moves[0].uci())
    table.play("g8f6" if session.game.position.is_legal(Move.from_uci("g8f6")) else "b8c6")
    await until(lambda: len(fake.games[game_id].moves) >= 2)
    await session.aclose()
    headers = read_game(session.file.recorder.pgn_path(session.file.record).read_text(encoding="utf-8")).headers
    assert headers["Event"] == "casual rapid game" and headers["GameId"] == game_id
    assert headers["Site"] == f"{fake.base_url}/{game_id}" and headers["Variant"] == "Standard"
    assert (headers["WhiteElo"], headers["BlackElo"]) == ("1500", "1500")
    assert (headers["UTCDate"], headers["UTCTime"]) == ("2023.11.14", "22:13:20")   # the fake's createdAt
    assert (headers["White"], headers["Black"], headers["TimeControl"]) == ("Mary", "Bobby", "900+10")


async def test_a_takeback_before_the_remote_move_is_carried_out_clears_it(tables, tmp_path, fake, client):
    """The board proposes a takeback while the opponent's reply still waits on the LEDs: Lichess
    takes back both moves (the reply and the board's), and the board goes on from there."""
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=WHITE)
    session = table.session
    table.play("e2e4")
    await until(lambda: session.board_state.play.expected_move is not None)
    fake.reply_delay = 3600                   # the opponent waits once its move is taken back
    takeback(session)                        # proposed to Lichess, which the fake accepts
    await until(lambda: fake.games[game_id].moves == [])
    await until(lambda: session.board_state.play.expected_move is None and not session.game.moves)
    snap = session.snapshot()
    assert snap["expected_move"] is None
    assert set(snap["wrong"]) == {"e2", "e4"}   # only the board's own move to put back
    carry_out(table, "e4e2")
    assert session.snapshot()["status"] == "White to move" and not session.snapshot()["wrong"]
    table.play("d2d4")
    await until(lambda: fake.games[game_id].moves == ["d2d4"])
    fake.opponent_move(game_id, "d7d5")
    await until(lambda: session.board_state.play.expected_move is not None)
    assert session.board_state.play.expected_move.uci() == "d7d5"
    table.play("d7d5")
    assert [m.uci() for m in session.game.moves] == ["d2d4", "d7d5"]


async def test_the_opponents_takeback_of_a_move_not_yet_carried_out_clears_it(tables, tmp_path, fake, client):
    """The opponent takes its reply back before the board has carried it out: the LEDs stop
    showing it, nothing is to be put back, and its next move is shown."""
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=WHITE)
    session = table.session
    fake.reply_delay = 3600
    table.play("e2e4")
    await until(lambda: fake.games[game_id].moves == ["e2e4"])
    fake.opponent_move(game_id, "e7e5")
    await until(lambda: session.board_state.play.expected_move is not None)
    fake.opponent_proposes_takeback(game_id)
    await until(lambda: session.seat.takeback_offer == BLACK)
    accept_takeback(session)
    await until(lambda: fake.games[game_id].moves == ["e2e4"])
    await until(lambda: session.board_state.play.expected_move is None)
    snap = session.snapshot()
    assert snap["expected_move"] is None and snap["wrong"] == [] and snap["status"] == "Black to move"
    fake.opponent_move(game_id, "c7c5")
    await until(lambda: session.board_state.play.expected_move is not None)
    assert session.board_state.play.expected_move.uci() == "c7c5"
    table.play("c7c5")
    assert [m.uci() for m in session.game.moves] == ["e2e4", "c7c5"]


async def test_a_new_online_game_asks_to_set_up_the_new_game(tables, tmp_path, fake, client):
    """Issue 15: it asked to "put the pieces back as shown to continue the game"."""
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=WHITE)
    session = table.session
    table.play("e2e4")
    await until(lambda: session.board_state.play.expected_move is not None)
    table.play(session.board_state.play.expected_move.uci())
    fake.opponent_resigns(game_id)
    await until(lambda: session.game.is_over)
    fake.start_game("Bobby", color=WHITE)
    await until(lambda: session.seat.online_sync is not None and session.seat.online_sync.game_id != game_id)
    assert session.snapshot()["status"] == "Set up the new game as shown"


async def test_the_clocks_wait_until_both_sides_have_moved_as_on_lichess(tables, tmp_path, fake, client):
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=WHITE, limit_ms=300_000,
                                            increment_ms=3_000)
    session = table.session
    fake.reply_delay = 3600
    table.wait(5)
    table.play("e2e4")
    await until(lambda: fake.games[game_id].moves == ["e2e4"] and session.seat.server_clock is not None
                and opponent.game.state is not None and opponent.game.state.plies() == 1)
    table.wait(5)
    clocks = session.snapshot()["clocks"]
    assert (clocks["white"], clocks["black"], clocks["running"]) == (300_000, 300_000, None)
    fake.opponent_move(game_id, "e7e5")
    await until(lambda: session.board_state.play.expected_move is not None)
    table.play("e7e5")
    await until(lambda: session.snapshot()["clocks"]["running"] == "white")


async def test_chat_the_answer_to_a_draw_offer_and_leaving_reach_the_page(tables, tmp_path, fake, client):
    from firmware.session.state import to_json
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=BLACK)
    session = table.session
    page = lambda: to_json(session.state())   # noqa: E731
    assert page()["online"]["orientation"] == "black"          # the page turns the board round
    assert page()["online"]["first_move_ms"] is not None       # Lichess aborts a game nobody starts
    await until(lambda: len(session.game.moves) == 1)
    carry_out(table, session.game.moves[0].uci())
    fake.chat(game_id, "good luck!")
    await until(lambda: page()["online"]["chat"] == [{"user": "Mary", "text": "good luck!"}])
    offer_draw(session, "black")
    await until(lambda: page()["online"]["notice"] == "Mary declined your draw offer")
    assert page()["online"]["notice_fr"] == "Mary a refusé votre proposition de nulle"
    fake.opponent_gone(game_id, gone=True, claim_in=0)
    await until(lambda: page()["opponent"]["away"] == {"claim_win_in_seconds": 0})
    claim_when_gone(session, "draw")
    await until(lambda: session.game.is_over)
    assert fake.games[game_id].status == "draw" and page()["ending"] == "Draw by abandoned"


async def test_a_correspondence_game_shows_no_clock(tables, tmp_path, fake, client):
    """Lichess sends 2147483647 ms for a game without a clock: not a clock of 596 hours."""
    from tests.firmware.session_support import Table
    table = Table(tmp_path, takebacks=True)
    tables.append(table)
    opponent = LichessOpponent(client)
    session = table.session
    await session.start_opponent(opponent)
    table.setup()
    game_id = fake.start_game("Bobby", color=WHITE, days=3).id
    await until(lambda: session.seat.online_sync is not None)
    table.play("e2e4")
    await until(lambda: session.board_state.play.expected_move is not None)
    table.play(session.board_state.play.expected_move.uci())
    await until(lambda: opponent.game.state is not None and opponent.game.state.plies() == 2)
    snap = session.snapshot()
    assert snap["time_control"] == "1/259200"
    assert (snap["clocks"]["white"], snap["clocks"]["black"]) == (None, None)   # no clock, as the page shows it


async def test_a_flag_over_there_ends_the_game_on_the_board(tables, tmp_path, fake, client):
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=WHITE)
    session = table.session
    table.play("e2e4")
    await until(lambda: session.board_state.play.expected_move is not None)
    table.play(session.board_state.play.expected_move.uci())
    fake.end_game(game_id, "outoftime", WHITE)
    await until(lambda: session.game.is_over)
    assert session.snapshot()["status"] == "White wins on time"


async def test_a_game_aborted_at_the_other_end_is_told_on_the_page(tables, tmp_path, fake, client):
    from firmware.session.state import to_json
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=WHITE)
    session = table.session
    fake.end_game(game_id, "aborted")
    await until(lambda: session.seat.online_sync is None)
    said = to_json(session.state())["online"]
    assert said["notice"] == "The game was aborted at the other end: it does not count"
    assert said["notice_fr"] == "La partie a été annulée à l'autre bout : elle ne compte pas"
