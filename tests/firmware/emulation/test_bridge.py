"""The emulated board inside a real session: settled readings reported at once, the app's LEDs lent and given back, the page and the PGN told."""
from __future__ import annotations

import pytest

from chess_core import Move, Position, parse_square
from firmware.emulation.bridge import Emulation
from firmware.session.app_link import AppLink
from firmware.session.state import to_json

from ..session_support import Table
from .clients import led_frame, odd, status_placement, with_check
from tests.said import english, french

CYAN = 0x00FFFF
START_PLACEMENT = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"


class FakePort:
    """The transport's boundary: what the board sends is kept; the app's bytes and its leaving are driven by hand."""

    def __init__(self) -> None:
        self.sent = bytearray()
        self.on_data = self.on_hangup = None

    def start(self, on_data, on_hangup) -> None:
        self.on_data, self.on_hangup = on_data, on_hangup

    def write(self, data: bytes) -> None:
        self.sent += data

    def app_sends(self, text: str) -> None:
        self.on_data(bytes(odd(c) for c in with_check(text)))

    def frames(self) -> list[str]:
        """The frames sent since the last call (parity stripped), split by their known lengths."""
        text = "".join(chr(b & 0x7F) for b in self.sent)
        self.sent.clear()
        lengths = {"v": 7, "s": 67, "l": 3, "x": 3, "w": 7, "r": 7}
        out = []
        while text:
            out.append(text[:lengths[text[0]]])
            text = text[lengths[text[0]]:]
        return out


@pytest.fixture
def table(tmp_path):
    return Table(tmp_path)


@pytest.fixture
async def linked(table):
    port = FakePort()
    apps: list[AppLink | None] = []

    def on_app(link):
        apps.append(link)

    emulation = Emulation(table.session, port, "chesslink", colour=CYAN, app="Tester",
                          clock=lambda: table.t, on_app=on_app)
    emulation.start()
    emulation.apps = apps
    yield emulation
    emulation.stop()


def statuses(port: FakePort) -> list[str]:
    return [status_placement(f[1:65]) for f in port.frames() if f[0] == "s"]


async def test_every_settled_reading_is_reported_with_the_game_s_pieces(table, linked):
    port = linked.port
    port.app_sends("W0203")
    assert port.frames() == [with_check("w0203"), with_check("s" + "." * 64)]   # nothing on the board yet
    table.setup()
    assert statuses(port)[-1] == START_PLACEMENT
    table.lift("g1")
    assert statuses(port) == ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R"]     # the lifted knight's square empty
    table.place("f3")
    assert statuses(port) == ["rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R"]  # the move, inferred
    table.wait(2.0)
    assert statuses(port) == []                                                    # no change, no report


async def test_a_piece_put_where_the_game_has_none_is_not_invented(table, linked):
    port = linked.port
    port.app_sends("W0203")
    table.setup()
    port.frames()
    table.board.place(parse_square("e4"))                # a spare piece on e4: the game has none there
    table.wait(0.5)
    assert statuses(port) == []


async def test_the_app_holds_the_leds_until_it_leaves(table, linked):
    port, inner = linked.port, table.leds
    table.setup()
    table.play("e2e4")
    own = table.session.leds_frame
    assert inner.last == own
    port.app_sends("V")
    assert linked.apps[-1] == AppLink("Tester", "ChessLink", (0,) * 64)   # attached: the LEDs are the app's, dark
    assert inner.last == (0,) * 64
    port.app_sends(led_frame([parse_square("d7"), parse_square("d5")]))
    assert {s for s, c in inner.lit().items()} == {parse_square("d7"), parse_square("d5")}
    assert set(inner.lit().values()) == {CYAN}
    table.play("d7d5")                                     # the session's frames are kept, not shown
    assert {s for s, c in inner.lit().items()} == {parse_square("d7"), parse_square("d5")}
    assert table.session.game.moves[-1] == Move.from_uci("d7d5")          # the board still infers
    port.on_hangup()
    assert linked.apps[-1] is None
    assert inner.last == table.session.leds_frame                          # the session's own again
    port.app_sends("V")
    assert isinstance(linked.apps[-1], AppLink)                            # the next app is seen afresh


async def test_the_page_says_which_app_plays_and_shows_its_lights(table, linked):
    from firmware.session.commands import attach_app
    linked.on_app = lambda link: attach_app(table.session, link)
    table.setup()
    linked.port.app_sends(led_frame([parse_square("e2"), parse_square("e4")]))
    state = table.session.state()
    page = english(to_json(state))
    assert page["app"] == {"name": "Tester", "protocol": "ChessLink", "text": "Playing in Tester over ChessLink",
                           "blink": None}
    assert french(to_json(state))["app"]["text"] == "Partie jouée dans Tester via ChessLink"
    assert [name for name, colour in zip(
        [f + r for r in "12345678" for f in "abcdefgh"], page["leds"]) if colour] == ["e2", "e4"]
    linked.port.on_hangup()
    assert english(to_json(table.session.state()))["app"] is None


async def test_the_games_played_while_an_app_is_attached_name_it(table, linked):
    from firmware.session.commands import attach_app
    linked.on_app = lambda link: attach_app(table.session, link)
    table.setup()
    table.play("e2e4")
    record = table.session.file.record
    assert "App" not in record.tags
    linked.port.app_sends("V")                             # attached mid-game: this game is tagged
    assert record.tags["App"] == "Tester" and record.tags["AppProtocol"] == "ChessLink"
    table.wait(1.0)
    pgn = (table.session.file.recorder.pgn_path(record)).read_text()
    assert '[App "Tester"]' in pgn and '[AppProtocol "ChessLink"]' in pgn
    table.session.new_game(table.t)
    table.setup()
    assert table.session.file.record is not record
    assert table.session.file.record.tags["App"] == "Tester"            # the next one from its start


async def test_reports_every_scan_by_default_run_on_the_codec_s_deadlines(table, linked):
    """The default mode reports every 41 ms (20 x 2.048 ms) on the loop's timer (driven by hand here)."""
    port = linked.port
    table.setup()
    port.frames()
    linked._tick()
    assert statuses(port) == [START_PLACEMENT] and linked._timer is not None
    table.t += 0.02
    linked._tick()
    assert statuses(port) == []
    table.t += 0.025
    linked._tick()
    assert statuses(port) == [START_PLACEMENT]


async def test_a_move_reaches_the_app_before_the_game_is_saved(table, linked):
    """The app hears of a move as the LEDs show it, not after the game's save (an fsync)."""
    port = linked.port
    port.app_sends("W0203")
    table.setup()
    port.frames()
    order: list[str] = []
    write, save = port.write, table.session.file.save

    def noted_write(data: bytes) -> None:
        text = "".join(chr(b & 0x7F) for b in data)
        order.append(status_placement(text[1:65]) if text[0] == "s" else text)
        write(data)

    def noted_save(game, now):
        order.append("save")
        return save(game, now)

    port.write, table.session.file.save = noted_write, noted_save
    table.play("e2e4")
    after = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
    assert "save" in order and after in order and order.index(after) < order.index("save"), order


async def test_a_fast_blink_is_given_to_the_page_once_and_the_leds_change_at_a_bounded_pace(table, linked):
    """ChessLink's fastest slot (L01: 4.096 ms) once pushed every phase to every page, 244 a
    second; the page now gets the pattern once and plays it, the LEDs change 40 times a second
    at most. One second of the board's time, driven by hand at each deadline the session names
    (it plays the app's layer, firmware.leds.compose)."""
    from firmware.emulation.bridge import MIN_SLOT_S
    from firmware.session.commands import attach_app
    pushed: list[AppLink | None] = []

    def on_app(link):
        pushed.append(link)
        attach_app(table.session, link)

    linked.on_app = on_app
    table.setup()
    e2, e4 = parse_square("e2"), parse_square("e4")
    linked.port.app_sends(led_frame([e2, e4], pattern=0xAA, slot=0x01))
    shown_before, start = table.leds.show_count, table.t
    states: list = []
    table.session.subscribe(states.append)
    phases = set()
    while True:
        deadline = table.session.next_deadline(table.t)
        assert deadline is not None and deadline > table.t
        if deadline > start + 1.0:
            break
        table.t = deadline
        table.session.poll(table.t)
        phases.add(frozenset(table.leds.lit()))
    assert phases == {frozenset({e2, e4}), frozenset()}            # it does blink on the board
    assert table.leds.show_count - shown_before <= 1.0 / MIN_SLOT_S + 1
    assert len(states) <= 1                                        # the page is not sent every phase
    assert len(pushed) == 2                                        # attached, then its lights: once
    page = english(to_json(table.session.state()))
    assert page["app"]["blink"] == {"slot_ms": MIN_SLOT_S * 1000,
                                    "patterns": [0xAA if s in (e2, e4) else 0 for s in range(64)]}
    assert [s for s, colour in enumerate(page["leds"]) if colour] == [e2, e4]   # lit at some slot
    linked.port.app_sends(led_frame([e2, e4]))                     # steady now: no pattern to play
    assert english(to_json(table.session.state()))["app"]["blink"] is None


class PausablePort(FakePort):
    """A transport that can stop reading (the pseudo-terminal's): its pauses are kept."""

    def __init__(self) -> None:
        super().__init__()
        self.paused = False
        self.pauses = 0

    def pause_reading(self) -> None:
        self.paused = True
        self.pauses += 1

    def resume_reading(self) -> None:
        self.paused = False


def test_the_input_budget_refills_at_its_rate_up_to_its_burst():
    from firmware.emulation.bridge import InputBudget
    budget = InputBudget(rate=0.1, burst=0.05)
    assert budget.wait(0.0) == 0.0
    budget.charge(0.03, 0.0)
    assert budget.wait(0.0) == 0.0                           # 20 ms left
    budget.charge(0.03, 0.0)
    assert budget.wait(0.0) == pytest.approx(0.1)            # 10 ms owed, at 0.1 s a second
    assert budget.wait(0.11) == 0.0
    budget.charge(0.0, 100.0)
    assert budget.level == pytest.approx(0.05)               # never more than the burst
    with pytest.raises(ValueError):
        InputBudget(rate=0.0)


async def test_an_app_flooding_valid_requests_gets_its_share_of_the_loop_and_waits_for_the_rest(table):
    """Every L frame costs 10 ms here (the meter is driven by hand): a flood of 100 in one read
    is carried out while the budget lasts (50 ms at once), the rest waits in the port (paused)
    or, beyond MAX_HELD, is dropped; the share comes back at 0.1 s a second."""
    from firmware.emulation.bridge import BURST, MAX_HELD, RATE, SLICE, InputBudget
    port = PausablePort()
    meter = [0.0]
    emulation = Emulation(table.session, port, "chesslink", clock=lambda: table.t, meter=lambda: meter[0],
                          budget=InputBudget(RATE, BURST))
    emulation.start()
    try:
        receive = emulation.codec.receive

        def costly(data: bytes, now: float):
            meter[0] += 0.010 * len(data) / SLICE
            return receive(data, now)

        emulation.codec.receive = costly
        frame = bytes(odd(c) for c in with_check(led_frame([parse_square("e2")])))
        flood = frame * 100
        port.on_data(flood)
        carried = len(port.frames())
        assert port.paused and port.pauses == 1
        assert 0 < carried < 10                                # a few frames, not 100
        taken = len(flood) - MAX_HELD - emulation.dropped     # carried out, in whole slices
        assert len(emulation.held) == MAX_HELD and emulation.dropped > 0 and taken % SLICE == 0
        assert taken // SLICE <= BURST / 0.010 + 1
        port.on_data(frame)                                   # what still comes while paused waits too
        assert emulation.dropped == len(flood) - MAX_HELD - taken + len(frame)
        meter[0] += 1.0                                       # a second later: 0.1 s of the loop again
        emulation._resume.cancel()
        emulation._resumed()
        assert len(port.frames()) > 0
    finally:
        emulation.stop()
    assert not port.paused                                    # stopped: nothing left paused

