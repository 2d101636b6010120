"""The page's error answers: JSON ``{"error": "..."}`` in words, never cached, shared by the server's parts."""
from __future__ import annotations

from typing import Any

from netserver.http_server import HTTPError, Response, json_response

NO_STORE = {"Cache-Control": "no-store"}


def error_answer(status: int, message: str, **extra: Any) -> Response:
    """``{"error": message, **extra}`` with ``status`` (a 4xx or 500), never cached."""
    return json_response({"error": message, **extra}, status=status, headers=dict(NO_STORE))


def http_error_answer(exc: HTTPError) -> Response:
    """An HTTPError in the page's error shape, with its headers (Allow, Retry-After...)."""
    response = error_answer(exc.status, exc.message)
    response.headers.update(exc.headers)
    return response


__all__ = ["NO_STORE", "error_answer", "http_error_answer"]
