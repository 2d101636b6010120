"""chess_core against python-chess (the test-only oracle) on positions reached by biased random play.

Random play alone rarely castles, takes en passant or under-promotes, and almost never repeats
a position; so the move choice leans toward those moves when they are available, some games
shuffle pieces back and forth, and some games start from positions set up for them.
"""
from __future__ import annotations

import random

import pytest

chess = pytest.importorskip("chess")

from chess_core import Game, Move, Position, Termination, parse_san, san  # noqa: E402

SEED = 20240611
MIN_POSITIONS = 10_000
MAX_PLIES = 120

START_FENS = [
    chess.STARTING_FEN,
    # Kiwipete and friends: castling both ways, en passant, pins, promotions.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    # Castling with attackers about.
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "r3k2r/1b4b1/8/8/8/8/1B4B1/R3K2R w KQkq - 0 1",
    "rn2k2r/8/8/8/8/8/8/R3K1NR b KQkq - 0 1",
    # Pawns about to promote, with pieces to take on the last rank.
    "1n2k1r1/PPP3PP/8/8/8/8/ppp3pp/1N2K1R1 w - - 0 1",
    "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1",
    "r1n1k3/1P1P4/8/8/8/8/1p1p4/R1N2K2 b - - 0 1",
    # En passant ready, including pinned pawns and rank pins.
    "4k3/pppppppp/8/1P1P1P1P/P1P1P1P1/8/8/4K3 b - - 0 1",
    "4k3/8/8/8/1p1p1p1p/p1p1p1p1/PPPPPPPP/4K3 w - - 0 1",
    "4k3/pppppppp/8/P1P1P1P1/1P1P1P1P/8/8/4K3 b - - 0 1",
    "4k3/8/8/p1p1p1p1/1p1p1p1p/8/PPPPPPPP/4K3 w - - 0 1",
    "r3k2r/p1p1p1p1/8/1P1P1P1P/p1p1p1p1/8/1P1P1P1P/R3K2R w KQkq - 0 1",
    "8/8/8/K2pP2q/8/8/8/7k w - d6 0 2",
    "8/8/8/8/k2Pp2Q/8/8/K7 b - d3 0 1",
    "4k3/8/8/2PpP3/8/8/8/4K2b w - d6 0 2",
    # Long quiet endgames for the fifty- and seventy-five-move rules and repetitions.
    "8/8/3k4/8/8/3K4/2R5/5r2 w - - 140 120",
    "8/5k2/8/3n4/8/2B5/5K2/8 w - - 145 150",
    "4k3/8/8/8/8/8/8/R3K2R w KQ - 96 80",
    "r3k3/8/8/4n3/8/8/8/4KB1R w - - 90 70",
    # Stalemate now or soon.
    "7k/8/6Q1/8/8/8/8/K7 b - - 0 60",
    "k7/8/1QK5/8/8/8/8/8 w - - 0 60",
    "7k/5K2/8/6P1/8/8/8/8 w - - 0 60",
    "5k2/5P2/5K2/8/8/8/8/8 b - - 0 70",
]


def _kind(board: "chess.Board", move: "chess.Move") -> str:
    """The moves random play seldom picks but the rules are hardest on, by kind ("" for others)."""
    if move.promotion:
        return "promotion"
    if board.is_castling(move):
        return "castling"
    if board.is_en_passant(move):
        return "en passant"
    # A double push landing beside an enemy pawn makes en passant possible next move.
    if board.piece_type_at(move.from_square) == chess.PAWN and abs(move.to_square - move.from_square) == 16:
        bit = chess.BB_SQUARES[move.to_square]
        beside = ((bit << 1) & ~chess.BB_FILE_A) | ((bit >> 1) & ~chess.BB_FILE_H)
        if beside & board.pieces_mask(chess.PAWN, not board.turn):
            return "double push"
    if board.castling_rights & chess.BB_RANKS[0 if board.turn else 7] and board.piece_type_at(
            move.from_square) in (chess.KING, chess.ROOK):
        return "spoils castling"
    return ""


# How often a move of each kind is chosen when one is available. Castling is taken only now and
# then so that positions where it is legal keep coming; moves that lose the right are shunned.
_PREFERENCE = (("en passant", 0.8), ("double push", 0.7), ("promotion", 0.7), ("castling", 0.25))


def _choose(rng: random.Random, board: "chess.Board", moves: list, shuffle: bool) -> "chess.Move":
    kinds: dict = {}
    for move in moves:
        kinds.setdefault(_kind(board, move), []).append(move)
    for kind, chance in _PREFERENCE:
        if kind in kinds and rng.random() < chance:
            return rng.choice(kinds[kind])
    if shuffle and len(board.move_stack) >= 2 and rng.random() < 0.85:
        # Undo our own previous move when we can: positions come back, repetitions happen.
        last = board.move_stack[-2]
        back = chess.Move(last.to_square, last.from_square)
        if back in moves:
            return back
    if "spoils castling" in kinds and len(kinds) > 1 and rng.random() < 0.9:
        moves = [m for m in moves if _kind(board, m) != "spoils castling"]
    return rng.choice(moves)


def _key_verdicts(board: "chess.Board") -> tuple:
    outcome = board.outcome()
    return (board.is_check(), board.is_checkmate(), board.is_stalemate(), board.is_insufficient_material(),
            board.is_repetition(3), board.is_fivefold_repetition(), board.is_seventyfive_moves(),
            outcome and outcome.termination.name, outcome and outcome.result())


def _our_verdicts(pos: Position, game: Game) -> tuple:
    outcome = game.outcome
    termination = outcome and outcome.termination.name
    if termination == "INSUFFICIENT_MATERIAL" and pos.is_stalemate():
        termination = "STALEMATE"  # both are draws; python-chess names the dead position first
    if termination == "STALEMATE" and pos.is_insufficient_material():
        termination = "INSUFFICIENT_MATERIAL"
    return (pos.is_check(), pos.is_checkmate(), pos.is_stalemate(), pos.is_insufficient_material(),
            game.repetition_count() >= 3, game.repetition_count() >= 5,
            pos.halfmove_clock >= 150 and bool(pos.legal_codes()),
            termination, outcome and outcome.result())


def _check_position(board: "chess.Board", game: Game, stats: dict, read_back: str) -> None:
    """Compare everything about one position; ``read_back`` ("en", "fr" or "") also parses every
    move's SAN in that language back to the move (alternating keeps the whole run fast)."""
    pos = game.position
    fen = board.fen()
    assert pos.fen() == fen
    assert Position(fen).fen() == fen
    theirs = {m.uci(): m for m in board.legal_moves}
    ours = {m.uci(): m for m in pos.legal_moves()}
    assert sorted(ours) == sorted(theirs), fen
    assert _our_verdicts(pos, game) == _key_verdicts(board), fen
    for uci, move in ours.items():
        text = san(pos, move)
        assert text == board.san(theirs[uci]), (fen, uci)
        if read_back == "en":
            assert parse_san(pos, text, "en") == move, (fen, text)
        elif read_back == "fr":
            text_fr = san(pos, move, "fr")
            assert parse_san(pos, text_fr, "fr") == move, (fen, text_fr)
        stats["moves"] += 1
        if move.promotion:
            stats["promotion" if move.promotion == chess.QUEEN else "under-promotion"] += 1
        elif pos.is_castling(move):
            stats["castling"] += 1
        elif pos.is_en_passant(move):
            stats["en passant"] += 1
    stats["positions"] += 1
    if read_back:
        stats["read back in " + read_back] += 1


def _play_games(rng: random.Random, stats: dict, keys: dict) -> None:
    game_number = 0
    while stats["positions"] < MIN_POSITIONS:
        fen = START_FENS[game_number % len(START_FENS)]
        shuffle = game_number % 4 == 3
        game_number += 1
        board = chess.Board(fen)
        game = Game(fen)
        ours_to_theirs: dict = {}
        theirs_to_ours: dict = {}
        for ply in range(MAX_PLIES):
            _check_position(board, game, stats, read_back=("en", "", "fr", "")[ply % 4])
            # Our repetition keys and python-chess's transposition keys must partition alike.
            ours, theirs = game.position.repetition_key(), board._transposition_key()
            assert ours_to_theirs.setdefault(ours, theirs) == theirs, board.fen()
            assert theirs_to_ours.setdefault(theirs, ours) == ours, board.fen()
            if game.is_over:
                stats["ends: " + game.outcome.termination.name] += 1
                break
            move = _choose(rng, board, list(board.legal_moves), shuffle)
            game.push(Move.from_uci(move.uci()))
            board.push(move)
        keys["games"] = game_number


def test_chess_core_agrees_with_python_chess_on_ten_thousand_positions():
    from collections import Counter

    stats: Counter = Counter()
    keys: dict = {}
    _play_games(random.Random(SEED), stats, keys)
    assert stats["positions"] >= MIN_POSITIONS
    # The bias did its job: every special move was compared many times, and games ended every way.
    for kind in ("promotion", "under-promotion", "castling", "en passant"):
        assert stats[kind] >= 100, (kind, dict(stats))
    assert keys["games"] >= 80
    assert stats["read back in en"] >= 2000 and stats["read back in fr"] >= 2000
    for end in (Termination.CHECKMATE, Termination.STALEMATE, Termination.INSUFFICIENT_MATERIAL,
                Termination.FIVEFOLD_REPETITION, Termination.SEVENTYFIVE_MOVES):
        assert stats["ends: " + end.name] >= 1, (end, dict(stats))
    print(dict(stats), keys)
