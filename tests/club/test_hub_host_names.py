"""The hall page answers only the names its machine is known by (issue 26, point 1, at the hub): a page
of another site whose name is pointed at the hub (DNS rebinding) reads neither the games nor the ratings."""
from __future__ import annotations

import aiohttp
import pytest

from club_hub.core import Hub
from club_hub.server import HubServer
from netserver.host_names import HostNames, bind_names

READS = ["/", "/api/boards", "/round.pgn", "/ratings.csv", "/api/ratings", "/ws"]


@pytest.fixture
async def hub_port(tmp_path):
    server = HubServer(Hub(tmp_path), names=HostNames(["hall.club.example"], hostname="clubpc"))
    port = await server.start("127.0.0.1", 0)
    yield port
    await server.stop()


async def _status(port: int, path: str, host: str) -> tuple[int, str]:
    headers = {"Host": host, "Origin": f"http://{host}"}
    async with aiohttp.ClientSession() as http:
        async with http.get(f"http://127.0.0.1:{port}{path}", headers=headers) as response:
            return response.status, await response.text()


async def test_a_rebound_page_reads_nothing_from_the_hall(hub_port):
    for path in READS:
        status, body = await _status(hub_port, path, f"evil.example:{hub_port}")
        assert status == 421, path
        assert "evil.example" not in body and "--hosts" in body, body


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]", "clubpc", "clubpc.local", "Hall.Club.Example."])
async def test_the_hall_answers_its_addresses_and_names(hub_port, host):
    status, _ = await _status(hub_port, "/api/boards", f"{host}:{hub_port}")
    assert status == 200


def test_the_hub_command_takes_more_names(tmp_path):
    from club_hub.app import HubApp, HubOptions

    app = HubApp(HubOptions(broker="mqtt://127.0.0.1:1", state_dir=tmp_path, hosts=("hall.club.example",)))
    assert "hall.club.example:8090" in app.server.names and "evil.example" not in app.server.names
    for bind in ("0.0.0.0", "::", "[::]", "192.168.1.9", ""):   # an address adds no name
        app = HubApp(HubOptions(broker="mqtt://127.0.0.1:1", state_dir=tmp_path, hosts=bind_names(bind)))
        assert app.server.names.names == HostNames().names, bind
    assert bind_names("Hall.Club.Example") == ("hall.club.example",)
