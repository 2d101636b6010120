"""The round pushed to a Lichess broadcast: one request at a time, coalesced, a minute after a 429."""
from __future__ import annotations

import asyncio
import os

import httpx
import pytest

from club_hub.broadcast import RATE_LIMIT_WAIT_S, BroadcastPusher
from tests.fakes.fake_broadcast import FakeBroadcast
from tests.firmware.session_support import Table

from .support import SCHOLAR, publisher_for, read_games, start_hub, stop_hub, uci_moves, until

GAME = '[Event "Club"]\n[Site "?"]\n[Date "2026.12.01"]\n[Round "1"]\n[White "A"]\n[Black "B"]\n[Result "*"]\n\n{moves} *\n'


class Waits:
    """The pusher's sleep, recorded and returning at once (no test sleeps)."""

    def __init__(self) -> None:
        self.asked: list[float] = []
        self.called = asyncio.Event()

    async def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)
        self.called.set()
        await asyncio.sleep(0)


@pytest.fixture
async def fake():
    found = FakeBroadcast()
    await found.start()
    yield found
    await found.stop()


async def settle(pusher: BroadcastPusher) -> None:
    async with asyncio.timeout(10):
        await pusher.idle.wait()


async def test_changes_during_a_push_are_coalesced_into_one_more_push_of_the_latest_round(fake):
    round_pgn = [GAME.format(moves="1. e4")]
    waits = Waits()
    pusher = BroadcastPusher(fake.round_id, fake.token, lambda: round_pgn[0], base_url=fake.url, sleep=waits)
    pusher.start()
    try:
        fake.hold.clear()
        pusher.changed()
        async with asyncio.timeout(10):
            await fake.arrived.wait()
        for moves in ("1. e4 e5", "1. e4 e5 2. Nf3", "1. e4 e5 2. Nf3 Nc6"):   # while the first is open
            round_pgn[0] = GAME.format(moves=moves)
            pusher.changed()
        fake.hold.set()
        await settle(pusher)
        assert len(fake.bodies) == 2 and fake.max_in_flight == 1
        (last,) = read_games(fake.bodies[-1])
        assert uci_moves(last) == ["e2e4", "e7e5", "g1f3", "b8c6"]
        pusher.changed()                  # nothing new: nothing sent
        await settle(pusher)
        assert len(fake.bodies) == 2 and fake.problems == [] and waits.asked == []
        assert pusher.last_answer["games"][0]["moves"] == 4 and pusher.pushed == 2
    finally:
        await pusher.close()


async def test_a_429_waits_a_full_minute_then_pushes_the_round_as_it_is_then(fake):
    round_pgn = [GAME.format(moves="1. d4")]
    waits = Waits()
    fake.fail_with = [429]
    pusher = BroadcastPusher(fake.round_id, fake.token, lambda: round_pgn[0], base_url=fake.url, sleep=waits)
    pusher.start()
    try:
        pusher.changed()
        round_pgn[0] = GAME.format(moves="1. d4 d5")
        await settle(pusher)
        assert fake.answers == [429, 200] and waits.asked == [RATE_LIMIT_WAIT_S] == [60.0]
        assert uci_moves(read_games(fake.bodies[0])[0]) == ["d2d4", "d7d5"]
    finally:
        await pusher.close()


async def test_a_wrong_token_is_retried_later_and_never_logged(fake, caplog):
    waits = Waits()
    pusher = BroadcastPusher(fake.round_id, "lip_wrong_secret", lambda: GAME.format(moves="1. c4"),
                             base_url=fake.url, sleep=waits, retry_s=7)
    pusher.start()
    try:
        pusher.changed()
        async with asyncio.timeout(10):
            await waits.called.wait()
        assert fake.answers[0] == 401 and waits.asked[0] == 7 and fake.bodies == []
        assert "lip_wrong_secret" not in caplog.text and "401" in caplog.text
    finally:
        await pusher.close()
    with pytest.raises(ValueError, match="round id"):
        BroadcastPusher("../../x", "t", lambda: "")


async def test_the_hub_broadcasts_the_boards_games(broker, fake, tmp_path):
    token = tmp_path / "lichess.token"
    token.write_text(fake.token + "\n")
    os.chmod(token, 0o600)
    app, task = await start_hub(broker, tmp_path / "hub", broadcast=fake.round_id, token_file=token,
                                lichess_url=fake.url)
    table = Table(tmp_path / "b1", white="Ada", black="Bo", alternate_colours=False)
    publisher = publisher_for(broker, table, "1")
    try:
        table.setup()
        table.play_all(" ".join(SCHOLAR))
        await until(app.hub, lambda: "1" in app.hub.boards and app.hub.boards["1"].over)
        await settle(app.pusher)
        (game,) = read_games(fake.bodies[-1])
        assert uci_moves(game) == SCHOLAR and game.headers["White"] == "Ada" and game.headers["Result"] == "1-0"
        assert fake.max_in_flight == 1 and fake.problems == []
    finally:
        await asyncio.get_running_loop().run_in_executor(None, publisher.stop)
        await stop_hub(app, task)
