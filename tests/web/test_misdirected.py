"""Misdirected requests (issue 26, point 1), beyond tests/web/test_host_names.py: on a board that
needs pairing, what a rebound page tries costs the owner nothing; the names, unit by unit."""
from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest

from firmware.config import ConfigError, loads_config
from firmware.web.companion import names_for
from netserver.host_names import HostNames, host_name, is_ip_literal
from tests.netserver.oracles import http_responses
from tests.said import both, error_in

CODE = "35162478"


def _rebound(client, name: str = "evil.example") -> dict[str, str]:
    """The headers of a request from a page served under ``name``, a name now pointing at the board."""
    host = f"{name}:{client.server.port}"
    return {"Host": host, "Origin": f"http://{host}"}


async def test_a_board_on_the_lan_serves_no_read_nor_live_board_to_another_name(serve):
    client, _, backend = await serve(code=CODE)
    backend.play("e2e4")
    for path in ("/api/state", "/api/games", "/games.pgn", "/api/session"):
        response = await client.get(path, headers=_rebound(client))
        assert response.status == 421 and set(await response.json()) == {"error", "message"}, path
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await client.ws_connect("/ws", headers=_rebound(client))
    assert refused.value.status == 421


async def test_codes_sent_under_another_name_are_not_counted_against_the_owner(serve):
    """A rebound page guessing codes is turned away before the pairing limits see it: the owner's
    five tries are intact."""
    client, _, backend = await serve(code=CODE)
    for _ in range(8):
        response = await client.post("/api/settings", data=json.dumps({"show_legal": False}),
                                     headers={**_rebound(client), "Content-Type": "application/json",
                                              "X-Pairing-Code": "11111111"})
        assert response.status == 421
    assert not backend.calls
    paired = await client.post("/api/pair", data=json.dumps({"code": CODE}),
                               headers={"Content-Type": "application/json"})
    assert paired.status == 200


async def test_an_unknown_path_under_another_name_is_misdirected_not_a_404(serve):
    client, _, _ = await serve()
    assert (await client.get("/api/nothing", headers=_rebound(client))).status == 421


@pytest.mark.parametrize("name", ["192.168.1.50", "10.0.0.7", "[fe80::1]", "0x7f.1", "localhost.", "LOCALHOST"])
async def test_any_address_and_localhost_in_any_spelling_are_the_boards(serve, name):
    """An address cannot be rebound (a page's origin is then that address), so every IP literal
    passes, as a browser (normalised) or curl (as typed) sends it."""
    client, _, _ = await serve(code=CODE)
    for port in (f":{client.server.port}", ""):
        assert (await client.get("/api/state", headers={"Host": f"{name}{port}"})).status == 200, (name, port)


async def test_a_request_without_a_host_is_not_misdirected(serve):
    """HTTP/1.0 needs no Host, and no browser omits it: no page rebinds through it."""
    client, _, _ = await serve()
    reader, writer = await asyncio.open_connection("127.0.0.1", client.server.port)
    writer.write(b"GET /api/state HTTP/1.0\r\n\r\n")
    try:
        raw = await asyncio.wait_for(reader.read(), 5)
    finally:
        writer.close()
    [(status, _, _)] = http_responses(raw, (), eof=True)
    assert status == 200


# -- the names, and where they come from ----------------------------------------------------------------

def test_a_host_header_is_compared_by_its_name_alone():
    assert host_name("Board.Local.:8080") == "board.local"
    assert host_name("[::1]:8080") == "::1" and host_name("10.0.0.7") == "10.0.0.7"
    assert all(is_ip_literal(n) for n in ("10.0.0.7", "::1", "127.1", "0x7f.1", "2130706433"))
    assert not any(is_ip_literal(n) for n in ("", "evil.example", "1.2.3.example", "localhost"))
    # A numeric last label makes the whole host an IPv4 address or no host at all (WHATWG URL):
    # a name with other labels is one no browser can open, and is not taken for an address.
    assert not any(is_ip_literal(n) for n in ("evil.example.0x", "evil.1", "1.2.3.4.5"))


def test_the_board_knows_its_hostname_its_short_name_and_its_mdns_name():
    names = HostNames(hostname="Echiquier.home.arpa.")
    assert {"echiquier.home.arpa", "echiquier", "echiquier.local", "localhost"} <= names.names
    assert "echiquier.local:8080" in names and "ECHIQUIER:80" in names
    assert "evil.example:8080" not in names and "echiquier.evil.example" not in names
    assert "" in names                              # no Host at all (HTTP/1.0)


def test_the_board_answers_to_the_name_avahi_gives_it_when_its_own_is_taken():
    """A second board called echiquier on the LAN (a club night) is echiquier-2.local to mDNS."""
    names = HostNames(hostname="echiquier")
    assert "echiquier-2.local:8080" in names and "Echiquier-13.local." in names
    assert not any(h in names for h in ("echiquier-2.evil.example", "echiquier-x.local", "evil-2.local",
                                        "echiquier-2.local.evil.example", "echiquier-.local"))


def test_web_hosts_and_a_named_bind_address_add_names_and_an_address_adds_none():
    names = names_for(loads_config('[web]\nhost = "board.lan"\nhosts = ["chess.home.arpa", "Salle-2.club.example."]'))
    assert {"board.lan", "chess.home.arpa", "salle-2.club.example"} <= names.names
    assert "evil.example" not in names
    for bind in ("0.0.0.0", "::", "192.168.1.50"):
        assert names_for(loads_config(f'[web]\nhost = "{bind}"')).names == HostNames().names


@pytest.mark.parametrize("value", ['"chess.home.arpa"', '[1]', '["http://chess.home.arpa"]', '["chess:8080"]',
                                   '[""]', '["a b"]', '["*.lan"]'])
def test_web_hosts_must_be_a_list_of_names(value):
    with pytest.raises(ConfigError, match=r"web\.hosts"):
        loads_config(f"[web]\nhosts = {value}")
