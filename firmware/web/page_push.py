"""The pages' websockets: the page state pushed to each after every change, the latest only to a slow one."""
from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

from firmware.tasks import cancel_and_wait
from netserver.websocket import GOING_AWAY, WebSocket

log = logging.getLogger(__name__)


def _state_message(state: dict[str, Any]) -> str:
    return json.dumps({"type": "state", "state": state}, separators=(",", ":"))


class PageSocket:
    """One websocket: the latest text to send, and the task that sends it (latest wins)."""

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self.pending: str | None = None
        self.ready = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def offer(self, text: str) -> None:
        self.pending = text
        self.ready.set()

    async def run(self) -> None:
        try:
            while not self.ws.closed:
                await self.ready.wait()
                self.ready.clear()
                text, self.pending = self.pending, None
                if text is not None:
                    await self.ws.send_str(text)
        except (ConnectionError, RuntimeError):
            pass  # the peer went away; the handler closes and forgets us


class Broadcaster:
    """Sends ``page_state()`` to every open page after each change; nothing polls.

    * ``start()`` on the running loop begins (True; False when it already runs); ``stop()``
      closes every socket (going away, all at once: a client may never answer), ends every task
      and forgets the sockets; it may start again after.
    * ``changed()`` may be called from any thread, any number of times: a burst of changes is
      one message, built once for every socket. Before ``start()`` it does nothing.
    * ``serve(ws, hello)`` runs one page's socket until it closes: the hello, the state at once,
      then every change; a text ``"ping"`` is answered ``{"type":"pong"}``. A socket that reads
      slowly is sent the latest state only (what waits for it is bounded).
    * A page state that cannot be built is logged and skipped; the broadcasting goes on.
    """

    def __init__(self, page_state: Callable[[], dict[str, Any]]) -> None:
        self.page_state = page_state
        self.clients: set[PageSocket] = set()   # never rebound: the server shows this very set
        self.sent = 0                            # state messages broadcast
        self._dirty: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> bool:
        if self._task is not None:
            return False
        self._loop = asyncio.get_running_loop()
        self._dirty = asyncio.Event()
        self._task = self._loop.create_task(self._run(), name="web-broadcast")
        return True

    def changed(self) -> None:
        """Something changed: send the page state to every client soon (callable from any thread)."""
        if self._dirty is None or self._loop is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            self._dirty.set()
        else:
            self._loop.call_soon_threadsafe(self._dirty.set)

    async def serve(self, ws: WebSocket, hello: dict[str, Any]) -> None:
        client = PageSocket(ws)
        try:
            await ws.send_str(json.dumps({"type": "hello", **hello}))
            await ws.send_str(_state_message(self.page_state()))
            self.clients.add(client)
            client.task = asyncio.get_running_loop().create_task(client.run(), name="web-client")
            async for text in ws:
                if text == "ping":
                    await ws.send_str('{"type":"pong"}')
        except ConnectionError:
            pass   # the client went, or the heartbeat or the sweep dropped it
        finally:
            self.clients.discard(client)
            if client.task is not None:
                await cancel_and_wait(client.task)
            await ws.close()

    async def stop(self) -> None:
        clients = list(self.clients)
        # At once: each close waits for its client's answer, and a client may never answer.
        await asyncio.gather(*(client.ws.close(GOING_AWAY) for client in clients), return_exceptions=True)
        for client in clients:
            if client.task is not None:
                client.task.cancel()
        self.clients.clear()
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None

    async def _run(self) -> None:
        assert self._dirty is not None
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            if not self.clients:
                continue
            try:
                text = _state_message(self.page_state())
            except Exception:  # noqa: BLE001 - a bad state must not stop the broadcaster
                log.exception("cannot build the page state")
                continue
            for client in list(self.clients):
                client.offer(text)
            self.sent += 1


__all__ = ["Broadcaster", "PageSocket"]
