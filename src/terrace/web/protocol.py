"""The HTTP protocol the server speaks: uvicorn's h11 protocol with a
deadline for a request's head, a bound on its size, a bound on the
connections one client address holds, and one on the connections from the
network, all addresses together, that have not shown remote play's token.

uvicorn's default parser (httptools, when installed) accepts request
headers of any size, and neither parser times out a connection that never
finishes sending its head, so one client could hold hundreds of megabytes or
every file descriptor of the server, and in remote mode without the token,
since the token is read from the head. Here a head must arrive whole within
:data:`HEAD_SECONDS` and be at most :data:`HEAD_BYTES` long (a longer one
is answered 431 ``head-too-large`` at once); a request body has its own
deadline in the app (:data:`terrace.web.replies.BODY_SECONDS`), and an
answer has one for the client to take its bytes (:data:`WRITE_SECONDS`). What the
protocol refuses itself (a head too large, a request that is not HTTP, a
request beyond the server's limit) it refuses as the app does: JSON with a
code and the hardening headers.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
from collections import Counter
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.utils import get_remote_addr

from terrace.refusals import Reason
from terrace.web.i18n import WebRefusal, refusal_json
from terrace.web.remote import is_loopback
from terrace.web.security import TRUST_EXTENSION, json_answer, send_refusal

HEAD_SECONDS = 10.0
"""Seconds a connection has to send a request's whole head: from when it
opens (on HTTPS, its TLS handshake included), and again from the end of
each answer (keep-alive)."""
HEAD_BYTES = 16 * 1024
"""Largest request head (request line and headers) accepted."""
WRITE_SECONDS = 30.0
"""Seconds an answer may wait for the client to take its next bytes: a
connection whose bytes wait longer (a client that never reads, or reads
too slowly to take a few kilobytes in that time) is cut. Without it, such
a connection (and the request's task, waiting to write) was held for as
long as the client lived, as was one closed with bytes still unsent."""
CLIENT_CONNECTIONS = 32
"""Most connections one address on the network may hold open at once; more
are closed as they open. A browser opens six at most, and the server's own
limit (:data:`terrace.web.endpoints.MAX_CONNECTIONS`) is shared by every
client, so one machine on the network, token or not, cannot take all of
it. This computer's own addresses (loopback) are not bounded: a program
here can do anything the player can anyway."""

STRANGER_CONNECTIONS = 48
"""Most connections from the network, all addresses together, that have not
shown the token yet (strangers); a stranger beyond them takes the place of
the oldest stranger, which is closed. One machine can take many addresses
(an IPv6 one picks any number in its network, an IPv4 one a few free ones),
so the cap of :data:`CLIENT_CONNECTIONS` per address alone let a machine
without the token take every place of the server's limit and lock the
player out; now strangers hold at most this many of the
:data:`terrace.web.endpoints.MAX_CONNECTIONS`, and a connection that showed the
token is never closed to make room. The player's new connection is a
stranger until its first request arrives: to push it out, others would have
to open this many connections within that moment."""

STOP_CANCELS = "Cancel %s running task(s), timeout graceful shutdown exceeded"
"""uvicorn's words (before their number) as it cancels the requests still running after a stop."""
_open_from: Counter[str] = Counter()
"""Open connections per client address (the server runs one event loop)."""
_strangers: dict[GuardedH11Protocol, None] = {}
"""The open connections from the network that have not shown the token, oldest first."""


class _NoParseWarnings(logging.Filter):
    """Drops uvicorn's warning for each request it cannot read: such a
    request is answered (``request-malformed``, ``head-too-large``), and
    any machine of the network could fill the player's terminal with the
    warning, a line a request, and push the printed link out of sight;
    and its error for requests still running a second after a stop, whose
    changes are awaited and answered all the same
    (:func:`~terrace.web.endpoints.to_the_end`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != "Invalid HTTP request received." and not (
            record.msg == STOP_CANCELS and record.levelno == logging.ERROR)


_QUIET = _NoParseWarnings()


class GuardedH11Protocol(H11Protocol):
    """h11 with a deadline on each request's head and bounds on the
    connections (see the module); with :attr:`tls` set, the connection's
    TLS handshake is made here too, counted and within the deadline of its
    first head."""

    tls: ClassVar[ssl.SSLContext | None] = None
    """The TLS context of an HTTPS server (:func:`https_protocol`), else None."""
    _head_timer: asyncio.TimerHandle | None = None
    _write_timer: asyncio.TimerHandle | None = None
    _address: str | None = None
    _begun = False
    _handshake: asyncio.Task[None] | None = None
    _early = b""
    """Bytes that came with the end of the TLS handshake, before :meth:`_begin`."""
    _parse_error: h11.RemoteProtocolError | None = None
    _sniffer: socket.socket | None = None
    """A duplicate of an HTTPS connection's socket, watched for its first
    byte, which tells TLS from plain HTTP (:meth:`_sniff`)."""
    _plain = False
    """A connection to the HTTPS port that spoke plain HTTP: each request
    is answered ``https-needed``, none reaches the app."""
    _idle_since = 0.0
    """When the connection last began to wait for a request (the event
    loop's clock): as it opened, and at the end of each answer."""
    _stopping = False
    """The server is stopping: uvicorn has called :meth:`shutdown`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if _QUIET not in self.logger.filters:
            self.logger.addFilter(_QUIET)
        # The server's limit (uvicorn's limit_concurrency) is answered here,
        # as a refusal of the app's (JSON with a code, the hardening
        # headers), not with uvicorn's plain-text 503.
        self._limit, self.limit_concurrency = self.limit_concurrency, None
        self._served, self.app = self.app, self._within_limit

    async def _within_limit(self, scope: Any, receive: Any, send: Any) -> None:
        """The app, or ``server-busy`` (503) beyond the server's limit
        (this request's connection and task counted, as uvicorn counts them)."""
        limit = self._limit
        if limit is not None and (len(self.connections) >= limit or len(self.tasks) > limit):
            await send_refusal(send, SERVER_BUSY, scope, [(b"retry-after", b"1"), (b"connection", b"close")])
            return
        if self._plain:
            await send_refusal(send, HTTPS_NEEDED, scope, [(b"connection", b"close")])
            return
        try:
            await self._served(scope, receive, send)
        except asyncio.CancelledError:
            if not self._cut_at_stop():
                raise
            await asyncio.sleep(0)  # (connection_lost first: uvicorn then takes the answer as ended)

    def shutdown(self) -> None:
        self._stopping = True
        super().shutdown()

    def _cut_at_stop(self) -> bool:
        """Cut the connection of an answer that had begun when the stop's
        cancel came (its second of grace over: a client slow to take an
        answer sent in parts, one of the page's files over 64 KB on a slow
        network): the client sees it end early, as a closed connection.
        uvicorn put a traceback of the cancel on the terminal. False for
        any other cancel (an answer not begun is the app's:
        :class:`~terrace.web.app.AnsweredAtStop`)."""
        task = asyncio.current_task()
        cycle = self.cycle
        if not self._stopping or task is None or cycle is None or not cycle.response_started:
            return False
        task.uncancel()
        self.transport.abort()
        return True

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.transport = transport  # (what a deadline or a newer stranger closes, handshake or not)
        client = get_remote_addr(transport)
        address = client[0] if client and not is_loopback(client[0]) else None
        if address is not None and _open_from[address] >= CLIENT_CONNECTIONS:
            transport.close()
            return
        if address is not None:
            if len(_strangers) >= STRANGER_CONNECTIONS:
                oldest = next(iter(_strangers))
                del _strangers[oldest]
                oldest.transport.close()
            _open_from[address] += 1
            self._address = address
            _strangers[self] = None
        self._await_head()
        if self.tls is None:
            self._begin(transport)
        else:
            # (uvicorn's own TLS, asyncio's, hands a connection over only
            # after its handshake, which may take 60 s: uncounted, each
            # held a file descriptor, and a flood of them took them all)
            transport.pause_reading()  # (until start_tls hands the bytes to TLS)
            if not self._sniff(transport):
                self._handshake = self.loop.create_task(self._start_tls(transport, self.tls))

    def _sniff(self, transport: asyncio.Transport) -> bool:
        """Wait for the connection's first byte without taking it: a TLS
        handshake begins with a handshake record (:data:`TLS_HANDSHAKE`),
        anything else is plain HTTP sent to the HTTPS port, which asyncio's
        TLS closed without a word (the browser said "empty reply") and which
        is now answered ``https-needed``. False when the event loop cannot
        watch a socket (Windows' proactor): TLS begins at once then."""
        try:
            sniffer = transport.get_extra_info("socket").dup()
        except (AttributeError, OSError):
            return False
        try:
            self.loop.add_reader(sniffer.fileno(), self._sniffed, transport)
        except (NotImplementedError, OSError, RuntimeError):
            sniffer.close()
            return False
        self._sniffer = sniffer
        return True

    def _sniffed(self, transport: asyncio.Transport) -> None:
        """The connection's first byte has come (or the connection ended):
        TLS, or plain HTTP answered in plain HTTP."""
        sniffer = self._sniffer
        if sniffer is None:
            return
        try:
            first = sniffer.recv(1, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            return  # (not yet: still watched)
        except OSError:
            first = b""
        self._stop_sniffing()
        if transport.is_closing():
            return
        if not first:
            transport.close()
        elif first == TLS_HANDSHAKE:
            assert self.tls is not None
            self._handshake = self.loop.create_task(self._start_tls(transport, self.tls))
        else:
            self._plain = True
            self._begin(transport)
            transport.resume_reading()

    def _stop_sniffing(self) -> None:
        sniffer, self._sniffer = self._sniffer, None
        if sniffer is not None:
            self.loop.remove_reader(sniffer.fileno())
            sniffer.close()

    async def _start_tls(self, transport: asyncio.Transport, context: ssl.SSLContext) -> None:
        try:
            secure = await self.loop.start_tls(transport, self, context, server_side=True,
                                               ssl_handshake_timeout=HEAD_SECONDS)
        except asyncio.CancelledError:
            self._release()
            raise
        except (TimeoutError, OSError, RuntimeError):  # (a failed handshake; asyncio closed it)
            self._release()
            return
        if secure is None or transport.is_closing():
            self._release()
            return
        transport.set_write_buffer_limits(high=0, low=0)  # (under TLS's own: see _begin)
        self._begin(secure)

    def _begin(self, transport: asyncio.Transport) -> None:
        """Serve HTTP on ``transport`` (after the TLS handshake on HTTPS)."""
        tls = transport is not self.transport  # (the socket's, until now)
        self._make_room()
        self._idle_since = self.loop.time()
        super().connection_made(transport)
        # (writing pauses as soon as one byte waits: a socket's transport
        # pauses over its high-water mark, TLS's at it)
        transport.set_write_buffer_limits(high=1 if tls else 0, low=0)
        self._begun = True
        self._bound_head_size()
        if self._early:
            early, self._early = self._early, b""
            self.data_received(early)

    def data_received(self, data: bytes) -> None:
        if self._begun:
            super().data_received(data)
        elif len(self._early) + len(data) <= HEAD_BYTES:
            # (asyncio hands over a request sent with the handshake's last
            # flight before start_tls returns the connection)
            self._early += data
        else:
            self.transport.close()

    def _make_room(self) -> None:
        """At the server's limit (:data:`~terrace.web.endpoints.MAX_CONNECTIONS`),
        close the open connection that has waited longest for a request
        (one that has sent nothing yet, or a keep-alive one between two
        requests; HTTP lets a server close those), so that the new one is
        served: 300 idle connections of a program on this computer, which
        no per-address bound holds, kept the player's page out (503
        ``server-busy``) for as long as they stayed, 10 s each, and for
        good while renewed. Connections with a request under way are kept;
        when all are, the new one is refused as before."""
        if self._limit is None:
            return
        others = [c for c in self.connections if not c.transport.is_closing()]
        if len(others) + 1 < self._limit:
            return
        idle = [c for c in others if isinstance(c, GuardedH11Protocol) and c._waiting_for_head()]
        if idle:
            min(idle, key=lambda c: c._idle_since).transport.close()

    def _release(self) -> None:
        """Give the connection's places back (once)."""
        for timer in (self._head_timer, self._write_timer):
            if timer is not None:
                timer.cancel()
        self._head_timer = self._write_timer = None
        _strangers.pop(self, None)
        if self._address is not None:
            _open_from[self._address] -= 1
            if _open_from[self._address] <= 0:
                del _open_from[self._address]
            self._address = None

    def _should_upgrade(self) -> bool:
        """Never: the game has no WebSocket, nor any protocol to switch to,
        so a request asking for one (``Upgrade``) is answered as an ordinary
        request. uvicorn handed such a connection to a WebSocket library's
        protocol when one was installed, out of the bounds kept here (and
        its address stayed counted for good: a page in any tab of the
        player's phone could shut the phone out with a few dozen
        ``new WebSocket(...)``), and without one warned on the player's
        terminal, for every such request, to install one."""
        return False

    def _bound_head_size(self) -> None:
        """h11 bounds only a head that has not ended yet
        (``h11_max_incomplete_event_size``); a whole head that arrives in
        one read was parsed at any size. Refuse a parsed head over
        :data:`HEAD_BYTES` too, as h11 refuses an unfinished one: uvicorn
        answers its protocol error with 400 and closes the connection. A
        head with both Content-Length and Transfer-Encoding is refused so
        too (:func:`_two_framings`), and one of another HTTP version than
        :data:`HTTP_VERSIONS`."""
        parse = self.conn.next_event

        def next_event() -> Any:
            try:
                event = parse()
                if isinstance(event, h11.Request) and head_size(event) > HEAD_BYTES:
                    raise h11.RemoteProtocolError("request head too large", error_status_hint=431)
                if isinstance(event, h11.Request) and _two_framings(event):
                    raise h11.RemoteProtocolError("both Content-Length and Transfer-Encoding")
                if isinstance(event, h11.Request) and event.http_version not in HTTP_VERSIONS:
                    raise h11.RemoteProtocolError("not HTTP/1.0 or HTTP/1.1")
            except h11.RemoteProtocolError as error:
                self._parse_error = error  # (for send_400_response)
                raise
            return event

        self.conn.next_event = next_event  # type: ignore[method-assign]

    def send_400_response(self, msg: str) -> None:
        """A request h11 cannot read (or whose head is too large) is
        refused as the app refuses (JSON with a code, the hardening
        headers), and the connection closed; uvicorn answered a plain-text
        400 without a code."""
        error = self._parse_error
        reason = HEAD_TOO_LARGE if error is not None and error.error_status_hint == 431 else REQUEST_MALFORMED
        headers, body = json_answer(refusal_json(reason, None), [(b"connection", b"close")])
        try:
            data = self.conn.send(h11.Response(status_code=reason.status, headers=headers))
            data = (data or b"") + (self.conn.send(h11.Data(data=body)) or b"")
            data += self.conn.send(h11.EndOfMessage()) or b""
        except h11.LocalProtocolError:  # (an answer had begun: nothing more can be said)
            self.transport.close()
            return
        self.transport.write(data)
        self.transport.close()

    def pause_writing(self) -> None:
        """The client has not taken every byte written: it has
        :data:`WRITE_SECONDS` to take them (:meth:`resume_writing`)."""
        super().pause_writing()
        if self._write_timer is None:
            self._write_timer = self.loop.call_later(WRITE_SECONDS, self._write_too_slow)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._write_timer is not None:
            self._write_timer.cancel()
            self._write_timer = None

    def _write_too_slow(self) -> None:
        """Cut the connection: closing it would wait for the bytes to go."""
        self._write_timer = None
        self.transport.abort()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._idle_since = self.loop.time()
        self._await_head()

    def trust(self) -> None:
        """The connection has shown the token (called by the guard through
        the request's :data:`~terrace.web.security.TRUST_EXTENSION`): it is
        no stranger any more."""
        _strangers.pop(self, None)

    def handle_events(self) -> None:
        super().handle_events()
        if self._address is not None and self.scope is not None:
            # (the request's task has not run yet: it finds the hook there)
            extensions = self.scope.setdefault("extensions", {})
            assert extensions is not None
            extensions.setdefault(TRUST_EXTENSION, {"trust": self.trust})
        if self._head_timer is not None and not self._waiting_for_head():
            self._head_timer.cancel()
            self._head_timer = None

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_sniffing()
        self._release()
        if self._begun:
            super().connection_lost(exc)

    def _waiting_for_head(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _await_head(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        self._head_timer = self.loop.call_later(HEAD_SECONDS, self._head_too_slow)

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if self._waiting_for_head() and not self.transport.is_closing():
            self.transport.close()


HEAD_TOO_LARGE = Reason(WebRefusal.HEAD_TOO_LARGE, most=HEAD_BYTES)
REQUEST_MALFORMED = Reason(WebRefusal.REQUEST_MALFORMED)
SERVER_BUSY = Reason(WebRefusal.SERVER_BUSY)
HTTPS_NEEDED = Reason(WebRefusal.HTTPS_NEEDED)
HTTP_VERSIONS = (b"1.0", b"1.1")
"""The versions a request may name: h11 took any ``HTTP/d.d`` as 1.1 (the
preface of HTTP/2, ``PRI * HTTP/2.0``, drew two answers)."""
TLS_HANDSHAKE = b"\x16"
"""The first byte of every TLS connection: a handshake record (RFC 8446, 5.1)."""


def https_protocol(context: ssl.SSLContext) -> type[GuardedH11Protocol]:
    """The guarded protocol serving HTTPS with ``context``."""
    return type("GuardedHttpsProtocol", (GuardedH11Protocol,), {"tls": context})


def _two_framings(request: h11.Request) -> bool:
    """True when a request's head gives both Content-Length and
    Transfer-Encoding. h11 read the body by the second and kept the
    connection for the next request, where RFC 9112 (6.1) wants it closed:
    two readers of the one stream (a proxy in front, say) could tell the
    requests apart differently, the smuggling the rule is for."""
    names = {name for name, _ in request.headers}
    return b"content-length" in names and b"transfer-encoding" in names


def head_size(request: h11.Request) -> int:
    """The bytes of a parsed request head: its request line and headers as
    sent (give or take the spaces h11 trims)."""
    line = len(request.method) + len(request.target) + len(b" HTTP/1.1\r\n") + 1
    return line + sum(len(name) + len(value) + 4 for name, value in request.headers.raw_items()) + 2
