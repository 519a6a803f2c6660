"""The server's edge as an attacker on the home network meets it: the
protocol's connection bounds driven in this process with connections from
made-up addresses, and the guard in front of the app."""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from starlette.types import Receive, Send

from terrace.web import protocol as web_protocol
from terrace.web.protocol import STRANGER_CONNECTIONS, GuardedH11Protocol
from terrace.web.security import SecurityMiddleware, token_cookie
from terrace.web.server import MAX_CONNECTIONS

TOKEN = "s3cret-token-of-the-player"
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


async def _ok(scope: Any, receive: Receive, send: Send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


class Network:
    """The server's protocol as ``terrace play --remote`` sets it up (the
    guard with a token, uvicorn's limit), taking connections from any address."""

    def __init__(self) -> None:
        app = SecurityMiddleware(_ok, allowed_hosts=[SERVER[0]], token=TOKEN)
        self.config = uvicorn.Config(app, lifespan="off", log_level="critical",
                                     limit_concurrency=MAX_CONNECTIONS + 1)
        self.config.load()
        self.state = uvicorn.server.ServerState()
        self.peers: list[Peer] = []

    def connect(self, address: str) -> Peer:
        peer = Peer(address)
        protocol = GuardedH11Protocol(config=self.config, server_state=self.state, app_state={})
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


def _with_cookie(path: str = "/api/stats") -> bytes:
    return (f"GET {path} HTTP/1.1\r\nHost: {SERVER[0]}:{SERVER[1]}\r\n"
            f"Cookie: {token_cookie(SERVER[1])}={TOKEN}\r\n\r\n").encode()


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
