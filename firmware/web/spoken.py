"""What the page says for a screen reader and the phone's own voice: the board's announcements in both languages, and the voice's requests.

A :class:`PageVoice` hears every session state (before the page state is built from it) with an
announcer per language (firmware.voice.announcer), and keeps the latest announcement: the page
state's ``said`` (``{"n", "text", "text_fr", "kinds"}``, ``n`` counting them), which the page puts
in its aria-live region and, if asked, says with the Web Speech API. ``request`` answers the
page's "repeat", "describe" and "clocks" in its language, and hands them to the board's own
voice too when it has one (``[voice]``; which then speaks the page's language if its ``language``
is "page"). ``announce`` answers the same requests made at the board (its ``speak`` and
``describe`` buttons): a new announcement in both languages, for every page open.
"""
from __future__ import annotations

from typing import Any, Callable

from firmware.session.state import SessionState
from firmware.voice.announcer import Announcer, Utterance
from firmware.words import LANGS


class PageVoice:
    """The page's announcements and voice requests; see the module docstring. ``board_voice``
    returns the board's :class:`~firmware.voice.companion.Voice`, or None (no ``[voice]``)."""

    def __init__(self, board_voice: Callable[[], Any] | None = None) -> None:
        self.board_voice = board_voice
        # prompts at once: the page holds a prompt back itself (static/voice.js), it hears no deadlines
        self.announcers = {lang: Announcer(lang, "all", hold=0.0) for lang in LANGS}
        self.count = 0
        self.latest: dict[str, Any] | None = None

    def on_state(self, state: SessionState) -> None:
        """A session state, in order (on the board's loop): a new announcement if it brings one."""
        said: dict[str, Utterance] = {}
        for lang, announcer in self.announcers.items():
            heard = announcer.hear(state)
            if heard is not None:
                said[lang] = heard
        if said:
            self.count += 1
            first = next(iter(said.values()))
            self.latest = {"n": self.count, "text": said["en"].text if "en" in said else "",
                           "text_fr": said["fr"].text if "fr" in said else "", "kinds": list(first.kinds)}

    def said(self) -> dict[str, Any] | None:
        """The page state's ``said``: the latest announcement (None before the first)."""
        return self.latest

    def request(self, what: str | None, lang: str, now: float, mute: bool | None = None) -> dict[str, Any]:
        """The page asks for ``what`` ("repeat", "describe", "clocks"; None: it only says its
        language), and ``mute`` switches the board's voice off or on: the text in ``lang``,
        whether the board has a voice ("board": it says the text too unless "muted")."""
        voice = self.board_voice() if self.board_voice is not None else None
        if voice is not None:
            voice.use_language(lang)
            if mute is not None:
                voice.mute(mute)
        muted = bool(voice.muted) if voice is not None else False
        if what is None:
            return {"text": "", "board": voice is not None, "muted": muted}
        said = self._answer(self.announcers[lang], what, now)
        if voice is not None:
            voice.request(what)
        return {"text": said.text, "board": voice is not None, "muted": muted}

    def announce(self, what: str, now: float) -> None:
        """A request made at the board (a button: "repeat" or "describe"): the page state's next
        ``said``, in both languages, which every page open puts in its live region (and says
        with the phone's voice if asked); the board's voice says it too when it has one."""
        said = {lang: self._answer(announcer, what, now) for lang, announcer in self.announcers.items()}
        self.count += 1
        self.latest = {"n": self.count, "text": said["en"].text, "text_fr": said["fr"].text,
                       "kinds": list(said["en"].kinds)}
        voice = self.board_voice() if self.board_voice is not None else None
        if voice is not None:
            voice.request(what)

    @staticmethod
    def _answer(announcer: Announcer, what: str, now: float) -> Utterance:
        return (announcer.repeat(now) if what == "repeat" else announcer.describe() if what == "describe"
                else announcer.clocks(now))


__all__ = ["PageVoice"]
