"""The Lichess client and opponent against the fake server: endpoints, errors, limits, lobby, the token."""
from __future__ import annotations

import asyncio
import logging
import time

import pytest

from chess_core import BLACK, WHITE, Move
from firmware.opponents.base import LinkState, Opponent
from firmware.opponents.lichess.client import (LichessAuthError, LichessClient, LichessNotFound, LichessRefused,
                                        RateLimited, SeekNotAllowed, StreamSilent, check_challenge, check_seek,
                                        speed_of)
from firmware.opponents.lichess.opponent import LichessOpponent
from firmware.opponents.lichess.token import Token
from tests.fakes.fake_lichess import NOT_YOUR_TURN

from .board_sim import BoardSim
from .conftest import BOARD_TOKEN, fast_config
from .helpers import HandTimeouts, Recorder
from .test_lichess_games import GAME_STREAM, MOVE, play_game


@pytest.fixture
async def opponent(client):
    lichess = LichessOpponent(client)
    yield lichess
    await lichess.stop()


# -- what a board may ask for ------------------------------------------------------------------

@pytest.mark.parametrize("minutes, increment, speed", [(10, 0, "rapid"), (5, 5, "rapid"), (30, 20, "classical"),
                                                        (8, 0, "rapid")])
def test_rapid_and_classical_seeks_are_allowed(minutes, increment, speed):
    assert check_seek(minutes, increment) == speed


@pytest.mark.parametrize("minutes, increment", [(3, 2), (5, 0), (1, 0), (7, 0)])
def test_a_blitz_or_faster_seek_is_refused_with_the_reason(minutes, increment):
    with pytest.raises(SeekNotAllowed, match=r"only rapid, classical or correspondence seeks.*challenge a friend"):
        check_seek(minutes, increment)


def test_correspondence_seeks_take_the_days_lichess_knows():
    assert check_seek(None, days=3) == "correspondence"
    with pytest.raises(SeekNotAllowed, match="1, 2, 3, 5, 7, 10, 14 days"):
        check_seek(None, days=4)


def test_blitz_is_allowed_in_a_direct_challenge_but_not_bullet():
    assert check_challenge(180, 2) == "blitz"
    with pytest.raises(SeekNotAllowed, match="does not let a board play bullet"):
        check_challenge(60, 0)


def test_speeds_follow_lichess_estimate():
    assert [speed_of(15, 0), speed_of(60, 1), speed_of(300, 0), speed_of(480, 0), speed_of(1500, 0)] == \
        ["ultraBullet", "bullet", "blitz", "rapid", "classical"]


async def test_a_refused_seek_sends_nothing(fake, client):
    with pytest.raises(SeekNotAllowed):
        await client.seek(minutes=3, increment=2)
    assert fake.requests == []


# -- endpoints ---------------------------------------------------------------------------------

async def test_lichess_error_texts_come_through(fake, client):
    game = fake.start_game("Bobby", color=BLACK, script=("e2e4",))
    for _ in range(500):         # the fake opponent plays e4 (however busy the machine is)
        if game.moves:
            break
        await asyncio.sleep(0.01)
    with pytest.raises(LichessRefused) as refused:
        await client.move(game.id, "e7e4")
    assert refused.value.status == 400 and refused.value.error == "Piece on e7 cannot move to e4"
    with pytest.raises(LichessRefused, match="No piece on e3"):
        await client.move(game.id, "e3e4")


async def test_not_your_turn_is_refused_with_lichess_words(fake, client):
    fake.reply_delay = 30.0      # the opponent (White) thinks: it is not our turn
    game = fake.start_game("Bobby", color=BLACK)
    with pytest.raises(LichessRefused) as refused:
        await client.move(game.id, "e7e5")
    assert refused.value.error == NOT_YOUR_TURN


async def test_an_unknown_game_is_not_found(fake, client):
    with pytest.raises(LichessNotFound):
        await client.resign("nosuchgm")


async def test_a_wrong_token_is_refused_clearly(fake):
    bad = LichessClient(fast_config(fake.base_url), Token("lip_wrong"))
    try:
        with pytest.raises(LichessAuthError, match="No such token"):
            await bad.account()
        recorder = Recorder()
        lichess = LichessOpponent(bad)
        await lichess.start(recorder)
        failed = await recorder.wait_for("link", lambda v: v[0] is LinkState.FAILED)
        assert "No such token" in failed[1]
        await lichess.stop()
    finally:
        await bad.aclose()


async def test_one_request_at_a_time_even_when_asked_at_once(fake, client):
    fake.add_fault("GET", "/api/account", None, count=6, delay=0.02)
    await asyncio.gather(*(client.account() for _ in range(6)))
    assert fake.max_inflight == 1


async def test_after_a_429_every_request_waits_the_pause(fake):
    client = LichessClient(fast_config(fake.base_url, rate_limit_pause=0.3), Token(BOARD_TOKEN))
    try:
        fake.add_fault("GET", "/api/account", 429)
        began = time.monotonic()
        first = asyncio.ensure_future(client.account())
        await asyncio.sleep(0.05)
        second = await client.account()            # asked during the pause: waits for it too
        await first
        assert time.monotonic() - began >= 0.3
        assert second["username"] == "Bobby"
        assert [r[2] for r in fake.requests] == [429, 200, 200]
        assert len(client.rate_limit_pauses) == 1 and client.rate_limit_pauses[0] == pytest.approx(0.3, abs=0.05)
    finally:
        await client.aclose()


async def test_a_request_still_limited_after_the_pauses_fails(fake, client):
    fake.add_fault("GET", "/api/account", 429, count=5)
    with pytest.raises(RateLimited):
        await client.account()


async def test_a_silent_stream_is_dead_after_the_silence_limit(fake):
    timeouts = HandTimeouts()
    client = LichessClient(fast_config(fake.base_url), Token(BOARD_TOKEN), timeout=timeouts)
    game = fake.start_game("Bobby")
    try:
        with pytest.raises(StreamSilent, match="silent for 0.5 s"):
            async with client.game_stream(game.id) as events:
                lines = events.__aiter__()
                assert (await lines.__anext__())["type"] == "gameFull"
                fake.silence_game_streams(game.id)
                reading = asyncio.ensure_future(lines.__anext__())
                assert await timeouts.asked_after(len(timeouts.asked)) == 0.5   # the silence limit ...
                timeouts.expire()                                                # ... passes: nothing came
                await reading
    finally:
        await client.aclose()


async def test_keep_alive_lines_keep_a_quiet_stream_alive(fake):
    fake.keepalive = 3600.0               # keep-alive lines only when the test sends them
    timeouts = HandTimeouts()
    client = LichessClient(fast_config(fake.base_url), Token(BOARD_TOKEN), timeout=timeouts)
    game = fake.start_game("Bobby")
    try:
        async with client.game_stream(game.id) as events:
            lines = events.__aiter__()
            assert (await lines.__anext__())["type"] == "gameFull"
            reading = asyncio.ensure_future(lines.__anext__())
            asked = len(timeouts.asked)
            assert await timeouts.asked_after(asked) == 0.5
            for n in range(1, 4):         # each keep-alive, before the limit, starts it again
                fake.send_keep_alive(game.id)
                assert await timeouts.asked_after(asked + n) == 0.5
                assert not reading.done()                    # no event, no error: the stream lives
            reading.cancel()
            with pytest.raises(asyncio.CancelledError):
                await reading
    finally:
        await client.aclose()


async def test_a_new_event_stream_closes_the_old_one_like_lichess(fake, client):
    async def read(into: list) -> None:
        async with client.event_stream() as events:
            async for event in events:
                into.append(event)
    first: list = []
    one = asyncio.ensure_future(read(first))
    async with asyncio.timeout(10):       # the first is open over there before the second asks
        while fake.event_connections < 1:
            await asyncio.sleep(0)
    two = asyncio.ensure_future(read([]))
    await asyncio.wait_for(one, 2)       # ended by the server
    two.cancel()
    with pytest.raises(asyncio.CancelledError):
        await two
    assert fake.event_connections == 2


# -- the opponent: lobby and games -------------------------------------------------------------

async def test_the_lichess_opponent_follows_the_protocol_and_turns_help_off(client):
    lichess = LichessOpponent(client)
    assert isinstance(lichess, Opponent)
    assert lichess.assistance_allowed is False
    assert lichess.name == "Lichess"


async def test_a_rapid_seek_finds_a_game_that_the_board_joins(fake, opponent):
    sim = BoardSim()
    await opponent.start(sim)
    seek = await opponent.seek(minutes=10, increment=5, color="white")
    sync = await sim.wait_for("game_sync")
    await asyncio.wait_for(seek.wait(), 2)
    assert not seek.active, "the server closed the seek when it was accepted"
    assert sync.time_control == "600+5" and sync.speed == "rapid" and sync.local_colors == {WHITE}
    assert opponent.name == "Mary"


async def test_a_seek_lasts_as_long_as_its_connection(fake, opponent):
    fake.seek_pairing = None
    await opponent.start(Recorder())
    seek = await opponent.seek(minutes=15, increment=10)
    await asyncio.sleep(0.2)
    assert seek.active
    await opponent.cancel_seek()
    assert not seek.active


async def test_a_correspondence_seek_answers_with_its_id(fake, client):
    seek = await client.seek(days=3)
    assert seek.id and not seek.active


async def test_a_blitz_challenge_to_a_friend_starts_a_game(fake, opponent):
    sim = BoardSim()
    await opponent.start(sim)
    challenge = await opponent.challenge("Mary", limit_s=180, increment=2, color="black")
    assert challenge.speed == "blitz" and challenge.time_control == "180+2"
    sync = await sim.wait_for("game_sync")
    assert sync.local_colors == {BLACK} and sync.speed == "blitz"


async def test_an_incoming_challenge_is_shown_and_can_be_accepted(fake, opponent):
    sim = BoardSim()
    await opponent.start(sim)
    await asyncio.sleep(0.1)
    data = fake.send_challenge("Bobby", limit_s=900, increment=10)
    event = await sim.wait_for("challenge")
    assert (event.kind, event.id, event.challenger.name, event.time_control) == ("challenge", data["id"], "Mary",
                                                                                "900+10")
    await opponent.accept_challenge(event.id)
    sync = await sim.wait_for("game_sync")
    assert sync.time_control == "900+10"


async def test_an_incoming_challenge_can_be_declined(fake, opponent):
    recorder = Recorder()
    await opponent.start(recorder)
    await asyncio.sleep(0.1)
    data = fake.send_challenge("Bobby")
    await recorder.wait_for("challenge")
    await opponent.decline_challenge(data["id"], "later")
    declined = await recorder.wait_for("challenge", lambda e: e.kind == "challengeDeclined")
    assert declined.decline_reason and declined.id == data["id"]


async def test_a_game_that_starts_during_another_is_joined_after_it(fake, opponent):
    sim = BoardSim()
    await opponent.start(sim)
    first = fake.start_game("Bobby")
    await sim.wait_for("game_sync")
    second = fake.start_game("Bobby", color=BLACK)
    fake.send_challenge("Bobby")          # on the same stream after the second gameStart: once it is
    await sim.wait_for("challenge")       # here, that gameStart was handled (no time guessed)
    assert opponent.game.id == first.id
    mark = len(sim.calls)
    fake.opponent_resigns(first.id)
    await sim.wait_for("game_over", after=mark)
    sync = await sim.wait_for("game_sync", after=mark)
    assert sync.game_id == second.id and opponent.games_played == [first.id, second.id]


async def test_a_board_incompatible_game_is_not_joined(fake, opponent):
    recorder = Recorder()
    await opponent.start(recorder)
    fake.start_game("Bobby", limit_ms=60_000, increment_ms=0)              # bullet: not for boards
    rapid = fake.start_game("Bobby", limit_ms=600_000, increment_ms=0)     # announced after it
    sync = await recorder.wait_for("game_sync")
    assert sync.game_id == rapid.id and opponent.games_played == [rapid.id]   # never the bullet one


async def test_a_game_followed_by_id_is_joined_at_start(fake, client):
    game = fake.start_game("Bobby", moves=("d2d4", "d7d5"))
    lichess = LichessOpponent(client, game_id=game.id)
    sim = BoardSim()
    try:
        await lichess.start(sim)
        sync = await sim.wait_for("game_sync")
    finally:
        await lichess.stop()
    assert [m.uci() for m in sync.moves] == ["d2d4", "d7d5"] and sync.local_colors == {WHITE}


async def test_a_move_committed_with_no_game_is_ignored(opponent, caplog):
    await opponent.start(Recorder())
    opponent.on_move(Move.from_uci("e2e4"))
    assert "no Lichess game in progress" in caplog.text


# -- the token ---------------------------------------------------------------------------------

async def test_the_token_never_reaches_the_logs(fake, caplog):
    caplog.set_level(logging.DEBUG)
    for name in ("httpx", "httpcore", "aiohttp", "firmware", "asyncio"):
        caplog.set_level(logging.DEBUG, logger=name)
    ctx, game = await play_game(fake, lambda ctx: {4: lambda: ctx.fake.add_fault("POST", MOVE, 503),
                                                   6: lambda: ctx.fake.add_fault("POST", MOVE, 429),
                                                   8: lambda: ctx.fake.add_fault("GET", GAME_STREAM, 503),
                                                   9: lambda: ctx.fake.cut_game_streams(ctx.game_id)})
    assert len(caplog.records) > 100, "plenty was logged, at every level"
    text = "\n".join(f"{r.getMessage()} {r.args!r} {r.exc_text or ''}" for r in caplog.records)
    assert BOARD_TOKEN not in text
    assert BOARD_TOKEN not in repr(ctx.client.__dict__) and BOARD_TOKEN not in repr(ctx.opponent.__dict__)


async def test_a_refused_token_is_not_in_the_error_either(fake):
    secret = "lip_an0therS3cret"
    bad = LichessClient(fast_config(fake.base_url), Token(secret))
    try:
        with pytest.raises(LichessAuthError) as refused:
            await bad.account()
    finally:
        await bad.aclose()
    assert secret not in str(refused.value) and secret not in repr(refused.value)


async def test_a_game_that_cannot_be_followed_is_reported_and_the_next_one_joined(fake, client):
    lichess = LichessOpponent(client, game_id="nosuchgm")
    sim = BoardSim()
    try:
        await lichess.start(sim)
        failed = await sim.wait_for("link", lambda v: v[0] is LinkState.FAILED)
        assert "Not found" in failed[1]
        game = fake.start_game("Bobby")
        sync = await sim.wait_for("game_sync")
    finally:
        await lichess.stop()
    assert sync.game_id == game.id
