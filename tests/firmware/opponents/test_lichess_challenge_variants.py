"""Issue 26 (13c): a Lichess challenge in a variant the board cannot play is declined with the reason Lichess has for it."""
from __future__ import annotations

import asyncio
import logging

import httpx
import pytest

from firmware.opponents.lichess.opponent import LichessOpponent

from .conftest import BOARD_TOKEN
from .helpers import Recorder


@pytest.fixture
async def opponent(client):
    lichess = LichessOpponent(client)
    yield lichess
    await lichess.stop()


async def test_a_challenge_in_a_variant_the_board_cannot_play_is_declined_with_the_reason_variant(fake, opponent,
                                                                                                  caplog):
    caplog.set_level(logging.INFO, logger="firmware.opponents.lichess")
    standard = fake.send_challenge("Bobby")
    chess960 = fake.send_challenge("Bobby", variant="chess960")
    crazyhouse = fake.send_challenge("Bobby", variant="crazyhouse")   # all three sent when the stream opens
    recorder = Recorder()
    await opponent.start(recorder)
    declined = await recorder.wait_for("challenge", lambda e: e.kind == "challengeDeclined")
    assert declined.id == crazyhouse["id"]
    assert fake.challenges[crazyhouse["id"]]["declineReasonKey"] == "variant"
    # (declines go out one at a time, in the order the challenges came: the others would be done)
    assert fake.challenges[standard["id"]]["status"] == fake.challenges[chess960["id"]]["status"] == "created"
    assert [e.id for e in recorder.values("challenge") if e.kind == "challenge"] == [
        standard["id"], chess960["id"], crazyhouse["id"]]      # each still shown, as before
    assert f"challenge {crazyhouse['id']} from Mary in Crazyhouse declined: the board cannot play it" in caplog.text


async def test_the_board_never_declines_its_own_challenge_nor_twice(fake, opponent):
    mine = fake.send_challenge("Mary", variant="crazyhouse", challenger="Bobby")   # sent from the website
    theirs = fake.send_challenge("Bobby", variant="atomic")
    recorder = Recorder()
    await opponent.start(recorder)
    await recorder.wait_for("challenge", lambda e: e.kind == "challengeDeclined")
    assert fake.challenges[mine["id"]]["status"] == "created"
    assert fake.challenges[theirs["id"]]["declineReasonKey"] == "variant"
    # announced again as it was, the decline under way (a reconnection's stream crossing it)
    opponent._on_challenge({"type": "challenge", "challenge": {**theirs, "status": "created"}})
    await asyncio.gather(*opponent._tasks)      # (a decline that would go out, gone out)
    posts = [path for method, path, _ in fake.requests if path.endswith("/decline")]
    assert posts == [f"/api/challenge/{theirs['id']}/decline"]


async def test_the_fake_refuses_a_decline_reason_that_is_not_in_the_spec(fake):
    data = fake.send_challenge("Bobby")
    async with httpx.AsyncClient(base_url=fake.base_url, headers={"Authorization": f"Bearer {BOARD_TOKEN}"}) as http:
        answer = await http.post(f"/api/challenge/{data['id']}/decline", data={"reason": "boring"})
        assert answer.status_code == 400 and "reason" in answer.json()["error"]
        assert fake.challenges[data["id"]]["status"] == "created"
        answer = await http.post(f"/api/challenge/{data['id']}/decline", data={"reason": "variant"})
        assert answer.status_code == 200 and fake.challenges[data["id"]]["declineReasonKey"] == "variant"
