"""The rules of chess and everything else that is pure: positions, moves, notation, outcomes, clock, PGN."""
from .fen import FenError
from .game import RULE_PROFILES, DrawClaimError, Game, GameOverError, material_can_mate
from .move import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, Move
from .notation import detect_language, parse_move, parse_san, parse_uci, san
from .outcome import Outcome, Termination
from .perft import divide, perft
from .piece import Piece
from .position import STARTING_FEN, Position
from .squares import (BB_SQUARES, BISHOP, BLACK, COLORS, KING, KNIGHT, PAWN, PIECE_TYPES, QUEEN, ROOK,
                      SQUARE_NAMES, WHITE, parse_square, scan_squares, square, square_file, square_name,
                      square_rank)
from .clock import (Clock, ClockError, ClockFormatError, FlagReason, format_clock, format_pgn_clk,
                    parse_pgn_clk)
from .timecontrol import UNTIMED, Period, TimeControl, TimeControlError
from .pgn import PgnError, PgnGame, read_game, read_games, read_pgn, write_pgn
from .dead import Mateability, MateVerdict, can_mate, can_possibly_mate, is_dead

__all__ = ["FenError", "RULE_PROFILES", "DrawClaimError", "Game", "GameOverError", "material_can_mate",
           "AmbiguousMoveError", "IllegalMoveError", "InvalidMoveError", "Move", "detect_language",
           "parse_move", "parse_san", "parse_uci", "san", "Outcome", "Termination", "divide", "perft",
           "Piece", "STARTING_FEN", "Position", "BB_SQUARES", "BISHOP", "BLACK", "COLORS", "KING", "KNIGHT",
           "PAWN", "PIECE_TYPES", "QUEEN", "ROOK", "SQUARE_NAMES", "WHITE", "parse_square", "scan_squares",
           "square", "square_file", "square_name", "square_rank", "Clock", "ClockError", "ClockFormatError",
           "FlagReason", "format_clock", "format_pgn_clk", "parse_pgn_clk", "UNTIMED", "Period",
           "TimeControl", "TimeControlError", "PgnError", "PgnGame", "read_game", "read_games", "read_pgn",
           "write_pgn", "Mateability", "MateVerdict", "can_mate", "can_possibly_mate", "is_dead"]
