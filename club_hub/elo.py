"""The club's rating list: FIDE's Elo formula and K factors, a player's history, CSV (pure).

FIDE Handbook B.02.8: a game counts 1 for a win, 1/2 for a draw, 0 for a loss; the expected
score is 1 / (1 + 10^(-D/400)) with the rating difference D counted as 400 at most; the change
is K x (score - expected), with K = 40 for a player until 30 games are rated, 20 while the
rating has stayed under 2400, and 10 once it has reached 2400 (for good). FIDE's K = 40 for
juniors under 2300 needs birth dates, which the club list does not hold. A player new to the
list starts at ``DEFAULT_RATING`` unless the club's own list (a CSV) says otherwise.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Iterable

DEFAULT_RATING = 1500.0
MAX_DIFFERENCE = 400
SCORES = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}


def expected_score(rating: float, opponent: float) -> float:
    """The expected score against ``opponent``.

    >>> round(expected_score(1600, 1500), 3), round(expected_score(2400, 1500), 3)
    (0.64, 0.909)
    """
    difference = max(-MAX_DIFFERENCE, min(MAX_DIFFERENCE, rating - opponent))
    return 1.0 / (1.0 + 10 ** (-difference / 400))


def k_factor(rating: float, games: int, peak: float) -> int:
    """FIDE's K for a player with ``games`` rated games and a ``peak`` rating.

    >>> k_factor(1500, 0, 1500), k_factor(1500, 30, 1500), k_factor(2350, 50, 2410)
    (40, 20, 10)
    """
    if games < 30:
        return 40
    if peak >= 2400 or rating >= 2400:
        return 10
    return 20


@dataclass
class Player:
    name: str
    rating: float = DEFAULT_RATING
    games: int = 0
    peak: float = DEFAULT_RATING
    wins: int = 0
    draws: int = 0
    losses: int = 0


@dataclass(frozen=True)
class Rated:
    """One player's line in the history: a game and what it did to the rating."""

    game: str
    player: str
    opponent: str
    colour: str
    result: str
    score: float
    before: float
    after: float
    k: int


@dataclass
class RatingList:
    players: dict[str, Player] = field(default_factory=dict)
    history: list[Rated] = field(default_factory=list)
    rated: set[str] = field(default_factory=set)     # the games already counted

    def player(self, name: str) -> Player:
        if name not in self.players:
            self.players[name] = Player(name)
        return self.players[name]

    def rate(self, game: str, white: str, black: str, result: str) -> tuple[Rated, Rated] | None:
        """Count a finished game once (``game`` names it); None if counted already or not rated."""
        if game in self.rated or result not in SCORES or white == black:
            return None
        self.rated.add(game)
        a, b = self.player(white), self.player(black)
        score_a, score_b = SCORES[result]
        ka, kb = k_factor(a.rating, a.games, a.peak), k_factor(b.rating, b.games, b.peak)
        new_a = a.rating + ka * (score_a - expected_score(a.rating, b.rating))
        new_b = b.rating + kb * (score_b - expected_score(b.rating, a.rating))
        lines = (Rated(game, a.name, b.name, "white", result, score_a, a.rating, new_a, ka),
                 Rated(game, b.name, a.name, "black", result, score_b, b.rating, new_b, kb))
        for p, new, score in ((a, new_a, score_a), (b, new_b, score_b)):
            p.rating, p.games, p.peak = new, p.games + 1, max(p.peak, new)
            p.wins += score == 1.0
            p.draws += score == 0.5
            p.losses += score == 0.0
        self.history.extend(lines)
        return lines

    def standings(self) -> list[Player]:
        return sorted(self.players.values(), key=lambda p: (-p.rating, p.name))

    def player_history(self, name: str) -> list[Rated]:
        return [r for r in self.history if r.player == name]

    def to_csv(self) -> str:
        """The list, best first: name, rating (rounded), games, wins, draws, losses, peak."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["name", "rating", "games", "wins", "draws", "losses", "peak"])
        for p in self.standings():
            writer.writerow([p.name, round(p.rating), p.games, p.wins, p.draws, p.losses, round(p.peak)])
        return out.getvalue()

    def history_csv(self, name: str) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["game", "colour", "opponent", "result", "score", "before", "after", "k"])
        for r in self.player_history(name):
            writer.writerow([r.game, r.colour, r.opponent, r.result, r.score, round(r.before, 1),
                             round(r.after, 1), r.k])
        return out.getvalue()

    def seed(self, rows: Iterable[dict]) -> None:
        """Players from the club's list (CSV rows with name, rating and optionally games)."""
        for row in rows:
            name = (row.get("name") or "").strip()
            if not name or name in self.players:
                continue
            rating = float(row.get("rating") or DEFAULT_RATING)
            games = int(row.get("games") or 0)
            self.players[name] = Player(name, rating, games, rating)

    def to_json(self) -> dict:
        return {"players": [vars(p) for p in self.players.values()],
                "history": [vars(r) for r in self.history], "rated": sorted(self.rated)}

    @classmethod
    def from_json(cls, data: dict) -> "RatingList":
        found = cls()
        for p in data.get("players", []):
            found.players[p["name"]] = Player(**p)
        found.history = [Rated(**r) for r in data.get("history", [])]
        found.rated = set(data.get("rated", []))
        return found
