"""A FEN from the command line: the position, or what is wrong with it and the option that reads it, only when one does."""
from __future__ import annotations


from chess_core import FenError, Position

VARIANT = "--variant chess960"
NO_VALIDATE = "--no-validate"
_WHY = {VARIANT: "", NO_VALIDATE: " to count it anyway"}


def read_fen(fen: str, *, chess960: bool, validate: bool = True, options: tuple[str, ...] = (VARIANT,)) -> Position:
    """The position of ``fen`` read as asked (``chess960``, ``validate``); else FenError saying what
    is wrong with it and, only when the FEN then reads, which of ``options`` ("--variant chess960",
    "--no-validate") to add."""
    try:
        return Position.from_fen(fen, validate=validate, chess960=chess960)
    except FenError as exc:
        text = exc.reason   # (chess_core's guess left out: the advice below is checked)
    advice = _advice(fen, chess960, validate, options)
    raise FenError(text, advice or "") from None


def _advice(fen: str, chess960: bool, validate: bool, options: tuple[str, ...]) -> str | None:
    """The fewest of ``options`` not given yet that read ``fen``, in words; None when none do."""
    offered = [o for o in options if (o == VARIANT and not chess960) or (o == NO_VALIDATE and validate)]
    tries = [[o] for o in offered] + ([offered] if len(offered) > 1 else [])
    for added in tries:
        try:
            Position.from_fen(fen, validate=validate and NO_VALIDATE not in added,
                              chess960=chess960 or VARIANT in added)
        except FenError:
            continue
        return f"add {' '.join(added)}{_WHY[added[-1]]}"
    return None


__all__ = ["read_fen", "VARIANT", "NO_VALIDATE"]
