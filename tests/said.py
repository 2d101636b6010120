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
