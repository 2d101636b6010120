"""Every text a player reads, one catalogue per language (en.py, fr.py, de.py), and the functions that fill them in (texts.py).

The languages are the catalogues found here (``languages.LANGS``: a language is its catalogue
and its voice, ``spoken_xx.py``); every other part of the board reads them from here.

The session's status line and problems, its refusals (``Refusal``: a command's error, in every
language), the page's labels (``PAGE``, served by GET /api/words) and
its LED legend (``LED_ROLES``). Layer 1: it imports chess_core only; the referee, the session and
the web import it. The catalogues are Python modules rather than data files: nothing to read or
install beside the code, and mypy checks that each language gives every part of a ``Catalogue``.
"""
from __future__ import annotations

from .catalogue import LED_GROUPS, LED_LAYERS, Catalogue
from .texts import (CATALOGUES, DEFAULT_NAMES, FALLBACK, LANGS, LED_ROLES, PAGE, PIECES, SIDES, Refusal, board_hint,
                    catalogue_of, draw_offers_from, illegal_text, in_english, opponent_line, opponent_plays,
                    outcome_text, paused_text, piece_name, player, player_name, prompt, put_back, refusal, refused_text,
                    remove, setup_step, setup_text, side_to_move, squares_text, takeback_text, void_text)
from .message import Message, message_json, render

__all__ = ["Catalogue", "CATALOGUES", "LANGS", "FALLBACK", "DEFAULT_NAMES", "PAGE", "LED_ROLES", "LED_GROUPS", "LED_LAYERS", "PIECES",
           "SIDES", "catalogue_of", "prompt", "piece_name", "side_to_move", "opponent_plays", "outcome_text",
           "takeback_text", "put_back", "remove", "board_hint", "illegal_text", "squares_text", "setup_text", "setup_step",
           "refused_text", "opponent_line", "void_text", "draw_offers_from", "paused_text", "refusal", "Refusal",
           "player_name", "in_english", "player", "Message", "render", "message_json"]
