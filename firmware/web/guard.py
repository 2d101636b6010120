"""Who may read and change the board through its page: the DNS-rebinding, cross-site and pairing checks.

Every request, reads and the websocket included, must be addressed to a name the board answers
to (:class:`HostNames`; :meth:`ChangeGuard.misdirected`), else it is a 421. Reading is then free;
every other request passes :meth:`ChangeGuard.check` before its handler. The guard holds the
policy and nothing else: the pairing code, its tokens and its rate limits are
:class:`~firmware.web.pairing.Pairing`'s, the routes and the handlers the server's.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from urllib.parse import urlsplit

from firmware.web.answers import ServerRefusal, refusal_answer
from firmware.web.pairing import COOKIE, COOKIE_MAX_AGE_S, HEADER, Pairing, Throttled, client_key
from netserver.host_names import HostNames, host_name, is_loopback
from netserver.http_server import Request, Response, json_response

log = logging.getLogger(__name__)

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
COOKIE_CHECKED = "pairing_cookie_checked"


class ChangeGuard:
    """Decides whether a request may change the board's state, and answers the ones that may not.

    * ``misdirected(request)``: a 421 when the request's ``Host`` is not one of ``names`` (any
      request: reads, the websocket and changes alike), else None; asked first, before the route.
    * ``check(request)``: None when the request may reach its handler, else the refusal to send.
      GET, HEAD and OPTIONS always pass. Otherwise, in this order: an ``Origin`` of another site
      (or ``null``: a sandboxed or file page) is a 403; without pairing (a server on loopback
      only), a ``Host`` that is not a loopback name is a 403 (DNS rebinding); a body not declared
      ``application/json`` (what a cross-site form cannot send) is a 415; with pairing, on every
      path but ``/api/pair``, the request needs a valid pairing cookie or the right code in
      ``X-Pairing-Code``: else a 403 saying so (``"pairing": true``; a bad cookie is dropped), or a
      429 with ``Retry-After`` while wrong codes are limited.
    * ``pair(request, code)``: the answer to ``POST /api/pair``: the cookie (200), a 403 for a
      wrong code, a 429 while limited; without pairing, 200 and nothing to remember.
    * ``other_site``, ``paired`` and ``forget_cookie`` serve the page's reads (the websocket
      refuses other sites too; ``/api/session`` and the hello say whether the client is paired).
    * A request's cookie is checked once however often it is asked about, and a bad one counts
      as a wrong code, once. When a code is refused because of *others'* wrong codes,
      ``on_show_code`` (the service's: the LEDs show the code) is called and the code tried
      again, so the owner at the board is heard.
    * Time is ``clock()``, the one the pairing's limits count in.
    """

    def __init__(self, pairing: Pairing, clock: Callable[[], float], names: HostNames | None = None) -> None:
        self.pairing = pairing
        self.clock = clock
        self.names = names if names is not None else HostNames()
        self.on_show_code: Callable[[], None] | None = None   # show the code on the LEDs (the service)

    def misdirected(self, request: Request) -> Response | None:
        """A 421 if ``request`` is addressed to a name the board does not answer to, else None."""
        if request.host in self.names:
            return None
        # The name is shown as sent: the server let only a host name's characters through.
        return refusal_answer(ServerRefusal("misdirected", name=repr(host_name(request.host))), 421)

    def check(self, request: Request) -> Response | None:
        """None if ``request`` may go on to its handler, else the answer that refuses it."""
        if request.method in SAFE_METHODS:
            return None
        if self.other_site(request):
            return refusal_answer(ServerRefusal("other_site"), 403)
        if not self.pairing.required and not is_loopback(urlsplit(f"//{request.host}").hostname or ""):
            # A server without pairing listens on loopback only; another Host means DNS rebinding.
            return refusal_answer(ServerRefusal("loopback_only"), 403)
        if request.content_type != "application/json":
            return refusal_answer(ServerRefusal("json_only"), 415)
        if request.path == "/api/pair" or not self.pairing.required:
            return None
        cookie = self._cookie_check(request)
        if isinstance(cookie, Throttled):
            return self._too_many(cookie)
        if cookie is True:
            return None
        code = request.headers.get(HEADER)
        if code is None:
            return self.forget_cookie(request, refusal_answer(ServerRefusal("pairing_needed"), 403, pairing=True))
        outcome = self._attempt(request, code)
        if isinstance(outcome, Throttled):
            return self._too_many(outcome)
        if outcome is None:
            return self.forget_cookie(request, refusal_answer(ServerRefusal("wrong_pairing_code"), 403, pairing=True))
        return None

    def pair(self, request: Request, code: str) -> Response:
        """The answer to ``POST /api/pair`` with ``code``: the pairing cookie, or why not."""
        if not self.pairing.required:
            return json_response({"ok": True, "paired": True, "required": False})
        outcome = self._attempt(request, code)
        if isinstance(outcome, Throttled):
            return self._too_many(outcome)
        if outcome is None:
            log.warning("wrong pairing code from %s", request.remote)
            return refusal_answer(ServerRefusal("wrong_pairing_code"), 403, pairing=True)
        response = json_response({"ok": True, "paired": True, "required": True})
        response.set_cookie(COOKIE, outcome, max_age=COOKIE_MAX_AGE_S, httponly=True, samesite="Strict",
                            path="/")
        return response

    @staticmethod
    def other_site(request: Request) -> bool:
        """Whether the request comes from another site's page (or an opaque one: ``null``)."""
        origin = request.headers.get("Origin")
        if origin is None:
            return False
        try:
            return origin == "null" or urlsplit(origin).netloc != request.host
        except ValueError:   # "http://[": not this host's origin, whatever it is
            return True

    def paired(self, request: Request) -> bool:
        """Whether the client may change the board without giving the code."""
        return not self.pairing.required or self._cookie_check(request) is True

    @staticmethod
    def forget_cookie(request: Request, response: Response) -> Response:
        """Tell the browser to drop a cookie that did not pass (it is counted once, not at every request)."""
        if request.cookies.get(COOKIE):
            response.del_cookie(COOKIE, path="/")
        return response

    def _cookie_check(self, request: Request) -> bool | Throttled:
        """The request's pairing cookie, checked once per request: a bad one counts as a wrong code."""
        if COOKIE_CHECKED not in request.state:
            request.state[COOKIE_CHECKED] = self.pairing.check_token(client_key(request.remote),
                                                                     request.cookies.get(COOKIE), self.clock())
        checked: bool | Throttled = request.state[COOKIE_CHECKED]
        return checked

    def _attempt(self, request: Request, code: str) -> str | Throttled | None:
        """Try a code. Refused because of others' wrong codes, the board shows its code on the
        LEDs (at most every few minutes) and a code entered while they show it is heard: this
        one at once."""
        client, now = client_key(request.remote), self.clock()
        outcome = self.pairing.attempt(client, code, now)
        if isinstance(outcome, Throttled) and outcome.everyone and self.on_show_code is not None:
            try:
                self.on_show_code()
            except Exception:  # noqa: BLE001 - the LEDs must not turn a refusal into a 500
                log.exception("cannot show the pairing code")
            if self.pairing.limiter.open_until > now:
                outcome = self.pairing.attempt(client, code, now)
        return outcome

    @staticmethod
    def _too_many(refusal: Throttled) -> Response:
        wait = max(1, int(refusal.retry_after + 0.999))
        words = ServerRefusal("too_many_codes_elsewhere" if refusal.everyone else "too_many_codes", wait=wait)
        response = refusal_answer(words, 429, retry_after=wait)
        response.headers["Retry-After"] = str(wait)
        return response


__all__ = ["ChangeGuard", "SAFE_METHODS"]
