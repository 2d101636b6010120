"""`echiquier sim`: the board's service on a simulated board, played with the mouse on the web page."""
from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import os
import random
import shutil
import signal
import sys
from pathlib import Path

from chess_core import FenError
from chess_core.chess960 import VARIANTS
from chess_core.timecontrol import TimeControl, TimeControlError

from firmware.companion import ServiceContext
from firmware.commands.fen_check import read_fen
from firmware.config import SERIAL_PROTOCOLS, ConfigError, check_storage, load_config, with_overrides
from firmware.words import LANGS


def default_state_dir() -> Path:
    """Where the simulator keeps its games: $XDG_DATA_HOME/echiquier-sim (~/.local/share/...)."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "echiquier-sim"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sim", help="run the service on a simulated board, played in the browser")
    p.add_argument("--port", type=int, default=8080, help="port of the web page (default: 8080; 0: any free port)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default: 127.0.0.1; any other address needs the pairing code)")
    p.add_argument("--state-dir", default=None,
                   help=f"where games are recorded (default: {default_state_dir()})")
    p.add_argument("--config", default=None, help="configuration file to start from (its sensors are ignored)")
    p.add_argument("--time-control", default=None, help="time control of the first game, e.g. 300+3")
    p.add_argument("--rules", choices=("fide", "casual"), default=None, help="rule profile")
    p.add_argument("--fen", default=None, help="start position (default: the initial position)")
    p.add_argument("--variant", choices=VARIANTS, default=None,
                   help="chess960: Chess960 games (default: [game] variant of the configuration)")
    p.add_argument("--start-position", type=int, default=None, metavar="N",
                   help="Chess960 start position 0-959 (implies --variant chess960; default: a random one)")
    p.add_argument("--settle-ms", type=int, default=None, help="debounce settle time of the sensors")
    p.add_argument("--pairing-code", default=None, help="pairing code when listening beyond this machine")
    p.add_argument("--opponent", choices=("none", "engine", "lichess"), default=None,
                   help="who plays the other side: none (two players over the board), engine (Stockfish), "
                        "lichess (your online games); default: [game] opponent of the configuration")
    p.add_argument("--engine-side", choices=("white", "black", "alternate"), default=None,
                   help="the side the engine plays (default: [engine] side)")
    p.add_argument("--engine-level", type=int, default=None, help="engine level, 0 to 20 (default: [engine] level)")
    p.add_argument("--club-broker", default=None, metavar="URL",
                   help="publish the game to a club's broker, as `echiquier run` does (mqtt://host:1883 or "
                        "mqtts://host:8883; default: [club] broker of the configuration; see docs/club.md)")
    p.add_argument("--club-board", default=None, metavar="N",
                   help="this board's number in the club's hall (default: [club] board of the configuration)")
    p.add_argument("--emulate", choices=SERIAL_PROTOCOLS, default=None,
                   help="answer as a commercial board on a local serial port, for an app on this machine: "
                        "chesslink (Millennium), dgt (DGT e-board); needs --link")
    p.add_argument("--link", default=None, metavar="PATH",
                   help="with --emulate: a symlink made at PATH to the port, to give the app as its board's port")
    p.add_argument("--app", default=None, metavar="NAME",
                   help="with --emulate: the app's name, as the page and the PGN say it")
    p.add_argument("--voice", choices=LANGS, default=None,
                   help=f"the board speaks, in one of its languages ({', '.join(LANGS)}), through this machine's "
                        "sound card (espeak-ng): the moves, the opponent's move to carry out, what to put right, "
                        "the result")
    p.add_argument("--voice-out", default=None, metavar="DIR",
                   help="the voice writes one WAV file per utterance to DIR and their texts to DIR/index.jsonl, "
                        "instead of the sound card (language: --voice, else [voice] language)")
    p.add_argument("--verbose", "-v", action="store_true", help="log what the session does")
    p.set_defaults(func=run)


def _fail(message: str) -> int:
    prefix = "echiquier sim: "
    print(message if message.startswith(prefix) else prefix + message, file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not 0 <= args.port <= 65535:
        return _fail(f"--port must be 0 to 65535, not {args.port}")
    try:
        if args.time_control is not None:
            TimeControl.parse(args.time_control)
        variant = "chess960" if args.start_position is not None else args.variant
        if args.fen is not None:
            read_fen(args.fen, chess960=variant == "chess960")
        if args.start_position is not None and not 0 <= args.start_position < 960:
            return _fail(f"--start-position must be 0 to 959, not {args.start_position}")
        if args.emulate is not None and not args.link:
            return _fail("--emulate needs --link PATH: the port's path to give the app")
        if (args.link is not None or args.app is not None) and args.emulate is None:
            return _fail("--link and --app go with --emulate chesslink|dgt")
        base = load_config(args.config) if args.config else None
    except TimeControlError as exc:
        return _fail(f"bad --time-control: {exc}")
    except FenError as exc:
        return _fail(f"bad --fen: {exc}")
    except ConfigError as exc:
        return _fail(str(exc))

    from firmware.sim.simulator import simulator_config

    state_dir = Path(args.state_dir) if args.state_dir else default_state_dir()
    try:
        config = simulator_config(base, state_dir, time_control=args.time_control, rules=args.rules,
                                  fen=args.fen, settle_ms=args.settle_ms, host=args.host, port=args.port,
                                  pairing_code=args.pairing_code, opponent=args.opponent,
                                  engine_side=args.engine_side, engine_level=args.engine_level, variant=variant,
                                  start_position=args.start_position)
        club = {key: value for key, value in (("broker", args.club_broker), ("board", args.club_board))
                if value is not None}
        if club:
            config = with_overrides(config, club=club)
        if config.club.broker and not config.club.board:
            return _fail(f"{config.source}: club.board: a board publishing to {config.club.broker} needs its number "
                         "(--club-board N, or [club] board)")
        if args.emulate is not None:
            emulation = {"protocol": args.emulate, "transport": "pty", "link": str(Path(args.link).absolute())}
            config = with_overrides(config, emulation=emulation | ({"app": args.app} if args.app is not None else {}))
        if args.voice is not None or args.voice_out is not None:
            if shutil.which("espeak-ng") is None:
                return _fail("--voice and --voice-out need espeak-ng (Debian: sudo apt install espeak-ng)")
            voice: dict[str, object] = {"enabled": True}
            if args.voice is not None:
                voice["language"] = args.voice
            if args.voice_out is not None:
                voice["wav_dir"] = str(Path(args.voice_out).absolute())
            config = with_overrides(config, voice=voice)
        if config.game.chess960 and not config.game.fen and config.game.start_position < 0:
            # The simulated board is set up once: the first game's start position is drawn here.
            config = with_overrides(config, game={"start_position": random.randrange(960)})
        check_storage(config)
    except ConfigError as exc:
        return _fail(str(exc))
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a file-size limit fails a save, never the board
    try:
        return asyncio.run(_serve(config, args.port))
    except KeyboardInterrupt:
        return 0


def _opponent(config):
    """The configured opponent ([game] opponent), built as `echiquier run` builds it."""
    from firmware.opponents.factory import build_opponent
    return build_opponent(config)


async def _club(service: ServiceContext) -> None:
    """Club night, rehearsed: the game published to the club's broker, as under `run` (docs/club.md)."""
    from firmware.club.publisher import serve_club
    await serve_club(service)


async def _emulation(service: ServiceContext) -> None:
    """The board as a commercial board on a local port, for an app (firmware.emulation)."""
    from firmware.emulation.companion import serve_emulation
    await serve_emulation(service, announce=lambda text: print(text, flush=True))


async def _voice(service: ServiceContext) -> None:
    """The board speaks ([voice], --voice, --voice-out; firmware.voice)."""
    from firmware.voice.companion import serve_voice
    await serve_voice(service)


async def _serve(config, port: int) -> int:
    from firmware.sim.simulator import Simulator

    try:
        opponent = _opponent(config)
    except (ConfigError, ValueError, OSError) as exc:
        return _fail(f"cannot set up the opponent: {exc}")

    def announce(url: str) -> None:
        print(f"Échiquier simulator on {url}  (games in {config.storage.dir}; Ctrl-C to stop)", flush=True)
        if sim.pairing.required:
            print(f"Pairing code: {sim.pairing.code}", flush=True)

    emulation = config.emulation
    voice = (_voice,) if config.voice.enabled else ()
    sim = Simulator(config, port=port, announce=announce, opponent=opponent,
                    companions=((_club,) if config.club.broker else ()) + ((_emulation,) if emulation.protocol else ()) + voice)
    code = await sim.run()
    if sim.url is None:
        error = sim.listen_error
        why = f": {error.strerror or error}" if error is not None else ""
        if error is not None and error.errno == errno.EADDRINUSE:
            why = ": the port is in use by another program (an echiquier sim still running?); stop it, or " \
                  "choose another port with --port N"
        return _fail(f"cannot listen on {config.web.host}:{port}{why}")
    return code
