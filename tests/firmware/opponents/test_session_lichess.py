"""Lichess through the real Session: a game against the fake server, played on the simulated board."""
from __future__ import annotations

import asyncio
import logging
import random
import stat

import pytest

from chess_core import BLACK, WHITE
from firmware.session.online_answers import accept_takeback
from firmware.config import with_overrides
from firmware.referee.feedback import LedStyle
from firmware.opponents.base import ServerClock
from firmware.opponents.lichess.opponent import LichessOpponent
from firmware.session.session import SessionError
from firmware.session.game_commands import pause, resign, takeback
from tests.firmware.session_support import Table

from .conftest import BOARD_TOKEN

from .test_session_engine import random_move


async def until(condition, timeout: float = 10.0) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.005)
    await asyncio.wait_for(poll(), timeout)


async def play_on_the_board(tmp_path, fake, client, seed: int, greedy: bool = True) -> tuple[Table, list[str]]:
    """Board White, moves made by hand; the fake's moves carried out as the LEDs show them."""
    table = Table(tmp_path)
    opponent = LichessOpponent(client)
    await table.session.start_opponent(opponent)
    table.setup()
    server = fake.start_game("Bobby", color=WHITE)
    await until(lambda: opponent.game is not None and opponent.game.full is not None)
    rng = random.Random(seed)
    try:
        game = table.session.game
        while not game.is_over and len(game.moves) < 200:
            if game.turn == WHITE:
                move = random_move(table, rng, greedy=greedy)
            else:
                await until(lambda: table.session.board_state.play.expected_move is not None or table.session.game.is_over)
                if table.session.game.is_over:
                    break
                move = table.session.board_state.play.expected_move
            table.play(move.uci())
            game = table.session.game
            assert game.moves[-1] == move
        if game.is_over:
            await until(lambda: fake.games[server.id].status != "started")
    finally:
        await table.session.aclose()
    return table, fake.games[server.id].moves


async def test_a_lichess_game_played_on_the_board_through_the_session(tmp_path, fake, client):
    table, server_moves = await play_on_the_board(tmp_path, fake, client, seed=3)
    board_moves = [m.uci() for m in table.session.game.moves]
    assert table.session.game.is_over
    assert server_moves[:len(board_moves)] == board_moves and len(server_moves) - len(board_moves) <= 1
    accepted = [ply for _, _, ply, status in fake.move_posts if status == 200]
    assert accepted == list(range(0, len(server_moves), 2)), "each board move sent once"


async def test_the_opponents_mating_move_is_in_the_sessions_game(tmp_path, fake, client):
    table, server_moves = await play_on_the_board(tmp_path, fake, client, seed=2, greedy=False)
    assert fake.games[next(iter(fake.games))].status == "mate" and len(server_moves) % 2 == 0
    assert [m.uci() for m in table.session.game.moves] == server_moves


# -- the session as the front-end of online games --------------------------------------------------

STYLE = LedStyle()
CASTLED = ("e2e4", "c7c5", "g1f3", "d7d6")


@pytest.fixture
async def tables(fake, client):
    """Tables whose sessions are closed at the end of the test, passed or failed (before the fake server
    and before the client their opponents read from: a client closed under a running stream kills it)."""
    made: list[Table] = []
    yield made
    for table in made:
        async with asyncio.timeout(10):
            await table.session.aclose()


async def online(tables, tmp_path, fake, client, **game) -> tuple[Table, LichessOpponent, str]:
    """A session following Lichess, its board set up; a game started on the website (Bobby: the board)."""
    table = Table(tmp_path, takebacks=True, time_control="5")   # a local clock that would soon flag
    tables.append(table)
    opponent = LichessOpponent(client)
    await table.session.start_opponent(opponent)
    table.setup()
    game_id = fake.start_game("Bobby", **game).id
    await until(lambda: table.session.seat.online_sync is not None and table.session.seat.server_clock is not None)
    return table, opponent, game_id


def carry_out(table: Table, *moves: str) -> None:
    for uci in moves:
        table.lift(uci[:2])
        table.place(uci[2:4])


async def test_a_game_joined_in_progress_is_set_up_on_the_board_first(tables, tmp_path, fake, client):
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=WHITE, moves=CASTLED)
    session = table.session
    snap = session.snapshot()
    assert snap["moves"]["uci"] == list(CASTLED) and snap["players"] == {"white": "Bobby", "black": "Mary"}
    assert snap["status"] == "Set up the game in progress as shown (4 moves played)"
    guided = {"e2", "e4", "c7", "c5", "g1", "f3", "d7", "d6"}
    assert set(snap["wrong"]) == guided and table.lit_names(STYLE.fix, blink_on=True) == guided
    assert snap["opponent"] == {"kind": "lichess", "name": "Mary", "sides": ["black"],
                                "text": "Online on Lichess: Mary plays Black.",
                                "text_fr": "En ligne sur Lichess : Mary joue les Noirs.",
                                "link": {"state": "connected", "detail": snap["opponent"]["link"]["detail"]},
                                "assistance_allowed": False, "takeover": None, "away": None}
    assert snap["time_control"] == "600+5" and snap["lichess"]["game"] == game_id
    games = list((tmp_path / "state" / "games").iterdir())
    assert games == [session.file.recorder.pgn_path(session.file.record)]   # not the empty local game it replaced
    carry_out(table, *CASTLED)
    assert session.snapshot()["status"] == "White to move" and not session.snapshot()["wrong"]
    table.play("b1c3")
    await until(lambda: len(fake.games[game_id].moves) >= 5)
    assert fake.games[game_id].moves[4] == "b1c3"
    await session.aclose()
    assert session.file.recorder.load().moves[:5] == [*CASTLED, "b1c3"]


async def test_the_clocks_shown_are_the_servers_counted_down_here_and_no_flag_falls_here(tables, tmp_path, fake, client):
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=WHITE, limit_ms=300_000,
                                            increment_ms=3_000)
    session = table.session
    clocks = session.snapshot()["clocks"]
    assert (clocks["white"], clocks["black"], clocks["running"]) == (300_000, 300_000, None)
    assert session.snapshot()["time_control"] == "300+3" and not session.referee.time_control.timed
    table.play("e2e4")
    await until(lambda: session.board_state.play.expected_move is not None)
    table.play(session.board_state.play.expected_move.uci())
    await until(lambda: session.seat.server_clock.running == WHITE)
    server, heard = opponent.game.state, session.seat.server_clock.at   # when the session heard it
    clocks = session.snapshot()["clocks"]
    assert (clocks["black"], clocks["running"]) == (server.btime, "white")
    assert clocks["white"] == server.wtime - round((table.t - heard) * 1000)
    table.wait(3)
    assert session.snapshot()["clocks"]["white"] == clocks["white"] - 3000   # counted down between events
    assert session.snapshot()["clocks"]["black"] == server.btime
    session.seat.clock_synced(ServerClock(800, 200_000, running=WHITE, at=0.0))   # nearly out of time
    table.wait(5)
    snap = session.snapshot()
    assert snap["clocks"]["white"] == 0 and not session.game.is_over   # the server decides the flag
    assert table.lit_names(STYLE.low_time) == {"e1"}
    with pytest.raises(SessionError, match="server's"):
        pause(session)


async def test_a_takeback_offered_by_the_opponent_is_accepted_and_the_board_guided_back(tables, tmp_path, fake, client):
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=WHITE)
    session = table.session
    table.play("e2e4")
    await until(lambda: session.board_state.play.expected_move is not None)
    reply = session.board_state.play.expected_move.uci()
    table.play(reply)
    with pytest.raises(SessionError, match="no takeback offer"):
        accept_takeback(session)
    fake.reply_delay = 3600                 # the opponent waits once its move is taken back
    fake.opponent_proposes_takeback(game_id)
    await until(lambda: session.seat.takeback_offer == BLACK)
    assert session.snapshot()["takeback_offer"] == "black"
    accept_takeback(session)
    await until(lambda: len(session.game.moves) == 1)
    assert fake.games[game_id].moves == ["e2e4"]
    snap = session.snapshot()
    assert snap["moves"]["uci"] == ["e2e4"] and snap["takeback_offer"] is None
    assert set(snap["wrong"]) == {reply[:2], reply[2:4]}
    table.lift(reply[2:4])
    table.place(reply[:2])
    assert session.snapshot()["status"] == "Black to move" and not session.snapshot()["wrong"]
    fake.opponent_move(game_id, "g8f6")
    await until(lambda: session.board_state.play.expected_move is not None)
    table.play("g8f6")
    assert [m.uci() for m in session.game.moves] == ["e2e4", "g8f6"]


async def test_a_move_refused_by_the_server_is_undone_like_an_illegal_move(tables, tmp_path, fake, client):
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=WHITE)
    session = table.session
    fake.add_fault("POST", r"/move/", status=400, body={"error": "Piece on e2 cannot move to e4"})
    table.play("e2e4")
    await until(lambda: not session.game.moves)
    snap = session.snapshot()
    assert set(snap["wrong"]) == {"e2", "e4"} and table.lit_names(STYLE.fix, blink_on=True) == {"e2", "e4"}
    assert snap["status"] == "Take back e4: put the pawn back on e2"   # (in the player's words, issue 11.4)
    assert snap["problems"][-1] == "Lichess refused e4 (Piece on e2 cannot move to e4): put the pieces back as shown"
    assert snap["problems_fr"][-1] == ("Lichess a refusé e4 (Piece on e2 cannot move to e4) : "
                                       "remettez les pièces comme indiqué")
    assert snap["status_fr"] == "Reprenez e4 : remettez le pion en e2"
    assert len(snap["problem_times"]) == len(snap["problems"])
    table.lift("e4")
    table.place("e2")
    assert session.snapshot()["status"] == "White to move"
    table.play("d2d4")
    await until(lambda: fake.games[game_id].moves[:1] == ["d2d4"])


async def test_a_takeback_asked_on_the_board_is_proposed_to_the_other_side(tables, tmp_path, fake, client):
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=WHITE)
    session = table.session
    assert not session.referee.takebacks   # no takeback on the board alone, online
    table.play("e2e4")
    await until(lambda: session.board_state.play.expected_move is not None)
    table.play(session.board_state.play.expected_move.uci())
    fake.reply_delay = 3600
    takeback(session)
    await until(lambda: not session.game.moves)     # the fake agrees: both moves go back
    assert ("POST", f"/api/board/game/{game_id}/takeback/yes", 200) in fake.requests
    assert len(session.snapshot()["wrong"]) == 4 and fake.games[game_id].moves == []


async def test_no_assistance_in_an_online_game(tables, tmp_path, fake, client):
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=WHITE)
    session = table.session
    table.lift("g1")
    assert not table.lit_names(STYLE.legal) and session.snapshot()["lifted"] == ["g1"]   # no legal-square hints
    table.place("g1")
    with pytest.raises(SessionError, match="online"):
        session.seat.takeovers.take_over("white")
    with pytest.raises(SessionError, match="Lichess game is in progress"):
        session.new_game()
    with pytest.raises(SessionError, match="Lichess game is in progress"):
        session.seat.lichess.logout()
    fake.opponent_gone(game_id, claim_in=20)
    await until(lambda: session.snapshot()["opponent"]["away"] is not None)
    assert session.snapshot()["opponent"]["away"] == {"claim_win_in_seconds": 20}
    fake.opponent_gone(game_id, gone=False)
    await until(lambda: session.snapshot()["opponent"]["away"] is None)


async def test_logging_in_keeps_the_token_privately_and_plays_on_lichess(tables, tmp_path, fake, caplog):
    caplog.set_level(logging.DEBUG)
    table = Table(tmp_path)
    tables.append(table)
    session = table.session
    session.config = with_overrides(session.config, lichess={"base_url": fake.base_url})
    with pytest.raises(SessionError, match="empty"):
        session.seat.lichess.login("   ")
    session.seat.lichess.login(BOARD_TOKEN)
    path = tmp_path / "state" / "lichess.token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and path.read_text().strip() == BOARD_TOKEN
    await session.wait_idle()
    table.setup()
    await until(lambda: session.snapshot()["lichess"]["account"] == "bobby" and session.snapshot()["opponent"]["link"]["state"] == "connected")
    snap = session.snapshot()
    assert snap["opponent"]["kind"] == "lichess" and snap["settings"]["opponent"] == "lichess"
    assert snap["lichess"]["logged_in"] and snap["opponent"]["link"]["state"] == "connected"
    fake.start_game("Bobby", color=BLACK, script=("f2f3",))   # Mary opens at once; the board plays Black
    await until(lambda: session.seat.online_sync is not None and len(session.game.moves) == 1)
    assert session.snapshot()["players"] == {"white": "Mary", "black": "Bobby"}
    carry_out(table, "f2f3")
    table.play("e7e5")
    resign(session, BLACK)
    await until(lambda: session.seat.online_sync is not None and all(g.status != "started" for g in fake.games.values()))
    session.seat.lichess.logout()
    await session.wait_idle()
    assert not path.exists() and session.opponent is None and not session.snapshot()["lichess"]["logged_in"]
    assert BOARD_TOKEN not in caplog.text


async def test_each_online_game_has_its_own_pgn_and_a_restart_continues_it(tables, tmp_path, fake, client):
    table = Table(tmp_path)
    tables.append(table)
    session = table.session
    await session.start_opponent(LichessOpponent(client))
    table.setup()
    table.play_all("e2e4 e7e5")
    local = session.file.record.pgn_name
    game_id = fake.start_game("Bobby", color=WHITE, script=("c7c5",)).id
    await until(lambda: session.seat.online_sync is not None)
    online_file = session.file.record.pgn_name
    assert online_file != local and session.file.record.online_id == game_id
    assert "e2e4 e7e5" not in " ".join(session.file.record.moves)
    carry_out(table, "e4e2", "e5e7")   # the board back to the online game's start
    table.play("d2d4")
    await until(lambda: session.board_state.play.expected_move is not None)
    table.play("c7c5")
    text = session.file.recorder.pgn_path(session.file.record).read_text()
    assert f'[Site "{fake.base_url}/{game_id}"]' in text and "1. d4 c5" in text
    assert "1. e4 e5" in (tmp_path / "state" / "games" / local).read_text()   # the local game stays
    await session.aclose()

    restarted = table.session = table.new_session()   # a power cut during the online game
    assert restarted.restore(table.t)
    await restarted.start_opponent(LichessOpponent(client))
    await until(lambda: restarted.seat.online_sync is not None)
    assert restarted.file.record.pgn_name == online_file and restarted.file.record.moves == ["d2d4", "c7c5"]


@pytest.mark.parametrize("status", [401, 403])
async def test_a_revoked_token_ends_the_link_instead_of_rebuilding_the_board(tables, tmp_path, fake, client, caplog,
                                                                             status):
    """Issue 12: a 401 on a move was taken as the server refusing the move: the board rebuilt and
    re-sent six times."""
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=WHITE)
    session = table.session
    fake.add_fault("POST", r"/move/", status=status, body={"error": "No such token"}, count=10)
    table.play("e2e4")
    await until(lambda: (session.snapshot()["opponent"]["link"] or {}).get("state") == "failed")
    assert session.seat.link_detail == "Lichess refused the token: log in again"
    assert "Lichess refused the token: log in again" in caplog.text
    assert [m.uci() for m in session.game.moves] == ["e2e4"]       # not taken back as a refused move
    assert not session.snapshot()["wrong"]
    posts = [r for r in fake.requests if r[0] == "POST" and "/move/" in r[1]]
    assert len(posts) == 1                                          # not sent again and again


async def test_a_revoked_token_on_an_action_says_so(tables, tmp_path, fake, client):
    table, opponent, game_id = await online(tables, tmp_path, fake, client, color=WHITE)
    fake.add_fault("POST", r"/resign", status=401, body={"error": "No such token"})
    with pytest.raises(Exception, match="Lichess refused the token: log in again"):
        await opponent.game.act(__import__("firmware.opponents.base", fromlist=["Action"]).Action.RESIGN)
    assert table.session.snapshot()["opponent"]["link"]["state"] == "failed"
