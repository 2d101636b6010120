"""The simulator's hand: what clicks and drags do to the simulated board's sensors."""
from __future__ import annotations

import json

import pytest

from board_driver.backends.sim import SimulatedBoard
from chess_core import Game, Position, parse_square
from firmware.sim.hand import HandError, SimHand


def sq(name):
    return parse_square(name)


def bb(*names):
    return sum(1 << sq(n) for n in names)


@pytest.fixture
def board():
    b = SimulatedBoard(Position().occupied, clock=lambda: 0.0)
    b.readings = []
    b.start(b.readings.append)
    b.readings.clear()
    return b


def test_a_click_lifts_the_piece_and_the_next_click_puts_it_down(board):
    hand = SimHand(board, Position())
    assert hand.click(sq("e2")) == "lift"
    assert hand.state()["hand"] == [{"piece": "P", "from": "e2"}]
    assert hand.click(sq("e4")) == "place"
    assert board.occupied == Position().occupied & ~bb("e2") | bb("e4")
    assert [r.occupied for r in board.readings] == [Position().occupied & ~bb("e2"), board.occupied]
    assert hand.state()["pieces"]["e4"] == "P"


def test_the_hand_holds_two_pieces_and_puts_down_the_movers_piece_first(board):
    game = Game("r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 2 3")
    board.set_occupied(game.position.occupied)
    hand = SimHand(board, game.position)
    hand.lift(sq("f7"))           # the victim first
    hand.lift(sq("h5"))
    with pytest.raises(HandError, match="holds 2 pieces"):
        hand.lift(sq("c4"))
    hand.place(sq("f7"), turn_colour="white")
    assert hand.state()["pieces"]["f7"] == "Q"
    assert hand.state()["hand"] == [{"piece": "p", "from": "f7"}]


def test_a_chosen_piece_goes_down_instead(board):
    hand = SimHand(board, Position())
    hand.lift(sq("b1"))
    hand.lift(sq("g1"))
    hand.place(sq("f3"), turn_colour="white", index=0)
    assert hand.state()["hand"] == [{"piece": "N", "from": "g1"}]


def test_nothing_to_lift_or_nowhere_to_put_is_an_error(board):
    hand = SimHand(board, Position())
    with pytest.raises(HandError, match="no piece on e4"):
        hand.lift(sq("e4"))
    with pytest.raises(HandError, match="holds no piece"):
        hand.place(sq("e4"))
    hand.lift(sq("e2"))
    with pytest.raises(HandError, match="already holds a piece"):
        hand.place(sq("d2"))
    assert len(board.readings) == 1


def test_carrying_a_piece_over_an_empty_square_blinks_its_sensor(board):
    hand = SimHand(board, Position())
    hand.lift(sq("g1"))
    before = board.occupied
    assert hand.pass_over(sq("f3"))
    assert not hand.pass_over(sq("e2"))  # occupied: nothing to see
    assert [r.occupied for r in board.readings[1:]] == [before | bb("f3"), before]


def test_when_the_board_agrees_with_the_game_captured_pieces_are_put_aside(board):
    game = Game()
    for text in ("e4", "d5"):
        game.push_text(text)
    board.set_occupied(game.position.occupied)
    hand = SimHand(board, game.position)
    hand.lift(sq("d5"))
    hand.lift(sq("e4"))
    hand.place(sq("d5"), turn_colour="white")
    assert not hand.sync(game.position)  # the game has not seen the capture yet
    game.push_text("exd5")
    assert hand.sync(game.position)
    assert hand.state()["hand"] == [] and hand.state()["pieces"]["d5"] == "P"


def test_a_piece_still_in_the_hand_is_kept_when_the_game_reads_a_swept_capture(board):
    """Holding a pawn to think, the sensors show only its square emptied: the game may read that as
    the one capture it explains (the victim swept off unseen) and commit it. The hand still holds the
    pawn and the victim still stands: the player can still put the pawn down elsewhere (the game
    then takes the capture back) instead of the hand dropping the pawn onto the victim's square."""
    game = Game()
    for text in ("e4", "c5", "Nf3", "d6", "d4"):
        game.push_text(text)
    board.set_occupied(game.position.occupied)
    hand = SimHand(board, game.position)
    hand.lift(sq("c5"))
    game.push_text("cxd4")                      # what the sensors alone explain
    assert not hand.sync(game.position)
    assert hand.state()["hand"] == [{"piece": "p", "from": "c5"}] and hand.state()["pieces"]["d4"] == "P"
    hand.place(sq("c4"), turn_colour="black")   # the pawn goes where the player meant
    assert board.occupied >> sq("c4") & 1 and board.occupied >> sq("d4") & 1


def test_a_pawn_held_where_it_could_capture_and_promote_stays_in_the_hand(board):
    """The tester's finding: f7 held to think beside the knight on e8 was read as fxe8=Q with the
    knight swept off; the hand dropped the pawn and drew a white queen on e8. The pawn stays held."""
    game = Game("4n2k/5P2/8/8/8/8/8/K7 w - - 0 1")
    board.set_occupied(game.position.occupied)
    hand = SimHand(board, game.position)
    hand.lift(sq("f7"))
    game.push_text("fxe8=Q+")                    # what the sensors alone explain
    assert not hand.sync(game.position)
    assert hand.state()["hand"] == [{"piece": "P", "from": "f7"}] and hand.state()["pieces"]["e8"] == "n"
    hand.place(sq("f8"), turn_colour="white")   # pushed after all
    assert board.occupied >> sq("f8") & 1 and board.occupied >> sq("e8") & 1


def test_a_promotion_that_captures_by_hand_takes_the_chosen_piece_and_puts_the_victim_aside(board):
    game = Game("r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    board.set_occupied(game.position.occupied)
    hand = SimHand(board, game.position)
    hand.lift(sq("b7"))
    hand.lift(sq("a8"))
    hand.place(sq("a8"), turn_colour="white")
    game.push_text("bxa8=Q")
    assert hand.sync(game.position)
    assert hand.state()["hand"] == [] and hand.state()["pieces"]["a8"] == "Q"


def test_setting_up_puts_every_piece_where_the_game_expects_it(board):
    hand = SimHand(board, Position())
    hand.lift(sq("e2"))
    hand.place(sq("e5"))
    hand.setup(Position())
    assert board.occupied == Position().occupied and hand.state()["hand"] == []
    json.dumps(hand.state())


def test_a_colour_board_is_told_the_colour_of_what_is_put_down():
    pos = Position()
    board = SimulatedBoard(colour=True, white=pos.occupied_by(0), black=pos.occupied_by(1))
    hand = SimHand(board, pos)
    hand.lift(sq("e7"))
    hand.place(sq("e5"))
    assert board.black >> sq("e5") & 1 and not board.white >> sq("e5") & 1


async def test_clicks_over_http_move_the_simulated_pieces(serve):
    client, companion, backend = await serve(sim=True)
    headers = {"Content-Type": "application/json"}
    r = await client.post("/api/sim/click", data='{"square": "e2"}', headers=headers)
    assert (await r.json()) == {"ok": True, "did": "lift"}
    r = await client.post("/api/sim/pass", data='{"squares": ["e3"]}', headers=headers)
    assert r.status == 200
    r = await client.post("/api/sim/place", data='{"square": "e4"}', headers=headers)
    assert r.status == 200
    state = await (await client.get("/api/state")).json()
    assert state["sim"]["pieces"]["e4"] == "P" and "e2" not in state["sim"]["pieces"]
    assert "e4" in state["occupied"]
    r = await client.post("/api/sim/place", data='{"square": "e5"}', headers=headers)
    assert r.status == 409 and "holds no piece" in (await r.json())["error"]
    r = await client.post("/api/sim/click", data='{"square": "i9"}', headers=headers)
    assert r.status == 400
    r = await client.post("/api/sim/setup", data="{}", headers=headers)
    assert r.status == 200 and companion.sim.hand.board.occupied == Position().occupied


def test_a_held_piece_put_down_on_the_other_colour_takes_it():
    from board_driver.backends.sim import SimulatedBoard
    from chess_core import Position
    from firmware.sim.hand import SimHand
    position = Position("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2")
    board = SimulatedBoard(position.occupied, clock=lambda: 0.0)
    hand = SimHand(board, position)
    hand.lift(28)                                    # e4
    assert hand.captures(35, "white") and not hand.captures(11, "white")   # d5 black; d2 white
    assert hand.take(35) == "p" and not board.occupied >> 35 & 1 and len(hand.held) == 1
    hand.place(35, "white")
    assert hand.pieces[35] == "P" and not hand.held


async def test_the_set_up_command_lifts_the_changing_pieces_before_setting_all_down(serve):
    from chess_core.chess960 import start_fen
    client, companion, backend = await serve(sim=True)
    board = backend.board
    readings = []
    board.start(readings.append)
    backend.game = Game(start_fen(323), chess960=True)
    r = await client.post("/api/sim/setup", data="{}", headers={"Content-Type": "application/json"})
    assert r.status == 200
    first_ranks = 0xFF | 0xFF << 56
    lifted = sum(1 << s for s in (0, 2, 5, 7, 56, 58, 61, 63))
    assert [reading.occupied for reading in readings][-2:] == [Position().occupied & ~lifted, Position().occupied]
    assert companion.sim.hand.state()["pieces"]["a1"] == "B" and first_ranks & board.occupied == first_ranks


async def test_a_click_is_read_on_the_hand_the_victim_in_it_lets_the_mover_be_lifted():
    """Issue 26.12: the page sends a click as such (/api/sim/click) and the hand reads it: with the
    victim lifted first, a click on the mover lifts it (the victim takes nothing: it is not its
    side's move), and the next click puts the mover down: exd5."""
    from firmware.sim.commands import SimCommands
    position = Position("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2")
    board = SimulatedBoard(position.occupied, clock=lambda: 0.0)
    hand = SimHand(board, position)

    commands = SimCommands(hand, SettingUpBackend(position, setting_up=False), lambda: None)
    said = [await commands.click({"square": sq(name), "index": None}, 0.0) for name in ("d5", "e4", "d5")]
    assert said == [{"did": "lift"}, {"did": "lift"}, {"did": "place"}]
    assert hand.pieces[sq("d5")] == "P" and sq("e4") not in hand.pieces
    assert [h.symbol for h in hand.held] == ["p"]


# -- the box beside the board (a position set up by hand, issue 35) ---------------------------------

def test_a_piece_taken_from_the_box_is_held_without_origin_and_the_sensors_see_it_only_once_down(board):
    hand = SimHand(board, Position())
    hand.lift(sq("e2"))
    held = hand.from_box("n")
    assert held.origin is None and held.colour == "black"
    assert hand.state()["hand"] == [{"piece": "P", "from": "e2"}, {"piece": "n", "from": None}]
    assert [r.occupied for r in board.readings] == [Position().occupied & ~bb("e2")]   # the box: nothing seen
    with pytest.raises(HandError, match="holds 2 pieces"):
        hand.from_box("Q")
    hand.place(sq("d5"), index=1)
    assert hand.state()["pieces"]["d5"] == "n" and board.occupied >> sq("d5") & 1
    assert hand.put_aside().symbol == "P"          # the pawn into the box: gone from board and hand
    assert hand.state()["hand"] == [] and "e2" not in hand.state()["pieces"]
    with pytest.raises(ValueError):
        hand.from_box("x")


class SettingUpBackend:
    """The game's position is the target of a position set up by hand (``setting_up``), or a game."""

    def __init__(self, position, setting_up: bool) -> None:
        self._position, self._setting_up = position, setting_up

    def position(self):
        return self._position

    def setting_up(self) -> bool:
        return self._setting_up


@pytest.mark.parametrize("setting_up", [True, False])
def test_while_a_position_is_set_up_by_hand_the_hand_keeps_its_own_pieces(board, setting_up):
    """The target's occupancy reached with the wrong pieces (a knight where its bishop goes, and the
    bishop where the knight goes): the simulator does not snap its pieces to the target while the
    board leads the hand (it would hide the mistake the board is waiting to see put right); in a
    game, the game's identities are taken (a promoted pawn becomes the chosen piece)."""
    from firmware.sim.commands import SimCommands
    target = Position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RBNQKBNR w KQkq - 0 1")   # b1, c1 swapped
    hand = SimHand(board, Position())
    hand.lift(sq("e2"))
    hand.from_box("p")
    commands = SimCommands(hand, SettingUpBackend(target, setting_up), lambda: None)
    hand.place(sq("e2"), index=1)                  # a black pawn where the white one stood
    hand.put_aside()
    state = commands.state()
    assert board.occupied == target.occupied
    if setting_up:
        assert state["pieces"]["b1"] == "N" and state["pieces"]["c1"] == "B" and state["pieces"]["e2"] == "p"
    else:
        assert state["pieces"]["b1"] == "B" and state["pieces"]["e2"] == "P"


async def test_a_click_on_the_box_takes_a_piece_into_the_hand_and_put_aside_puts_it_back(serve):
    client, companion, backend = await serve(sim=True)
    headers = {"Content-Type": "application/json"}
    r = await client.post("/api/sim/click", data='{"box": "N"}', headers=headers)
    assert (await r.json()) == {"ok": True, "did": "from_box"}
    state = await (await client.get("/api/state")).json()
    assert state["sim"]["hand"] == [{"piece": "N", "from": None}]
    r = await client.post("/api/sim/click", data='{"square": "e4"}', headers=headers)
    assert (await r.json())["did"] == "place"
    state = await (await client.get("/api/state")).json()
    assert state["sim"]["pieces"]["e4"] == "N" and "e4" in state["occupied"] and state["sim"]["hand"] == []
    await client.post("/api/sim/click", data='{"box": "q"}', headers=headers)
    r = await client.post("/api/sim/aside", data="{}", headers=headers)
    assert r.status == 200 and companion.sim.hand.held == []


@pytest.mark.parametrize("body, says", [
    ('{"square": "e2", "box": "N"}', "give one of square, box, not 2"),
    ("{}", "one of square, box is required"),
    ('{"index": 0}', "one of square, box is required"),
    ('{"box": "X"}', "box: expected one of"),
    ('{"box": "NN"}', "box: expected one of"),
])
async def test_a_click_names_a_square_or_a_piece_of_the_box_not_both_nor_neither(serve, body, says):
    client, companion, backend = await serve(sim=True)
    r = await client.post("/api/sim/click", data=body, headers={"Content-Type": "application/json"})
    answer = await r.json()
    assert r.status == 400 and says in answer["error"], answer
    assert answer["message"]["kind"] == "refusals" and companion.sim.hand.held == []


async def test_while_a_position_is_set_up_by_hand_a_click_on_a_piece_lifts_it_and_takes_nothing(board):
    """Setting up, the held piece's square may still hold the piece in its way (of the other
    colour): a click there lifts that piece too (no capture), and the chosen one goes down."""
    from firmware.sim.commands import SimCommands
    target = Position("rnbqkbnr/pppp1ppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    hand = SimHand(board, Position())
    commands = SimCommands(hand, SettingUpBackend(target, setting_up=True), lambda: None)
    said = [await commands.click({"square": sq(name), "box": None, "index": None}, 0.0) for name in ("e2", "e7")]
    assert said == [{"did": "lift"}, {"did": "lift"}]
    assert await commands.click({"square": sq("e7"), "box": None, "index": 0}, 0.0) == {"did": "place"}
    assert hand.pieces[sq("e7")] == "P" and [h.symbol for h in hand.held] == ["p"]


def test_a_piece_from_the_box_stays_held_when_the_board_agrees_with_the_game(board):
    """A queen taken from the box to promote with: the sensors agree with the game meanwhile, and
    the hand keeps the queen (it was never on the board, nor captured)."""
    hand = SimHand(board, Position())
    hand.from_box("Q")
    assert hand.sync(Position())
    assert hand.state()["hand"] == [{"piece": "Q", "from": None}]


def test_the_hand_with_a_piece_from_the_box_conforms_to_the_state_schema(board):
    jsonschema = pytest.importorskip("jsonschema")
    from pathlib import Path
    schema = json.loads((Path(__file__).resolve().parents[2] / "docs" / "state.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/sim"})
    hand = SimHand(board, Position())
    hand.lift(sq("e2"))
    hand.from_box("n")
    validator.validate(hand.state())
    assert not validator.is_valid({**hand.state(), "hand": [{"piece": "n", "from": "box"}]})
