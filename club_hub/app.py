"""The hub put together: broker client, hub state, web server, Lichess broadcast, pairing file."""
from __future__ import annotations

import asyncio
import csv
import logging
import signal
from dataclasses import dataclass, field
from pathlib import Path

from club_wire.topics import Broker, read_credentials
from club_hub.broadcast import BroadcastPusher
from club_hub.core import Hub
from club_hub.mqtt import HubClient
from club_hub.pairings import PairingError, parse_pairings
from club_hub.server import HubServer
from netserver.host_names import HostNames

log = logging.getLogger(__name__)

PAIRINGS_CHECK_S = 2.0


@dataclass
class HubOptions:
    broker: str
    state_dir: Path
    club: str = "club"
    host: str = "0.0.0.0"
    port: int = 8090
    hosts: tuple[str, ...] = ()                  # names the page answers to besides its own (see HostNames)
    credentials: Path | None = None
    ca_file: Path | None = None                  # mqtts: the authority to trust (None: the system's)
    pairings: Path | None = None
    round: str | None = None
    site: str = "?"
    rules: dict = field(default_factory=dict)       # time_control, rules, draw_offers_from_move, event
    ratings: Path | None = None                  # the club's list to start from (CSV name,rating,games)
    broadcast: str | None = None                 # a Lichess broadcast round id
    token_file: Path | None = None
    lichess_url: str = "https://lichess.org"
    pairings_check_s: float = PAIRINGS_CHECK_S      # how often the pairing file is looked at


class HubApp:
    """Runs until :meth:`stop`; ``ready`` is set once the page serves (``port`` is then known)."""

    def __init__(self, options: HubOptions) -> None:
        self.options = options
        self.hub = Hub(options.state_dir, site=options.site, round=options.round, rules=options.rules)
        self.server = HubServer(self.hub, HostNames(options.hosts))
        self.client: HubClient | None = None
        self.pusher: BroadcastPusher | None = None
        self.ready = asyncio.Event()
        self.port: int | None = None
        self._stop = asyncio.Event()
        self._pairings_mtime: float | None = None

    def prepare(self) -> None:
        """Everything that can fail on bad input, before anything starts (ValueError, OSError)."""
        o = self.options
        o.state_dir.mkdir(parents=True, exist_ok=True)
        self.broker = Broker.parse(o.broker)
        self.credentials = read_credentials(o.credentials) if o.credentials else None
        if o.ca_file is not None and not o.ca_file.is_file():
            raise ValueError(f"--ca-file {o.ca_file}: no such file")
        self.hub.load()
        if o.ratings is not None:
            with open(o.ratings, encoding="utf-8", newline="") as f:
                self.hub.ratings.seed(csv.DictReader(f))
        if o.pairings is not None:
            self._read_pairings()
        if o.broadcast:
            if o.token_file is None:
                raise ValueError("--broadcast needs --token-file (a Lichess token with scope study:write)")
            token = _read_token(o.token_file)
            self.pusher = BroadcastPusher(o.broadcast, token, self.hub.round_pgn, base_url=o.lichess_url)

    def _read_pairings(self) -> bool:
        path = self.options.pairings
        if path is None:
            return False
        mtime = path.stat().st_mtime
        if mtime == self._pairings_mtime:
            return False
        self._pairings_mtime = mtime
        self.hub.set_pairings(parse_pairings(path.read_text(encoding="utf-8"), str(path)))
        log.info("pairings: %d boards from %s", len(self.hub.pairings), path)
        return True

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        self.client = HubClient(self.hub, self.broker, self.options.club, loop, credentials=self.credentials,
                                ca_file=str(self.options.ca_file) if self.options.ca_file else None)
        self.port = await self.server.start(self.options.host, self.options.port)
        if self.pusher is not None:
            self.hub.listeners.append(self.pusher.changed)
            self.pusher.start()
            self.pusher.changed()
        self.client.start()
        log.info("hub page on http://%s:%d/ (broker %s)", self.options.host, self.port, self.broker.url())
        self.ready.set()
        try:
            while not self._stop.is_set():
                try:
                    await asyncio.wait_for(self._stop.wait(), self.options.pairings_check_s)
                except asyncio.TimeoutError:
                    pass
                if self.options.pairings is not None:
                    try:
                        if self._read_pairings():
                            self.client.publish_pairings()
                            self.hub.pairings_shown()
                    except (OSError, PairingError) as exc:
                        log.error("pairings not read again: %s", exc)
        finally:
            await loop.run_in_executor(None, self.client.stop)
            if self.pusher is not None:
                await self.pusher.close()
            await self.server.stop()
            await loop.run_in_executor(None, self.hub.store.close)
        return 0

    def stop(self) -> None:
        self._stop.set()


def _read_token(path: Path) -> str:
    if path.stat().st_mode & 0o077:
        raise ValueError(f"{path}: the Lichess token file must be readable by its owner only (chmod 600 {path})")
    token = path.read_text(encoding="utf-8").strip()
    if not token:
        raise ValueError(f"{path}: no token in the file")
    return token


async def serve(options: HubOptions) -> int:
    """``echiquier hub``: run until SIGTERM or SIGINT."""
    app = HubApp(options)
    app.prepare()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, app.stop)
    return await app.run()
