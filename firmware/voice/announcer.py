"""What the board announces as its game goes on (pure): each new session state against the one before, in words to say.

The :class:`Announcer` hears the session's states (firmware.session.state) in order, each
perhaps several changes after the one before, and says what a player not looking at the board
needs: a move made (``moves = "all"``), the opponent's move to carry out, a move taken back or
corrected, what to put right (the same words the page and the LED prompts use), a draw offer,
a paused clock, how the game ended, and a clock passing 60, 30 and 10 seconds on a side played
at the board. On request it repeats the last move with the clocks, says the clocks, or
describes the position. Everything a state change brings is one :class:`Utterance`; time is the
session's, passed in.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from chess_core import Position

import firmware.words as words
from firmware.config import OpponentKind
from firmware.session.state import Phase, SessionState, headline_and_notes, training_said
from firmware.voice import phrases
from firmware.voice.phrases import LOW_TIME_S, say, sentence

MOVE_POLICIES = ("all", "opponent", "none")
PROMPT_HOLD_S = 0.5   # a prompt is said once it has stood this long unchanged
_VERSION = re.compile(r"\s+\d+(?:\.\d+)*$")   # "Stockfish 15.1" is said "Stockfish"


@dataclass(frozen=True)
class Utterance:
    """One announcement: its text (shown as said), its language, and what it is about, first
    the most important ("move", "opponent", "ending", "prompt", "offer", "clock", "notice",
    "setup", "describe", "repeat")."""

    text: str
    lang: str
    kinds: tuple[str, ...]

    @property
    def kind(self) -> str:
        return self.kinds[0]


class Announcer:
    """Turns session states into announcements; see the module docstring.

    ``moves``: "all" (every move, and the opponent's to carry out), "opponent" (the moves the
    players at the board did not make themselves: the engine's or the online opponent's, or with
    two players over the board every move) or "none" (no move; prompts, results and requests only)."""

    def __init__(self, lang: str = words.FALLBACK, moves: str = "all", *, hold: float = PROMPT_HOLD_S) -> None:
        if moves not in MOVE_POLICIES:
            raise ValueError(f"moves is one of {', '.join(MOVE_POLICIES)}, not {moves!r}")
        self.lang = lang
        self.moves = moves
        self.hold = hold   # how long a prompt must stand before it is said (0: at once)
        self.state: SessionState | None = None
        self._position: Position | None = None    # after state.moves
        self._start: tuple[str, bool] | None = None
        self._said_prompt: str | None = None
        self._pending: tuple[str, float, str] | None = None   # a prompt to say if it stands: (text, since, kind)
        self._low: dict[int, int] = {}           # side -> the lowest threshold said (s)

    # -- the session's states -----------------------------------------------------------------

    def hear(self, state: SessionState) -> Utterance | None:
        """What to say about ``state`` after the last state heard (None: nothing)."""
        prev = self.state
        parts: list[tuple[str, str]] = []
        if prev is None or self._start != (state.start_fen, state.chess960) or (
                prev.phase is not Phase.SETTING_UP and state.phase is Phase.SETTING_UP):
            # A game first heard of (a start, a restore, a new game, a whole game from the other
            # end): its moves are not news, what to do next is.
            self._start = (state.start_fen, state.chess960)
            self._position = Position(state.start_fen, chess960=state.chess960)
            for move in state.moves:
                self._position.push(move)
            self._low = {}
            self._said_prompt = self._pending = None
            if state.expected_move is not None and self.moves != "none":
                parts.append(("opponent", self._opponent_plays(state)))
        else:
            if prev.phase is Phase.SETTING_UP and state.started:
                parts.append(("setup", say("game_starts", self.lang)))
            parts += self._moves(prev, state)
        parts += self._other_side(prev, state)
        parts += self._prompt(state, any(kind in ("opponent", "move", "ending") for kind, _ in parts))
        self.state = state
        if not parts:
            return None
        return Utterance(". ".join(sentence(text) for _, text in parts), self.lang, tuple(k for k, _ in parts))

    def _opponent_plays(self, state: SessionState) -> str:
        assert state.expected_move is not None
        who = _VERSION.sub("", words.player_name(state.names[state.turn], state.turn, self.lang))
        return phrases.opponent_plays(Position(state.fen, chess960=state.chess960), state.expected_move, who,
                                      self.lang)

    def _moves(self, prev: SessionState, state: SessionState) -> list[tuple[str, str]]:
        """The moves made, taken back or corrected since ``prev``, the end they brought, the
        opponent's move to carry out."""
        position = self._position
        assert position is not None
        lang, silent = self.lang, self.moves == "none"
        common = 0
        while common < min(len(prev.moves), len(state.moves)) and prev.moves[common] == state.moves[common]:
            common += 1
        removed, added = prev.moves[common:], state.moves[common:]
        parts: list[tuple[str, str]] = []
        for _ in removed:
            position.pop()
        if removed and not added and state.takeback_move is None and not silent:
            parts.append(("move", say("taken_back", lang, move=phrases.move_words(position, removed[0], lang))))
        ended = prev.outcome is None and state.outcome is not None
        ended_said = False
        for i, move in enumerate(added):
            outcome = state.outcome if ended and i == len(added) - 1 else None
            carried_out = i == 0 and not removed and move == prev.expected_move
            if not carried_out and self._says_move(state, position.turn):
                text = phrases.move_said(position, move, lang, outcome)
                parts.append(("move", say("corrected", lang, move=text) if removed else text))
                ended_said = outcome is not None
            position.push(move)
        if ended and not ended_said:
            assert state.outcome is not None
            parts.append(("ending", phrases.ending_words(state.outcome, lang)))
        if state.expected_move is not None and not silent and (
                added or removed or prev.expected_move != state.expected_move):
            parts.append(("opponent", self._opponent_plays(state)))
        return parts

    def _says_move(self, state: SessionState, side: int) -> bool:
        """Whether a move of ``side`` made on the board is announced under the move policy."""
        if self.moves == "all":
            return True
        if self.moves == "none":
            return False
        opponent = state.opponent
        return opponent.kind is OpponentKind.NONE or side in opponent.sides

    def _other_side(self, prev: SessionState | None, state: SessionState) -> list[tuple[str, str]]:
        """Offers, a paused clock, the other side's notices."""
        lang, page = self.lang, words.catalogue_of(self.lang).page
        parts: list[tuple[str, str]] = []
        if state.outcome is None:
            if state.draw_offer is not None and (prev is None or prev.draw_offer != state.draw_offer):
                parts.append(("offer", page["draw_offered_" + ("white", "black")[state.draw_offer]].rstrip(".")))
            if state.takeback_offer is not None and (prev is None or prev.takeback_offer != state.takeback_offer):
                parts.append(("offer", page["takeback_asked_" + ("white", "black")[state.takeback_offer]].rstrip(".")))
        if prev is not None and prev.phase is not state.phase:
            if state.phase is Phase.PAUSED and not state.wrong:
                parts.append(("clock", words.prompt("clock_paused", lang)))
            elif prev.phase is Phase.PAUSED and state.phase is Phase.PLAYING:
                parts.append(("clock", say("clock_resumed", lang)))
        if state.notice is not None and state.notice != (None if prev is None else prev.notice):
            parts.append(("notice", state.notice.text(lang).rstrip(".")))
        if state.training is not None and (prev is None or prev.training != state.training):
            verdict = training_said(state.training)   # a training's verdict ("Solved!", "Try again...")
            if verdict is not None and (prev is None or prev.training is None or training_said(prev.training) != verdict
                                        or prev.training.attempt != state.training.attempt):
                parts.append(("notice", verdict.text(lang).rstrip(".")))
        return parts

    def _prompt(self, state: SessionState, news: bool) -> list[tuple[str, str]]:
        """What to put right, in the page's and the LED prompts' words, once it has stood
        ``hold`` seconds unchanged (``due`` says it: a hand on its way shows passing states); once
        the board is right again with nothing in hand, what comes next ("Trait aux Noirs")."""
        if state.wrong or state.takeback_move is not None:   # (setting up too: the squares still to fill)
            text = self._prompt_text(state)
            kind = "setup" if state.phase is Phase.SETTING_UP else "prompt"
            if text == self._said_prompt:
                self._pending = None
            elif self.hold <= 0:
                self._pending, self._said_prompt = None, text
                return [(kind, text)]
            elif self._pending is None or self._pending[0] != text:
                self._pending = (text, state.time, kind)
            return []
        self._pending = None
        if self._said_prompt is None or state.lifted or state.phase is Phase.SETTING_UP:
            return []
        self._said_prompt = None
        if news or state.outcome is not None:
            return []   # (the news says what comes next)
        if state.expected_move is not None:
            return [("opponent", self._opponent_plays(state))]
        return [("prompt", words.side_to_move(state.turn, state.check).text(self.lang))]

    def _prompt_text(self, state: SessionState) -> str:
        lang = self.lang
        if state.takeback_move is not None:   # (the game is back before it: the board must follow)
            before = self._after(state)
            move = state.takeback_move
            piece = before.piece_at(move.from_square)
            back = words.put_back(piece.piece_type if piece else 1, move.from_square).text(lang)
            return words.prompt("takeback", lang, san=phrases.move_words(before, move, lang),
                                put_back=back[0].lower() + back[1:])
        return headline_and_notes(state)[0].text(lang)

    def _before_last(self, state: SessionState) -> Position:
        position = Position(state.start_fen, chess960=state.chess960)
        for move in state.moves[:-1]:
            position.push(move)
        return position

    # -- the clocks running short -------------------------------------------------------------

    def _at_board(self, state: SessionState, side: int) -> bool:
        opponent = state.opponent
        return opponent.kind is OpponentKind.NONE or side not in opponent.sides

    def _remaining(self, state: SessionState, side: int, now: float) -> int | None:
        ms = state.clocks[side]
        if ms is None:
            return None
        return ms - round((now - state.time) * 1000) if state.running == side else ms

    def next_deadline(self) -> float | None:
        """When ``due`` has something to say if no state comes before: a prompt that stood long
        enough, the running clock of a side at the board passing 60, 30 or 10 s. None: nothing."""
        found = [self._pending[1] + self.hold] if self._pending is not None else []
        state = self.state
        if state is not None and state.outcome is None and state.running is not None and state.phase.live:
            side = state.running
            ms = state.clocks[side]
            if ms is not None and self._at_board(state, side):
                below = [t for t in LOW_TIME_S if t < self._low.get(side, 10 ** 9) and t * 1000 < ms]
                if below:
                    found.append(state.time + (ms - max(below) * 1000) / 1000)
        return min(found) if found else None

    def due(self, now: float) -> Utterance | None:
        """What is due at ``now`` with no new state: the prompt that stood, the clock's warning
        ("30 secondes")."""
        parts: list[tuple[str, str]] = []
        pending = self._pending
        if pending is not None and now >= pending[1] + self.hold:
            self._pending = None
            self._said_prompt = pending[0]
            parts.append((pending[2], pending[0]))
        state = self.state
        if state is not None and state.running is not None and state.outcome is None and state.phase.live:
            side = state.running
            left = self._remaining(state, side, now)
            if left is not None and left > 0 and self._at_board(state, side):
                passed = [t for t in LOW_TIME_S if left <= t * 1000 and t < self._low.get(side, 10 ** 9)]
                if passed:
                    self._low[side] = min(passed)
                    parts.append(("clock", phrases.duration_words(min(passed) * 1000, self.lang)))
        if not parts:
            return None
        return Utterance(". ".join(sentence(text) for _, text in parts), self.lang, tuple(k for k, _ in parts))

    # -- on request -----------------------------------------------------------------------------

    def clocks(self, now: float) -> Utterance:
        """Both clocks now: "Blancs : 4 minutes 12, Noirs : 3 minutes 58"."""
        state = self.state
        if state is None:
            return Utterance(say("no_clock", self.lang), self.lang, ("clock",))
        ms = (self._remaining(state, 0, now), self._remaining(state, 1, now))
        return Utterance(sentence(phrases.clocks_words(ms, self.lang)), self.lang, ("clock",))

    def repeat(self, now: float) -> Utterance:
        """The ``speak`` request: the opponent's move to carry out or the last move, what to put
        right if anything, and the clocks."""
        state, lang = self.state, self.lang
        parts: list[str] = []
        if state is not None and state.expected_move is not None:
            parts.append(self._opponent_plays(state))
        elif state is not None and state.moves:
            before = self._before_last(state)
            parts.append(say("last_move", lang, move=phrases.move_words(before, state.moves[-1], lang)))
        else:
            parts.append(say("no_move_yet", lang))
        if state is not None and state.wrong:
            parts.append(self._prompt_text(state))
        elif state is not None and state.outcome is not None:
            parts.append(phrases.ending_words(state.outcome, lang))
        if state is not None and any(ms is not None for ms in state.clocks):
            parts.append(self.clocks(now).text)
        return Utterance(". ".join(sentence(p) for p in parts), lang, ("repeat",))

    def describe(self) -> Utterance:
        """The ``describe`` request: the position side by side, piece by piece, and who is to move."""
        state = self.state
        position = self._after(state) if state is not None else Position()
        return Utterance(phrases.describe(position, self.lang), self.lang, ("describe",))

    def _after(self, state: SessionState) -> Position:
        return Position(state.fen, chess960=state.chess960)


__all__ = ["Announcer", "Utterance", "MOVE_POLICIES", "PROMPT_HOLD_S"]
