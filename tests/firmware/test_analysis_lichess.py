"""The review and the analysed PGN against Lichess's own rules, read in lila's and scalachess's source, on evaluations given by hand."""
from __future__ import annotations

import io
import random

import chess
import chess.pgn

from chess_core import Move, read_game
from firmware.analysis.annotated import annotated_pgn
from firmware.analysis.engine import PositionEval
from firmware.analysis.judgement import BLACK, WHITE, Score, game_accuracy
from firmware.analysis.review import review
from firmware.openings import classify

FOOLS_MATE = '[Event "Club"]\n[White "Anna"]\n[Black "Ben"]\n[Result "0-1"]\n\n1. g4 e5 2. f3 Qh4# 0-1\n'
# A real game of 37 plies (Deep Blue - Kasparov, 1997, game 6): enough advices to fill lines.
DEEP_BLUE = """[Event "IBM Man-Machine, New York USA"]
[White "Deep Blue (Computer)"]
[Black "Kasparov, Garry"]
[Result "1-0"]

1. e4 c6 2. d4 d5 3. Nc3 dxe4 4. Nxe4 Nd7 5. Ng5 Ngf6 6. Bd3 e6 7. N1f3 h6
8. Nxe6 Qe7 9. O-O fxe6 10. Bg6+ Kd8 11. Bf4 b5 12. a4 Bb7 13. Re1 Nd5 14. Bg3 Kc8
15. axb5 cxb5 16. Qd3 Bc6 17. Bf5 exf5 18. Rxe7 Bxe7 19. c4 1-0
"""


def evals_for(pgn_text: str, scores: list[Score], seed: int = 1) -> list[PositionEval]:
    """Each position's given score, and as the engine's choice a legal move other than the one
    played (so that every move is judged), followed by a line of legal moves (python-chess)."""
    game = chess.pgn.read_game(io.StringIO(pgn_text))
    board = game.board()
    played = list(game.mainline_moves())
    rng = random.Random(seed)
    found = []
    for ply, score in enumerate(scores):
        if board.is_checkmate():
            found.append(PositionEval(score))
            break
        others = [m for m in board.legal_moves if ply == len(played) or m != played[ply]]
        line, probe = [], board.copy()
        for _ in range(14):
            moves = list(probe.legal_moves)
            if not moves:
                break
            move = others[0] if not line else rng.choice(moves)
            line.append(Move.from_uci(move.uci()))
            probe.push(move)
        found.append(PositionEval(score, line[0], tuple(line)))
        if ply < len(played):
            board.push(played[ply])
    return found


def test_a_checkmated_position_is_left_out_of_the_accuracy_as_lichess_leaves_it():
    """lila modules/fishnet/src/main/AnalysisBuilder.scala, ``makeInfos``: the evaluations are
    ``filterNot(_.exists(_.isCheckmate))`` before they become the analysis's infos, so the
    mating move has no info, and ``AccuracyPercent.gameAccuracy`` (modules/analyse/src/main/
    AccuracyPercent.scala) takes the centipawns of the infos alone."""
    scores = [Score(cp=20), Score(cp=-90), Score(cp=-80), Score(mate=-1), Score.checkmated(WHITE)]
    game = read_game(FOOLS_MATE)
    found = review(game.moves, evals_for(FOOLS_MATE, scores))
    lichess = game_accuracy(WHITE, [-90, -80, -1000])
    counted = game_accuracy(WHITE, [-90, -80, -1000, -1000])      # the checkmated position counted
    assert lichess is not None and counted is not None and lichess[BLACK] < counted[BLACK]
    assert found.accuracy == lichess
    # the checkmate itself still has its move, and its position its score (the page's graph)
    assert found.moves[-1].san == "Qh4#" and found.moves[-1].score == Score.checkmated(WHITE)


FEN_GAME = ('[Event "Endgame practice"]\n[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1"]\n[Result "0-1"]\n\n'
            '1. Kf1 Qd1+ 2. Kf2 Qd4+ 0-1\n')


def test_a_game_from_a_fen_is_judged_and_counted_from_the_evaluation_of_its_start():
    """Lichess judges the first move from +0.15 whatever the position (lila modules/tree/src/main/
    Analysis.scala: ``Info.start(startPly) :: infos``, Info.scala: ``Info.start`` is
    ``evals.initial``, +0.15) and counts the accuracy from it too (``Cp.initial``). Here the
    board differs, as review.py says: in a lost position a move that keeps the loss is no
    blunder; the first move is judged, and the accuracy counted, from the start's evaluation."""
    lost = -950
    scores = [Score(cp=lost), Score(cp=lost - 10), Score(cp=lost - 10), Score(cp=lost - 20), Score(cp=lost - 20)]
    game = read_game(FEN_GAME)
    found = review(game.moves, evals_for(FEN_GAME, scores), start_fen=game.game.start_fen)
    assert found.moves[0].before == Score(cp=lost) and found.moves[0].advice is None
    assert found.accuracy == game_accuracy(WHITE, [lost - 10, lost - 10, lost - 20, lost - 20], lost)
    assert found.accuracy is not None and found.accuracy[WHITE] > 90
    # from the usual start, Lichess's +0.15 for both
    usual = review(read_game(FOOLS_MATE).moves, evals_for(FOOLS_MATE, [Score(cp=300)] + [Score(cp=0)] * 2
                                                          + [Score(mate=-1), Score.checkmated(WHITE)]))
    assert usual.moves[0].before == Score(cp=15) and usual.accuracy == game_accuracy(WHITE, [0, 0, -1000])


def annotated(pgn_text: str, scores: list[Score]) -> tuple[str, chess.pgn.Game]:
    game = read_game(pgn_text)
    found = review(game.moves, evals_for(pgn_text, scores))
    text = annotated_pgn(game, found, annotator="Stockfish, depth 10", opening=classify(game.game))
    theirs = chess.pgn.read_game(io.StringIO(text))
    assert theirs is not None and not theirs.errors
    return text, theirs


def swinging(plies: int) -> list[Score]:
    """Evaluations that swing by pawns and mates, so that most moves get an advice."""
    found = []
    for ply in range(plies + 1):
        found.append(Score(mate=3 if ply % 2 else -2) if ply % 5 == 4 else Score(cp=(-1) ** ply * (150 + 37 * ply)))
    return found


def comments(game: chess.pgn.Game) -> list[str]:
    """Every comment of the game, its variations' included."""
    found, nodes = [], [game]
    while nodes:
        node = nodes.pop()
        found.append(node.comment)
        nodes.extend(node.variations)
    return [c for c in found if c]


def test_no_comment_is_cut_by_a_line_break():
    """scalachess core/src/main/scala/format/pgn/Pgn.scala (``Move.render``) writes each comment
    whole, ``{ text }``; a reader keeps a line break inside a comment (python-chess reads
    "Mate\\nin 1"), so a comment is never cut, however long: one longer than a line stands alone."""
    text, theirs = annotated(DEEP_BLUE, swinging(37))
    found = comments(theirs)
    assert sum("was best." in c for c in found) >= 20        # (long advices, wherever the lines end)
    assert all("\n" not in c for c in found), [c for c in found if "\n" in c]
    assert all(len(line) <= 80 or line.startswith("{ ") and line.endswith(" }") and line.count("{") == 1
               for line in text.split("\n\n", 1)[1].splitlines())


def test_the_opening_is_a_comment_after_the_move_that_reached_it():
    """lila modules/analyse/src/main/Annotator.scala, ``annotateOpening``: the move at the
    opening's ply gets ``s"${eco} ${name}"``, rendered by scalachess (Pgn.scala, ``Move.render``)
    as a comment after the move's own comments and its clock."""
    text, theirs = annotated(DEEP_BLUE, swinging(37))
    opening = classify(read_game(DEEP_BLUE).game)
    assert opening is not None and opening.ply > 0
    node = list(theirs.mainline())[opening.ply - 1]
    assert node.comment.endswith(f"{opening.eco} {opening.name}")
    assert sum(f"{opening.eco} {opening.name}" in c for c in comments(theirs)) == 1
    assert theirs.headers["ECO"] == opening.eco and theirs.headers["Opening"] == opening.name


def test_analysing_an_analysed_game_again_writes_the_same_file():
    text, _ = annotated(DEEP_BLUE, swinging(37))
    again, _ = annotated(text, swinging(37))
    assert again == text       # the former analysis's advice, evaluations and opening replaced, not repeated
