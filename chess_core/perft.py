"""Perft: count the leaf nodes of the legal move tree, the standard proof of a move generator."""
from __future__ import annotations

from .move import decode
from .position import Position


def perft(pos: Position, depth: int) -> int:
    """Number of leaf nodes ``depth`` plies below ``pos`` (every leaf made and unmade)."""
    if depth <= 0:
        return 1
    make, unmake = pos.make, pos.unmake
    nodes = 0
    if depth == 1:
        for code in pos.legal_codes():
            make(code)
            unmake()
            nodes += 1
        return nodes
    for code in pos.legal_codes():
        make(code)
        nodes += perft(pos, depth - 1)
        unmake()
    return nodes


def divide(pos: Position, depth: int) -> dict[str, int]:
    """Perft split by first move, keyed by UCI."""
    result = {}
    for code in pos.legal_codes():
        pos.make(code)
        result[decode(code).uci()] = perft(pos, depth - 1)
        pos.unmake()
    return result
