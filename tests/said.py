"""The state's and answers' messages said in a language, for the tests' assertions: every message (an object with "key" and "values") becomes its text."""
from __future__ import annotations

from typing import Any

from firmware.words.message import from_json, render


def said(data: Any, lang: str = "en") -> Any:
    """``data`` (a state, an answer, a list of messages) with each message replaced by its text in ``lang``."""
    if isinstance(data, list):
        return [said(item, lang) for item in data]
    if not isinstance(data, dict):
        return data
    if "key" in data and "values" in data:
        return render(from_json(data), lang)
    return {name: said(value, lang) for name, value in data.items()}


def english(data: Any) -> Any:
    """``data`` with each message in English (the assertions' language)."""
    return said(data, "en")


def french(data: Any) -> Any:
    """``data`` with each message in French (the rule texts' language)."""
    return said(data, "fr")


def error_in(answer: dict[str, Any], lang: str) -> str:
    """A refused request's words (its "message") in ``lang``."""
    text: str = said(answer["message"], lang)
    return text


def both(answer: dict[str, Any]) -> tuple[str, str]:
    """A refused request's English ("error", as API clients read it) and its message said in French."""
    return answer["error"], error_in(answer, "fr")
