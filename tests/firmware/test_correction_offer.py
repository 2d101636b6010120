"""The correction offer over promotions with captures: whatever the player picks, the record shows it (issue 26.9).

A pawn on the seventh rank between two victims: capturing on either leaves the same occupancy, so the
board may record the wrong one and the page offers the other ("Not the move you made? It was:").
The player may also choose the promotion piece, before the capture or after it. Whatever order
the choices come in, until the opponent starts, the last move is the square the player last said
and the piece the player last chose, and the offer shows the other squares with that same piece,
in the SAN of the move it makes: an offer of "bxc8=Q" once the player chose a rook on a8 is the
bug this catches. A mate, a stalemate or a dead position made by a version of the move closes
nothing: the next choice is taken, and the end is judged again from the move the record shows
(the game, the page's state, the saved record). Once the opponent has lifted a piece, every choice
is refused and nothing changes.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from chess_core import QUEEN, Game, Move, Position, san
from chess_core.dead import is_dead
from chess_core.squares import square_name
from firmware.session.session import SessionError
from firmware.session.game_commands import choose_promotion, correct

from .session_support import Table

PIECES = "nbrq"


@st.composite
def positions(draw: st.DrawFn) -> tuple[str, int, tuple[int, int]]:
    """(FEN, the pawn's square, its two capture squares): a pawn one step from
    promoting with a victim on each diagonal, kings somewhere legal."""
    white = draw(st.booleans())
    file = draw(st.integers(1, 6))                      # b..g: a victim on either side
    last, seventh = (7, 6) if white else (0, 1)
    board: dict[int, str] = {}
    pawn = seventh * 8 + file
    board[pawn] = "P" if white else "p"
    targets = (last * 8 + file - 1, last * 8 + file + 1)
    for target in targets:
        piece = draw(st.sampled_from(PIECES))
        board[target] = piece if white else piece.upper()
    ahead = draw(st.sampled_from(["", "n", "r", "N", "R"]))   # the square in front: empty or blocked
    if ahead:
        board[last * 8 + file] = ahead
    free = [s for s in range(16, 48) if s not in board]
    kings = draw(st.lists(st.sampled_from(free), min_size=2, max_size=2, unique=True))
    board[kings[0]], board[kings[1]] = "K", "k"
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for f in range(8):
            piece = board.get(rank * 8 + f)
            if piece is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + piece
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    fen = "/".join(rows) + (" w" if white else " b") + " - - 0 1"
    try:
        position = Position(fen)
    except ValueError:
        assume(False)
    assume(not position.is_check() and all(position.is_legal(Move(pawn, t, QUEEN)) for t in targets))
    return fen, pawn, targets


actions = st.lists(st.one_of(st.tuples(st.just("correct"), st.integers(0, 3)),
                             st.tuples(st.just("promote"), st.sampled_from(PIECES)),
                             st.tuples(st.just("opponent starts"), st.just(0))), min_size=1, max_size=6)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=positions(), target=st.integers(0, 1), chosen_before=st.one_of(st.none(), st.sampled_from(PIECES)),
       in_hand=st.booleans(), victim_first=st.booleans(), steps=actions)
def test_the_correction_offer_keeps_the_players_square_and_piece(setup, target, chosen_before, in_hand,
                                                                   victim_first, steps):
    fen, pawn, targets = setup
    with tempfile.TemporaryDirectory() as tmp:
        table = Table(Path(tmp), fen=fen)
        table.setup(fen)
        session = table.session
        start = Position(fen)
        if chosen_before and not in_hand:
            choose_promotion(session, chosen_before, table.t)
        to = targets[target]
        pawn_name, to_name = square_name(pawn), square_name(to)
        order = [to_name, pawn_name] if victim_first else [pawn_name, to_name]
        table.lift(order[0])
        if chosen_before and in_hand:   # the page's "Promote to:" while the pawn is in the hand
            choose_promotion(session, chosen_before, table.t)
        table.lift(order[1])
        table.place(to_name)
        table.wait(1)
        piece = "nbrq".index(chosen_before) + 2 if chosen_before else QUEEN
        said = to
        check(table, start, pawn, said, piece)
        started = False
        for action, value in steps:
            if action == "opponent starts":
                if not started:   # its king taken in hand (and kept there): the move is final
                    started = True
                    table.lift(square_name(session.game.position.king[session.game.turn]))
                continue
            if started:
                other = next(t for t in targets if t != said)
                with pytest.raises(SessionError):
                    if action == "correct":
                        correct(session, Move(pawn, other, piece).uci(), table.t)
                    else:   # (another piece than the move's: choosing the piece it has is no change)
                        choose_promotion(session, value if value != PIECES[piece - 2] else PIECES[(piece - 1) % 4], table.t)
            elif action == "correct":
                offered = [m for m, _ in session.state().corrections]
                assert offered, "a capture on the other square explains the board as well"
                chosen = offered[value % len(offered)]
                correct(session, chosen.uci(), table.t)
                said = chosen.to_square
            else:
                choose_promotion(session, value, table.t)
                piece = "nbrq".index(value) + 2
            table.wait(0.5)
            check(table, start, pawn, said, piece, open_=not started)


def check(table: Table, start: Position, pawn: int, said: int, piece: int, open_: bool = True) -> None:
    """The record is the move the player said; ``open_``: the opponent has not started, so the
    page offers the piece's choice and the other square; the end is the rules' for that move."""
    session = table.session
    moves = session.game.moves
    last = Move(pawn, said, piece)
    assert moves == [last], f"recorded {[m.uci() for m in moves]}, the player said {last.uci()}"
    state = session.state()
    assert state.san[-1] == san(start, last, "en")
    if open_:
        assert state.promotion is not None and state.promotion.square == said, state.promotion
    elif state.outcome is not None:   # (in a game going on the choice stays shown: the opponent may put its piece back)
        assert state.promotion is None, state.promotion
    assert bool(state.corrections) == open_, state.corrections
    for move, text in state.corrections:
        assert move.from_square == pawn and move.to_square != said, move.uci()
        assert move.promotion == piece, (f"the offer {text} after the player chose "
                                         f"{san(start, last, 'en')}")
        assert text == san(start, move, "en")
    judged = Game(start.fen(), dead_position=is_dead)
    judged.push(last)
    assert state.outcome == judged.outcome, f"{san(start, last, 'en')} ended the game as {state.outcome}"
    record = session.file.recorder.load()
    assert record is not None and record.moves[-1] == last.uci() and record.get_outcome() == judged.outcome


def test_a_rook_chosen_then_the_square_corrected_stays_a_rook(tmp_path):
    """The case seen (issue 26.9): a rook chosen for b7xa8, the board read b7xc8: the offer is
    bxa8=R, and taking it records bxa8=R, with bxc8=R offered back."""
    fen = "r1n4k/1P6/8/8/8/8/8/4K3 w - - 0 1"
    table = Table(tmp_path, fen=fen)
    table.setup(fen)
    session = table.session
    table.lift("b7")
    choose_promotion(session, "r", table.t)
    table.lift("c8")     # (the hand took the c8 knight: the board records bxc8, the player meant a8)
    table.place("c8")
    table.wait(1)
    assert [m.uci() for m in session.game.moves] == ["b7c8r"]
    assert [(m.uci(), en) for m, en in session.state().corrections] == [("b7a8r", "bxa8=R")]
    correct(session, "b7a8r", table.t)
    assert [m.uci() for m in session.game.moves] == ["b7a8r"]
    assert [(m.uci(), en) for m, en in session.state().corrections] == [("b7c8r", "bxc8=R+")]
