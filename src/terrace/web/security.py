"""Protections every response of the web game gets.

* The Host header must name this machine (``127.0.0.1``, ``localhost``,
  ``[::1]``, any port, or the host the server was told to listen on), so a
  page on another site cannot reach the game through DNS rebinding.
* Requests that change something must not come from another origin (the
  ``Origin`` and ``Sec-Fetch-Site`` headers, when the browser sends them),
  so another site cannot play moves through a hidden form.
* Request bodies are capped at :data:`MAX_BODY` bytes.
* Every response carries a strict Content-Security-Policy (no inline
  scripts or styles) and the usual hardening headers.

>>> host_is_local("localhost:8000"), host_is_local("[::1]"), host_is_local("evil.test")
(True, True, False)
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY = 16 * 1024
"""The largest request body accepted, in bytes (a move is a few dozen)."""

LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})

CSP = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "manifest-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ]
)

SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=(), usb=()"),
]


def split_host(value: str) -> str:
    """The host name of a Host header value, without port or brackets.

    >>> split_host("[::1]:8000"), split_host("LocalHost:1"), split_host("127.0.0.1")
    ('::1', 'localhost', '127.0.0.1')
    """
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        return value[1:end] if end > 0 else value
    if value.count(":") == 1:
        value = value.split(":", 1)[0]
    return value.rstrip(".")


def host_is_local(value: str, extra: Iterable[str] = ()) -> bool:
    """True when a Host header value names this machine."""
    host = split_host(value)
    return host in LOCAL_HOSTS or host in {h.lower().strip("[]") for h in extra}


def origin_host(origin: str) -> str | None:
    """The host part of an Origin header (None for ``null`` or garbage).

    >>> origin_host("http://localhost:8000"), origin_host("null")
    ('localhost', None)
    """
    scheme, sep, rest = origin.partition("://")
    if not sep or scheme not in ("http", "https"):
        return None
    return split_host(rest.split("/", 1)[0])


class SecurityMiddleware:
    """The checks and headers described in the module docstring."""

    def __init__(self, app: ASGIApp, *, allowed_hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.extra_hosts = frozenset(h.lower().strip("[]") for h in allowed_hosts if h)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if not host_is_local(host, self.extra_hosts):
            await _refuse(send, 421, "this server answers only requests addressed to this computer "
                                     "(localhost or 127.0.0.1)")
            return
        method = scope["method"]
        if method not in ("GET", "HEAD", "OPTIONS"):
            origin = headers.get("origin")
            if origin is not None and origin != "null":
                named = origin_host(origin)
                if named is None or not host_is_local(named, self.extra_hosts):
                    await _refuse(send, 403, "requests from other web sites are refused")
                    return
            if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
                await _refuse(send, 403, "requests from other web sites are refused")
                return
            length = headers.get("content-length")
            if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
                await _refuse(send, 413, f"the request body is too large (at most {MAX_BODY} bytes)")
                return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _refuse(send: Send, status: int, error: str) -> None:
    body = json.dumps({"error": error}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *SECURITY_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
