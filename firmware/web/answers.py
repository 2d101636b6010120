"""The page's error answers: JSON ``{"error": "..."}`` in words (a refusal also ``"error_fr"``), never cached, shared by the server's parts."""
from __future__ import annotations

from typing import Any

from netserver.http_server import HTTPError, Response, json_response

from firmware.words import Refusal

NO_STORE = {"Cache-Control": "no-store"}


def error_answer(status: int, message: str, **extra: Any) -> Response:
    """``{"error": message, **extra}`` with ``status`` (a 4xx or 500), never cached."""
    return json_response({"error": message, **extra}, status=status, headers=dict(NO_STORE))


def refusal_answer(refusal: Refusal) -> Response:
    """A command refused now (409): ``{"error": English, "error_fr": French}``, the page shows its language's."""
    return error_answer(409, str(refusal), error_fr=refusal.text("fr"))


def http_error_answer(exc: HTTPError) -> Response:
    """An HTTPError in the page's error shape, with its headers (Allow, Retry-After...)."""
    response = error_answer(exc.status, exc.message)
    response.headers.update(exc.headers)
    return response


__all__ = ["NO_STORE", "error_answer", "http_error_answer", "refusal_answer"]
