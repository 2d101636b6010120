"""mqtts://: boards and hub over TLS, trusting the club's own authority; an untrusted broker is refused."""
from __future__ import annotations

import asyncio
import subprocess

from firmware.club.publisher import BoardPublisher
from club_wire.topics import Broker
from tests.firmware.session_support import Table

from .mosquitto import CLUB, free_port
from .support import SCHOLAR, read_games, get_text, start_hub, stop_hub, uci_moves, until


def make_certificates(directory) -> None:
    """A club authority and the broker's certificate for 127.0.0.1, signed by it (openssl)."""
    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=directory, check=True, capture_output=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=Club test authority")
    run("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    (directory / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "server.crt", "-days", "2", "-extfile", "san.ext")


async def test_boards_and_hub_over_tls_with_the_clubs_authority(broker, tmp_path):
    certs = tmp_path / "certs"
    certs.mkdir()
    make_certificates(certs)
    tls_port = free_port()
    with open(broker.files.config, "a") as conf:
        conf.write(f"listener {tls_port} 127.0.0.1\ncertfile {certs / 'server.crt'}\nkeyfile {certs / 'server.key'}\n")
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, broker.restart)
    broker.url = f"mqtts://127.0.0.1:{tls_port}"
    app, task = await start_hub(broker, tmp_path / "hub", ca_file=certs / "ca.crt")
    table = Table(tmp_path / "b1")
    trusting = BoardPublisher(Broker.parse(broker.url), CLUB, "1", credentials=broker.credentials("1"),
                              ca_file=str(certs / "ca.crt"))
    untrusting = BoardPublisher(Broker.parse(broker.url), CLUB, "2", credentials=broker.credentials("2"))
    for publisher in (trusting, untrusting):
        table.session.subscribe(publisher.on_state)
        publisher.start()
    try:
        table.setup()
        table.play_all(" ".join(SCHOLAR))
        await until(app.hub, lambda: "1" in app.hub.boards and app.hub.boards["1"].over)
        (game,) = read_games((await get_text(app, "/round.pgn"))[1])
        assert uci_moves(game) == SCHOLAR
        assert trusting.connected and not untrusting.connected and untrusting.published == 0
        assert "2" not in app.hub.boards     # a board that cannot check the broker sends nothing
    finally:
        for publisher in (trusting, untrusting):
            await loop.run_in_executor(None, publisher.stop)
        await stop_hub(app, task)
