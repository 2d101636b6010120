"""The board's MQTT publisher: the session's latest state to the broker, never in the board's way.

The session calls :meth:`BoardPublisher.on_state` after every change, once the LEDs show it
and the game is saved: it only keeps the snapshot and wakes the publisher's thread (no I/O,
no JSON, no lock held for long on the board's loop). The thread turns the latest snapshot into
the game message and publishes it, retained, QoS 1, when it differs from the one before (clock
readings alone do not count: the hub runs the clock from the message). While the broker is away
the board plays on; every (re)connection publishes the latest game again, which holds every move
missed, and a board restarted after a power cut publishes its restored game the same way.

Pairings from the hub (names, round rules) arrive on the paho thread and go to ``on_pairing``.
"""
from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from typing import Any, Callable

import paho.mqtt.client as mqtt

from club_wire.message import game_message, parse_pairing
from firmware.companion import ServiceContext
from firmware.session.door import Command
from firmware.session.state import SessionState, to_json
from club_wire.topics import QOS, Broker, game_topic, pairing_topic, read_credentials, status_topic
from firmware.words import FALLBACK

log = logging.getLogger(__name__)

RECONNECT_MIN_S, RECONNECT_MAX_S = 0.5, 4.0
KEEPALIVE_S = 15
_VOLATILE = ("sent", "remaining", "status")   # change without a new move: not worth a message


class BoardPublisher:
    """Publishes one board's game under ``echiquier/<club>/board/<board>/``; see the module doc."""

    def __init__(self, broker: Broker, club: str, board: str, *,
                 credentials: tuple[str, str] | None = None,
                 on_pairing: Callable[[str, str, dict], object] | None = None,
                 wall: Callable[[], float] = time.time, ca_file: str | None = None) -> None:
        self.broker, self.club, self.board = broker, club, board
        self.on_pairing = on_pairing
        self.wall = wall
        self.published = 0           # game messages handed to the client
        self.connections = 0
        self._latest: tuple[SessionState, float] | None = None
        self._last_key: str | None = None
        self._last_info: Any = None
        self._last_pairing: bytes | None = None
        self._wake = threading.Event()
        self._stopping = False
        self._connected = threading.Event()
        self._thread: threading.Thread | None = None
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"echiquier-{club}-{board}",
                                  clean_session=True)
        if credentials is not None:
            self.client.username_pw_set(*credentials)
        if broker.tls:
            self.client.tls_set(ca_certs=ca_file or None)
        self.client.will_set(status_topic(club, board), b"offline", qos=QOS, retain=True)
        # paho annotates int, but it adds the delays (seconds) to time.monotonic() and sleeps on: floats work
        self.client.reconnect_delay_set(RECONNECT_MIN_S, RECONNECT_MAX_S)  # type: ignore[arg-type]
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_connect_fail = self._on_connect_fail
        self._failing = False

    # -- the board's side: called on the session's loop ---------------------------------------

    def on_state(self, state: SessionState) -> None:
        """The session's subscriber: keep the latest state (frozen: the thread reads it as it
        is), wake the thread. O(1) on the board's loop; the message is written on the thread."""
        self._latest = (state, self.wall())
        self._wake.set()

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> None:
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=KEEPALIVE_S)
        self.client.loop_start()
        self._thread = threading.Thread(target=self._run, name=f"club-publisher-{self.board}", daemon=True)
        self._thread.start()

    def stop(self, flush_s: float = 3.0) -> None:
        """Publish what is still waiting (up to ``flush_s`` for the broker's ack), say offline, stop."""
        self._stopping = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
        if self._connected.is_set():
            self._publish_latest()
            info = self._last_info
            if info is not None:
                try:
                    info.wait_for_publish(flush_s)
                except (RuntimeError, ValueError):
                    pass
            self.client.publish(status_topic(self.club, self.board), b"offline", qos=QOS, retain=True)
        self.client.disconnect()
        self.client.loop_stop()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    # -- the publisher's thread -----------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping:
            self._wake.wait()
            self._wake.clear()
            if self._stopping:
                break
            if self._connected.is_set():
                try:
                    self._publish_latest()
                except Exception:   # never let the publisher die: the next change tries again
                    log.exception("cannot publish board %s's game", self.board)

    def _publish_latest(self) -> None:
        latest = self._latest
        if latest is None:
            return
        state, sent = latest
        payload = game_message(self.board, to_json(state, lang=FALLBACK), sent)   # (the hall's status line in English)
        body = json.loads(payload)
        key = json.dumps({k: v for k, v in body.items() if k not in _VOLATILE}, sort_keys=True)
        if key == self._last_key:
            return
        info = self.client.publish(game_topic(self.club, self.board), payload, qos=QOS, retain=True)
        if info.rc != mqtt.MQTT_ERR_SUCCESS:
            return   # not connected after all: the next connection publishes it
        self._last_key, self._last_info = key, info
        self.published += 1

    # -- paho's callbacks (its network thread) ------------------------------------------------

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if reason_code.is_failure:
            log.warning("broker %s refused board %s: %s", self.broker.url(), self.board, reason_code)
            return
        self.connections += 1
        self._failing = False
        log.info("board %s connected to %s", self.board, self.broker.url())
        client.subscribe(pairing_topic(self.club, self.board), qos=QOS)
        client.publish(status_topic(self.club, self.board), b"online", qos=QOS, retain=True)
        self._last_key = None   # publish the whole game again: the broker may have lost it
        self._connected.set()
        self._wake.set()

    def _on_connect_fail(self, client, userdata) -> None:
        if not self._failing:   # once per outage, not at every retry
            self._failing = True
            log.warning("board %s cannot reach the broker %s: playing on, trying again", self.board, self.broker.url())

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None) -> None:
        self._connected.clear()
        if not self._stopping:
            log.warning("board %s lost the broker (%s): playing on, will publish on reconnection",
                        self.board, reason_code)

    def _on_message(self, client, userdata, message) -> None:
        if message.topic != pairing_topic(self.club, self.board) or self.on_pairing is None:
            return
        if message.payload == self._last_pairing:
            return   # the same pairing, delivered again on reconnection
        try:
            white, black, game = parse_pairing(message.payload)
        except ValueError as exc:
            log.warning("board %s: pairing dropped: %s", self.board, exc)
            return
        self._last_pairing = message.payload
        self.on_pairing(white, black, game)


async def serve_club(service: ServiceContext) -> None:
    """The service's companion: publish its session to ``[club] broker`` until cancelled."""
    config = service.config.club
    session = service.session
    loop = asyncio.get_running_loop()
    credentials = read_credentials(config.credentials_file) if config.credentials_file else None

    def applied(white: str, black: str, answer: Any) -> None:
        if isinstance(answer, asyncio.Future) and answer.cancelled():
            log.warning("board %s: pairing %s - %s not applied: the board stopped", config.board, white, black)
            return
        error = answer.exception() if isinstance(answer, asyncio.Future) else None
        if error is None:
            log.info("board %s: pairing %s - %s applied", config.board, white, black)
        elif isinstance(error, ValueError):   # SessionError and ConfigError are ValueErrors
            log.warning("board %s: pairing %s - %s not applied: %s", config.board, white, black, error)
        else:
            log.error("board %s: pairing %s - %s failed", config.board, white, black, exc_info=error)

    def pairing(white: str, black: str, game: dict) -> None:   # (paho's thread)
        def send() -> None:   # (on the board's loop: through the session's door)
            try:
                answer = session.door.send(Command("set_round", (white, black), game))
            except ValueError as exc:
                log.warning("board %s: pairing %s - %s not applied: %s", config.board, white, black, exc)
                return
            if isinstance(answer, asyncio.Future):
                answer.add_done_callback(lambda done: applied(white, black, done))
            else:
                applied(white, black, None)
        loop.call_soon_threadsafe(send)

    publisher = BoardPublisher(Broker.parse(config.broker), config.club, config.board, credentials=credentials,
                               on_pairing=pairing,
                               ca_file=config.ca_file or None)
    unsubscribe = session.subscribe(publisher.on_state)
    publisher.on_state(session.state())
    publisher.start()
    try:
        await asyncio.Event().wait()
    finally:
        unsubscribe()
        await asyncio.shield(loop.run_in_executor(None, publisher.stop))
