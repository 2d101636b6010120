"""The session's opponent and page fields without an engine or a server: kinds, snapshot additions, guards."""
from __future__ import annotations

import asyncio
import json

import pytest

from chess_core import BLACK, WHITE, Move
from firmware.session.online_answers import accept_takeback, decline_takeback
from firmware.config import loads_config, with_overrides
from firmware.opponents.base import LinkState, ServerClock
from firmware.opponents.engine.opponent import EngineOpponent
from firmware.config import OpponentKind
from firmware.opponents.base import Opponent
from firmware.opponents.factory import NotLoggedIn, build_opponent, engine_side, kind_of
from firmware.opponents.lichess.opponent import LichessOpponent
from firmware.service import Service
from firmware.session.session import SessionError
from firmware.session.game_commands import choose_promotion, pause, update_settings

from .session_support import Table

PROMOTING = "k7/4P3/8/8/8/8/8/4K3 w - - 0 1"


@pytest.fixture(autouse=True)
async def no_task_left_behind():
    yield
    current = asyncio.current_task()
    left = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
    assert not left, f"tasks left behind: {left}"


class Quiet(Opponent):
    """An opponent that only listens: its listener is what the session gave it."""

    name = "Quiet"
    assistance_allowed = True
    sides: frozenset[int] = frozenset()   # assigned in __init__ (Opponent.sides is read-only)

    def __init__(self, kind: str = "engine", sides=frozenset({BLACK})) -> None:
        self.kind = OpponentKind(kind)
        self.sides = sides
        self.listener = None
        self.moves: list[str] = []
        self.resets: list[list[str]] = []
        self.stopped = False

    async def start(self, listener) -> None:
        self.listener = listener

    def on_move(self, move: Move) -> None:
        self.moves.append(move.uci())

    def on_reset(self, start_fen: str, moves) -> None:
        self.resets.append([m.uci() for m in moves])

    async def stop(self) -> None:
        self.stopped = True


# -- the snapshot ------------------------------------------------------------------------------

def test_the_snapshot_says_who_plays_the_other_side_and_what_comes_next(tmp_path):
    table = Table(tmp_path, fen=PROMOTING)
    table.setup(PROMOTING)
    snap = table.session.snapshot()
    assert json.loads(json.dumps(snap)) == snap
    assert snap["opponent"] == {"kind": "none", "name": None, "sides": [], "text": None, "text_fr": None,
                                "link": None, "assistance_allowed": True, "takeover": None, "away": None}
    assert snap["next_promotion"] == "q" and snap["takeback_offer"] is None
    assert snap["lichess"] == {"logged_in": False, "account": None, "connected": False, "link": None, "game": None,
                               "status": None}
    choose_promotion(table.session, "n")
    assert table.session.snapshot()["next_promotion"] == "n"
    table.play("e7e8n")
    assert table.session.snapshot()["next_promotion"] == "q"   # back to a queen after each promotion


def test_problems_are_words_and_their_times_are_beside_them(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.lift("f1")
    table.place("c4")
    snap = table.session.snapshot()
    assert snap["problems"] == ["Not a legal move (White to move): put the bishop on c4 back on f1"]
    assert snap["problems_fr"] == ["Coup illégal (trait aux Blancs) : remettez le fou de c4 en f1"]
    assert len(snap["problem_times"]) == 1 and snap["problem_times"][0] < table.t
    table.session.new_game()
    assert table.session.snapshot()["problems"] == []


def test_the_simple_delay_left_is_in_the_clocks(tmp_path):
    table = Table(tmp_path, time_control="60d5", clock_start="at_once")
    table.setup()
    started = table.t - 0.5   # the start reading (its clock starts at the reading, not when it settled)
    table.wait(2)
    clocks = table.session.snapshot()["clocks"]
    assert clocks["white"] == 60_000 and clocks["delay_left"] == 5_000 - round((table.t - started) * 1000)
    table.wait(10)
    assert table.session.snapshot()["clocks"]["delay_left"] == 0
    assert Table(tmp_path / "untimed").session.snapshot()["clocks"]["delay_left"] == 0


# -- the opponent's kind, sides and listener ----------------------------------------------------

async def test_a_replaced_opponent_is_no_longer_heard(tmp_path):
    table = Table(tmp_path)
    session = table.session
    first = Quiet()
    await session.start_opponent(first)
    table.setup()
    session.new_game(opponent="lichess")   # no token: a stand-in that says so
    await session.wait_idle()
    assert first.stopped and isinstance(session.opponent, NotLoggedIn)
    snap = session.snapshot()
    assert snap["opponent"]["kind"] == "lichess" and snap["opponent"]["link"]["state"] == "failed"
    assert "lichess login" in snap["opponent"]["link"]["detail"]
    assert snap["opponent"]["assistance_allowed"]   # no online game: the board's game is a local one
    first.listener.link(LinkState.CONNECTED, "too late")
    first.listener.opponent_move(Move.from_uci("e7e5"))
    assert session.snapshot()["opponent"]["link"]["state"] == "failed" and session.board_state.play.expected_move is None
    await session.aclose()


async def test_the_opponent_hears_its_own_move_once_carried_out_and_the_restored_game(tmp_path):
    table = Table(tmp_path)
    quiet = Quiet()
    await table.session.start_opponent(quiet)
    table.setup()
    table.play("e2e4")
    quiet.listener.opponent_move(Move.from_uci("c7c5"))
    table.play("c7c5")
    assert quiet.moves == ["e2e4", "c7c5"]
    await table.session.aclose()
    again = table.new_session()
    assert again.restore(table.t)
    other = Quiet()
    await again.start_opponent(other)
    assert other.resets[-1] == ["e2e4", "c7c5"]   # it plays on from the restored game
    await again.aclose()


def test_commands_about_the_opponent_are_refused_with_reasons(tmp_path):
    table = Table(tmp_path)
    session = table.session
    with pytest.raises(SessionError, match="no game in progress"):
        session.seat.takeovers.take_over("black")
    with pytest.raises(SessionError, match="no game in progress"):
        accept_takeback(session)
    table.setup()
    with pytest.raises(SessionError, match="no takeback offer to decline"):
        decline_takeback(session)
    with pytest.raises(SessionError, match="colour"):
        session.seat.takeovers.take_over("green")
    with pytest.raises(SessionError, match="while the service runs"):
        session.seat.takeovers.take_over("black")   # an engine is started on the loop
    with pytest.raises(SessionError, match="does not look like a Lichess token"):
        session.seat.lichess.login("two words")


def test_kinds_and_sides_of_opponents():
    assert kind_of(None) is OpponentKind.NONE and kind_of(Quiet("lichess")) is OpponentKind.LICHESS
    assert engine_side("white") == WHITE and engine_side("alternate") == BLACK
    assert engine_side("alternate", previous=BLACK) == WHITE
    with pytest.raises(ValueError, match="alternate"):
        engine_side("both")


# -- the configured opponent -------------------------------------------------------------------

def test_the_configuration_names_the_opponent(tmp_path):
    base = loads_config(f'[board]\nsensors = "sim"\n[storage]\ndir = "{tmp_path}"\n')
    assert build_opponent(base) is None
    engine = build_opponent(with_overrides(base, game={"opponent": "engine"}, engine={"side": "white", "level": 3}))
    assert isinstance(engine, EngineOpponent) and engine.sides == {WHITE} and engine.level.skill == 3
    lichess = with_overrides(base, game={"opponent": "lichess"})
    assert isinstance(build_opponent(lichess), NotLoggedIn)
    token = tmp_path / "lichess.token"
    token.write_text("lip_secret\n")
    token.chmod(0o600)
    assert isinstance(build_opponent(lichess), LichessOpponent)
    token.chmod(0o644)
    assert "chmod 600" in build_opponent(lichess).reason


async def test_the_service_starts_with_the_configured_opponent_and_a_replay_too(tmp_path):
    config = loads_config(f'[board]\nsensors = "sim"\n[storage]\ndir = "{tmp_path}"\n'
                          '[game]\nopponent = "engine"\n[engine]\nside = "white"\n')
    service = Service(config)
    assert isinstance(service.session.opponent, EngineOpponent) and service.session.opponent.sides == {WHITE}
    assert service.session.snapshot()["opponent"]["kind"] == "engine"
    assert Service(config, opponent=None).session.opponent is None
    capture = tmp_path / "game.cap"
    capture.write_text("0 000000000000ffff\n")
    replay = with_overrides(config, board={"sensors": "replay", "capture": str(capture)})
    # (issue 12.8: a game recorded against the engine replays against it)
    assert isinstance(Service(replay).session.opponent, EngineOpponent)


async def test_an_online_clock_is_the_servers_and_pausing_is_refused(tmp_path):
    table = Table(tmp_path, time_control="300")
    session = table.session
    table.setup()
    session.seat.clock_synced(ServerClock(60_000, 50_000, running=BLACK, at=-1e9))   # stamped on arrival here
    table.wait(2)
    clocks = session.snapshot()["clocks"]
    assert (clocks["white"], clocks["black"], clocks["running"]) == (60_000, 48_000, "black")
    with pytest.raises(SessionError, match="server's"):
        pause(session)


def test_an_engine_on_alternate_sides_changes_colour_with_each_game_and_its_name_follows(tmp_path):
    table = Table(tmp_path, white="Ann", black="Bob", opponent="engine")
    table.config = with_overrides(table.config, engine={"side": "alternate"})
    engine = build_opponent(table.config)   # not started: the board plays both sides here
    table.session = session = table.new_session(opponent=engine)
    table.setup()
    assert engine.sides == {BLACK} and session.snapshot()["players"] == {"white": "Ann", "black": "Stockfish"}
    table.play_all("f2f3 e7e5 g2g4 d8h4")
    assert session.game.is_over
    table.board.set_occupied(0)
    table.wait(0.5)
    table.setup()
    assert session.referee.started and not session.game.moves
    assert engine.sides == {WHITE} and session.snapshot()["players"] == {"white": "Stockfish", "black": "Ann"}
    assert session.snapshot()["opponent"]["sides"] == ["white"]


def test_the_default_names_read_in_french_and_a_given_name_as_given(tmp_path):
    """Issue 26.10: nobody named the players: the page shows "White" and "Black" in English and
    "Blancs" and "Noirs" in French; the record keeps the sides' English names (the PGN's)."""
    table = Table(tmp_path)
    table.setup()
    snap = table.session.snapshot()
    assert snap["players"] == {"white": "White", "black": "Black"}
    assert snap["players_fr"] == {"white": "Blancs", "black": "Noirs"}
    update_settings(table.session, white="Anna")
    snap = table.session.snapshot()
    assert snap["players_fr"] == {"white": "Anna", "black": "Noirs"}
    assert table.session.file.recorder.load().white == "Anna"


def _second_game(table: Table) -> dict:
    """Fool's mate, the pieces gathered and set up again (colours alternate by default): the
    second game's page state."""
    table.setup()
    table.play_all("f2f3 e7e5 g2g4 d8h4")
    assert table.session.game.is_over
    table.board.set_occupied(0)
    table.wait(0.5)
    table.wall = table.wall.replace(minute=45)
    table.setup()
    assert table.session.referee.started and not table.session.game.moves
    return table.session.snapshot()


def test_the_sides_nobody_named_keep_their_names_when_colours_alternate(tmp_path):
    """Issue 26.10: from the second game of an evening the players change colours; the sides
    nobody named are still "White" and "Black" (in French "Blancs" and "Noirs"), in the page's
    state, the record and the library, not "Black" playing White."""
    from firmware.library.games import GameLibrary
    table = Table(tmp_path)
    snap = _second_game(table)
    assert snap["players"] == {"white": "White", "black": "Black"}
    assert snap["players_fr"] == {"white": "Blancs", "black": "Noirs"}
    table.play("e2e4")
    record = table.session.file.recorder.load()
    assert (record.white, record.black) == ("White", "Black")
    listed = GameLibrary(table.session.file.recorder.games_dir).games()
    assert [(g["white"], g["black"], g["white_fr"], g["black_fr"]) for g in listed] == \
        [("White", "Black", "Blancs", "Noirs")] * 2


def test_a_named_player_changes_colour_and_the_side_nobody_named_stays_its_colour(tmp_path):
    table = Table(tmp_path, white="Anna")
    snap = _second_game(table)
    assert snap["players"] == {"white": "White", "black": "Anna"}
    assert snap["players_fr"] == {"white": "Blancs", "black": "Anna"}


def test_the_details_of_refusals_read_in_french_too(tmp_path):
    """Issue 26.10: a refusal's detail was an exception's English inside the French ("le coup ne
    peut pas être repris (there is no move to take back)"): each now says it in French."""
    from chess_core.clock import ClockError
    from firmware.session.commands import takeback_refused
    table = Table(tmp_path)
    session = table.session
    table.setup()
    quiet = Quiet("lichess", sides=frozenset())
    asyncio.run(session.start_opponent(quiet))
    refused = []
    for command in (lambda: session.seat.takeovers.take_over("black"), lambda: session.seat.lichess.login("two words"),
                    lambda: session.seat.lichess.login(" "), lambda: update_settings(session, engine={"elo": 300})):
        with pytest.raises(SessionError) as caught:
            command()
        refused.append(caught.value)
    refused += [takeback_refused(True, ValueError("there is no move to take back")),
                takeback_refused(True, ClockError("there is no press to undo"))]
    assert [r.text("fr") for r in refused] == [
        "Quiet ne peut pas prendre un camp en charge",
        "ce n'est pas un jeton Lichess (un seul mot, sans espace) ; créez-en un avec la portée board:play sur "
        "https://lichess.org/account/oauth/token",
        "le jeton Lichess est vide",
        "réglage refusé (engine.elo)",
        "aucun coup à reprendre",
        "le coup ne peut pas être repris : la pendule ne peut pas revenir en arrière"]
    assert str(refused[0]) == "Quiet cannot take a side over" and "elo" in str(refused[3])
    assert str(refused[5]) == "the move cannot be taken back: the clock cannot go back (there is no press to undo)"
