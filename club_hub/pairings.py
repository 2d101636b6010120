"""The round's pairing file (CSV: board, white, black, optional round) read into pairings (pure)."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from club_wire.message import MAX_NAME
from club_wire.topics import NAME


class PairingError(ValueError):
    """A pairing file the hub cannot use; the message names the line."""


@dataclass(frozen=True)
class Pairing:
    board: str
    white: str
    black: str
    round: str | None = None


def parse_pairings(text: str, source: str = "pairings") -> list[Pairing]:
    """The pairings of a CSV text; a first line starting with "board" is a header.

    >>> parse_pairings("board,white,black,round\\n1,Ada,Bo,3\\n2, Cy ,Di\\n")
    [Pairing(board='1', white='Ada', black='Bo', round='3'), Pairing(board='2', white='Cy', black='Di', round=None)]
    """
    found: list[Pairing] = []
    seen: set[str] = set()
    for number, row in enumerate(csv.reader(io.StringIO(text)), 1):
        cells = [c.strip() for c in row]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if number == 1 and cells[0].lower() == "board":
            continue
        if len(cells) not in (3, 4):
            raise PairingError(f"{source}, line {number}: expected board, white, black and an optional round")
        board, white, black = cells[:3]
        if not NAME.fullmatch(board):
            raise PairingError(f"{source}, line {number}: board {board!r}: letters, digits, - and _ only")
        if board in seen:
            raise PairingError(f"{source}, line {number}: board {board} is paired twice")
        for name in (white, black):
            if not name or len(name) > MAX_NAME or not name.isprintable():
                raise PairingError(f"{source}, line {number}: a player's name is 1 to {MAX_NAME} characters")
        seen.add(board)
        found.append(Pairing(board, white, black, (cells[3] if len(cells) == 4 else "") or None))
    return found
