"""`echiquier lichess login`: store the Lichess API token (scope board:play) in a file of mode 0600."""
from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from typing import TextIO

from firmware.opponents.lichess.token import TOKEN_SCOPE, Token, TokenError, read_token, write_token

TOKEN_PAGE = "https://lichess.org/account/oauth/token/create?scopes[]=board:play&description=Echiquier"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lichess", help="Lichess account of the board")
    actions = p.add_subparsers(dest="lichess_command", metavar="ACTION")
    login = actions.add_parser("login", help=f"store a Lichess API token ({TOKEN_SCOPE} scope)",
                               description=f"Store a Lichess personal API token with the {TOKEN_SCOPE} scope "
                                           f"(create one at {TOKEN_PAGE}). The token is read from "
                                           "--token-file, from standard input, or asked for; it is never "
                                           "printed, and it is written with mode 0600.")
    login.add_argument("--token-file", help="read the token from this file (which must have mode 0600)")
    login.add_argument("--output", help="where to store it (default: [lichess] token_file of the config, "
                                        "else lichess.token in its storage dir)")
    login.add_argument("--config", help="configuration file (default /etc/echiquier/config.toml)")
    login.add_argument("--check", action="store_true",
                       help="ask Lichess which account the token belongs to before storing it")
    login.add_argument("--base-url", help="Lichess server for --check (default: [lichess] base_url)")
    login.set_defaults(func=run_login)
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])


def _lichess_settings(config_path: str | None) -> tuple[str, str]:
    """(token_file, base_url) from the configuration, if it can be read."""
    from firmware.config import load_config

    config = load_config(config_path)
    return str(config.lichess_token_path), config.lichess.base_url


def _read_token(args: argparse.Namespace, stdin: TextIO) -> Token:
    if args.token_file:
        return read_token(args.token_file)   # refuses a file others can read
    if stdin.isatty():
        text = getpass.getpass(f"Lichess API token ({TOKEN_SCOPE} scope; input is hidden): ")
    else:
        text = stdin.readline()
    return Token(text)


async def _account(base_url: str, token: Token) -> str:
    from firmware.opponents.lichess.client import LichessClient, LichessConfig
    async with LichessClient(LichessConfig(base_url=base_url), token) as client:
        account = await client.account()
    return str(account.get("username") or account.get("id") or "?")


def run_login(args: argparse.Namespace, stdin: TextIO | None = None, out: TextIO | None = None) -> int:
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    try:
        token_file, base_url = _lichess_settings(args.config)
    except Exception as exc:     # ConfigError and friends: say it, do not store anything
        print(f"echiquier lichess login: {exc}", file=sys.stderr)
        return 2
    output = args.output or token_file
    try:
        token = _read_token(args, stdin)
    except TokenError as exc:
        print(f"echiquier lichess login: {exc}", file=sys.stderr)
        return 2
    except (EOFError, KeyboardInterrupt):
        print("echiquier lichess login: no token given", file=sys.stderr)
        return 2
    if args.check:
        from firmware.opponents.lichess.client import LichessError
        try:
            name = asyncio.run(_account(args.base_url or base_url, token))
        except LichessError as exc:
            print(f"echiquier lichess login: Lichess refused the token: {exc}", file=sys.stderr)
            return 2
        print(f"The token belongs to {name}.", file=out)
    try:
        write_token(output, token)
    except OSError as exc:
        print(f"echiquier lichess login: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"Token stored in {output} (mode 0600). The service reads it from [lichess] token_file.", file=out)
    return 0
