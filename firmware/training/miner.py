"""The puzzle miner: positions of engine games where, after the opponent's mistake, one move alone wins, with the solution, its themes and a difficulty.

The method is lichess-puzzler's (github.com/ornicar/lichess-puzzler, ``generator/generator.py``
and ``generator/util.py``; read, not copied: it is AGPL), rewritten on our own ``uci`` client
and ``chess_core``, with node budgets a Raspberry Pi or one core can afford instead of its
25 million nodes a move:

* **Winning chances** of a score from the solver's side: Lichess's ``2 / (1 + exp(-0.00368208 *
  cp)) - 1`` (``firmware.analysis.judgement.winning_chances``, as lichess-puzzler's
  ``win_chances``), a mate counted +1 for the side that mates, -1 for the other.
* **Candidates** (``analyze_position``): every position of the game, searched to ``scan_nodes``
  (500 for the shipped file: the scan is most of the work), each score raised to the next
  position's when the game's own next move did better for the side to move there (a short
  search misses the tactic the game then played); the side to move is the would-be solver.
  Left out: fewer than two legal moves; a position that was already better than +300 cp for the
  solver before the opponent's move, unless it is now a mate within ``MATE_SOON`` (15) moves;
  the solver already up in material (pawn 1, knight and bishop 3, rook 5, queen 9); a position
  met before in the game, or one where a king and rook stand at home without the right to
  castle (the solver could not tell from the board). A mate within 15 is probed as a mate;
  otherwise a score of at least +200 cp whose winning chances rose by more than 0.6 over the
  position before the blunder is probed as an advantage, unless it is below +400 cp and the
  solver is not down in material. The scan of a game stops once one side has been 1000 cp
  ahead for 8 plies (ours: what follows is the winner's, up in material, left out anyway).
* **The only move** (``is_valid_attack``): at each of the solver's turns the engine searches
  ``pair_nodes`` with MultiPV 2; the best move is the solution's only if there is no second
  move, or the best move's winning chances exceed the second's by more than 0.7, or the best
  is a mate in one and the second's winning chances are at most 0.6 (a second mate in one is
  refused here, where Lichess would count it: on the board one move is the answer).
* **The solution**: a mate is followed to the checkmate, every solver move a mate within 15 and
  the only move, every reply the engine's best (``reply_nodes``); any failure drops the puzzle.
  An advantage is followed while the solver's best move is the only move; any position in the
  line worse than +200 cp for the solver, or a repetition, drops the puzzle; the line is then
  cut back to end with a solver move that had an alternative (a forced last move is no
  exercise), and a puzzle of a single move is dropped (one-movers are mates only, as Lichess).
  At most ``MAX_SOLVER_MOVES`` solver moves.
* **Scouting** (ours, for speed): the line is first searched at ``scout_pair_nodes`` and
  ``scout_reply_nodes``, and only a puzzle there is searched again at the full budgets, where
  every rule above is checked anew: scouting can lose a puzzle, never let a wrong one in.
* **Difficulty** (ours): while the engine searches each solver move (from an empty hash, after
  ``ucinewgame``), the depth from which its main line's first move stays the solution's is that
  move's depth: a move seen at depth 1 is a capture anyone sees; one that needs depth 9 is
  deep. ``estimate_rating``: 600 + 150 x (the deepest move's depth - 1) + 75 x each other
  move's depth + 250 x each solver move after the first + 200 when the first move is quiet
  (neither a capture nor a check), within 600..2600: a mate in one seen at depth 1 is 600, two
  moves at depths 1 and 1 925, at depths 6 and 1 1675.
* **Games** (``play_game``): Stockfish against itself, each side with a Skill Level (0..20),
  nodes a move (25..3200) and a chance of a random move (a "slip", 0..20 %) drawn from a seeded
  generator, the first move of each side at random; Stockfish's Skill Level draws its own
  random numbers, so a seed fixes the strengths and our random moves, not the whole games.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from chess_core import BISHOP, BLACK, KNIGHT, PAWN, QUEEN, ROOK, WHITE, Game, Move, Position
from uci.engine import BestMove, SearchLimit, UciEngine

from firmware.analysis.judgement import Score, winning_chances
from firmware.training.puzzles import Puzzle, puzzle_id
from firmware.training.themes import themes

__all__ = ["MineLimits", "Miner", "MineStats", "Candidate", "win_chances", "is_only_move", "candidate_kind",
           "estimate_rating", "is_quiet", "settle_depth", "material_diff", "refined", "castling_hidden",
           "play_game", "GameSettings", "MATE_SOON", "NODE_STEPS", "SLIPS"]

MATE_SOON = 15                  # generator.py mate_soon = Mate(15)
ALREADY_WINNING_CP = 300        # prev_score > Cp(300): too much of a winning position to start with
ADVANTAGE_CP = 200              # score >= Cp(200) to probe, and every position of the line above it
CLEARLY_WINNING_CP = 400        # below it, an advantage is probed only from being down in material
JUMP = 0.6                      # winning chances must rise by more than this over the position before
ONLY_MOVE_GAP = 0.7             # is_valid_attack: best's winning chances > second's + 0.7
MATE_IN_ONE_SECOND = 0.6        # is_valid_mate_in_one: the second's winning chances at most this
MAX_SOLVER_MOVES = 6
DECIDED_CP = 1000                # the scan ends once one side has been this far ahead ...
DECIDED_PLIES = 8               # ... for so many plies: the rest is the winner's (up in material, left out)
START_SCORE_CP = 20             # analyze_game's prev_score before the first move
MIN_RATING, MAX_RATING = 600, 2600
VALUES = {PAWN: 1, KNIGHT: 3, BISHOP: 3, ROOK: 5, QUEEN: 9}


@dataclass(frozen=True)
class MineLimits:
    """The node budgets of the miner's searches (one thread)."""

    scan_nodes: int = 500         # each position of a game, to find candidates (the shipped file's)
    pair_nodes: int = 400_000     # each solver move, MultiPV 2
    reply_nodes: int = 200_000    # each opponent reply
    scout_pair_nodes: int = 20_000    # the line searched at these first: only a puzzle there is searched again
    scout_reply_nodes: int = 10_000   # at the full budgets (0: no scouting)


@dataclass
class MineStats:
    """What the miner did: positions scanned, candidates probed, puzzles found, searches made."""

    games: int = 0
    positions: int = 0
    candidates: int = 0
    puzzles: int = 0
    searches: int = 0
    nodes: int = 0
    refused: dict[str, int] = field(default_factory=dict)

    def refuse(self, why: str) -> None:
        self.refused[why] = self.refused.get(why, 0) + 1


def _pov(score: Score, side: int) -> float:
    """A score as one number from ``side``'s view, mates beyond any centipawns (for comparisons)."""
    if score.mate is not None:
        if score.mate == 0:
            value = -100_000.0 if score.mated == side else 100_000.0
        else:
            value = (100_000.0 - abs(score.mate)) * (1 if score.mate > 0 else -1)
            value = value if side == WHITE else -value
        return value
    assert score.cp is not None
    return float(score.cp if side == WHITE else -score.cp)


def win_chances(score: Score, side: int) -> float:
    """Lichess's winning chances of ``score`` (White's side) for ``side``: a mate is ±1."""
    if score.mate is not None:
        return 1.0 if _pov(score, side) > 0 else -1.0
    assert score.cp is not None
    return winning_chances(score.cp if side == WHITE else -score.cp)


def mate_for(score: Score, side: int) -> int | None:
    """The moves to mate ``side`` has in ``score`` (0: the opponent is checkmated), else None."""
    if score.mate is None or _pov(score, side) < 0:
        return None
    return abs(score.mate)


def is_only_move(best: Score, second: Score | None, side: int) -> bool:
    """Whether the best move is the only one that keeps ``side``'s win (lichess-puzzler's
    ``is_valid_attack``, a second mate in one refused)."""
    if second is None:
        return True
    if mate_for(best, side) == 1:
        return mate_for(second, side) is None and win_chances(second, side) <= MATE_IN_ONE_SECOND
    return win_chances(best, side) > win_chances(second, side) + ONLY_MOVE_GAP


def material_diff(pos: Position, side: int) -> int:
    """``side``'s material less the other's, in pawns (1, 3, 3, 5, 9)."""
    return sum(value * (bin(pos.pieces(kind, side)).count("1") - bin(pos.pieces(kind, side ^ 1)).count("1"))
               for kind, value in VALUES.items())


def candidate_kind(prev: Score, score: Score, side: int, pos: Position) -> str | None:
    """"mate", "advantage" or None: whether the position (``side`` to move, ``score`` now,
    ``prev`` before the opponent's move, both White's side) is worth probing."""
    now = _pov(score, side)
    mate = mate_for(score, side)
    soon = mate is not None and 0 < mate < MATE_SOON
    if _pov(prev, side) > ALREADY_WINNING_CP and not soon:
        return None
    if material_diff(pos, side) > 0:
        return None
    if soon:
        return "mate"
    if now >= ADVANTAGE_CP and win_chances(score, side) > win_chances(prev, side) + JUMP:
        if now < CLEARLY_WINNING_CP and material_diff(pos, side) > -1:
            return None
        return "advantage"
    return None


def settle_depth(reports: Sequence[tuple[int, str]], move: str) -> int:
    """The depth from which the main line's first move stays ``move``, from the (depth, first
    move) of each report of a search in order; one more than the deepest when it never does."""
    settled = None
    for depth, first in reports:
        if first == move:
            if settled is None:
                settled = depth
        else:
            settled = None
    if settled is not None:
        return max(1, settled)
    return (max((d for d, _ in reports), default=0)) + 1


def estimate_rating(depths: Sequence[int], quiet: bool = False) -> int:
    """The difficulty of a puzzle from the depth at which each solver move was settled, and
    whether its first move is quiet (neither a capture nor a check: harder to look for)."""
    if not depths:
        return MIN_RATING
    deepest = max(depths)
    rest = sum(depths) - deepest
    rating = MIN_RATING + 150 * (deepest - 1) + 75 * rest + 250 * (len(depths) - 1) + (200 if quiet else 0)
    return max(MIN_RATING, min(MAX_RATING, rating))


def is_quiet(fen: str, move: str) -> bool:
    """Whether ``move`` is neither a capture nor a check in ``fen``."""
    pos = Position(fen)
    found = Move.from_uci(move)
    return not pos.is_capture(found) and not pos.gives_check(found)


def refined(scores: Sequence[Score], first_mover: int) -> list[Score]:
    """The scan's scores (White's side) after each move, the first made by ``first_mover``, each
    raised to the next one's where the side to move there did better by the game's own next move:
    a short search may miss the tactic the game then played, never the other way round."""
    out = list(scores)
    for i in range(len(scores) - 1):
        side = first_mover ^ 1 ^ (i & 1)       # to move after move i
        if _pov(scores[i + 1], side) > _pov(scores[i], side):
            out[i] = scores[i + 1]
    return out


def _score(info: Mapping[str, str], turn: int) -> Score | None:
    words = info.get("score", "").split()
    if len(words) != 2 or not words[1].lstrip("-").isdigit():
        return None
    return Score.from_mover(words[0], int(words[1]), turn)


def _first(info: Mapping[str, str]) -> str | None:
    pv = info.get("pv", "").split()
    return pv[0] if pv else None


def castling_hidden(pos: Position) -> bool:
    """A king and a rook at home without the right to castle on that side: the board cannot show it."""
    fen = pos.fen().split()
    rights = fen[2]
    for side, rank, letters in ((WHITE, 0, "KQ"), (BLACK, 7, "kq")):
        if pos.king[side] != 4 + 8 * rank:
            continue
        for rook_file, right in ((7, letters[0]), (0, letters[1])):
            if pos.pieces(ROOK, side) >> (rook_file + 8 * rank) & 1 and right not in rights:
                return True
    return False


@dataclass(frozen=True)
class Candidate:
    """A position to probe: ``before`` the blunder, ``blunder`` (UCI), the kind, where it was found."""

    before: str
    blunder: str
    kind: str
    source: str
    history: tuple[tuple[int, ...], ...] = ()   # repetition keys of the game up to the puzzle


class Miner:
    """Finds puzzles with one engine (started and closed by the caller); pure rules above."""

    def __init__(self, engine: UciEngine, limits: MineLimits = MineLimits(),
                 stats: MineStats | None = None) -> None:
        self.engine = engine
        self.limits = limits
        self.stats = stats or MineStats()
        self.seen: set[str] = set()
        self._multipv = 0

    async def _multi(self, count: int) -> None:
        if self._multipv != count:
            await self.engine.set_option("MultiPV", count)
            self._multipv = count

    async def _search(self, fen: str, nodes: int, lines: int,
                      on_info: Callable[[Mapping[str, str]], None] | None = None) -> BestMove:
        await self._multi(lines)
        found = await self.engine.play(fen, [], SearchLimit(nodes=nodes), on_info=on_info)
        self.stats.searches += 1
        self.stats.nodes += int(found.info.get("nodes", "0") or 0)
        return found

    async def evaluate(self, fen: str, nodes: int) -> Score | None:
        """The score of a position (White's side): a checkmate or 0 when it has no legal move, None
        when the engine gave no score."""
        pos = Position(fen)
        if not pos.has_legal_move():
            return Score.checkmated(pos.turn) if pos.is_check() else Score(cp=0)
        found = await self._search(fen, nodes, 1)
        return _score(found.info, pos.turn)

    async def candidates(self, start_fen: str, moves: Sequence[Move], source: str) -> list[Candidate]:
        """The positions of a game worth probing (the scan)."""
        await self.engine.new_game()
        pos = Position(start_fen)
        history = [pos.repetition_key()]
        seen_boards: set[str] = set()
        lopsided = 0
        plies: list[tuple[int, str, Score, bool]] = []   # ply, the FEN before its move, the score after, a candidate
        for ply, move in enumerate(moves, 1):
            before = pos.fen()
            pos.push(move)
            history.append(pos.repetition_key())
            board = " ".join(pos.fen().split()[:4])
            fresh = board not in seen_boards
            seen_boards.add(board)
            score = await self.evaluate(pos.fen(), self.limits.scan_nodes)
            self.stats.positions += 1
            if score is None:
                break
            lopsided = lopsided + 1 if abs(_pov(score, WHITE)) >= DECIDED_CP and (
                not plies or (_pov(score, WHITE) > 0) == (_pov(plies[-1][2], WHITE) > 0)) else 0
            if lopsided > DECIDED_PLIES:
                break
            plies.append((ply, before, score, fresh and pos.count_legal() >= 2 and not castling_hidden(pos)))
        scores = refined([score for _, _, score, _ in plies], Position(start_fen).turn)
        found = []
        prev = Score(cp=START_SCORE_CP)
        for (ply, before, _, open_), score in zip(plies, scores):
            if open_:
                pos = Position(before)
                move = moves[ply - 1]
                pos.push(move)
                kind = candidate_kind(prev, score, pos.turn, pos)
                if kind is not None:
                    found.append(Candidate(before, move.uci(), kind, f"{source} ply {ply}", tuple(history[:ply + 1])))
            prev = score
        return found

    async def probe(self, candidate: Candidate) -> Puzzle | None:
        """The puzzle at ``candidate``, or None when its solution fails the rules."""
        pos = Position(candidate.before)
        pos.push(Move.from_uci(candidate.blunder))
        fen = pos.fen()
        board = " ".join(fen.split()[:4])
        if board in self.seen:
            self.stats.refuse("seen")
            return None
        self.seen.add(board)
        self.stats.candidates += 1
        limits = self.limits
        if limits.scout_pair_nodes and await self._line(candidate, limits.scout_pair_nodes,
                                                        limits.scout_reply_nodes, "scout: ") is None:
            return None
        found = await self._line(candidate, limits.pair_nodes, limits.reply_nodes)
        if found is not None:
            self.stats.puzzles += 1
        return found

    async def _line(self, candidate: Candidate, pair_nodes: int, reply_nodes: int, tag: str = "") -> Puzzle | None:
        """The solution from ``candidate`` searched at so many nodes, or None when it fails the rules."""
        pos = Position(candidate.before)
        pos.push(Move.from_uci(candidate.blunder))
        fen = pos.fen()
        await self.engine.new_game()
        solver = pos.turn
        keys = list(candidate.history)
        solution: list[str] = []
        alternatives: list[bool] = []
        depths: list[int] = []
        while len(solution) < 2 * MAX_SOLVER_MOVES:
            if not pos.has_legal_move():
                break
            if pos.turn == solver:
                reports: list[tuple[int, str]] = []

                def note(info: Mapping[str, str]) -> None:
                    first = _first(info)
                    if info.get("multipv", "1") == "1" and first and info.get("depth", "").isdigit():
                        reports.append((int(info["depth"]), first))

                found = await self._search(pos.fen(), pair_nodes, 2, note)
                if found.move is None or not found.lines:
                    break
                best = _score(found.lines[0], pos.turn)
                second = _score(found.lines[1], pos.turn) if len(found.lines) > 1 else None
                if best is None:
                    break
                if candidate.kind == "mate":
                    mate = mate_for(best, solver)
                    if mate is None or mate > MATE_SOON or not is_only_move(best, second, solver):
                        self.stats.refuse(tag + "mate: not the only mate")
                        return None
                else:
                    if not is_only_move(best, second, solver):
                        break
                    if _pov(best, solver) < ADVANTAGE_CP:
                        self.stats.refuse(tag + "advantage: not winning enough")
                        return None
                move = found.move
                alternatives.append(second is not None)
                depths.append(settle_depth(reports, move.uci()))
            else:
                found = await self._search(pos.fen(), reply_nodes, 1)
                if found.move is None:
                    break
                best = _score(found.info, pos.turn)
                if candidate.kind == "advantage" and (best is None or _pov(best, solver) < ADVANTAGE_CP):
                    self.stats.refuse(tag + "advantage: not winning enough")
                    return None
                move = found.move
            pos.push(move)
            solution.append(move.uci())
            key = pos.repetition_key()
            if key in keys:
                self.stats.refuse(tag + "repetition")
                return None
            keys.append(key)
        if candidate.kind == "mate":
            if not pos.is_checkmate():
                self.stats.refuse(tag + "mate: no checkmate")
                return None
        else:
            while solution and (len(solution) % 2 == 0 or not alternatives[(len(solution) - 1) // 2]):
                solution.pop()
            if len(solution) <= 1:
                self.stats.refuse(tag + "advantage: one move")
                return None
        kept = depths[:(len(solution) + 1) // 2]
        return Puzzle(id=puzzle_id(fen, candidate.blunder), fen=fen, blunder=candidate.blunder,
                      solution=tuple(solution), themes=themes(fen, solution, candidate.before, candidate.blunder),
                      rating=estimate_rating(kept, is_quiet(fen, solution[0])), source=candidate.source, before=candidate.before,
                      depths=tuple(kept))

    async def mine(self, start_fen: str, moves: Sequence[Move], source: str) -> list[Puzzle]:
        """Every puzzle of a game."""
        self.stats.games += 1
        found = []
        for candidate in await self.candidates(start_fen, moves, source):
            puzzle = await self.probe(candidate)
            if puzzle is not None:
                found.append(puzzle)
        return found


NODE_STEPS = (25, 50, 100, 200, 400, 800, 1600, 3200, 6400)   # a move's nodes: a side's strength
SLIPS = (0.0, 0.02, 0.04, 0.06, 0.08, 0.12, 0.16, 0.2)    # the chance that a side's move is one at random (a slip of the hand)


@dataclass(frozen=True)
class GameSettings:
    """One engine game: each side's Skill Level, nodes a move and chance of a random move (a
    slip), the seed of the first moves and of the slips."""

    skills: tuple[int, int]
    nodes: tuple[int, int]
    seed: int
    slips: tuple[float, float] = (0.0, 0.0)
    max_plies: int = 200

    @classmethod
    def draw(cls, rng: random.Random, max_nodes: int, skills: tuple[int, int] = (0, 20),
             max_slip: float = max(SLIPS)) -> "GameSettings":
        """Strengths at random: a Skill Level within ``skills``, nodes a move among
        ``NODE_STEPS`` up to ``max_nodes`` and a chance of slips among ``SLIPS`` up to
        ``max_slip``, for each side."""
        steps = [n for n in NODE_STEPS if n <= max_nodes] or [max_nodes]
        slips = [p for p in SLIPS if p <= max_slip]
        return cls((rng.randint(*skills), rng.randint(*skills)),
                   (rng.choice(steps), rng.choice(steps)), rng.randrange(1 << 30),
                   (rng.choice(slips), rng.choice(slips)))


async def play_game(engine: UciEngine, settings: GameSettings) -> Game:
    """Stockfish against itself at ``settings``: the first move of each side at random (the
    settings' seed), then the engine at each side's Skill Level and nodes, but for its slips
    (a move at random), to the end or ``max_plies``;
    a threefold repetition or fifty moves end it as a draw."""
    rng = random.Random(settings.seed)
    game = Game()
    await engine.new_game()
    while not game.is_over and len(game.moves) < settings.max_plies:
        if len(game.moves) < 2 or rng.random() < settings.slips[game.turn]:
            move = rng.choice(game.position.legal_moves())
        else:
            await engine.set_option("Skill Level", settings.skills[game.turn])
            found = await engine.play(game.start_fen, game.moves, SearchLimit(nodes=settings.nodes[game.turn]))
            if found.move is None:
                break
            move = found.move
        game.push(move)
        if not game.is_over and game.claimable_draws():
            game.claim_draw()
    return game
