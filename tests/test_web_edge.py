"""The server's edge as an attacker on the home network meets it: the
protocol's connection bounds driven in this process with connections from
made-up addresses, and the guard in front of the app."""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime
import hashlib
import ipaddress
import json
import logging
import re
import shutil
import socket
import ssl
import stat
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from click.testing import CliRunner
from starlette.types import ASGIApp, Receive, Send

from terrace.cli import main
from terrace.web import protocol as web_protocol
from terrace.web.endpoints import MAX_CONNECTIONS
from terrace.web.protocol import HEAD_BYTES, STRANGER_CONNECTIONS, GuardedH11Protocol
from terrace.web.security import RemoteKeys, SecurityMiddleware, token_cookie
from terrace.web.server import server_config
from terrace.web.tls import (
    CERT_DAYS,
    CertificateError,
    ensure_self_signed,
    fingerprint,
    make_self_signed,
    self_signed_paths,
    server_context,
)
from web_support import started_server

TOKEN = "s3cret-token-of-the-player"
"""The cookie's secret."""
LINK = "the-link-s-token-for-one-use"
"""The link's token, good for one use."""
PHONE = "192.168.1.9"
SERVER = ("192.168.1.20", 8000)


class Peer(asyncio.Transport):
    """A connection from ``address``, recording what the server writes; a
    close tells the protocol on the next turn of the loop, as asyncio does."""

    def __init__(self, address: str) -> None:
        super().__init__()
        self.address = address
        self.written = b""
        self.closed = False
        self.protocol: GuardedH11Protocol | None = None

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": (self.address, 50000), "sockname": SERVER}.get(name, default)

    def write(self, data: Any) -> None:
        self.written += bytes(data)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            if self.protocol is not None:
                asyncio.get_running_loop().call_soon(self.protocol.connection_lost, None)

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass


async def _ok(scope: Any, receive: Receive, send: Send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


async def _held(scope: Any, receive: Receive, send: Send) -> None:
    """An app that never answers: a request under way for as long as the test runs."""
    await asyncio.Event().wait()


class Network:
    """The server's protocol as ``terrace play --remote`` sets it up (the
    guard with a token, uvicorn's limit), taking connections from any address."""

    def __init__(self, served: ASGIApp = _ok) -> None:
        app = SecurityMiddleware(served, allowed_hosts=[SERVER[0]], token=RemoteKeys(cookie=TOKEN, link=LINK))
        self.config = server_config(app, lifespan="off")
        self.config.load()
        self.state = uvicorn.server.ServerState()
        self.peers: list[Peer] = []

    def connect(self, address: str) -> Peer:
        peer = Peer(address)
        protocol_class: type[GuardedH11Protocol] = self.config.http_protocol_class  # type: ignore[assignment]
        protocol = protocol_class(config=self.config, server_state=self.state, app_state={})
        peer.protocol = protocol
        self.peers.append(peer)
        protocol.connection_made(peer)
        return peer

    def close_all(self) -> None:
        for peer in self.peers:
            peer.close()


async def _answer(peer: Peer, request: bytes) -> bytes:
    """Send ``request`` on ``peer`` and wait for the whole answer's head."""
    before = len(peer.written)
    assert peer.protocol is not None
    peer.protocol.data_received(request)
    for _ in range(2000):
        if b"\r\n\r\n" in peer.written[before:] or peer.closed:
            break
        await asyncio.sleep(0.005)
    return peer.written[before:]


def _with_cookie(address: str = PHONE, path: str = "/api/stats") -> bytes:
    """A request with the game's cookie of a browser at ``address``."""
    sent = RemoteKeys(cookie=TOKEN, link=LINK).cookie_for(address)
    return (f"GET {path} HTTP/1.1\r\nHost: {SERVER[0]}:{SERVER[1]}\r\n"
            f"Cookie: {token_cookie(SERVER[1])}={sent}\r\n\r\n").encode()


def test_many_addresses_without_the_token_cannot_lock_the_player_out() -> None:
    """One machine takes many addresses (any number of IPv6 ones in its
    network): with one silent connection per address, each under the cap of
    one address, it held every place of the server's limit and the player's
    phone, token and all, was answered 503. Strangers now hold at most
    STRANGER_CONNECTIONS places, the oldest giving way to the newest, and a
    connection that showed the token is never pushed out."""

    async def attack() -> None:
        network = Network()
        try:
            for n in range(MAX_CONNECTIONS + 1):
                network.connect(f"fd00::{n + 1:x}")
            await asyncio.sleep(0)
            phone = network.connect(PHONE)
            assert (await _answer(phone, _with_cookie())).startswith(b"HTTP/1.1 200 ")
            strangers = [p for p in network.peers if p.address != PHONE and not p.closed]
            assert len(strangers) <= STRANGER_CONNECTIONS
            for n in range(2 * STRANGER_CONNECTIONS):
                network.connect(f"fd00::1:{n + 1:x}")
            await asyncio.sleep(0)
            assert not phone.closed
            assert (await _answer(phone, _with_cookie())).startswith(b"HTTP/1.1 200 ")
            assert len(web_protocol._strangers) == STRANGER_CONNECTIONS
        finally:
            network.close_all()
            await asyncio.sleep(0)
        assert not web_protocol._strangers and not web_protocol._open_from

    asyncio.run(attack())


def test_idle_connections_give_way_to_a_new_one_at_the_servers_limit() -> None:
    """300 connections of a program on this computer that sent nothing (or
    one request, then waited) took every place of the server's limit, which
    no bound per address holds there: the player's page was answered 503
    ``server-busy`` for as long as they stayed (10 s each, for good when
    renewed). A new connection now closes the one that has waited longest
    for a request; one with a request under way stays."""

    async def attack() -> None:
        network, busy = Network(), Network(_held)
        busy.state = network.state  # (one server: the held request's connection among the others)
        try:
            working = busy.connect("127.0.0.1")
            assert working.protocol is not None
            working.protocol.data_received(_with_cookie("127.0.0.1"))
            answered = network.connect("127.0.0.1")
            assert (await _answer(answered, _with_cookie("127.0.0.1"))).startswith(b"HTTP/1.1 200 ")
            silent = [network.connect("127.0.0.1") for _ in range(3 * MAX_CONNECTIONS)]
            await asyncio.sleep(0)
            assert (await _answer(network.connect("127.0.0.1"), _with_cookie("127.0.0.1"))).startswith(
                b"HTTP/1.1 200 ")
            assert answered.closed and silent[0].closed and not silent[-1].closed
            assert not working.closed
        finally:
            network.close_all()
            busy.close_all()
            await asyncio.sleep(0)

    asyncio.run(attack())


def _refusal(answer: bytes) -> tuple[int, dict[str, str], dict[str, Any]]:
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, json.loads(body)


def test_what_the_protocol_refuses_is_refused_like_the_app_with_a_code() -> None:
    """A head over HEAD_BYTES (whole or unfinished), a request that is not
    HTTP, and a request beyond the server's connections were answered by
    uvicorn in plain text (400, 400, 503) with no code and none of the
    hardening headers; now as every other refusal: JSON with a code."""
    host = f"Host: {SERVER[0]}:{SERVER[1]}\r\n".encode()
    cases = [
        (b"GET / HTTP/1.1\r\n" + host + b"X-Big: " + b"a" * HEAD_BYTES + b"\r\n\r\n", 431, "head-too-large"),
        (b"GET / HTTP/1.1\r\n" + host + b"X-Big: " + b"a" * (2 * HEAD_BYTES), 431, "head-too-large"),
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400, "request-malformed"),
        (b"GET / HTTP/1.1\r\nHost: a\r\nHost b\r\n\r\n", 400, "request-malformed"),
    ]

    class Heard(logging.Handler):
        def __init__(self) -> None:
            super().__init__(logging.DEBUG)
            self.said: list[str] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.said.append(record.getMessage())

    heard = Heard()

    async def ask() -> None:
        network, busy = Network(), Network(_held)
        logging.getLogger("uvicorn.error").addHandler(heard)  # (what the player's terminal shows)
        try:
            for request, status, code in cases:
                answer = await _answer(network.connect(PHONE), request)
                got, headers, body = _refusal(answer)
                assert (got, body["code"]) == (status, code), answer[:300]
                assert body["error"] and "content-security-policy" in headers
                assert headers["connection"] == "close" and network.peers[-1].closed
            for _ in range(MAX_CONNECTIONS):  # (this computer's own: only the server's limit holds)
                busy.connect("127.0.0.1").protocol.data_received(_with_cookie("127.0.0.1"))  # type: ignore[union-attr]
            await asyncio.sleep(0)
            got, headers, body = _refusal(await _answer(busy.connect("127.0.0.1"), _with_cookie("127.0.0.1")))
            assert (got, body["code"]) == (503, "server-busy") and headers["retry-after"] == "1"
            assert "content-security-policy" in headers
        finally:
            logging.getLogger("uvicorn.error").removeHandler(heard)
            network.close_all()
            busy.close_all()
            await asyncio.sleep(0)

    asyncio.run(ask())
    assert heard.said == []  # (each refused request was a warning on the terminal)


# -- HTTPS ---------------------------------------------------------------------------------------


def _self_signed(folder: Path) -> tuple[Path, Path]:
    return ensure_self_signed(["192.168.1.20", "terrace-box.local"], folder)


def test_the_self_signed_certificate_is_valid_for_the_machine_and_kept(tmp_path: Path) -> None:
    cert, key = _self_signed(tmp_path)
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    context = server_context(cert, key)  # (OpenSSL takes the pair: the key is the certificate's)
    assert context.minimum_version == ssl.TLSVersion.TLSv1_2 and context.options & ssl.OP_NO_RENEGOTIATION
    decoded = ssl._ssl._test_decode_cert(str(cert))  # type: ignore[attr-defined]
    names = set(decoded["subjectAltName"])
    assert {("IP Address", "192.168.1.20"), ("DNS", "terrace-box.local"), ("DNS", "localhost"),
            ("IP Address", "127.0.0.1")} <= names
    printed = fingerprint(cert)
    assert printed == ":".join(f"{b:02X}" for b in hashlib.sha256(
        ssl.PEM_cert_to_DER_cert(cert.read_text())).digest())
    again = _self_signed(tmp_path)  # (kept: a phone that accepted it accepts it again)
    assert again == (cert, key) and fingerprint(cert) == printed
    if shutil.which("openssl"):  # (its own signature checked, not only read)
        checked = subprocess.run(["openssl", "verify", "-check_ss_sig", "-CAfile", str(cert), str(cert)],
                                 capture_output=True, text=True, check=False)
        assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_self_signed_certificate_names_bracketed_addresses_skips_other_scripts_and_starts_a_day_early(
) -> None:
    """An IPv6 address given in brackets is named as an address; a host
    name not in ASCII is left out, not made a DNS name; the certificate is
    valid from a day before it was made (a phone whose clock is behind
    takes it) for CERT_DAYS (a mutation audit changed each, no test failed)."""
    from cryptography import x509

    made = datetime.datetime(2026, 3, 1, 12, 0, 0, tzinfo=datetime.UTC)
    cert_pem, _ = make_self_signed(["[FD00::5]", "café.local", "Box-2.Local"], now=made)
    certificate = x509.load_pem_x509_certificate(cert_pem)
    names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert ipaddress.ip_address("fd00::5") in names.get_values_for_type(x509.IPAddress)
    assert sorted(names.get_values_for_type(x509.DNSName)) == ["box-2.local", "localhost"]
    assert certificate.not_valid_before_utc == made - datetime.timedelta(days=1)
    assert certificate.not_valid_after_utc == made + datetime.timedelta(days=CERT_DAYS)


def test_a_certificate_file_holding_a_chain_and_its_key_is_read_whole(tmp_path: Path) -> None:
    """The key after a chain of certificates, past the first KiB of the file, is found."""
    cert, key = _self_signed(tmp_path)
    chain = tmp_path / "chain.pem"
    chain.write_text(cert.read_text() * 4 + key.read_text())  # (a certificate: 676-680 bytes in 15 made)
    assert chain.read_text().index("PRIVATE KEY-----") > 2048
    context = server_context(chain)
    assert context.minimum_version == ssl.TLSVersion.TLSv1_2


async def _serve(app: Any, context: ssl.SSLContext | None) -> tuple[asyncio.Server, int, Any]:
    """The server's protocol (HTTPS with ``context``) on a free port of
    127.0.0.1, in this event loop: the server, its port, uvicorn's state."""
    config = server_config(app, context, lifespan="off")
    config.load()
    state = uvicorn.server.ServerState()
    protocol = config.http_protocol_class
    server = await asyncio.get_running_loop().create_server(
        lambda: protocol(config=config, server_state=state, app_state={}), "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1], state


async def _tls_exchange(port: int, cert: Path, request: bytes) -> bytes:
    client = ssl.create_default_context(cafile=str(cert))
    client.check_hostname = False  # (the certificate names 127.0.0.1, but be plain about what is tested)
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=client)
    writer.write(request)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(65536), 20)
    writer.close()
    return answer


def test_https_counts_and_bounds_connections_from_their_handshake(tmp_path: Path, monkeypatch: Any) -> None:
    """asyncio's TLS (uvicorn's) hands a connection to the protocol only
    after its handshake, which it waits 60 s for: such connections were
    out of every bound. Here the handshake is the protocol's: a silent
    connection counts for its address from the start and is closed at the
    head's deadline; the token link over HTTPS sets a Secure cookie."""
    monkeypatch.setattr(web_protocol, "HEAD_SECONDS", 1.0)
    monkeypatch.setattr(web_protocol, "CLIENT_CONNECTIONS", 3)
    monkeypatch.setattr(web_protocol, "is_loopback", lambda host: False)  # (127.0.0.1 plays the network)
    cert, key = _self_signed(tmp_path)
    keys = RemoteKeys(cookie=TOKEN, link=LINK)

    async def run() -> None:
        server, port, _ = await _serve(SecurityMiddleware(_ok, allowed_hosts=["127.0.0.1"], token=keys),
                                       server_context(cert, key))
        try:
            silent = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
            for _ in range(200):
                if web_protocol._open_from.get("127.0.0.1") == 3:
                    break
                await asyncio.sleep(0.01)
            assert web_protocol._open_from["127.0.0.1"] == 3
            extra, _ = await asyncio.open_connection("127.0.0.1", port)
            assert await asyncio.wait_for(extra.read(), 5) == b""  # (over the cap: closed as it opens)
            started = time.monotonic()
            for reader, _ in silent:
                assert await asyncio.wait_for(reader.read(), 10) == b""
            assert time.monotonic() - started < 8  # (the head's deadline, not asyncio's 60 s)
            for _ in range(200):
                if not web_protocol._open_from:
                    break
                await asyncio.sleep(0.01)
            assert not web_protocol._open_from and not web_protocol._strangers
            hold = b""
            for first_line in (f"GET /?token={LINK}", "POST /"):  # (the link, then its page's button)
                link = await _tls_exchange(port, cert, f"{first_line} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                                           f"Origin: https://127.0.0.1:{port}\r\nContent-Length: 0\r\n"
                                           "Connection: close\r\n".encode() + hold + b"\r\n")
                assert link.startswith(b"HTTP/1.1 303 ")
                cookie = next(line for line in link.split(b"\r\n") if line.lower().startswith(b"set-cookie:"))
                assert b"; Secure" in cookie and b"HttpOnly" in cookie
                hold = b"Cookie: " + cookie.split(b":", 1)[1].split(b";")[0].strip() + b"\r\n"
            assert hold.startswith(b"Cookie: terrace_token_")
            played = await _tls_exchange(port, cert, f"GET /api/stats HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                                         f"Cookie: {token_cookie(port)}={keys.cookie_for('127.0.0.1')}\r\n"
                                         "Connection: close\r\n\r\n"
                                         .encode())
            assert played.startswith(b"HTTP/1.1 200 ")
            for _, writer in silent:
                writer.close()
        finally:
            server.close()
            await server.wait_closed()

    asyncio.run(run())


@pytest.mark.parametrize("case", ["no-key", "not-pem", "mismatch", "missing", "key-without-cert"])
def test_play_refuses_a_certificate_it_cannot_use_before_touching_anything(tmp_path: Path, case: str) -> None:
    cert, key = _self_signed(tmp_path / "mine")
    _, other_key = _self_signed(tmp_path / "other")
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    args, words = {
        "no-key": (["--certfile", str(cert)], "holds no PEM private key: name the key's file with --keyfile"),
        "not-pem": (["--certfile", str(junk), "--keyfile", str(key)], "holds no PEM certificate"),
        "mismatch": (["--certfile", str(cert), "--keyfile", str(other_key)],
                     "does not go with the certificate"),
        "missing": (["--certfile", str(tmp_path / "nothing.pem")], "no such file"),
        "key-without-cert": (["--keyfile", str(key)], "--keyfile needs --certfile"),
    }[case]
    db = tmp_path / "games.sqlite"
    result = CliRunner().invoke(main, ["play", "--no-browser", "--port", "0", "--db", str(db), *args])
    assert result.exit_code == (2 if case == "key-without-cert" else 1), result.output
    assert words in result.output
    assert not db.exists()


def test_a_damaged_self_signed_certificate_says_how_to_make_another(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    cert, key = self_signed_paths()
    assert cert.parent == tmp_path / "terrace" / "remote-https"
    cert.parent.mkdir(parents=True)
    cert.write_text("-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n")
    key.write_text("-----BEGIN EC PRIVATE KEY-----\nbroken\n-----END EC PRIVATE KEY-----\n")
    db = tmp_path / "games.sqlite"
    result = CliRunner().invoke(main, ["play", "--https", "--no-browser", "--port", "0", "--db", str(db)])
    assert result.exit_code == 1, result.output
    assert "damaged" in result.output and "to make a new self-signed certificate" in result.output
    assert str(cert.parent) in result.output
    assert not db.exists()


def test_a_self_signed_certificate_without_its_key_is_refused_saying_what_to_delete(tmp_path: Path) -> None:
    cert, key = _self_signed(tmp_path)
    key.unlink()  # (the folder appears whole; only a hand can take a file out of it)
    with pytest.raises(CertificateError, match=r"certificate without its key .* delete that folder"):
        _self_signed(tmp_path)
    assert cert.exists() and not key.exists()


def test_runs_making_the_self_signed_certificate_at_once_all_take_one_pair(tmp_path: Path) -> None:
    """Two first runs of ``play --https`` at the same moment: each made a
    key, then a certificate, in place, so one could pair its key with the
    other's certificate (OpenSSL then refuses them). The pair now appears
    in one step: every run takes the first one made, whole."""
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        made = list(pool.map(lambda _: _self_signed(tmp_path), range(8)))
    cert, key = made[0]
    assert all(pair == (cert, key) for pair in made)
    server_context(cert, key)  # (a pair: the key is the certificate's)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["remote-https"]  # (no scratch folder left)
    assert stat.S_IMODE(cert.parent.stat().st_mode) == 0o700 and stat.S_IMODE(key.stat().st_mode) == 0o600


def test_the_server_writes_neither_requests_nor_the_token_on_the_terminal() -> None:
    with started_server("--remote", "--host", "127.0.0.1") as server:
        match = re.search(r"\?token=(\S+)", server.first_line)
        assert match is not None
        token = match.group(1)
        with httpx.Client(base_url=server.url, trust_env=False, timeout=30) as client:
            assert client.get(f"/?token={token}x").status_code == 401
            assert client.get("/api/nothing").status_code == 401
            assert client.post(f"/api/games?token={token}", json={}).status_code == 401
            assert client.get(f"/?token={token}").status_code == 303  # (to the link's page)
            assert client.post("/").status_code == 303  # (its button)
            assert client.get("/api/nothing").status_code == 404
        port = int(server.url.rsplit(":", 1)[1].strip("/"))
        big = b"GET /?token=" + token.encode() + b" HTTP/1.1\r\nX: " + b"a" * HEAD_BYTES + b"\r\n\r\n"
        for raw in (b"NOT HTTP\r\n\r\n", big):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                sock.sendall(raw)
                assert sock.recv(64).startswith(b"HTTP/1.1 4")
        server.stop()
        said = server.stderr()
        assert token not in said and "Invalid HTTP" not in said and "GET /" not in said, said


BIG = 8 * 1024 * 1024
"""An answer far larger than the sockets' buffers."""


async def _big(scope: Any, receive: Receive, send: Send) -> None:
    """An answer of BIG bytes, in pieces (``/pieces``) or in one write that
    ends it and closes the connection (``/close``)."""
    pieces = scope["path"] == "/pieces"
    headers = [(b"content-length", str(BIG).encode())] + ([] if pieces else [(b"connection", b"close")])
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    if pieces:
        for at in range(0, BIG, 65536):
            await send({"type": "http.response.body", "body": b"x" * 65536, "more_body": at + 65536 < BIG})
    else:
        await send({"type": "http.response.body", "body": b"x" * BIG})


@pytest.mark.parametrize("tls", [False, True])
@pytest.mark.parametrize("path", ["/pieces", "/close"])
def test_a_client_that_never_reads_its_answer_is_cut(tmp_path: Path, monkeypatch: Any, tls: bool,
                                                     path: str) -> None:
    """uvicorn has no deadline for writing: a client that sent a request
    and never read the answer held its connection (and the request's task,
    waiting to write the next piece) for as long as it lived, and one whose
    answer ended with Connection: close was never closed either (closing
    waits for the bytes to go). The connection is now cut WRITE_SECONDS
    after its bytes stop going."""
    monkeypatch.setattr(web_protocol, "WRITE_SECONDS", 1.0)
    context = server_context(*_self_signed(tmp_path)) if tls else None

    async def run() -> None:
        loop = asyncio.get_running_loop()
        server, port, state = await _serve(SecurityMiddleware(_big, allowed_hosts=["127.0.0.1"]), context)
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        client = ssl.create_default_context()
        client.check_hostname, client.verify_mode = False, ssl.CERT_NONE
        try:
            await loop.sock_connect(sock, ("127.0.0.1", port))
            if tls:
                reader, writer = await asyncio.open_connection(sock=sock, ssl=client,
                                                               server_hostname="127.0.0.1")
                writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
                await writer.drain()
                writer.transport.pause_reading()  # (and never reads on)
            else:
                request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
                await loop.sock_sendall(sock, request.encode())
            for _ in range(100):
                if state.tasks:
                    break
                await asyncio.sleep(0.01)
            started = time.monotonic()
            while (state.connections or state.tasks) and time.monotonic() - started < 8:
                await asyncio.sleep(0.05)
            assert not state.connections and not state.tasks, "the connection is still held"
            assert time.monotonic() - started < 5
            # a client that reads, however slowly it begins, gets the whole answer
            reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=client if tls else None,
                                                           server_hostname="127.0.0.1" if tls else None)
            writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
                         .encode())
            await asyncio.sleep(0.5)
            answer = await asyncio.wait_for(reader.read(), 20)
            assert answer.startswith(b"HTTP/1.1 200 ") and answer.endswith(b"\r\n\r\n" + b"x" * BIG)
            writer.close()
        finally:
            sock.close()
            server.close()
            for held in list(state.connections):  # (the old code's: let the loop end)
                held.transport.abort()

    asyncio.run(run())


async def _until_closed(port: int, data: bytes) -> bytes:
    """What the server on ``port`` answers ``data`` until it closes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    answer = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return answer


def _refused_once(answer: bytes) -> None:
    """``answer`` is one 400 ``request-malformed``, the connection then closed."""
    assert answer.startswith(b"HTTP/1.1 400 ") and answer.count(b"HTTP/1.1 ") == 1, answer
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["code"] == "request-malformed"


def test_a_request_with_two_framings_is_refused_and_its_connection_closed() -> None:
    """A head with both Content-Length and Transfer-Encoding was answered
    as chunked and its connection kept for the next request, where RFC 9112
    (6.1) wants it closed (a proxy in front could tell the requests apart
    otherwise): ``0\\r\\n\\r\\n`` ended the body and the next request,
    hidden in what Content-Length counted as body, was answered too."""
    async def run() -> bytes:
        server, port, _ = await _serve(SecurityMiddleware(_ok, allowed_hosts=["127.0.0.1"]), None)
        try:
            hidden = f"GET /hidden HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
            return await _until_closed(port, f"POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                                       f"Content-Length: {5 + len(hidden)}\r\nTransfer-Encoding: chunked\r\n"
                                       f"\r\n0\r\n\r\n{hidden}".encode())
        finally:
            server.close()

    _refused_once(asyncio.run(run()))


@pytest.mark.parametrize("request_line", [b"PRI * HTTP/2.0\r\n\r\nSM", b"GET / HTTP/2.0", b"GET / HTTP/1.2",
                                          b"GET / HTTP/3.1"])
def test_a_request_of_another_http_version_is_refused_once(request_line: bytes) -> None:
    """h11 took any ``HTTP/d.d`` as HTTP/1.1: ``GET / HTTP/1.2`` was served,
    and the preface of HTTP/2 drew two answers (421, then 400)."""
    async def run() -> bytes:
        server, port, _ = await _serve(SecurityMiddleware(_ok, allowed_hosts=["127.0.0.1"]), None)
        try:
            host = f"Host: 127.0.0.1:{port}\r\n\r\n".encode()
            answer = await _until_closed(port, request_line + b"\r\n" + host)
            assert (await _until_closed(port, b"GET / HTTP/1.0\r\n" + host)).startswith(b"HTTP/1.1 200 ")
            return answer
        finally:
            server.close()

    _refused_once(asyncio.run(run()))
