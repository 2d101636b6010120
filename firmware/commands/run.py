"""`echiquier run`: the board service, as systemd starts it (see systemd/echiquier.service)."""
from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from firmware.companion import ServiceContext


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run the board service (sensors, LEDs, clock, recorder)")
    p.add_argument("--config", type=Path, default=None,
                   help="configuration file (default: /etc/echiquier/config.toml)")
    p.add_argument("--capture", type=Path, default=None,
                   help="also record every raw reading to this file (capture format v1)")
    p.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # journald adds the time and the unit; keep the line short
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    from firmware.config import ConfigError, check_storage, load_config
    try:
        config = load_config(args.config)
        check_storage(config)
    except ConfigError as exc:
        print(f"echiquier run: {exc}", file=sys.stderr)
        return 2
    if hasattr(signal, "SIGXFSZ"):
        # A file-size limit must fail a save (EFBIG: the game is kept and the save retried),
        # not kill the service.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    from firmware.service import Service
    try:
        companions = ((_web,) if config.web.enabled else ()) + ((_club,) if config.club.broker else ()) + (
            (_emulation,) if config.emulation.protocol else ())
        companions += (_voice,) if config.voice.enabled else ()
        service = Service(config, capture=args.capture, companions=companions)
    except (OSError, ValueError, ImportError) as exc:
        print(f"echiquier run: cannot start: {exc}", file=sys.stderr)
        return 1
    return asyncio.run(service.run())


def _import_web():
    """The web companion's modules loaded: its ``serve_web``."""
    from firmware.web.companion import serve_web
    return serve_web


async def _web(service: ServiceContext) -> None:
    """The web companion, started once the board is read (READY=1 does not wait for it).

    Its modules load on a worker thread (30 ms of CPU here, about 0.2 s on a Pi Zero 2 W):
    meanwhile the loop goes on settling readings and showing their LED frames, which waited
    for the whole import when it ran on the loop (bench/service.py's first frames).
    """
    await service.ready.wait()
    serve_web = await asyncio.to_thread(_import_web)
    import gc
    gc.freeze()  # the page's modules too: out of the collector's full passes (see Service)
    await serve_web(service)


async def _club(service: ServiceContext) -> None:
    """Club night: the game published to the club's broker (docs/club.md)."""
    from firmware.club.publisher import serve_club
    await serve_club(service)


async def _emulation(service: ServiceContext) -> None:
    """The board as a commercial board for the apps that know one ([emulation], firmware.emulation)."""
    from firmware.emulation.companion import serve_emulation
    await serve_emulation(service)


async def _voice(service: ServiceContext) -> None:
    """The board speaks ([voice], firmware.voice): espeak-ng, never on the board's loop."""
    from firmware.voice.companion import serve_voice
    await serve_voice(service)
