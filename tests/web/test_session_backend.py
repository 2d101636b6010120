"""The real Session behind the page: its snapshot as the page state, the page's commands as its methods.

The session is driven by hand: the simulated board's readings are fed at explicit times and the
session is polled after the settle time; nothing sleeps.
"""
from __future__ import annotations

import asyncio
import os
import random

import pytest

from board_driver.backends.sim import SimulatedBoard
from chess_core import Position, parse_square
from firmware.config import parse_config
from firmware.web.backend import CommandRefused
from firmware.session.state import to_json
from firmware.web.session_backend import SessionBackend
from firmware.sim.hand import SimHand

from .conftest import ManualClock
from tests.said import english
from tests.said import said


STOCKFISH = "/usr/games/stockfish"
needs_stockfish = pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK), reason="needs /usr/games/stockfish")


class Table:
    """A session, a simulated board with a hand over it, and the page's backend."""

    def __init__(self, tmp_path, fen: str | None = None, engine: dict | None = None, **game) -> None:
        from firmware.session.session import Session
        if fen:
            game["fen"] = fen
        engine = {"path": STOCKFISH, "move_time": 0.05, **(engine or {})}
        config = parse_config({"board": {"sensors": "sim"}, "storage": {"dir": str(tmp_path)}, "game": game,
                               "engine": engine, "lichess": {"token_file": str(tmp_path / "lichess.token")}})
        self.clock = ManualClock(100.0)
        self.session = Session(config, clock=self.clock)
        position = Position(fen) if fen else Position()
        self.board = SimulatedBoard(position.occupied, clock=self.clock)
        self.hand = SimHand(self.board, position)
        self.board.start(self.session.feed)
        self.backend = SessionBackend(self.session, rng=random.Random(1))
        self.settle()

    def settle(self, seconds: float = 2.0) -> None:
        """Let the hands rest: every waiting move commits (slides and rook moves wait longest)."""
        end = self.clock.now + seconds
        while True:
            deadline = self.session.next_deadline(self.clock.now, blink=False)
            if deadline is None or deadline > end:
                break
            self.clock.now = max(self.clock.now, deadline)
            self.session.poll(self.clock.now)
        self.clock.now = end
        self.session.poll(end)

    def move(self, *squares: str) -> None:
        for name in squares:
            self.clock.advance(0.1)
            turn = "white" if self.session.game.turn == 0 else "black"
            self.hand.click(parse_square(name), turn)
        self.settle()

    def state(self, lang: str = "en") -> dict:
        """The page's state now, its messages said in ``lang``."""
        return said(self.backend.state(self.clock.now), lang)

    def setup(self) -> None:
        """Put every piece where the game expects it (a new game), and let it start."""
        self.hand.setup(self.backend.position())
        self.settle()

    async def engine_move(self, timeout: float = 20.0) -> str:
        """Let the loop run until the session shows the engine's move (no fixed sleep: a deadline)."""
        async def wait() -> str:
            while self.session.board_state.play.expected_move is None:
                await asyncio.sleep(0.01)
            return self.session.board_state.play.expected_move.uci()
        return await asyncio.wait_for(wait(), timeout)


@pytest.fixture
def table(tmp_path):
    return Table(tmp_path)


def test_a_fresh_game_as_the_page_sees_it(table):
    state = table.state()
    assert state["status"] == "White to move" and state["turn"] == "white" and state["result"] == "*"
    assert len(state["occupied"]) == 32 and len(state["leds"]) == 64 and state["leds"][0] == ""
    assert state["clocks"] == {"white": None, "black": None, "white_text": "-:--:--", "black_text": "-:--:--", "running": None,
                               "paused": False, "delay_left": 0, "sandclock": False}
    assert state["time_control"] == "-" and state["schema"] == 2
    assert state["settings"]["show_legal"] is True and state["settings"]["engine_level"] == 8
    assert state["promotion"] is None and state["claimable_draws"] == [] and state["can_takeback"] is False


def test_moves_on_the_board_reach_the_page_in_both_notations(table):
    table.move("e2", "e4", "e7", "e5", "g1", "f3")
    state = table.state()
    assert state["moves"] == {"uci": ["e2e4", "e7e5", "g1f3"], "san": ["e4", "e5", "Nf3"]}
    assert state["last_move"] == "g1f3" and state["status"] == "Black to move"


def test_a_lifted_piece_lights_its_legal_squares(table):
    table.move("g1")
    state = table.state()
    assert state["lifted"] == ["g1"]
    lit = {name for name, colour in zip((sq for sq in __import__("chess_core").SQUARE_NAMES), state["leds"]) if colour}
    assert {"f3", "h3", "g1"} <= lit


def test_an_illegal_board_is_reported_without_the_journals_timestamp(table):
    table.move("e2", "e5")
    state = table.state()
    assert state["status"] == "Not a legal move (White to move): put the pawn on e5 back on e2"
    assert set(state["wrong"]) == {"e2", "e5"}
    assert table.state("fr")["status"] == "Coup illégal (trait aux Blancs) : remettez le pion de e5 en e2"
    assert state["problems"][-1].startswith("Not a legal move (White to move): put the pawn on e5 back on e2")


def shown(table: Table, lang: str) -> list[str]:
    """Every text the page shows above the board in ``lang``: the status, the notes under it, the result."""
    state = table.state(lang)
    texts = [state["status"], *state["notes"]]
    return texts + ([state["result"]] if state["result"] != "*" else [])


def said_once(texts: list[str]) -> bool:
    said = [" ".join(t.casefold().split()).rstrip(" .") for t in texts]
    return not any(i != j and a in b for i, a in enumerate(said) for j, b in enumerate(said))


def test_the_page_says_each_text_once_a_wrong_move_in_the_headline_alone(table):
    table.move("e2", "e5")                       # not a legal move: the status and the problem agree
    state = table.state()
    for lang in ("en", "fr"):
        assert said_once(shown(table, lang)), shown(table, lang)
        assert table.state(lang)["notes"] == []
    table.move("e5", "e2", "e2", "e4", "g8", "g5")   # back, then a knight where no knight goes
    state = table.state()
    assert state["status"] == "Not a legal move (Black to move): put the knight on g5 back on g8"
    assert table.state("fr")["status"] == "Coup illégal (trait aux Noirs) : remettez le cavalier de g5 en g8"
    assert all(said_once(shown(table, lang)) for lang in ("en", "fr"))
    table.move("g5", "g8")
    state = table.state()
    assert state["status"] == "Black to move" and state["notes"] == table.state("fr")["notes"] == []


def test_a_board_still_wrong_otherwise_says_what_to_do_now_and_nothing_stale(table):
    table.move("e2", "e5")
    table.board.place(parse_square("d4"))      # a piece from beside the board, onto the wrong board
    table.settle()
    state = table.state()
    assert state["status"] == ("Not a legal move (White to move): put the pawn back on e2, "
                               "remove the pieces from d4 and e5")
    assert table.state("fr")["status"] == ("Coup illégal (trait aux Blancs) : remettez le pion en e2, "
                                  "retirez les pièces de d4 et e5")
    assert state["notes"] == table.state("fr")["notes"] == []
    assert all(said_once(shown(table, lang)) for lang in ("en", "fr"))


def test_a_finished_game_says_how_it_ended_once(table):
    table.move("f2", "f3", "e7", "e5", "g2", "g4", "d8", "h4")   # fool's mate
    state = table.state()
    assert state["status"] == "Black wins by checkmate" and state["result"] == "0-1"
    assert all(said_once(shown(table, lang)) for lang in ("en", "fr"))


@pytest.mark.parametrize("headline, notes, expected", [
    ("Put the pawn on e5 back on e2", ["Not a legal move (White to move): put the pawn on e5 back on e2"],
     ("Not a legal move (White to move): put the pawn on e5 back on e2", [])),
    ("White to move.", ["white to move"], ("White to move.", [])),
    ("White to move", ["Lichess refused e4 (no): put the pieces back as shown"],
     ("White to move", ["Lichess refused e4 (no): put the pieces back as shown"])),
    ("Clock paused", ["a", "a", "b"], ("Clock paused", ["a", "b"])),
])
def test_once_keeps_each_text_once(headline, notes, expected):
    from firmware.web.session_backend import once
    assert once(headline, notes) == expected


PROMOTING = "k7/4P3/8/8/8/8/P7/4K3 w - - 0 1"


def test_the_promotion_piece_is_chosen_from_the_page_while_the_pawn_is_in_hand(tmp_path):
    table = Table(tmp_path, fen=PROMOTING)
    table.move("e7")
    state = table.state()
    assert state["promotion"] == {"square": None, "piece": "q", "color": "white"}
    table.backend.promote("n", table.clock.now)
    assert table.state()["promotion"]["piece"] == "n"
    table.move("e8")
    state = table.state()
    assert state["moves"]["san"] == ["e8=N"]
    assert state["promotion"] == {"square": "e8", "piece": "n", "color": "white"}


def test_a_promotion_just_made_may_still_be_changed_from_the_page(tmp_path):
    table = Table(tmp_path, fen=PROMOTING)
    table.move("e7", "e8")
    assert table.state()["promotion"] == {"square": "e8", "piece": "q", "color": "white"}
    table.backend.promote("r", table.clock.now)
    state = table.state()
    assert state["moves"]["san"] == ["e8=R+"]          # the rook on e8 checks the king on a8
    assert state["promotion"] == {"square": "e8", "piece": "r", "color": "white"}


def test_a_draw_offered_and_accepted(table):
    table.move("e2", "e4")
    table.backend.draw("offer", "black", table.clock.now)
    assert table.state()["draw_offer"] == "black"
    with pytest.raises(CommandRefused, match="no draw offer"):
        table.backend.draw("accept", "black", table.clock.now)
    table.backend.draw("accept", "white", table.clock.now)
    state = table.state()
    assert state["result"] == "1/2-1/2" and state["ending"] == "Draw by agreement"


def test_a_draw_claim_is_refused_until_it_is_valid(table):
    with pytest.raises(CommandRefused, match="no draw can be claimed"):
        table.backend.draw("claim", "white", table.clock.now)
    for _ in range(2):
        table.move("g1", "f3", "g8", "f6", "f3", "g1", "f6", "g8")
    state = table.state()
    assert state["claimable_draws"] == ["threefold repetition"]
    table.backend.draw("claim", "white", table.clock.now)
    assert table.state()["ending"] == "Draw by threefold repetition"


def test_takebacks_only_where_allowed(table):
    table.move("e2", "e4")
    assert table.state()["can_takeback"] is False
    with pytest.raises(CommandRefused, match="takebacks are not allowed"):
        table.backend.takeback(table.clock.now)
    table.backend.settings({"takebacks": True}, table.clock.now)
    assert table.state()["can_takeback"] is True


def test_a_takeback_from_the_page_undoes_the_move_and_asks_for_the_piece_back(table):
    table.backend.settings({"takebacks": True}, table.clock.now)
    table.move("e2", "e4")
    table.backend.takeback(table.clock.now)
    state = table.state()
    assert state["moves"]["san"] == [] and state["turn"] == "white"
    assert set(state["wrong"]) == {"e2", "e4"}
    table.move("e4", "e2")
    assert table.state()["status"] == "White to move"
    state = table.state()
    assert state["moves"]["san"] == [] and state["turn"] == "white"


def test_settings_change_the_session(table):
    table.backend.settings({"show_legal": False, "touch_move": True, "alternate_colours": False,
                            "brightness": 0.2, "engine_level": 3}, table.clock.now)
    settings = table.state()["settings"]
    assert (settings["show_legal"], settings["touch_move"], settings["alternate_colours"]) == (False, True, False)
    assert settings["brightness"] == 0.2 and settings["engine_level"] == 3
    table.move("g1")
    assert not table.state()["leds"][parse_square("f3")]  # no legal-square hints any more


def test_a_new_game_with_names_time_control_and_colours(table):
    table.move("e2", "e4")
    table.backend.new_game(white="Anna", black="Ben", time_control="300+3", rules="casual", colours="swap",
                           now=table.clock.now)
    table.hand.setup(table.backend.position())
    table.settle()
    state = table.state()
    assert state["players"] == {"white": "Ben", "black": "Anna"}
    assert state["moves"]["san"] == [] and state["rules"] == "casual"
    # [game] clock_start = "first_move" (the default): no clock runs before White's first move
    assert state["clocks"]["white"] == state["clocks"]["black"] == 300_000
    assert state["clocks"]["running"] is None and state["time_control"] == "300+3"
    with pytest.raises(CommandRefused):
        table.backend.new_game(white="A", black="B", time_control="banana", rules="fide", colours="as-entered",
                               now=table.clock.now)


def test_pausing_freezes_the_clock(tmp_path):
    table = Table(tmp_path, time_control="60")
    table.move("e2", "e4")
    table.backend.clock("pause", table.clock.now)
    frozen = table.state()["clocks"]["black"]
    table.clock.advance(10)
    state = table.state()
    assert state["status"] == "Clock paused" and state["clocks"]["paused"] and state["clocks"]["black"] == frozen
    table.backend.clock("resume", table.clock.now)
    table.clock.advance(1)
    assert table.state()["clocks"]["black"] == frozen - 1000


def test_resigning_after_the_end_is_refused(table):
    table.backend.resign("white", table.clock.now)
    assert table.state()["status"] == "Black wins by resignation"
    with pytest.raises(CommandRefused, match="the game is over"):
        table.backend.resign("black", table.clock.now)


def test_page_state_of_a_session_before_any_reading(tmp_path):
    from firmware.session.session import Session
    config = parse_config({"board": {"sensors": "sim"}, "storage": {"dir": str(tmp_path)}})
    state = english(to_json(Session(config, clock=lambda: 0.0).state()))
    assert state["leds"] == [""] * 64 and state["clocks"]["running"] is None and state["ending"] is None


def test_problems_come_without_the_journals_time_stamp(table):
    table.move("e2", "e5")
    assert english(table.session.snapshot(table.clock.now))["problems"] == table.state()["problems"]
    assert not table.state()["problems"][-1][0].isdigit()


def test_a_simple_delay_does_not_count_down_the_main_time(tmp_path):
    table = Table(tmp_path, time_control="60d5", clock_start="at_once")     # the game began as the pieces settled
    state = table.state()
    left = state["clocks"]["delay_left"]
    assert state["clocks"]["running"] == "white" and state["clocks"]["white"] == 60_000 and 0 < left < 5_000
    table.clock.advance(1)
    state = table.state()
    assert state["clocks"]["white"] == 60_000 and state["clocks"]["delay_left"] == left - 1_000
    table.clock.advance(left / 1000)                   # the delay is used up: now the main time runs
    state = table.state()
    assert state["clocks"]["white"] == 59_000 and state["clocks"]["delay_left"] == 0
    table.move("e2", "e4")                             # Black's move: a fresh delay
    state = table.state()
    assert state["clocks"]["running"] == "black" and state["clocks"]["black"] == 60_000
    assert state["clocks"]["delay_left"] == 3_000       # 2 s of the hands settling already gone


def test_the_engine_settings_go_to_the_session(table):
    table.backend.settings({"engine_level": 3, "engine_elo": 1500, "engine_move_time": 0.5}, table.clock.now)
    engine = table.session.config.engine
    assert (engine.level, engine.elo, engine.move_time) == (3, 1500, 0.5)
    settings = table.state()["settings"]
    assert (settings["engine_level"], settings["engine_elo"], settings["engine_move_time"]) == (3, 1500, 0.5)
    with pytest.raises(CommandRefused):
        table.backend.settings({"engine_level": 21}, table.clock.now)   # the session checks it too


def test_an_over_the_board_game_offers_the_take_over_of_either_side(table):
    state = table.state()
    assert state["opponent"]["kind"] == "none" and state["opponent"]["sides"] == []
    assert state["take_over"] == ["white", "black"] and state["opponent"]["link"] is None
    table.backend.resign("white", table.clock.now)
    assert table.state()["take_over"] == []               # the game is over: nobody has to leave


@needs_stockfish
async def test_a_new_game_against_the_engine_from_the_page(tmp_path):
    table = Table(tmp_path)
    try:
        table.backend.new_game(white="White", black="Black", time_control="-", rules="fide", colours="as-entered",
                               opponent="engine", engine_side="black", engine_level=2, player="Anna",
                               now=table.clock.now)
        table.setup()
        state = table.state()
        assert state["opponent"]["kind"] == "engine" and state["opponent"]["sides"] == ["black"]
        assert state["opponent"]["assistance_allowed"] is True and state["take_over"] == ["white"]
        assert state["players"]["white"] == "Anna"
        assert table.session.config.engine.level == 2
        table.move("e2", "e4")
        reply = await table.engine_move()
        assert table.state()["expected_move"] == reply
        lit = table.state()["leds"]
        assert lit[parse_square(reply[:2])] and lit[parse_square(reply[2:4])]
    finally:
        await table.session.aclose()


@needs_stockfish
async def test_the_computer_takes_over_a_side_from_the_page(tmp_path):
    table = Table(tmp_path)
    try:
        table.move("e2", "e4", "e7", "e5")
        table.backend.take_over("black", table.clock.now)
        state = table.state()
        assert state["opponent"]["kind"] == "engine" and "black" in state["opponent"]["sides"]
        assert state["take_over"] == ["white"]
        table.move("g1", "f3")
        reply = await table.engine_move()
        table.move(reply[:2], reply[2:4])
        assert table.state()["moves"]["san"][:3] == ["e4", "e5", "Nf3"] and len(table.state()["moves"]["san"]) == 4
        with pytest.raises(CommandRefused):
            table.backend.take_over("black", table.clock.now)   # it plays Black already
    finally:
        await table.session.aclose()


async def test_a_takeback_offer_from_the_other_end_is_answered_from_the_page(tmp_path):
    from chess_core import WHITE, Move
    from firmware.opponents.base import Action, GameSync, Offer, OfferKind

    from firmware.config import OpponentKind
    from firmware.opponents.base import Opponent

    class Online(Opponent):
        kind = OpponentKind.LICHESS
        name = "Ben"
        assistance_allowed = False

        def __init__(self) -> None:
            self.actions: list = []

        async def start(self, listener) -> None:
            self.listener = listener

        def on_move(self, move) -> None:
            pass

        async def act(self, action) -> None:
            self.actions.append(action)

        async def stop(self) -> None:
            pass

    table = Table(tmp_path)
    online = Online()
    await table.session.start_opponent(online)
    try:
        online.listener.game_sync(GameSync(moves=(Move.from_uci("e2e4"), Move.from_uci("e7e5")),
                                           local_colors=frozenset({WHITE}), game_id="abcd1234"))
        table.move("e2", "e4", "e7", "e5")          # the pieces go where the server's game has them
        assert table.state()["status"] == "White to move"
        online.listener.offer(Offer(OfferKind.TAKEBACK, by=1))
        state = table.state()
        assert state["takeback_offer"] == "black"
        assert state["can_takeback"] is False and state["opponent"]["assistance_allowed"] is False
        assert state["opponent"]["sides"] == ["black"] and state["take_over"] == []
        table.backend.answer_takeback("decline", table.clock.now)
        await asyncio.sleep(0)   # the answer goes out on a task of the loop
        assert table.state()["takeback_offer"] is None
        assert Action.DECLINE_TAKEBACK in online.actions
    finally:
        await table.session.aclose()


def test_a_refused_lichess_token_is_a_refusal_that_does_not_quote_it(table):
    with pytest.raises(CommandRefused) as refused:
        result = table.backend.lichess_login("not a token", table.clock.now)
        if asyncio.iscoroutine(result):
            asyncio.run(result)
    assert "not a token" not in str(refused.value)



def test_a_new_chess960_game_from_the_page_waits_for_the_rearranged_first_ranks(table):
    from chess_core.chess960 import start_fen
    table.backend.new_game(white="Anna", black="Ben", time_control="-", rules="fide", colours="as-entered",
                           now=table.clock.now, variant="chess960", start_position=323)
    table.settle()
    state = table.state()
    # The board still shows the usual arrangement: the same squares filled, so the LEDs light the
    # first-rank squares whose piece changes, and the game waits until each was lifted.
    assert state["status"] == ("Set up Chess960 position 323 to start: first rank BNRQKRNB, Black's mirrors it; "
                               "lift the lit pieces (a1, c1, f1, h1, a8, c8, f8 and h8) and set each down as the "
                               "first rank says")
    assert table.state("fr")["status"] == ("Placez la position Chess960 n° 323 pour commencer : première rangée FCTDRTCF, "
                                  "celle des Noirs en miroir ; soulevez les pièces éclairées (a1, c1, f1, h1, a8, c8, "
                                  "f8 et h8) et reposez chacune comme le dit la première rangée")
    assert state["fen"] == start_fen(323)
    lit = {i for i, colour in enumerate(state["leds"]) if colour}
    changed = {0, 2, 5, 7, 56, 58, 61, 63}   # RNBQKBNR to BNRQKRNB: the a, c, f and h files
    assert lit == changed
    table.hand.setup(table.backend.position())   # the simulated hand sets the pieces right away
    table.settle()
    assert table.state()["status"].startswith("Set up Chess960 position 323 to start: first rank BNRQKRNB")
    for square in sorted(changed):                # lifted and set down again, as shown
        table.board.lift(square)
        table.settle(0.2)
        table.board.place(square)
        table.settle(0.2)
    state = table.state()
    assert state["status"] == "White to move" and not any(state["leds"])
    table.move("g2", "g3", "g7", "g6", "g1", "f3", "d7", "d6", "e1", "g1")   # the king over its rook: O-O
    assert table.state()["moves"]["san"][-1] == "O-O"


def test_the_simulators_set_up_lifts_the_pieces_a_960_start_changes_and_the_game_starts(table):
    """'Set up pieces' in the simulator, as the page's command does it: the first-rank pieces that
    change are lifted off, the sensors settle on their going, then every piece is set down."""
    table.backend.new_game(white="Anna", black="Ben", time_control="-", rules="fide", colours="as-entered",
                           now=table.clock.now, variant="chess960", start_position=323)
    table.settle()
    changing = table.hand.changing(table.backend.position())
    assert changing == sum(1 << s for s in (0, 2, 5, 7, 56, 58, 61, 63))
    table.hand.lift_off(changing)
    table.settle(0.2)
    table.hand.setup(table.backend.position())
    table.settle()
    assert table.state()["status"] == "White to move"
    assert table.hand.changing(table.backend.position()) == 0
    # Back to standard chess: the start position of the configuration.
    table.backend.new_game(white="Anna", black="Ben", time_control="-", rules="fide", colours="as-entered",
                           now=table.clock.now, variant="standard")
    assert table.state()["fen"].startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq")


def test_a_960_start_position_out_of_range_is_refused(table):
    with pytest.raises(CommandRefused, match="start_position"):
        table.backend.new_game(white="A", black="B", time_control="-", rules="fide", colours="as-entered",
                               now=table.clock.now, variant="chess960", start_position=960)


def test_a_correction_is_offered_and_made_through_the_page(tmp_path):
    fen = "2r4k/8/6p1/8/8/8/2Q5/K7 w - - 0 1"
    table = Table(tmp_path, fen=fen)
    table.hand.lift(parse_square("c2"))
    table.settle(0.3)
    table.hand.lift(parse_square("g6"))
    table.settle(0.3)
    table.hand.place(parse_square("g6"))
    table.settle(3)
    state = table.state()
    assert state["moves"]["san"] == ["Qxg6"]
    assert state["corrections"] == [{"uci": "c2c8", "san": "Qxc8+"}]
    with pytest.raises(CommandRefused, match="explain"):
        table.backend.correct("a1a2", table.clock.now)
    table.backend.correct("c2c8", table.clock.now)
    assert table.state()["moves"]["san"] == ["Qxc8+"]


def test_the_new_game_fen_is_refused_without_a_variant_guess_that_would_not_read_it():
    from firmware.web.validate import Fen
    fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq e6 2 9"   # Chess960, no pawn past e6
    with pytest.raises(ValueError) as refused:
        Fen().check(fen)
    assert "needs the king on e1" in str(refused.value) and "chess960" not in str(refused.value)


def test_a_pawn_held_to_think_can_still_go_where_the_player_meant(table):
    """The tester's case: after 1.e4 c5 2.Nf3 d6 3.d4, Black holds the c-pawn for 3 s. The sensors
    show c5 empty alone, which the game reads as cxd4 (d4 swept off unseen) after WAIT_SWEPT; the
    page's hand must keep the pawn (not drop it on d4), and the pawn put on c4 is the move."""
    for a, b in (("e2", "e4"), ("c7", "c5"), ("g1", "f3"), ("d7", "d6"), ("d2", "d4")):
        table.move(a, b)
    table.clock.advance(0.1)
    table.hand.click(parse_square("c5"), "black")
    table.settle(3.0)
    assert table.hand.sync(table.backend.position()) is False     # what the page does at each change
    assert table.hand.state()["hand"] == [{"piece": "p", "from": "c5"}]
    table.move("c4")
    assert table.state()["moves"]["san"][-1] == "c4"
    assert table.hand.sync(table.backend.position()) and table.hand.state()["hand"] == []


def test_the_page_knows_while_a_position_is_set_up_by_hand(table):
    """Issue 35: while the board leads the hand to a position, the game's position is the target,
    not what stands on the board (the simulator's hand then keeps its own pieces)."""
    target = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5"
    assert not table.backend.setting_up()
    table.backend.set_up_position(target, table.clock.now)
    table.settle()
    assert table.backend.setting_up() and table.state()["setup"]["steps"]
    table.setup()                                   # the arbiter sets the target at once
    state = table.state()
    assert state["setup"]["done"] and state["fen"] == target and not table.backend.setting_up()
