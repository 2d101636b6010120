"""`echiquier hub`: the club hub (every board's game live, /round.pgn, ratings, Lichess broadcast)."""
from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hub", help="club night: every board's game live on one page and in one PGN")
    p.add_argument("--broker", help='the MQTT broker, "mqtt://host:1883" or "mqtts://host:8883"')
    p.add_argument("--club", default="club", help="the club's topic level (as the boards' [club] club)")
    p.add_argument("--port", type=int, default=8090, help="the page's port (default 8090)")
    p.add_argument("--host", default="0.0.0.0", help="the page's address (default: every interface)")
    p.add_argument("--hosts", nargs="+", default=[], metavar="NAME",
                   help="names the page answers to besides its addresses, localhost and this machine's "
                        "names (others get 421, against DNS rebinding)")
    p.add_argument("--state-dir", type=Path, default=Path("hub-state"), help="where the games are kept")
    p.add_argument("--credentials", type=Path, help='a 0600 file "user:password" for the broker')
    p.add_argument("--ca-file", type=Path, help="mqtts: the authority that signed the broker's certificate")
    p.add_argument("--pairings", type=Path, help="CSV: board, white, black, optional round (re-read when changed)")
    p.add_argument("--round", help="the round (default: the pairing file's)")
    p.add_argument("--event", help="the PGN Event of the round")
    p.add_argument("--site", default="?", help="the PGN Site")
    p.add_argument("--time-control", help='the round\'s time control, e.g. "5400+30"')
    p.add_argument("--rules", choices=("fide", "casual"), help="the round's rule profile")
    p.add_argument("--draw-offers-from", type=int, metavar="N", help="draw offers only from move N")
    p.add_argument("--ratings", type=Path, help="the club's rating list to start from (CSV: name, rating, games)")
    p.add_argument("--broadcast", metavar="ROUND_ID", help="push the round to this Lichess broadcast round")
    p.add_argument("--token-file", type=Path, help="a 0600 file with a Lichess token (scope study:write)")
    p.add_argument("--lichess-url", default="https://lichess.org", help=argparse.SUPPRESS)
    p.add_argument("--broker-config", type=Path, metavar="DIR",
                   help="write a Mosquitto configuration (users, passwords, ACL) for --boards into DIR and stop")
    p.add_argument("--boards", default="1-16", help='the boards of --broker-config: "1-64" or "1,2,5"')
    p.add_argument("--broker-port", type=int, default=1883, help="the port of --broker-config's broker")
    p.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    from club_wire.topics import NAME
    if not NAME.fullmatch(args.club):
        print(f"echiquier hub: --club {args.club!r}: letters, digits, - and _ only", file=sys.stderr)
        return 2
    if args.broker_config is not None:
        return _broker_config(args)
    if not args.broker:
        print("echiquier hub: --broker URL is needed (or --broker-config DIR)", file=sys.stderr)
        return 2
    from club_hub.app import HubOptions, serve
    from netserver.host_names import bind_names
    rules = {k: v for k, v in (("time_control", args.time_control), ("rules", args.rules),
                               ("draw_offers_from_move", args.draw_offers_from), ("event", args.event))
             if v is not None}
    if args.time_control is not None:
        from chess_core.timecontrol import TimeControl, TimeControlError
        try:
            TimeControl.parse(args.time_control)
        except TimeControlError as exc:
            print(f"echiquier hub: --time-control: {exc}", file=sys.stderr)
            return 2
    options = HubOptions(broker=args.broker, state_dir=args.state_dir, club=args.club, host=args.host,
                         port=args.port, credentials=args.credentials, ca_file=args.ca_file,
                         pairings=args.pairings, round=args.round,
                         site=args.site, rules=rules, ratings=args.ratings, broadcast=args.broadcast,
                         token_file=args.token_file, lichess_url=args.lichess_url,
                         hosts=(*args.hosts, *bind_names(args.host)))
    try:
        return asyncio.run(serve(options))
    except (OSError, ValueError) as exc:
        print(f"echiquier hub: cannot start: {exc}", file=sys.stderr)
        return 1


def _broker_config(args: argparse.Namespace) -> int:
    from club_hub.broker import parse_boards, write_broker_files
    from club_wire.topics import NAME
    boards = parse_boards(args.boards)
    bad = [b for b in boards if not NAME.fullmatch(b)]
    if bad or not boards:
        print(f"echiquier hub: --boards: board names are letters, digits, - and _ ({bad[:3]})", file=sys.stderr)
        return 2
    files = write_broker_files(args.broker_config, club=args.club, boards=boards, port=args.broker_port)
    print(f"Mosquitto configuration: {files.config}")
    print(f"Start it with: mosquitto -c {files.config}")
    print(f"Credentials (copy each to its board, [club] credentials_file): {files.directory / 'credentials'}/")
    return 0
