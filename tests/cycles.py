"""The cycles of a graph of imports, for the architecture tests of the Python package and of the page's modules."""
from __future__ import annotations

from typing import Callable, Mapping


def cycles(edges: Mapping[str, set[str] | list[str]], *,
           skip: Callable[[str, str], bool] = lambda node, nxt: False) -> list[list[str]]:
    """Every cycle a depth-first walk of ``edges`` meets, each as the path that closes it
    (``skip(node, nxt)``: an edge not to follow)."""
    state: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges[node]):
            if skip(node, nxt):
                continue
            if state.get(nxt) == 1:
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    return found
