"""What a language's catalogue of words holds: the page's texts, the LED legend, the prompts' templates, the names."""
from __future__ import annotations

from dataclasses import dataclass

from chess_core import Termination


@dataclass(frozen=True)
class Catalogue:
    """Every text a player reads, in one language (``firmware/words/en.py``, ``fr.py``, ``de.py``...).

    Every catalogue has the same keys in each dict, and a template's ``{placeholders}`` are the
    same in every language (tests/firmware/test_words.py checks both); ``firmware/words/texts.py``
    fills the templates in."""

    # The page's words: each element with data-words="key" shows page[key] (the page asks for them
    # once: GET /api/words); the page's scripts take theirs from here too.
    page: dict[str, str]
    leds: dict[str, str]                  # the LED roles, in the order of the legend, and what each means
    prompts: dict[str, str]               # the status line, the problems, what to do: str.format templates
    refusals: dict[str, str]              # why a command cannot be carried out now, and what to do instead (the
                                          # answers' "error"): str.format templates, filled in by ``Refusal``
    sides: tuple[str, str]                # White, Black as the status line names them: "White to move"
    sides_played: tuple[str, str]         # White, Black as the side someone plays: "plays White"
    pieces: dict[int, str]                # by type (1 pawn .. 6 king), bare: "knight"
    the_pieces: dict[int, str]            # by type, with the article: "the knight"
    terminations: dict[Termination, str]  # how a game ended, as the outcome says it: "checkmate"
    void_statuses: dict[str, str]         # the other end's word for a voided game ("aborted"), in this
                                          # language; another word is shown as the other end gave it


# The groups of LED roles of one layer that show together (no two of a group may look alike:
# tests/firmware/test_words.py checks the colours); every role of the legend is in one.
LED_GROUPS = (("legal", "capture", "lifted", "last_move", "check", "opponent", "promotion", "low_time", "draw"),
              ("win", "loss", "draw"), ("fix",), ("hint", "good_move", "inaccuracy", "mistake", "blunder"),
              ("review_move", "review_best"), ("setup_from", "setup_to", "from_box", "to_box"), ("app",), ("save_failed",), ("no_page",), ("pairing",))

# The roles each layer of the LEDs may light, by layer (firmware.leds.compose.Priority, its name in
# lower case), lowest first: the roles of layers shown together are checked apart too
# (tests/firmware/test_leds_compose.py).
LED_LAYERS = {
    "game": ("legal", "capture", "lifted", "last_move", "check", "opponent", "promotion", "low_time", "draw", "fix",
             "win", "loss"),
    "coach": ("hint", "good_move", "inaccuracy", "mistake", "blunder"),
    "setup": ("setup_from", "setup_to", "from_box", "to_box"),
    "review": ("review_move", "review_best"),
    "app": ("app",),
    "alarm": ("save_failed", "no_page"),
    "pairing": ("pairing",),
}

__all__ = ["Catalogue", "LED_GROUPS", "LED_LAYERS"]
