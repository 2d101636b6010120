"""Full games against the fake Lichess, under every fault: every move arrives once, in order, none sent twice."""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Callable

import pytest

from chess_core import BLACK, WHITE, Termination
from firmware.opponents.base import Action, LinkState, OfferKind
from firmware.opponents.lichess.client import LichessClient
from firmware.opponents.lichess.opponent import LichessOpponent
from firmware.opponents.lichess.token import Token
from tests.fakes.fake_lichess import FakeGame, FakeLichess

from .board_sim import BoardSim
from .conftest import BOARD_TOKEN, FAST_BACKOFF, fast_config

MOVE = r"/api/board/game/\w+/move/"
GAME_STREAM = r"/api/board/game/stream/"


@dataclass
class Ctx:
    fake: FakeLichess
    client: LichessClient
    opponent: LichessOpponent
    sim: BoardSim
    game_id: str


Hooks = Callable[[Ctx], dict[int, Callable[[], Any]]]


async def play_game(fake: FakeLichess, hooks: Hooks = lambda ctx: {}, *, color: int = WHITE, seed: int = 1,
                    moves: tuple[str, ...] = (), config: dict | None = None,
                    confirm: bool = True) -> tuple[Ctx, FakeGame]:
    client = LichessClient(fast_config(fake.base_url, **(config or {})), Token(BOARD_TOKEN))
    sim = BoardSim(seed, confirm=confirm)
    opponent = LichessOpponent(client)
    try:
        await opponent.start(sim)
        game = fake.start_game("Bobby", color=color, moves=moves)
        ctx = Ctx(fake, client, opponent, sim, game.id)
        sim.hooks = hooks(ctx)
        await sim.drive(opponent, timeout=60)
    finally:
        await opponent.stop()
        await client.aclose()
    return ctx, fake.games[game.id]


def check_every_move_exactly_once(ctx: Ctx, game: FakeGame, *, takebacks: int = 0, refused: int = 0) -> None:
    """The board's game is the server's; the opponent's moves came once each, in order; the board's
    moves were each accepted once (a takeback lets a ply be played again)."""
    sim, local = ctx.sim, ctx.sim.local
    joined_at = len(sim.syncs[0].moves)   # the moves already played when the board joined
    assert ctx.sim.end is not None, "the game ended"
    assert sim.ucis() == game.moves, "the board and Lichess have the same game"
    posts = [p for p in ctx.fake.move_posts if p[0] == game.id]
    accepted = [ply for _, _, ply, status in posts if status == 200]
    assert len([p for p in posts if p[3] != 200]) == refused, f"moves refused: {posts}"
    ours = [i for i in range(joined_at, len(game.moves)) if (i % 2 == 0) == (local == WHITE)]
    theirs = [game.moves[i] for i in range(joined_at, len(game.moves)) if i not in ours]
    if takebacks == 0:
        assert accepted == ours, "each board move was accepted exactly once, in order"
        assert [m.uci() for m in sim.received] == theirs, "each opponent move arrived exactly once, in order"
    else:
        assert len(accepted) >= len(ours) and len(accepted) - len(ours) <= 2 * takebacks
        received = iter(m.uci() for m in sim.received)
        assert all(move in received for move in theirs), "the opponent's moves came in order"
        assert len(sim.received) - len(theirs) <= takebacks, "only a taken-back move came again"


def ended_by_the_board_rules(game: FakeGame) -> bool:
    return game.status in ("mate", "stalemate", "draw")


# -- no fault ----------------------------------------------------------------------------------

@pytest.mark.parametrize("confirm", [True, False], ids=["told when carried out", "not told (as Session)"])
@pytest.mark.parametrize("color", [WHITE, BLACK])
async def test_a_full_game_with_no_fault(fake, color, confirm):
    ctx, game = await play_game(fake, color=color, seed=color + 3, confirm=confirm)
    check_every_move_exactly_once(ctx, game)
    assert ended_by_the_board_rules(game)
    assert ctx.sim.end.status == game.status
    assert len(ctx.sim.syncs) == 1
    assert fake.max_inflight == 1, "one request at a time"


# -- the fault matrix --------------------------------------------------------------------------

def cut_game_stream(abort: bool) -> Hooks:
    return lambda ctx: {8: lambda: ctx.fake.cut_game_streams(ctx.game_id, abort=abort),
                        20: lambda: ctx.fake.cut_game_streams(ctx.game_id, abort=abort)}


def cut_event_stream(ctx: Ctx) -> dict:
    return {6: lambda: ctx.fake.cut_event_streams(abort=True), 14: lambda: ctx.fake.cut_event_streams()}


def silence(ctx: Ctx) -> dict:
    return {10: lambda: ctx.fake.silence_game_streams(ctx.game_id)}


def move_fault(status: int, *, after: bool = False, delay: float = 0.0, count: int = 1) -> Hooks:
    return lambda ctx: {9: lambda: ctx.fake.add_fault("POST", MOVE, status, count, after=after, delay=delay)}


def stream_fault(status: int, count: int) -> Hooks:
    def hooks(ctx: Ctx) -> dict:
        def both() -> None:
            ctx.fake.add_fault("GET", GAME_STREAM, status, count)
            ctx.fake.cut_game_streams(ctx.game_id)
        return {7: both}
    return hooks


def everything(ctx: Ctx) -> dict:
    hooks = {}
    hooks.update(cut_game_stream(True)(ctx))
    hooks.update(cut_event_stream(ctx))
    hooks[12] = lambda: ctx.fake.silence_game_streams(ctx.game_id)
    hooks[16] = lambda: ctx.fake.add_fault("POST", MOVE, 503, 1, after=True)
    hooks[24] = lambda: ctx.fake.add_fault("POST", MOVE, 503, 1)
    hooks[28] = lambda: ctx.fake.add_fault("POST", MOVE, 429, 1)
    hooks[32] = stream_fault(503, 2)(ctx)[7]
    return hooks


FAULTS = {
    "game stream closed by the server": (cut_game_stream(False), {}),
    "game stream connection dropped": (cut_game_stream(True), {}),
    "event stream dropped and closed": (cut_event_stream, {}),
    "game stream silent (no keep-alive)": (silence, {}),
    "503 on a move, not carried out": (move_fault(503), {}),
    "503 on a move, carried out (answer lost)": (move_fault(503, after=True), {}),
    "move request hangs past the timeout": (move_fault(503, delay=0.5), {"request_timeout": 0.3}),
    "429 on a move": (move_fault(429), {}),
    "429 twice on a move": (move_fault(429, count=2), {}),
    "503 three times on reopening the stream": (stream_fault(503, 3), {}),
    "429 on reopening the stream": (stream_fault(429, 1), {}),
    "all of them in one game": (everything, {}),
}


@pytest.mark.parametrize("color", [WHITE, BLACK], ids=["board white", "board black"])
@pytest.mark.parametrize("fault", list(FAULTS))
async def test_every_move_arrives_exactly_once_under_fault(fake, fault, color):
    hooks, config = FAULTS[fault]
    ctx, game = await play_game(fake, hooks, color=color, seed=11 + color, config=config)
    check_every_move_exactly_once(ctx, game)
    assert ended_by_the_board_rules(game), game.status
    assert fake.max_inflight == 1, "one request at a time"
    assert len(ctx.sim.syncs) == 1, "no resync was needed: nothing was lost"


async def test_a_silent_stream_is_given_up_after_the_silence_limit_and_reopened(fake):
    ctx, game = await play_game(fake, silence)
    check_every_move_exactly_once(ctx, game)
    waits = [v for v in ctx.sim.values("link") if v[0] is LinkState.RECONNECTING]
    assert any("silent for 0.5 s" in detail for _, detail in waits)


async def test_after_a_429_requests_pause_for_the_configured_time(fake):
    ctx, game = await play_game(fake, move_fault(429, count=2), config={"rate_limit_pause": 0.2})
    check_every_move_exactly_once(ctx, game)
    assert [round(p, 1) for p in ctx.client.rate_limit_pauses[:2]] == [0.2, 0.2]


async def test_a_stream_that_keeps_failing_backs_off_more_each_time(fake):
    ctx, game = await play_game(fake, stream_fault(503, 4))
    check_every_move_exactly_once(ctx, game)
    waits = ctx.opponent.game.stream.waits
    assert len(waits) == 5, "the cut, then four 503s"
    for attempt, wait in enumerate(waits):
        full = FAST_BACKOFF.delay(attempt, 0.0)      # 0.01, 0.02, 0.04, then the 0.05 cap
        assert full * (1 - FAST_BACKOFF.jitter) <= wait <= full
    assert [v[0] for v in ctx.sim.values("link")].count(LinkState.RECONNECTING) == 5


# -- the opponent's doings ---------------------------------------------------------------------

async def test_a_takeback_asked_by_the_opponent_rebuilds_the_board_from_the_shorter_game(fake):
    def hooks(ctx: Ctx) -> dict:
        async def takeback() -> None:
            mark = len(ctx.sim.calls)
            ctx.fake.opponent_proposes_takeback(ctx.game_id)
            offer = await ctx.sim.wait_for("offer", lambda o: o.active, after=mark)
            assert offer.kind is OfferKind.TAKEBACK and offer.by == BLACK
            await ctx.opponent.act(Action.ACCEPT_TAKEBACK)
            await ctx.sim.wait_for("game_sync", after=mark)
        return {12: takeback}
    ctx, game = await play_game(fake, hooks)
    check_every_move_exactly_once(ctx, game, takebacks=1)
    assert len(ctx.sim.syncs) == 2 and len(ctx.sim.syncs[1].moves) == 11
    assert ended_by_the_board_rules(game)


async def until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.005)
    await asyncio.wait_for(poll(), timeout)


async def test_a_takeback_asked_by_the_board_goes_through_lichess(fake):
    def hooks(ctx: Ctx) -> dict:
        async def takeback() -> None:
            await until(lambda: len(ctx.fake.games[ctx.game_id].moves) >= 13)   # our 7th move is in
            mark = len(ctx.sim.calls)
            await ctx.opponent.act(Action.PROPOSE_TAKEBACK)
            sync = await ctx.sim.wait_for("game_sync", after=mark)
            assert len(sync.moves) == 12, "White's 7th move is gone: White to move again"
        return {13: takeback}
    ctx, game = await play_game(fake, hooks)
    check_every_move_exactly_once(ctx, game, takebacks=1)


async def test_a_takeback_racing_the_boards_next_move_leaves_no_trace(fake):
    """The board's move and the takeback cross: Lichess refuses the stale move; the board follows."""
    def hooks(ctx: Ctx) -> dict:
        async def takeback() -> None:
            mark = len(ctx.sim.calls)
            await ctx.opponent.act(Action.PROPOSE_TAKEBACK)
            await ctx.sim.wait_for("game_sync", after=mark)
        return {13: takeback}
    ctx, game = await play_game(fake, hooks)
    refused = len([p for p in fake.move_posts if p[3] != 200])
    assert refused <= 1
    check_every_move_exactly_once(ctx, game, takebacks=1, refused=refused)
    assert not ctx.sim.values("move_rejected"), "a move overtaken by a takeback is not an error"


async def test_draw_offers_both_ways_are_shown_and_answered(fake):
    def hooks(ctx: Ctx) -> dict:
        async def theirs() -> None:
            mark = len(ctx.sim.calls)
            ctx.fake.opponent_offers_draw(ctx.game_id)
            await ctx.sim.wait_for("offer", lambda o: o.active and o.by == BLACK, after=mark)
            await ctx.opponent.act(Action.DECLINE_DRAW)
            await ctx.sim.wait_for("offer", lambda o: not o.active and o.by == BLACK, after=mark)

        async def ours() -> None:
            mark = len(ctx.sim.calls)
            await ctx.opponent.act(Action.OFFER_DRAW)
            await ctx.sim.wait_for("offer", lambda o: not o.active and o.by == WHITE, after=mark)
        return {10: theirs, 14: ours}
    ctx, game = await play_game(fake, hooks)
    check_every_move_exactly_once(ctx, game)
    offers = ctx.sim.values("offer")
    assert [(o.kind, o.by, o.active) for o in offers] == [
        (OfferKind.DRAW, BLACK, True), (OfferKind.DRAW, BLACK, False),
        (OfferKind.DRAW, WHITE, True), (OfferKind.DRAW, WHITE, False)]


async def test_an_accepted_draw_ends_the_game(fake):
    def hooks(ctx: Ctx) -> dict:
        async def draw() -> None:
            ctx.fake.opponent_offers_draw(ctx.game_id)
            await ctx.sim.wait_for("offer", lambda o: o.active)
            await ctx.opponent.act(Action.ACCEPT_DRAW)
            await ctx.sim.wait_for("game_over")
        return {6: draw}
    ctx, game = await play_game(fake, hooks)
    assert game.status == "draw"
    assert ctx.sim.end.outcome.termination is Termination.AGREEMENT
    assert ctx.sim.ucis() == game.moves


async def test_a_chat_line_is_a_chat_line_not_a_game_state(fake):
    def hooks(ctx: Ctx) -> dict:
        async def chat() -> None:
            ctx.fake.chat(ctx.game_id, "good luck, have fun")
            await ctx.sim.wait_for("chat")
            await ctx.opponent.say("thanks!")
            await ctx.sim.wait_for("chat", lambda line: line.username == "Bobby")
        return {4: chat}
    ctx, game = await play_game(fake, hooks)
    check_every_move_exactly_once(ctx, game)
    lines = ctx.sim.values("chat")
    assert (lines[0].room, lines[0].username, lines[0].text) == ("player", "Mary", "good luck, have fun")
    assert len(ctx.sim.syncs) == 1


async def test_victory_is_claimed_when_the_opponent_is_gone(fake):
    def hooks(ctx: Ctx) -> dict:
        async def gone() -> None:
            ctx.fake.opponent_gone(ctx.game_id, gone=True, claim_in=0)
            notice = await ctx.sim.wait_for("opponent_gone")
            assert notice.gone and notice.claim_win_in_seconds == 0
            await ctx.opponent.act(Action.CLAIM_VICTORY)
        return {9: gone}
    ctx, game = await play_game(fake, hooks)
    assert game.status == "timeout" and ctx.sim.end.winner == WHITE
    assert ctx.sim.end.outcome.termination is Termination.ABANDONED


async def test_the_opponent_resigning_ends_the_game(fake):
    ctx, game = await play_game(fake, lambda ctx: {7: lambda: ctx.fake.opponent_resigns(ctx.game_id)})
    assert ctx.sim.end.status == "resign" and ctx.sim.end.winner == WHITE
    assert ctx.sim.end.outcome.describe() == "White wins by resignation"


async def test_a_board_move_still_on_its_way_when_the_game_ends_on_lichess_is_taken_back(fake):
    # Which comes first, the final gameState or the refusal of the move, is up to the network (and
    # was up to the scheduling of the tests): here the refusal never comes at all.
    def hooks(ctx: Ctx) -> dict:
        return {4: lambda: ctx.fake.add_fault("POST", MOVE, status=None, delay=3600),   # the move hangs
                5: lambda: ctx.fake.end_game(ctx.game_id, "outoftime", BLACK)}           # White flags
    ctx, game = await play_game(fake, hooks)
    assert len(game.moves) == 4 and [ply for _, _, ply, _ in fake.move_posts] == [0, 2]   # never reached it
    assert ctx.sim.end.status == "outoftime" and ctx.sim.end.winner == BLACK
    assert ctx.sim.ucis() == game.moves and ctx.sim.syncs[-1].moves == tuple(ctx.sim.game.moves)


async def test_a_move_lichess_refuses_is_pointed_out_and_the_board_rebuilt(fake):
    body = {"error": "Piece on e2 cannot move to e5"}
    ctx, game = await play_game(fake, lambda ctx: {6: lambda: ctx.fake.add_fault("POST", MOVE, 400, body=body)})
    rejected = ctx.sim.values("move_rejected")
    assert len(rejected) == 1 and rejected[0][1] == "Piece on e2 cannot move to e5"
    assert len(ctx.sim.syncs) == 2, "the board was told the server's game again"
    check_every_move_exactly_once(ctx, game)


async def test_a_game_started_on_the_website_in_progress_is_joined_with_its_position(fake):
    moves = ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4")
    ctx, game = await play_game(fake, color=BLACK, moves=moves)
    first = ctx.sim.syncs[0]
    assert [m.uci() for m in first.moves] == list(moves), "the LEDs can guide the pieces into it"
    assert first.local_colors == frozenset({BLACK}) and first.white.name == "Mary"
    check_every_move_exactly_once(ctx, game)
    assert len(first.moves) == len(moves)


async def test_the_servers_clocks_are_passed_on(fake):
    ctx, game = await play_game(fake)
    clocks = ctx.sim.values("clock_sync")
    assert clocks[0].white_ms == 600_000 and clocks[0].running is None
    running = [c for c in clocks if c.running is not None]
    assert running and all(c.white_inc_ms == 5_000 for c in running)
    assert ctx.sim.syncs[0].time_control == "600+5"
