"""PGN: games written in the export format, and PGN text (one game or a whole file) read back.

The writer is in :mod:`chess_core.pgn_writer`, the reader in :mod:`chess_core.pgn_reader`, the
values they share in :mod:`chess_core.pgn_model` and :mod:`chess_core.pgn_words`; this module gathers the public names.

Writing (``write_pgn``)
-----------------------
* Tags: the seven tag roster, in its order (defaults ``Event "?"``, ``Site "?"``,
  ``Date "????.??.??"``, ``Round "?"``, ``White "?"``, ``Black "?"``, ``Result`` from the game),
  then the other tags in ASCII order of their names, as the export format asks: ``FEN`` and
  ``SetUp "1"`` for a game from a set position, ``PlyCount``, ``Termination``, ``TimeControl``
  (``?``, unknown, unless the caller says: ``-`` is for a game without a clock) and whatever
  the caller adds (``Annotator``, ``WhiteElo``...). The caller's headers override the
  defaults; ``SetUp``, ``FEN`` and ``PlyCount`` always follow the game. Tag values are one
  line, with ``\\`` and ``"`` escaped.
* A game read from a file is written back with ``derive=False`` (``PgnGame.pgn()``): only what
  the file had. Its tags stay as they were (no Termination, TimeControl or PlyCount added, a
  PlyCount it had follows the game), its result marker stays, and the reason comment is
  written only when the file had one of ours.
* Moves in English SAN (the standard's letters). ``12.`` before White's moves, ``12...``
  before a Black move that follows a comment (or starts the game).
* Clocks: ``{ [%clk 0:04:59.7] }`` after every move that has a clock value. The time is
  :func:`chess_core.clock.format_pgn_clk`: ``H:MM:SS``, and a tenth when it is not zero, cut
  (not rounded) like a club clock's display. So clocks come back from a round trip to the
  tenth of a second: 299 765 ms is written 0:04:59.7 and read back as 299 700 ms.
* The result and its reason. The last token is the result: ``1-0``, ``0-1``, ``1/2-1/2``,
  or ``*`` while the game is still going. The ``Termination`` tag holds the word of the PGN
  standard, and the precise reason goes in a comment of its own after the last move (before
  the first move when there is none), ``{ White wins by checkmate. }``, which is
  ``Outcome.describe()`` and a full stop. A comment rather than a non-standard tag, because every
  viewer shows comments next to the moves, python-chess and pgn-extract keep it, and no
  program mistakes it for a tag it knows:

  ==========================================================  =================
  Outcome                                                      Termination tag
  ==========================================================  =================
  checkmate, stalemate, dead position, repetitions, 50/75      ``normal``
  moves, resignation, agreement
  time forfeit, timeout vs insufficient material (a draw)      ``time forfeit``
  abandoned                                                    ``abandoned``
  game still going (``*``)                                     ``unterminated``
  ==========================================================  =================

  ``write_pgn(..., termination=...)``: a PGN word ("rules infraction", "adjudication"...)
  replaces the tag; any other text replaces the reason comment.
* Lines: movetext lines are at most 80 characters; a move stays with its number, a clock
  command stays whole, and no line starts with ``%`` (an escape line). Tag pairs are one line
  each by the standard, so only a very long tag value makes a longer line. A comment cannot
  hold ``}`` (it is dropped); white space in comments becomes single spaces. Variations are
  not written.

Reading (``read_games``, ``read_pgn``, ``read_game``)
-----------------------------------------------------
* Accepted: several games per text, a UTF-8 BOM, ``\\r\\n`` or ``\\r`` line ends, ``%``
  escape lines, ``;`` and ``{ }`` comments (over several lines), NAGs ``$n`` and the suffixes
  ``! ? !! ?? !? ?!`` (read as NAGs 1 to 6), move numbers (not checked), ``e.p.``, tags with or
  without escapes (python-chess writes quotes unescaped), ``½-½``, results with en dashes
  (``1–0``), null moves (``--``, ``Z0``, ``0000``: the side to move passes, ``--`` when written),
  UCI moves in the movetext (``g1f3``), ``[pgn]...[/pgn]`` forum wrappers, tags and moves on
  one line, castling rights in a FEN tag that its position denies (dropped with a warning).
  ``[%clk]`` (any number of
  digits and decimals, rounded to the ms) goes to ``clocks`` and leaves the comment text;
  other commands (``[%eval]``, ``[%csl]``) stay in it.
* A comment is kept up to 64 KiB (``pgn_reader.MAX_COMMENT_CHARS``); the rest of it is dropped
  with a warning, so that a blob pasted in braces costs its reader and writer no more.
* Variations are kept (``PgnGame.variations``, trees of ``PgnLine``). A variation with a move
  that cannot be played is dropped with a warning; variations never change the main line.
* Letters: decided per game. A game with D, T, F or C pieces (or ``=D``...) is French, one with
  K, Q, B or N English; a game with neither reads ``R`` as a rook when a rook move fits, else as
  a French king.
* Games are cut from the text by what can be seen without playing (tag lines, result tokens,
  comments): a game ends at its result token, or where the next tag section begins. A comment
  left open ends at an empty line followed by a tag line. So a malformed game gives a
  ``PgnError`` naming the game (number, White, Black), the move (``12... Nxe5``, ply) and the
  line, and the games after it are read. Malformed: a main-line move that is unreadable,
  illegal or ambiguous; a bad tag pair; a bad FEN; a variant other than standard; a comment or
  variation left open; a result token inside a variation; a Result tag that differs from the
  result token (``*`` aside); a result that the final position contradicts (mate, stalemate,
  dead position). A game without a result token, or ending with ``*`` under a decided Result
  tag, takes the Result tag (with a warning).
* The outcome of the Game: the rules decide first (the position is mate, stalemate, dead,
  or, depending on the rule profile, a repetition or move-count draw). When they do not, and the
  game ends with a result: our reason comment (``White wins on time.``, in our spelling and
  beside our Termination word: Lichess writes the same sentences with ``Normal``, and another
  program's comment stays a comment), if it fits the position
  (a claimed repetition must be claimable), else the Termination tag, by the words it holds:

  ==================================  ======================  ===============================
  Termination tag                      decisive result         draw
  ==================================  ======================  ===============================
  ... time ... / ... flag ...          time forfeit            timeout vs insufficient material
  abandoned, rules infraction,         abandoned               abandoned (no winner)
  adjudication, death, emergency
  normal, missing, anything else       resignation             threefold repetition or 50 moves
                                                               if claimable (preferring what
                                                               the tag names), else agreement
  ==================================  ======================  ===============================

  A game that went on after the rules ended it (a fivefold repetition nobody stopped) is read
  as played, with a warning; a game ending with ``*`` has no outcome unless the board has one.
"""
from __future__ import annotations

from .pgn_model import PgnError, PgnGame, PgnLine
from .pgn_words import PGN_TERMINATIONS, SEVEN_TAG_ROSTER, termination_word
from .pgn_reader import outcome_from_tag, read_game, read_games, read_pgn
from .pgn_writer import LINE_WIDTH, write_pgn

__all__ = ["write_pgn", "read_pgn", "read_games", "read_game", "PgnGame", "PgnLine", "PgnError",
           "SEVEN_TAG_ROSTER", "PGN_TERMINATIONS", "LINE_WIDTH", "termination_word",
           "outcome_from_tag"]
