"""The page's error answers: JSON ``{"error": "..."}`` in words (a refusal also its ``"message"``, said in any language), never cached, shared by the server's parts."""
from __future__ import annotations

from typing import Any

from netserver.http_server import HTTPError, Response, json_response

from firmware.words import Refusal, message_json

NO_STORE = {"Cache-Control": "no-store"}


class ServerRefusal(Refusal):
    """A request the page's server refuses itself (its guard, a misdirected request, an internal
    error): ``ServerRefusal(key, **values)``, a refusal of firmware/words."""


def error_answer(status: int, error: str, **extra: Any) -> Response:
    """``{"error": error, **extra}`` with ``status`` (a 4xx or 500), never cached: the HTTP
    layer's errors, whose words are English only; the server's own go through ``refusal_answer``."""
    return json_response({"error": error, **extra}, status=status, headers=dict(NO_STORE))


def refusal_answer(refusal: Refusal, status: int = 409, **extra: Any) -> Response:
    """A request refused (a command's 409; a 400, 403, 415, 421, 429 or 500 of the server's own):
    ``{"error": English, "message": {"key", "values", "kind"}, **extra}``: the page says the message
    in its reader's language (firmware.words); API clients read "error"."""
    return error_answer(status, str(refusal), message=message_json(refusal.message), **extra)


def http_error_answer(exc: HTTPError) -> Response:
    """An HTTPError in the page's error shape, with its headers (Allow, Retry-After...)."""
    response = error_answer(exc.status, exc.message)
    response.headers.update(exc.headers)
    return response


__all__ = ["NO_STORE", "ServerRefusal", "error_answer", "http_error_answer", "refusal_answer"]
