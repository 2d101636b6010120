"""What the board announces as a real session's game goes on: moves, the opponent's move to carry out, what to put right, offers, endings, clocks."""
from __future__ import annotations

import pytest

from chess_core import Move, Position
from firmware.config import OpponentKind
from firmware.opponents.base import Opponent
from firmware.session.state import to_json
from firmware.voice.announcer import Announcer, Utterance
from firmware.session.game_commands import decline_draw, offer_draw, pause, resign, resume, takeback

from ..session_support import Table
from tests.said import french


class Ears:
    """An announcer subscribed to a table's session: every utterance, in order."""

    def __init__(self, table: Table, lang: str = "fr", moves: str = "all") -> None:
        self.table = table
        self.announcer = Announcer(lang, moves)
        self.heard: list[Utterance] = []
        table.session.subscribe(self._on_state)
        self._on_state(table.session.state())

    def _on_state(self, state) -> None:
        self._due(state.time)   # what fell due before this change (the speaker wakes for it)
        said = self.announcer.hear(state)
        if said is not None:
            self.heard.append(said)

    def _due(self, now: float) -> None:
        deadline = self.announcer.next_deadline()
        if deadline is not None and deadline <= now:
            said = self.announcer.due(now)
            if said is not None:
                self.heard.append(said)

    def wait(self, seconds: float) -> None:
        self.table.wait(seconds)
        self._due(self.table.t)

    def texts(self) -> list[str]:
        return [u.text for u in self.heard]

    def since(self, mark: int) -> list[str]:
        return [u.text for u in self.heard[mark:]]


class Scripted(Opponent):
    """Plays Black from a script, each reply sent at once."""

    name = "Stockfish"
    sides = frozenset({1})
    assistance_allowed = True

    def __init__(self, replies: dict[str, str]) -> None:
        self.replies = replies
        self.listener = None

    async def start(self, listener) -> None:
        self.listener = listener

    def on_move(self, move: Move) -> None:
        if move.uci() in self.replies:
            self.listener.opponent_move(Move.from_uci(self.replies[move.uci()]))

    def on_reset(self, start_fen, moves) -> None:
        pass

    async def act(self, action) -> None:
        pass

    async def stop(self) -> None:
        pass


def test_setting_up_then_every_move_over_the_board_in_french(tmp_path):
    table = Table(tmp_path)
    ears = Ears(table)
    assert ears.texts() == []
    ears.wait(1)
    assert ears.texts()[0].startswith("Placez les pièces pour commencer")
    mark = len(ears.heard)
    table.setup()
    table.play_all("e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5c6 d7c6 e1g1")
    assert ears.since(mark) == ["La partie commence. Trait aux Blancs", "e4", "e5", "Cavalier f3", "Cavalier c6", "Fou b5", "a6",
                                "Fou prend c6", "Pion d prend c6", "Petit roque"]
    assert [u.kind for u in ears.heard[mark + 1:]] == ["move"] * 9


def test_english_and_the_moves_that_end_a_game(tmp_path):
    table = Table(tmp_path)
    ears = Ears(table, "en")
    table.setup()
    mark = len(ears.heard)
    table.play_all("e2e4 e7e5 d1h5 b8c6 f1c4 g8f6 h5f7")
    assert ears.since(mark) == ["e4", "e5", "Queen h5", "Knight c6", "Bishop c4", "Knight f6",
                                "Queen takes f7, checkmate, White wins"]
    assert ears.heard[-1].kinds == ("move",)


def test_a_wrong_move_is_put_right_in_the_words_of_the_page_and_the_leds(tmp_path):
    table = Table(tmp_path)
    ears = Ears(table)
    table.setup()
    table.play("e2e4")
    mark = len(ears.heard)
    table.lift("g8")
    table.place("g5")   # no knight's move
    assert ears.since(mark) == []   # (not yet: it may be a hand on its way)
    ears.wait(0.5)
    said = ears.since(mark)
    assert said == [french(to_json(table.session.state()))["status"]]
    assert said[0] == "Coup illégal (trait aux Noirs) : remettez le cavalier de g5 en g8"
    assert ears.heard[-1].kind == "prompt"
    table.lift("g5")   # in hand: nothing wrong, and nothing to say yet
    ears.wait(1)
    assert ears.since(mark)[1:] == []
    table.place("g8")
    assert ears.since(mark)[1:] == ["Trait aux Noirs"]   # the board is right again: what comes next


async def test_the_opponents_move_is_said_once_to_carry_out_never_again_when_carried_out(tmp_path):
    table = Table(tmp_path, black="Stockfish")
    ears = Ears(table)
    await table.session.start_opponent(Scripted({"e2e4": "e7e5", "g1f3": "f8c5", "f1c4": "g8f6"}))
    table.setup()
    mark = len(ears.heard)
    table.play("e2e4")
    # (this opponent answers at once: its move comes in the same change as the player's)
    assert ears.since(mark) == ["e4. Stockfish joue e5, à vous de le jouer sur l'échiquier"]
    table.play("e7e5")
    table.play("g1f3")
    table.play("f8c5")
    assert ears.since(mark)[1:] == ["Cavalier f3. Stockfish joue fou c5, à vous de le jouer sur l'échiquier"]
    assert [u.kinds for u in ears.heard[mark:]] == [("move", "opponent")] * 2


async def test_only_the_opponents_moves_under_moves_opponent(tmp_path):
    table = Table(tmp_path, black="Stockfish")
    ears = Ears(table, "en", moves="opponent")
    await table.session.start_opponent(Scripted({"e2e4": "e7e5", "g1f3": "b8c6"}))
    table.setup()
    mark = len(ears.heard)
    table.play_all("e2e4 e7e5 g1f3 b8c6")
    assert ears.since(mark) == ["Stockfish plays e5, make it on the board",
                                "Stockfish plays knight c6, make it on the board"]
    assert [u.kind for u in ears.heard[mark:]] == ["opponent"] * 2


async def test_no_move_under_moves_none_but_the_end(tmp_path):
    table = Table(tmp_path)
    ears = Ears(table, "fr", moves="none")
    table.setup()
    mark = len(ears.heard)
    table.play_all("f2f3 e7e5 g2g4 d8h4")
    assert ears.since(mark) == ["Échec et mat, les Noirs gagnent"]


def test_moves_is_all_opponent_or_none():
    with pytest.raises(ValueError, match="all, opponent, none"):
        Announcer("fr", "some")


def test_a_takeback_says_what_to_put_back_then_the_move_taken_back(tmp_path):
    table = Table(tmp_path, takebacks=True)
    ears = Ears(table)
    table.setup()
    table.play_all("e2e4 e7e5 g1f3")
    mark = len(ears.heard)
    takeback(table.session)
    ears.wait(0.5)
    assert ears.since(mark) == ["Reprenez cavalier f3 : remettez le cavalier en g1"]
    table.lift("f3")
    table.place("g1")
    assert ears.since(mark)[1:] == ["Trait aux Blancs"]


def test_offers_resignation_and_a_paused_clock(tmp_path):
    table = Table(tmp_path, time_control="300+0")
    ears = Ears(table)
    table.setup()
    table.play_all("e2e4 e7e5")
    mark = len(ears.heard)
    offer_draw(table.session, 0)
    decline_draw(table.session, 1)
    pause(table.session)
    resume(table.session)
    resign(table.session, 1)
    assert ears.since(mark) == ["Les Blancs proposent la nulle", "Pendule arrêtée", "La pendule repart",
                                "Les Noirs abandonnent, les Blancs gagnent"]


def test_a_draw_by_repetition_ends_with_the_move_that_made_it(tmp_path):
    table = Table(tmp_path, rules="casual")
    ears = Ears(table)
    table.setup()
    table.play_all("g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1")
    mark = len(ears.heard)
    table.play("f6g8")
    assert ears.since(mark) == ["Cavalier g8, nulle par répétition"]


def test_the_clock_running_short_is_said_at_60_30_and_10_seconds(tmp_path):
    table = Table(tmp_path, time_control="75+0")
    ears = Ears(table)
    table.setup()
    table.play("e2e4", think=1.0)   # White's clock starts with White's first move: Black's runs now
    announcer = ears.announcer
    deadline = announcer.next_deadline()
    state = announcer.state
    assert state.running == 1 and deadline == pytest.approx(state.time + (state.clocks[1] - 60_000) / 1000)
    assert announcer.due(deadline - 0.01) is None
    assert announcer.due(deadline).text == "1 minute"
    assert announcer.due(deadline + 1) is None   # said once
    deadline = announcer.next_deadline()
    assert deadline == pytest.approx(state.time + (state.clocks[1] - 30_000) / 1000)
    assert announcer.due(deadline + 25).text == "10 secondes"   # both passed at once: the lower said
    assert announcer.next_deadline() is None and announcer.due(deadline + 26) is None


async def test_the_opponents_clock_running_short_is_not_said(tmp_path):
    table = Table(tmp_path, black="Stockfish", time_control="65+0")
    ears = Ears(table)
    await table.session.start_opponent(Scripted({}))
    table.setup()
    table.play("e2e4")
    assert ears.announcer.state.running == 1 and ears.announcer.next_deadline() is None


def test_the_clocks_the_last_move_and_the_position_on_request(tmp_path):
    table = Table(tmp_path, time_control="300+0")
    ears = Ears(table)
    assert ears.announcer.repeat(table.t).text == "Aucun coup joué"
    table.setup()
    table.play_all("e2e4 e7e5 g1f3", think=12)
    announcer = ears.announcer
    now = announcer.state.time
    white, black = announcer.state.clocks
    assert announcer.state.running == 1 and 280_000 < black < white < 300_000

    def said(ms: int) -> str:
        return f"{ms // 60_000} minutes {ms // 1000 % 60}"

    assert announcer.clocks(now).text == f"Blancs : {said(white)}, Noirs : {said(black)}"
    assert announcer.clocks(now + 50).text == f"Blancs : {said(white)}, Noirs : {said(black - 50_000)}"
    assert announcer.repeat(now).text == f"Dernier coup : cavalier f3. Blancs : {said(white)}, Noirs : {said(black)}"
    described = announcer.describe().text
    assert described.startswith("Blancs : roi e1, dame d1, tours a1 et h1, fous c1 et f1, cavaliers b1 et f3, pions")
    assert described.endswith("Trait aux Noirs")
    assert {u.kind for u in (announcer.repeat(now), announcer.describe())} == {"repeat", "describe"}


def test_a_game_first_heard_with_its_moves_says_none_of_them(tmp_path):
    table = Table(tmp_path)
    table.setup()
    table.play_all("e2e4 e7e5")
    ears = Ears(table)
    assert ears.texts() == []
    table.play("g1f3")
    assert ears.texts() == ["Cavalier f3"]


def test_a_new_game_after_the_end_says_to_set_up(tmp_path):
    table = Table(tmp_path)
    ears = Ears(table)
    table.setup()
    table.play_all("f2f3 e7e5 g2g4 d8h4")
    mark = len(ears.heard)
    table.session.new_game()
    ears.wait(1)
    assert ears.since(mark)[0].startswith("Placez les pièces pour commencer")
    assert Position().fen() == Position(ears.announcer.state.fen).fen()


class Online(Scripted):
    kind = OpponentKind.LICHESS
    name = "Lichess"
    assistance_allowed = False


async def test_an_online_opponents_move_by_its_players_name(tmp_path):
    table = Table(tmp_path, black="MaryChess")
    ears = Ears(table, "en")
    await table.session.start_opponent(Online({"d2d4": "g8f6"}))
    table.setup()
    mark = len(ears.heard)
    table.play("d2d4")
    assert ears.since(mark) == ["d4. MaryChess plays knight f6, make it on the board"]


async def test_an_engines_version_is_not_said(tmp_path):
    table = Table(tmp_path, black="Stockfish 15.1")
    ears = Ears(table)
    await table.session.start_opponent(Scripted({"e2e4": "c7c5"}))
    table.setup()
    mark = len(ears.heard)
    table.play("e2e4")
    assert ears.since(mark) == ["e4. Stockfish joue c5, à vous de le jouer sur l'échiquier"]


def test_a_board_set_up_and_waiting_for_the_game_says_nothing_to_put_right(tmp_path):
    table = Table(tmp_path)
    table.board.set_occupied(Position().occupied)
    ears = Ears(table)
    ears.wait(0.01)   # (read, not yet settled: the game has not begun)
    assert ears.announcer.state.phase.value == "setting up" and not ears.announcer.state.wrong
    assert ears.announcer.next_deadline() is None and ears.texts() == []


def test_a_position_set_up_by_hand_is_led_aloud_step_by_step(tmp_path):
    from firmware.session.setup_guidance import set_up_position
    table = Table(tmp_path)
    table.setup()
    ears = Ears(table, "en")
    mark = len(ears.heard)
    set_up_position(table.session, "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1", table.t)
    ears.wait(1)
    assert ears.since(mark) == ["Set up the position, 1 to go: white knight g1 → f3"]
    assert ears.heard[-1].kind == "setup"
    table.lift("g1")
    table.place("f3")
    ears.wait(1)
    assert ears.texts()[-1] == "The game begins. Black to move"


def test_a_trainings_verdicts_are_said(tmp_path):
    from firmware.training.drill import of_puzzle
    from tests.firmware.test_session_setup import follow
    table = Table(tmp_path)
    table.setup()
    ears = Ears(table, "en")
    table.session.trainer.start((of_puzzle("m1", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", ("a1a8",), rating=900),),
                                "Ada", {}, table.t)
    follow(table)
    mark = len(ears.heard)
    table.play("h2h3")
    ears.wait(1)
    assert "Try again: put the piece back" in ears.since(mark)
    table.lift("h3")
    table.place("h2")
    table.play("a1a8")
    ears.wait(1)
    # (found after a wrong try: said as counted, failed)
    assert any("Solved, after a wrong try: the puzzle counts as failed" in text for text in ears.since(mark))
