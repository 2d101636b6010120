"""The hub's MQTT client: every board's messages onto the hub's loop, the pairings out (paho)."""
from __future__ import annotations

import asyncio
import logging

import paho.mqtt.client as mqtt

from club_wire.topics import QOS, Broker, all_boards, pairing_topic, parse_topic
from club_hub.core import Hub

log = logging.getLogger(__name__)


class HubClient:
    """Subscribes to ``echiquier/<club>/board/+/{game,status}``; publishes the pairings, retained."""

    def __init__(self, hub: Hub, broker: Broker, club: str, loop: asyncio.AbstractEventLoop, *,
                 credentials: tuple[str, str] | None = None, client_id: str = "",
                 ca_file: str | None = None) -> None:
        self.hub, self.broker, self.club, self.loop = hub, broker, club, loop
        self.connected = asyncio.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id or f"echiquier-hub-{club}",
                                  clean_session=True)
        if credentials is not None:
            self.client.username_pw_set(*credentials)
        if broker.tls:
            self.client.tls_set(ca_certs=ca_file or None)
        # paho annotates int, but it adds the delays (seconds) to time.monotonic() and sleeps on: 0.5 works
        self.client.reconnect_delay_set(0.5, 4.0)  # type: ignore[arg-type]
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_connect_fail = lambda client, userdata: log.warning(
            "hub cannot reach the broker %s; trying again", broker.url())

    def start(self) -> None:
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=15)
        self.client.loop_start()

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def publish_pairings(self) -> None:
        for board, payload in self.hub.pairing_messages():
            self.client.publish(pairing_topic(self.club, board), payload, qos=QOS, retain=True)

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if reason_code.is_failure:
            log.error("broker %s refused the hub: %s", self.broker.url(), reason_code)
            return
        log.info("hub connected to %s", self.broker.url())
        client.subscribe([(all_boards(self.club, "game"), QOS), (all_boards(self.club, "status"), QOS)])
        self.publish_pairings()
        self.loop.call_soon_threadsafe(self.connected.set)

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None) -> None:
        log.warning("hub lost the broker (%s); reconnecting", reason_code)
        self.loop.call_soon_threadsafe(self.connected.clear)

    def _on_message(self, client, userdata, message) -> None:
        found = parse_topic(self.club, message.topic)
        if found is None:
            log.warning("message on %r dropped: not a board topic", message.topic[:100])
            return
        board, leaf = found
        self.loop.call_soon_threadsafe(self.hub.receive, board, leaf, bytes(message.payload))
