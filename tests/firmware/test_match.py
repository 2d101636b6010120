"""The referee: raw readings in; game start, moves, clock, flag fall, results and records out."""
from __future__ import annotations

import json

import pytest

from board_driver.reading import Reading
from chess_core import BLACK, WHITE, DrawClaimError, Move, Position, Termination, parse_square
from chess_core.dead import forget_proofs
from firmware.commands.replay import game_json, game_pgn
from firmware.referee.inference import WAIT_SLIDE, VerdictKind
from firmware.referee.match import (BoardChanged, GameOver, GameStarted, Match, MatchConfig, MoveMade, ProblemFound,
                            TakenBack)

START = Position().occupied


def sq(name: str) -> int:
    return 1 << parse_square(name)


class Table:
    """Raw readings by hand, without bounce: each change is one raw line, ``dt`` seconds later."""

    def __init__(self, match: Match, occupied: int = START, t: float = 0.0) -> None:
        self.match = match
        self.occ = occupied
        self.t = t
        self.events: list = []

    def show(self, occupied: int, dt: float = 0.5, settle: bool = True) -> list:
        """The board shows ``occupied`` ``dt`` s after the last change; with ``settle``, time then
        passes until it is settled (the next change comes later anyway)."""
        self.t += dt
        self.occ = occupied
        out = self.match.feed(Reading(self.t, occupied))
        if settle:
            out += self.match.poll(self.t + self.match.config.settle_ms / 1000)
        self.events += out
        return out

    def lift(self, name: str, dt: float = 0.5) -> list:
        return self.show(self.occ & ~sq(name), dt)

    def place(self, name: str, dt: float = 0.5) -> list:
        return self.show(self.occ | sq(name), dt)

    def move(self, frm: str, to: str, dt: float = 0.5) -> list:
        return self.lift(frm, dt) + self.place(to, dt)

    def capture(self, frm: str, to: str, dt: float = 0.5) -> list:
        return self.lift(to, dt) + self.lift(frm, dt) + self.place(to, dt)

    def wait(self, seconds: float) -> list:
        self.t += seconds
        out = self.match.poll(self.t)
        self.events += out
        return out

    def of(self, kind) -> list:
        return [e for e in self.events if isinstance(e, kind)]


def started_table(**config) -> Table:
    config.setdefault("exact_dead_positions", False)
    match = Match(MatchConfig(**config))
    table = Table(match, occupied=0)
    table.show(START, dt=0.0)
    table.wait(0.1)
    assert match.started
    return table


def uci(moves) -> list[str]:
    return [m.uci() for m in moves]


# -- start ---------------------------------------------------------------------------------------

def test_game_starts_at_the_first_settled_reading_of_the_start_position():
    match = Match(MatchConfig(time_control="300"))
    table = Table(match, occupied=0)
    table.show(START & ~sq("e2"), dt=1.0)        # still setting up
    table.show(START, dt=1.0, settle=False)     # complete at t=2.0 ...
    table.show(START & ~sq("d1"), dt=0.01, settle=False)  # ... a bounce, not settled
    table.show(START, dt=0.01)
    table.wait(0.5)
    started = table.of(GameStarted)
    assert len(started) == 1 and started[0].time == pytest.approx(2.02)
    assert match.timing.clock.side_to_move == WHITE
    assert match.remaining(3.02) == (299_000, 300_000)


def test_game_from_a_fen_starts_when_the_board_shows_it():
    fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1"
    match = Match(MatchConfig(fen=fen, exact_dead_positions=False))
    table = Table(match, occupied=0)
    table.show(START)
    table.wait(1)
    assert not match.started
    table.show(Position(fen).occupied)
    table.wait(1)
    assert match.started and match.timing.clock.side_to_move == BLACK


def test_colour_board_starts_only_when_the_colours_are_right():
    pos = Position()
    match = Match(MatchConfig(exact_dead_positions=False))
    white, black = pos.bb_color
    match.feed(Reading(0.0, START, black, white))  # the board set up the wrong way round
    match.poll(1.0)
    assert not match.started
    match.feed(Reading(1.0, START, white, black))
    match.poll(2.0)
    assert match.started


# -- moves and clock -----------------------------------------------------------------------------

def test_moves_are_recorded_with_san_and_bounce_is_ignored():
    table = started_table()
    table.lift("g1")
    table.place("f3")
    table.show(table.occ & ~sq("f3"), dt=0.004, settle=False)  # contact bounce
    table.show(table.occ | sq("f3"), dt=0.003)
    table.move("e7", "e5")
    table.wait(1)
    made = table.of(MoveMade)
    assert [(m.move.uci(), m.san) for m in made] == [("g1f3", "Nf3"), ("e7e5", "e5")]
    assert uci(table.match.game.moves) == ["g1f3", "e7e5"]


def test_clock_stops_at_the_landing_of_a_move_that_waited():
    table = started_table(time_control="60")
    table.lift("e2", dt=0.4)
    table.place("e3", dt=0.6)  # lands at 1.1 s; commits 0.2 s later
    landed = table.t
    table.wait(WAIT_SLIDE + 0.1)
    made = table.of(MoveMade)
    assert made[0].move == Move.from_uci("e2e3") and made[0].time == pytest.approx(landed)
    assert table.match.timing.after_move == [60_000 - 1_100]  # started at 0.0 s, stopped at 1.1 s


def test_flag_falls_during_play_and_later_moves_are_not_recorded():
    table = started_table(time_control="2")
    table.move("e2", "e4", dt=0.25)       # white stops its clock at 0.6 s
    table.wait(3.0)                        # black's 2 s run out at 2.6 s
    over = table.of(GameOver)
    assert len(over) == 1 and over[0].time == pytest.approx(2.6)
    assert over[0].outcome.termination is Termination.TIME_FORFEIT and over[0].outcome.winner == WHITE
    table.move("e7", "e5")
    assert uci(table.match.game.moves) == ["e2e4"]
    assert game_json(table.match)["result"] == "1-0"


def test_flag_waits_for_a_move_completed_before_it():
    table = started_table(time_control="1")
    table.lift("e2", dt=0.5)
    table.place("e3", dt=0.35)            # lands at 0.95 s, 50 ms before white's flag (1.0 s)
    assert table.match.next_deadline() == pytest.approx(0.95 + WAIT_SLIDE)  # the flag waits for it
    table.wait(0.1)                       # past the flag instant, the move still waits
    assert not table.of(GameOver)
    table.wait(WAIT_SLIDE)
    assert uci(table.match.game.moves) == ["e2e3"] and not table.match.game.is_over
    assert table.match.timing.after_move == [50]


def test_flag_falls_when_the_landing_came_after_it():
    table = started_table(time_control="1")
    table.lift("g1", dt=0.5)
    table.place("f3", dt=0.6)             # lands at 1.2 s: the flag fell at 1.0 s
    table.wait(0.1)
    assert table.match.game.moves == []
    assert table.of(GameOver)[0].outcome.winner == BLACK


def test_per_move_limit_is_a_flag_fall():
    table = started_table(time_control="-/m5")
    table.move("e2", "e4")
    table.wait(6)
    assert table.of(GameOver)[0].outcome.termination is Termination.TIME_FORFEIT


def test_readings_after_checkmate_are_ignored():
    table = started_table()
    table.move("f2", "f3")
    table.move("e7", "e5")
    table.move("g2", "g4")
    table.move("d8", "h4")
    table.wait(1)
    assert table.of(GameOver)[0].outcome.termination is Termination.CHECKMATE
    table.move("e1", "f2")
    table.move("h4", "e1")
    table.wait(1)
    assert uci(table.match.game.moves) == ["f2f3", "e7e5", "g2g4", "d8h4"]
    assert game_json(table.match)["result"] == "0-1"
    assert not table.match.problems


def test_amended_move_charges_the_mover_for_the_correction():
    table = started_table(time_control="60")
    table.move("g1", "f3")                 # white stops at 1.1 s
    assert table.match.timing.after_move == [58_900]
    table.lift("f3", dt=2.0)
    table.place("h3", dt=0.5)             # the real move lands at 3.6 s
    table.wait(0.1)
    assert uci(table.match.game.moves) == ["g1h3"]
    made = table.of(MoveMade)
    assert made[-1].amended and made[-1].san == "Nh3"
    assert table.match.timing.after_move == [56_400]
    assert table.match.remaining(4.6)[BLACK] == 59_000


def test_piece_put_back_after_a_commit_gives_the_move_back_to_its_mover():
    table = started_table(time_control="60")
    table.move("g1", "f3")
    table.move("f3", "g1", dt=1.0)
    assert table.of(TakenBack)[0].move == Move.from_uci("g1f3")
    assert table.match.game.moves == [] and table.match.timing.after_move == []
    assert table.match.timing.clock.side_to_move == WHITE
    table.move("e2", "e4")
    assert uci(table.match.game.moves) == ["e2e4"]


def test_takeback_command_needs_the_option_and_guides_the_board_back():
    table = started_table()
    table.move("e2", "e4")
    with pytest.raises(ValueError):
        table.match.takeback(table.t + 1)
    table = started_table(takebacks=True)
    table.move("e2", "e4")
    events = table.match.takeback(table.t + 1)
    assert any(isinstance(e, TakenBack) for e in events)
    assert table.match.last_verdict.kind is VerdictKind.ILLEGAL
    assert table.match.last_verdict.wrong == sq("e2") | sq("e4")
    table.t += 1
    table.move("e4", "e2")
    assert table.match.last_verdict.kind is VerdictKind.STABLE
    table.move("d2", "d4")
    assert uci(table.match.game.moves) == ["d2d4"]


def test_illegal_board_is_a_problem_named_once_per_episode():
    table = started_table()
    table.move("f1", "c4")
    table.move("c4", "f1")
    table.move("e2", "e4")
    problems = table.of(ProblemFound)
    assert len(problems) == 1 and problems[0].message.endswith("squares that differ: f1 c4")
    assert table.match.problems == [problems[0].message]
    assert uci(table.match.game.moves) == ["e2e4"]


def test_board_changed_carries_every_verdict():
    table = started_table()
    table.move("g1", "f3")
    kinds = [e.verdict.kind for e in table.of(BoardChanged)]
    assert kinds == [VerdictKind.LIFTED, VerdictKind.MOVE]


# -- decisions and records -----------------------------------------------------------------------

def test_resign_and_agree_draw():
    table = started_table()
    events = table.match.resign(WHITE, 5.0)
    assert events[-1].outcome.termination is Termination.RESIGNATION and events[-1].outcome.winner == BLACK
    table = started_table()
    assert table.match.agree_draw(5.0)[-1].outcome.result() == "1/2-1/2"


def test_claim_draw_is_refused_unless_valid():
    table = started_table()
    with pytest.raises(DrawClaimError):
        table.match.claim_draw(2.0)
    for _ in range(2):
        table.move("g1", "f3")
        table.move("g8", "f6")
        table.move("f3", "g1")
        table.move("f6", "g8")
    events = table.match.claim_draw(table.t + 1)
    assert events[-1].outcome.termination is Termination.THREEFOLD_REPETITION


def test_pause_stops_the_clocks():
    table = started_table(time_control="60")
    table.match.pause(1.0)
    assert table.match.remaining(20.0) == (59_000, 60_000)
    table.match.resume(21.0)
    assert table.match.remaining(22.0) == (58_000, 60_000)


def test_a_move_made_while_the_clock_is_paused_is_held_without_increment():
    """Issue 26.8: while the clock is paused no move counts: the board is wrong until the piece is
    back, no increment is added; once the clock runs the move is made as any other."""
    table = started_table(time_control="60+5")
    table.match.pause(1.0)
    table.t = 10.0
    table.move("e2", "e4")
    assert table.of(MoveMade) == [] and table.match.game.moves == []
    verdict = table.match.last_verdict
    assert verdict.kind is VerdictKind.ILLEGAL and verdict.wrong == sq("e2") | sq("e4")
    assert table.match.problems == []   # held, not misread
    assert table.match.remaining(20.0) == (59_000, 60_000)
    table.match.resume(21.0)
    table.t = 21.0
    table.move("e2", "e4")   # still held until the board shows the position again
    assert table.of(MoveMade) == []
    table.move("e4", "e2")
    table.move("e2", "e4", dt=1.0)
    assert uci(m.move for m in table.of(MoveMade)) == ["e2e4"]
    assert table.match.timing.after_move == [59_000 - round((table.t - 21.0) * 1000) + 5_000]


def test_a_move_complete_before_the_pause_is_committed_at_once():
    """A slide that waits (the pawn could go on) when the clock is paused: it was made while the
    clock ran, so it is committed as of its completion, with its increment, before the clock stops."""
    table = started_table(time_control="60+5")
    table.move("e2", "e3")
    assert table.of(MoveMade) == []   # waiting: the pawn could go on to e4
    events = table.match.pause(table.t + 0.1)
    assert [e.move.uci() for e in events if isinstance(e, MoveMade)] == ["e2e3"]
    assert table.match.timing.clock.paused and table.match.game.turn == BLACK
    assert table.match.timing.after_move[0] == 60_000 - round(table.t * 1000) + 5_000   # timed as the pawn landed


def test_new_game_waits_for_the_start_position():
    table = started_table()
    table.move("e2", "e4")
    table.match.new_game(table.t + 1)
    assert not table.match.started and table.match.game.moves == []
    table.move("e4", "e2")
    table.wait(0.1)
    assert table.match.started


def test_json_and_pgn_records():
    table = started_table(time_control="300+3")
    table.move("e2", "e4")
    table.move("e7", "e5")
    data = game_json(table.match)
    assert data == {"moves": ["e2e4", "e7e5"], "san": ["e4", "e5"], "fen": Position(
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2").fen(), "result": "*",
        "termination": None, "problems": [], "gestures": []}
    json.dumps(data)
    pgn = game_pgn(table.match, {"White": "Ada"})
    assert '[White "Ada"]' in pgn and '[TimeControl "300+3"]' in pgn
    assert "1. e4 { [%clk 0:05:01.9] } 1... e5 { [%clk 0:05:02] } *" in pgn


def test_finish_commits_a_waiting_move_and_reports_an_unresolved_board():
    table = started_table()
    table.lift("e2")
    table.place("e3")
    table.match.finish()
    assert uci(table.match.game.moves) == ["e2e3"]
    assert table.match.problems == []
    table.lift("g8")
    table.match.finish()
    assert len(table.match.problems) == 1 and "unresolved" in table.match.problems[0]


def test_exact_dead_positions_end_the_game():
    fen = "4k3/8/8/8/8/8/8/4K2B w - - 0 1"  # K+B v K: dead at once
    match = Match(MatchConfig(fen=fen))
    match.feed(Reading(0.0, Position(fen).occupied))
    events = match.poll(0.1)
    assert match.started
    del events
    assert match.game.is_over and match.game.outcome.termination is Termination.INSUFFICIENT_MATERIAL


def test_a_move_into_a_dead_position_is_shown_first_and_the_search_ends_the_game_at_the_next_poll():
    # Bxd2 leaves locked pawns and same-coloured bishops: dead, though not by material alone.
    fen = "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/3r4/2B1K3 w - - 0 1"
    match = Match(MatchConfig(fen=fen))
    table = Table(match, occupied=0)
    table.show(Position(fen).occupied)
    assert match.started and not match.game.is_over
    table.lift("d2")
    table.lift("c1")
    moved = table.place("d2")
    assert [e.san for e in moved if isinstance(e, MoveMade)] == ["Bxd2"]
    assert not any(isinstance(e, GameOver) for e in moved)
    assert match.next_deadline() is not None and match.next_deadline() <= table.t
    over = table.wait(0.0)
    assert [e.outcome.termination for e in over if isinstance(e, GameOver)] == [Termination.INSUFFICIENT_MATERIAL]
    assert match.game.outcome.result() == "1/2-1/2"


def test_change_promotion_amends_the_promotion_just_made():
    fen = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"
    match = Match(MatchConfig(fen=fen, exact_dead_positions=False))
    table = Table(match, occupied=0)
    table.show(Position(fen).occupied)
    table.move("a7", "a8")
    events = match.change_promotion("r", table.t + 1)
    assert [(e.san, e.amended) for e in events if isinstance(e, MoveMade)] == [("a8=R+", True)]
    with pytest.raises(ValueError):
        match.change_promotion("x", table.t + 2)
    table.t += 2
    table.move("e8", "d7")
    with pytest.raises(ValueError):
        match.change_promotion("q", table.t + 1)


def test_the_next_promotion_is_readable_and_back_to_a_queen_after_each_promotion():
    fen = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"
    match = Match(MatchConfig(fen=fen, exact_dead_positions=False))
    table = Table(match, occupied=0)
    table.show(Position(fen).occupied)
    assert match.inference.next_promotion == 5
    match.promote("n", table.t)
    assert match.inference.next_promotion == 2
    table.move("a7", "a8")
    assert uci(match.game.moves) == ["a7a8n"] and match.inference.next_promotion == 5


def test_undo_takes_back_a_move_refused_elsewhere_even_without_takebacks():
    table = started_table(time_control="300")
    table.move("e2", "e4")
    events = table.match.undo(table.t + 2)
    assert isinstance(events[0], TakenBack) and events[0].move == Move.from_uci("e2e4")
    assert table.match.game.moves == [] and table.match.timing.clock.side_to_move == WHITE
    assert table.match.last_verdict.kind is VerdictKind.ILLEGAL   # the board still shows e4
    assert table.match.last_verdict.wrong == sq("e2") | sq("e4")
    table.move("e4", "e2")
    assert table.match.last_verdict.kind is VerdictKind.STABLE
    with pytest.raises(ValueError, match="no move"):
        table.match.undo(table.t)


def test_a_problem_carries_its_words_without_the_time():
    table = started_table()
    table.move("f1", "c4")
    (problem,) = table.of(ProblemFound)
    assert problem.text.startswith("no legal move explains the board")
    assert problem.message == f"{problem.time:.3f} s: {problem.text}"


def test_restore_continues_a_game_with_its_clock_and_guides_the_board_to_it():
    config = MatchConfig(time_control="300+2", exact_dead_positions=False)
    match = Match.restore(config, ["e2e4", "e7e5", "g1f3"], 50.0, remaining=(250_000, 280_000),
                          clocks=[299_000, 290_000, 250_000], guide_back=True)
    assert match.started and uci(match.game.moves) == ["e2e4", "e7e5", "g1f3"]
    assert match.remaining(52.0) == (250_000, 278_000)
    assert match.timing.after_move == [299_000, 290_000, 250_000]
    table = Table(match, occupied=START)
    table.wait(0.1)
    table.show(START, dt=0.1)
    assert table.match.game.moves[-1] == Move.from_uci("g1f3")   # a board not yet there is not a move
    table.move("e2", "e4")
    table.move("e7", "e5")
    table.move("g1", "f3")
    table.move("b8", "c6")
    assert uci(match.game.moves)[-1] == "b8c6"


def test_restore_keeps_the_recorded_end_without_judging_the_moves_again():
    outcome_fen = "4k3/8/8/8/8/8/8/4K2B w - - 0 1"
    match = Match.restore(MatchConfig(fen=outcome_fen), [], 0.0)
    assert match.game.outcome.termination is Termination.INSUFFICIENT_MATERIAL   # judged at the start
    from chess_core import Outcome
    resigned = Match.restore(MatchConfig(), ["f2f3", "e7e5"], 0.0, outcome=Outcome(Termination.RESIGNATION, BLACK))
    assert resigned.game.outcome == Outcome(Termination.RESIGNATION, BLACK)
    assert resigned.timing.clock.running_side is None


# -- the exact searches run in slices, after the move and the clock ---------------------------------

# Kxh5 leaves White a rook that can never get past its own king behind locked pawns: dead, after a
# long search (the walk through every position that can follow; no static proof settles it).
LOCKED = "2k5/6p1/6P1/6Pr/6PK/6PR/7P/8 w - - 0 1"


@pytest.fixture
def cold():
    """Nothing proved before (chess_core.dead remembers proofs across games)."""
    forget_proofs()


def test_the_dead_position_search_runs_a_slice_per_poll_after_the_move(cold):
    match = Match(MatchConfig(fen=LOCKED, analysis_steps=4))
    table = Table(match, occupied=0)
    table.show(Position(LOCKED).occupied)
    moved = table.capture("h4", "h5")
    assert [e.san for e in moved if isinstance(e, MoveMade)] == ["Kxh5"]
    assert not table.of(GameOver)
    polls = 0
    while not table.of(GameOver):
        assert match.next_deadline() <= table.t  # poll again at once
        table.wait(0.0)
        polls += 1
    assert polls >= 10  # the search was spread over many polls, a few steps each
    assert [e.outcome.termination for e in table.of(GameOver)] == [Termination.INSUFFICIENT_MATERIAL]
    assert match.next_deadline() is None


def test_a_settled_reading_is_not_held_up_by_a_slice_of_the_search(cold, monkeypatch):
    """Issue 14: each raw reading and the poll that settled it ran a slice of the search first
    (1-2 ms here, about 10 ms on a Pi Zero 2 W), so the LED frame of a lifted piece waited for
    it. Only the polls with nothing else to do run slices."""
    from firmware.referee import searches as match_module   # (the searches run a slice at a time there)
    slices = []
    advance = match_module._advance
    monkeypatch.setattr(match_module, "_advance", lambda steps, count: slices.append(count) or advance(steps, count))
    match = Match(MatchConfig(fen=LOCKED, analysis_steps=4))
    table = Table(match, occupied=0)
    table.show(Position(LOCKED).occupied)
    table.capture("h4", "h5")
    table.wait(0.0)
    assert slices == [4]                      # the search is under way, a slice per poll
    table.lift("c8", dt=0.0)                  # a raw reading, then the poll at its settle instant
    assert slices == [4] and match.last_verdict.lifted == sq("c8")
    table.place("c8", dt=0.0)                 # put back: settled, no move
    assert slices == [4]
    table.wait(0.0)
    assert slices == [4, 4]                   # nothing else to do: the search goes on
    while not table.of(GameOver):
        table.wait(0.0)
    assert match.game.outcome.termination is Termination.INSUFFICIENT_MATERIAL
    assert uci(match.game.moves) == ["h4h5"]


def test_a_move_that_comes_before_the_verdict_drops_that_search_for_the_new_positions(cold):
    # A dead position stays dead whatever is played: the new position's search ends the game,
    # drawn, a move later; the move is not held up by the search of the position before it.
    match = Match(MatchConfig(fen=LOCKED, analysis_steps=4))
    table = Table(match, occupied=0)
    table.show(Position(LOCKED).occupied)
    table.capture("h4", "h5")
    assert match.next_deadline() <= table.t  # the search of the position after Kxh5 is under way
    moved = table.move("c8", "d8", dt=0.0)
    assert [e.san for e in moved if isinstance(e, MoveMade)] == ["Kd8"]
    assert not match.game.is_over
    while not table.of(GameOver):
        table.wait(0.0)
    assert uci(match.game.moves) == ["h4h5", "c8d8"]
    assert match.game.outcome.termination is Termination.INSUFFICIENT_MATERIAL


def test_after_a_flag_fall_the_clock_stops_at_once_and_the_mate_search_runs_in_slices(cold):
    # White's flag falls; can a king and knight still mate the king, queen and rook? (A helpmate:
    # yes, so white loses.) The dead-position test let this position through without a search.
    fen = "8/8/4k3/8/3n4/8/8/R2QK3 w - - 0 1"
    match = Match(MatchConfig(fen=fen, time_control="1", analysis_steps=50))
    table = Table(match, occupied=0)
    table.show(Position(fen).occupied, dt=0.0)
    start = table.t
    table.wait(1.5)
    assert not table.of(GameOver)
    assert match.remaining(table.t) == (0, 1000)
    table.move("e6", "d6")                   # the board is not read while the flag is judged
    assert not table.of(MoveMade)
    polls = 0
    while not table.of(GameOver):
        table.wait(0.1)
        polls += 1
    assert polls >= 5
    over = table.of(GameOver)
    assert len(over) == 1 and over[0].time == pytest.approx(start + 1.0)
    assert over[0].outcome.termination is Termination.TIME_FORFEIT and over[0].outcome.winner == BLACK
    assert match.remaining(table.t) == (0, 1000) and match.game.moves == []


def test_resigning_while_the_flag_is_judged_comes_too_late(cold):
    fen = "8/8/3nkn2/8/8/8/8/R2QK3 w - - 0 1"  # two knights: a long search too
    match = Match(MatchConfig(fen=fen, time_control="1", analysis_steps=1))
    table = Table(match, occupied=0)
    table.show(Position(fen).occupied, dt=0.0)
    table.wait(1.5)
    assert not table.of(GameOver)
    with pytest.raises(ValueError):  # GameOverError: the flag fell first
        match.resign(WHITE, table.t + 0.1)
    assert match.game.outcome.termination is Termination.TIME_FORFEIT


def test_a_move_recorded_wrong_is_corrected_with_one_of_the_moves_that_explain_the_board():
    fen = "2r4k/8/6p1/8/8/8/2Q5/K7 w - - 0 1"
    match = Match(MatchConfig(fen=fen))
    start = Position(fen).occupied
    c2, g6 = parse_square("c2"), parse_square("g6")
    t = 1.0
    for occ in (start, start & ~(1 << c2), start & ~(1 << c2) & ~(1 << g6), start & ~(1 << c2)):
        match.feed(Reading(t, occ))
        t += 0.5
    match.poll(t)
    assert [m.uci() for m in match.game.moves] == ["c2g6"]
    assert [m.uci() for m in match.corrections()] == ["c2c8"]
    events = match.correct("c2c8", t)
    made = [e for e in events if isinstance(e, MoveMade)]
    assert len(made) == 1 and made[0].amended and made[0].san == "Qxc8+"
    assert [m.uci() for m in match.game.moves] == ["c2c8"]
    with pytest.raises(ValueError):
        match.correct("c2h7", t + 1)   # not a legal move of the queen


def _two_captures_table(time_control: str) -> Table:
    fen = "2r4k/8/6p1/8/8/8/2Q5/K7 w - - 0 1"
    match = Match(MatchConfig(fen=fen, time_control=time_control, exact_dead_positions=False))
    table = Table(match, occupied=0)
    table.show(Position(fen).occupied, dt=0.0)
    table.wait(0.1)
    return table


def test_the_flag_waits_while_a_swept_capture_is_undecided():
    table = _two_captures_table("2")
    table.lift("c2", dt=0.5)               # 0.6 s: the queen took on c8 or g6, the victim swept off
    table.lift("h8", dt=1.0)               # 1.6 s: Black's king goes ...
    table.place("g7", dt=0.7)              # 2.3 s: ... to g7, legal only after Qxc8+ (White's flag: 2.1 s)
    table.wait(0.1)
    assert uci(table.match.game.moves) == ["c2c8", "h8g7"] and not table.of(GameOver)
    assert table.match.timing.after_move[0] == 1400   # White moved at 0.6 s of its 2


def test_a_piece_held_past_the_flag_then_set_down_loses_on_time():
    table = _two_captures_table("2")
    table.lift("c2", dt=0.5)
    table.wait(3.0)
    table.place("c3", dt=0.2)             # the queen was in the hand: it lands after the flag
    table.wait(1.0)
    assert table.match.game.moves == [] and table.of(GameOver)[0].outcome.winner == BLACK


def _capture_read_as_qxg6(time_control: str) -> Table:
    table = _two_captures_table(time_control)
    table.lift("c2", dt=0.5)
    table.lift("g6", dt=0.5)
    table.place("g6", dt=0.5)
    table.wait(0.5)
    assert uci(table.match.game.moves) == ["c2g6"]
    return table


def test_a_correction_made_while_the_clock_is_paused_costs_the_mover_no_paused_time():
    """A page correction during a pause (beside issue 26.8): the time the clock stood still is
    nobody's, so it costs what the same correction costs at the moment the clock was stopped."""
    paused, at_once = _capture_read_as_qxg6("60+5"), _capture_read_as_qxg6("60+5")
    stop = paused.t + 1.0
    paused.match.pause(stop)
    paused.match.correct("c2c8", stop + 40.0)
    at_once.match.correct("c2c8", stop)
    assert uci(paused.match.game.moves) == ["c2c8"] and paused.match.timing.clock.paused
    assert paused.match.timing.after_move == at_once.match.timing.after_move
    assert paused.match.remaining(stop + 60.0) == at_once.match.remaining(stop)
