"""Perft: count the leaf nodes of the legal move tree, the standard proof of a move generator."""
from __future__ import annotations

from .move import decode
from .position import Position


def perft(pos: Position, depth: int, bulk: bool = True) -> int:
    """Number of leaf nodes ``depth`` plies below ``pos``.

    ``bulk`` counts the last ply's legal moves without playing them (the usual perft); without
    it every leaf is made and unmade, which also exercises make/unmake on every move.
    """
    if depth <= 0:
        return 1
    if depth == 1:
        if bulk:
            return pos.count_legal()
        nodes = 0
        for code in pos.legal_codes():
            pos.make(code)
            pos.unmake()
            nodes += 1
        return nodes
    return _walk(pos, depth, bulk)


def _walk(pos: Position, depth: int, bulk: bool) -> int:
    make, unmake, legal = pos.make, pos.unmake, pos.legal_codes
    nodes = 0
    if depth == 2 and bulk:
        count = pos.count_legal
        for code in legal():
            make(code)
            nodes += count()
            unmake()
        return nodes
    for code in legal():
        make(code)
        nodes += _walk(pos, depth - 1, bulk) if depth > 2 else perft(pos, 1, bulk)
        unmake()
    return nodes


def divide(pos: Position, depth: int, bulk: bool = True) -> dict[str, int]:
    """Perft split by first move, keyed by UCI."""
    result = {}
    for code in pos.legal_codes():
        pos.make(code)
        result[decode(code).uci()] = perft(pos, depth - 1, bulk)
        pos.unmake()
    return result
