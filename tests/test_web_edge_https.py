"""Plain HTTP sent to the HTTPS port (``terrace play --https``): a person
who types ``http://`` gets told to use ``https://``, and TLS is unchanged."""

from __future__ import annotations

import asyncio
import json
import ssl
from pathlib import Path
from typing import Any

import uvicorn
from starlette.types import Receive, Send

from terrace.web.security import RemoteKeys, SecurityMiddleware, token_cookie
from terrace.web.server import server_config
from terrace.web.tls import ensure_self_signed, server_context

TOKEN = "s3cret-token-of-the-player"
"""The cookie's secret."""
LINK = "the-link-s-token-for-one-use"
"""The link's token, good for one use."""
reached: list[str] = []


async def _ok(scope: Any, receive: Receive, send: Send) -> None:
    reached.append(scope["path"])
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


async def _exchange(port: int, request: bytes, tls: ssl.SSLContext | None = None) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=tls)
    writer.write(request)
    await writer.drain()
    answer = b""
    while chunk := await asyncio.wait_for(reader.read(65536), 20):
        answer += chunk
    writer.close()
    return answer


def test_plain_http_to_the_https_port_is_told_to_use_https(tmp_path: Path) -> None:
    """asyncio's TLS closed such a connection without a byte (curl: "Empty
    reply from server", a browser: "this page isn't working"); now it is
    answered 400 ``https-needed`` in plain HTTP, in the request's language,
    without reaching the app (a token in its query sets no cookie), and
    the connection closed. A TLS client is served as before."""
    cert, key = ensure_self_signed(["127.0.0.1"], tmp_path)
    keys = RemoteKeys(cookie=TOKEN, link=LINK)
    app = SecurityMiddleware(_ok, allowed_hosts=["127.0.0.1"], token=keys)
    config = server_config(app, server_context(cert, key), lifespan="off")
    config.load()
    state = uvicorn.server.ServerState()
    protocol = config.http_protocol_class
    reached.clear()

    async def run() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(
            lambda: protocol(config=config, server_state=state, app_state={}), "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            for language, words in (("en", "https://"), ("de", "https://")):
                plain = await _exchange(port, f"GET /?token={LINK} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                                        f"Accept-Language: {language}\r\n\r\n".encode())
                head, _, body = plain.partition(b"\r\n\r\n")
                assert head.startswith(b"HTTP/1.1 400 "), plain[:200]
                answer = json.loads(body)
                assert answer["code"] == "https-needed" and words in answer["error"]
                assert b"set-cookie" not in head.lower() and b"content-security-policy" in head.lower()
            assert keys.link == LINK  # (the link was not spent)
            german = json.loads(plain.partition(b"\r\n\r\n")[2])["error"]
            assert german.startswith("Diese Adresse")
            # a browser (typing http:// for https://) reads it as a page in its language
            page = await _exchange(port, f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                                   "Accept: text/html,*/*;q=0.8\r\nAccept-Language: de\r\n\r\n".encode())
            head, _, body = page.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 400 ")
            assert b"content-type: text/html; charset=utf-8" in head.lower()
            assert b'<html lang="de">' in body and b'data-code="https-needed"' in body
            assert "Diese Adresse antwortet nur über HTTPS" in body.decode()
            client = ssl.create_default_context(cafile=str(cert))
            client.check_hostname = False
            served = await _exchange(port, f"GET /x HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                                     f"Cookie: {token_cookie(port)}={keys.cookie_for('127.0.0.1')}\r\n"
                                     "Connection: close\r\n\r\n"
                                     .encode(), client)
            assert served.startswith(b"HTTP/1.1 200 ") and served.endswith(b"ok")
            assert reached == ["/x"]  # (no plain request reached the app)
        finally:
            server.close()
            await server.wait_closed()

    asyncio.run(run())
