"""Lichess to the letter: the client and the fake server against the OpenAPI specification (data/lichess_board_api.yaml)."""
from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from chess_core import BLACK, STARTING_FEN, WHITE, Move, Termination
from firmware.opponents.base import Action
from firmware.opponents.lichess.client import STREAM_SILENCE_TIMEOUT, LichessClient
from firmware.opponents.lichess.models import (PLAYING_STATUSES, TERMINATIONS, VOID_STATUSES, BoardState,
                                               draw_termination, parse_moves)
from firmware.opponents.lichess.token import Token
from tests.fakes.fake_lichess import DECLINE_REASONS, KEEPALIVE, STATUS_IDS, FakeLichess

from .conftest import BOARD_TOKEN, fast_config
from .test_lichess_games import Ctx, check_every_move_exactly_once, play_game

SPEC = (Path(__file__).parent / "data" / "lichess_board_api.yaml").read_text(encoding="utf-8")


def spec_part(name: str) -> str:
    return SPEC.split(f"# file: doc/specs/{name}\n", 1)[1].split("\n---\n", 1)[0]


def spec_enum(name: str) -> list[str]:
    part = spec_part(f"schemas/{name}.yaml")
    inline = re.search(r"enum: \[([^\]]*)\]", part)
    if inline:
        return [v.strip() for v in inline.group(1).split(",")]
    return re.findall(r"^  - (\S+)$", part, re.MULTILINE)


# -- the words of the specification -----------------------------------------------------------

def test_every_status_of_the_spec_is_understood_and_the_fake_numbers_them_as_the_spec():
    names = spec_enum("GameStatusName")
    assert set(names) == set(TERMINATIONS) | PLAYING_STATUSES | VOID_STATUSES
    assert STATUS_IDS == dict(zip(names, map(int, spec_enum("GameStatusId"))))


def test_keep_alives_come_at_the_specs_interval_and_a_stream_is_dead_only_after_more():
    seconds = int(re.search(r"An empty line is sent every (\d+) seconds", spec_part(
        "tags/board/api-stream-event.yaml")).group(1))
    assert KEEPALIVE == seconds == 7
    assert STREAM_SILENCE_TIMEOUT > seconds + 3   # one late keep-alive is not a dead stream


def test_the_fake_takes_the_decline_reasons_of_the_spec_and_variant_is_one():
    part = spec_part("tags/challenges/api-challenge-challengeId-decline.yaml")
    reasons = re.findall(r"^                - (\w+)$", part, re.MULTILINE)
    assert "variant" in reasons and DECLINE_REASONS == tuple(reasons)


def test_claim_draw_is_a_board_endpoint_of_the_spec():
    part = spec_part("tags/board/api-board-game-gameId-claim-draw.yaml")
    assert "operationId: boardGameClaimDraw" in part and "opponent has left" in part


def test_the_expiration_of_a_game_not_started_is_the_time_left_to_move():
    assert "millisToMove" in spec_part("schemas/GameStateEvent.yaml")
    state = BoardState.from_event({"moves": "", "status": "started",
                                   "expiration": {"idleMillis": 4_000, "millisToMove": 30_000}})
    assert state.expiration_ms == 26_000
    assert BoardState.from_event({"moves": "e2e4 e7e5", "status": "started"}).expiration_ms is None
    over = BoardState.from_event({"moves": "", "status": "aborted", "expiration": {"idleMillis": 0,
                                                                                   "millisToMove": 1}})
    assert over.expiration_ms is None


# -- "draw" is not always an agreement --------------------------------------------------------

SHUFFLE = "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8"


@pytest.mark.parametrize("fen, moves, claimed, expected", [
    (STARTING_FEN, "e2e4 e7e5", False, Termination.AGREEMENT),
    (STARTING_FEN, SHUFFLE, False, Termination.THREEFOLD_REPETITION),
    ("8/8/4k3/8/8/4K3/8/7r w - - 99 80", "e3d3", False, Termination.FIFTY_MOVES),
    ("8/8/4k3/8/8/4K3/8/8 w - - 0 1", "e3d3", False, Termination.INSUFFICIENT_MATERIAL),
    (STARTING_FEN, "e2e4 e7e5", True, Termination.ABANDONED),
])
def test_a_lichess_draw_is_named_by_what_the_position_shows(fen, moves, claimed, expected):
    played = parse_moves(fen, moves)
    assert draw_termination(fen, played, claimed) is expected
    end = BoardState.from_event({"moves": moves, "status": "draw"}).end(fen, played, claimed)
    assert end.outcome.termination is expected and end.winner is None


# -- the client reads what the spec sends -----------------------------------------------------

async def test_the_last_ndjson_line_without_a_newline_is_not_dropped():
    body = b'{"type": "gameFull", "id": "abc"}\n\n{"type": "gameState", "moves": "e2e4", "status": "mate"}'

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"Content-Type": "application/x-ndjson"})
    client = LichessClient(fast_config("http://lichess.test"), Token(BOARD_TOKEN),
                           transport=httpx.MockTransport(answer))
    try:
        async with client.game_stream("abc") as events:
            got = [event["type"] async for event in events]
    finally:
        await client.aclose()
    assert got == ["gameFull", "gameState"]


# -- the fake server's endings, through the board's Lichess opponent --------------------------

def ending(status: str, winner):
    def hooks(ctx: Ctx) -> dict:
        return {5: lambda: ctx.fake.end_game(ctx.game_id, status, winner)}
    return hooks


@pytest.mark.parametrize("status, winner, termination", [
    ("outoftime", BLACK, Termination.TIME_FORFEIT),
    ("outoftime", None, Termination.TIME_VS_INSUFFICIENT),
    ("noStart", BLACK, Termination.ABANDONED),
    ("insufficientMaterialClaim", None, Termination.INSUFFICIENT_MATERIAL),
    ("variantEnd", WHITE, Termination.ABANDONED),
])
async def test_every_ending_of_the_spec_reaches_the_board(fake, status, winner, termination):
    ctx, game = await play_game(fake, ending(status, winner))
    assert ctx.sim.end.status == status and ctx.sim.end.winner == winner
    assert ctx.sim.end.outcome.termination is termination
    assert ctx.sim.ucis() == game.moves


async def test_game_finish_events_carry_the_winner(fake):
    client = LichessClient(fast_config(fake.base_url), Token(BOARD_TOKEN))
    try:
        game = fake.start_game("Bobby", color=WHITE)
        async with client.event_stream() as events:
            async for event in events:
                if event["type"] == "gameStart":
                    fake.end_game(game.id, "outoftime", WHITE)
                elif event["type"] == "gameFinish":
                    finished = event["game"]
                    fake.cut_event_streams()
    finally:
        await client.aclose()
    assert finished["winner"] == "white" and finished["status"] == {"id": 35, "name": "outoftime"}


async def test_a_draw_is_claimed_when_the_opponent_is_gone(fake):
    def hooks(ctx: Ctx) -> dict:
        async def gone() -> None:
            ctx.fake.opponent_gone(ctx.game_id, gone=True, claim_in=0)
            await ctx.sim.wait_for("opponent_gone")
            await ctx.opponent.act(Action.CLAIM_DRAW)
        return {9: gone}
    ctx, game = await play_game(fake, hooks)
    assert ("POST", f"/api/board/game/{game.id}/claim-draw", 200) in fake.requests
    assert game.status == "draw" and ctx.sim.end.winner is None
    assert ctx.sim.end.outcome.describe() == "Draw by abandoned"


async def test_castling_sent_king_takes_rook_is_played_as_castling(fake: FakeLichess):
    opening = ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1")
    fake_start = fake.start_game

    def start(user, **kwargs):
        return fake_start(user, **dict(kwargs, king_takes_rook=True))
    fake.start_game = start
    ctx, game = await play_game(fake, color=BLACK, moves=opening)
    assert fake.games[game.id].moves_text().split()[6] == "e1h1"
    assert [m.uci() for m in ctx.sim.syncs[0].moves][6] == "e1g1"
    check_every_move_exactly_once(ctx, game)


async def test_a_correspondence_game_has_days_per_turn_and_no_clock(fake):
    fake_start = fake.start_game

    def start(user, **kwargs):
        return fake_start(user, **dict(kwargs, days=3))
    fake.start_game = start
    ctx, game = await play_game(fake)
    assert "clock" not in game.full() and game.full()["daysPerTurn"] == 3
    assert ctx.sim.syncs[0].time_control == "1/259200" and ctx.sim.syncs[0].speed == "correspondence"
    check_every_move_exactly_once(ctx, game)


def test_moves_read_both_castling_spellings_the_same():
    assert parse_moves(STARTING_FEN, "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1h1")[-1] == Move.from_uci("e1g1")
    assert parse_moves(STARTING_FEN, "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1g1")[-1] == Move.from_uci("e1g1")
