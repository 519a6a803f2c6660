"""Running the web game: the listening socket, uvicorn, and the link that
``terrace play`` prints (with a secret token and its QR code when other
devices on the network may play).

>>> browser_host("0.0.0.0"), browser_host("::1"), browser_host("127.0.0.1")
('127.0.0.1', '[::1]', '127.0.0.1')
>>> game_link("127.0.0.1", 8000, None)
'http://127.0.0.1:8000/'
"""

from __future__ import annotations

import contextlib
import errno
import os
import queue
import signal
import socket
import ssl
import sys
import threading
import webbrowser
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING, Literal, TextIO
from urllib.parse import urlsplit

from starlette.types import ASGIApp

if TYPE_CHECKING:
    import uvicorn

from terrace.errors import TerraceError
from terrace.refusals import clip, quote
from terrace.rules import Rules
from terrace.storage import GameStore
from terrace.web.app import create_app
from terrace.web.endpoints import HINT_SECONDS, SERVED_AT_ONCE, WINNABLE_SECONDS
from terrace.web.remote import (
    WILDCARDS,
    interface_addresses,
    is_loopback,
    machine_hosts,
    network_address,
    opened_by_this_user,
    print_qr,
    url_host,
)
from terrace.web.security import TOKEN_PARAM, RemoteKeys
from terrace.web.workers import SolverPool

BROWSER_DELAY = 0.5
"""Seconds between the server's start and opening the browser."""
STOP_GRACE_SECONDS = 1
"""Seconds the requests still running at a stop have to end; uvicorn then
cancels them (a change under way is awaited all the same: see
:func:`terrace.web.endpoints.to_the_end`)."""


class ListenError(TerraceError):
    """The server cannot listen on the address and port asked for."""


def check_reach(host: str, remote: bool) -> None:
    """Refuse to listen on ``host`` when other machines of the network could
    reach the game there without remote play's secret token; a name that
    is no address at all is refused as such (it was said to let other
    machines in), and one whose every address is this computer's own
    (``127.1``) is taken."""
    if remote or is_loopback(host):
        return
    if host and host not in WILDCARDS:
        try:
            found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as error:
            why = error.strerror if isinstance(error, OSError) and error.strerror else "not a host name"
            raise ListenError(f"--host {quote(host)} is not an address to listen on ({why}): give an "
                              "address of this computer, such as 127.0.0.1") from None
        if found and all(is_loopback(str(address[4][0])) for address in found):
            return
    raise ListenError(
        f"--host {clip(host)} lets other machines on the network reach the game: add --remote to "
        "guard it with a secret link, or leave --host out to play on this computer only"
    )


@dataclass(frozen=True)
class ServerSettings:
    """What ``terrace play`` asks of the server."""

    host: str = "127.0.0.1"
    port: int = 8000
    remote: bool = False
    """Serve other devices on the network, guarded by a secret token."""
    open_browser: bool = True
    default_variant: str = "terrace"
    default_rules: Rules | None = None
    hint_seconds: float = HINT_SECONDS
    winnable_seconds: float = WINNABLE_SECONDS
    tls: ssl.SSLContext | None = None
    """Serve HTTPS with this context (:mod:`terrace.web.tls`), else HTTP."""
    fingerprint: str | None = None
    """The SHA-256 fingerprint of a self-signed certificate, printed with the link."""


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, or a clear :class:`ListenError` when the port is
    taken. It is made as a TCP socket (``IPPROTO_TCP``) so that asyncio sets
    TCP_NODELAY on every connection: without it each keep-alive request
    waits ~40 ms."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        if sys.platform != "win32":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        host = clip(host)
        if error.errno == errno.EADDRINUSE:
            raise ListenError(
                f"port {port} on {host} is already in use (is Terrace already running? "
                f"open http://{browser_host(host)}:{port}/ or choose another port with --port)"
            ) from None
        if error.errno == errno.EACCES:
            raise ListenError(f"not allowed to listen on port {port}: choose another with --port") from None
        raise ListenError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    return sock


def browser_host(host: str) -> str:
    """How a browser on this computer names the listening ``host``."""
    if host in WILDCARDS:
        return "127.0.0.1"
    return url_host(host)


def game_link(host: str, port: int, token: str | None, scheme: str = "http") -> str:
    """The URL to open: on this computer, or (with ``token``) on another
    device of the network, carrying the token.

    >>> game_link("127.0.0.1", 8443, None, "https")
    'https://127.0.0.1:8443/'
    """
    if token is None:
        return f"{scheme}://{browser_host(host)}:{port}/"
    address = network_address() if host in WILDCARDS else host
    return f"{scheme}://{url_host(address or socket.gethostname())}:{port}/?{TOKEN_PARAM}={token}"


def announce(url: str, remote: bool, out: TextIO, fingerprint: str | None = None, host: str = "") -> None:
    """Tell the player where the game is (with the QR code of a remote
    link, and how to check a self-signed certificate's ``fingerprint``);
    a remote game listening on this computer's own ``host`` is said to be
    out of the phone's reach.

    >>> import io; said = io.StringIO()
    >>> announce("http://127.0.0.1:8000/?token=t", True, said, host="127.0.0.1")
    >>> print(said.getvalue().splitlines()[1])
    Only this computer can open the link: it listens on 127.0.0.1 (leave --host out to let your phone play).
    """
    out.write(f"Terrace is running at {url}  (Ctrl+C to stop)\n")
    if remote and is_loopback(host):
        out.write(f"Only this computer can open the link: it listens on {clip(host)} "
                  "(leave --host out to let your phone play).\n")
    elif remote:
        out.write("Open this link on your phone or tablet (same network), or scan the code; "
                  "keep it to yourself: it is the key to your games.\n")
        others = other_addresses(url) if host in WILDCARDS else []
        if others:
            named = ", ".join(others[:-1]) + (" or " if len(others) > 1 else "") + others[-1]
            out.write(f"This computer has other addresses too (another network, a VPN): if the phone cannot "
                      f"reach the link, write {named} in it instead of {urlsplit(url).hostname}.\n")
        if url.startswith("http:"):
            out.write("The link and the games travel in clear over the network: "
                      "--https (or --certfile) serves them encrypted.\n")
        print_qr(url, out)
    if fingerprint is not None:
        out.write("The certificate is self-signed: the browser warns once. Accept it only when the "
                  f"certificate it shows has the SHA-256 fingerprint\n  {fingerprint}\n")
    out.flush()


def other_addresses(url: str) -> list[str]:
    """The addresses of this computer's networks (:func:`interface_addresses`)
    besides the one ``url`` names."""
    named = urlsplit(url).hostname
    return [address for address in interface_addresses() if address != named]


def announce_new_link(url: str, out: TextIO, host: str = "") -> None:
    """Tell the player that the last link was used and give the next one
    (each link opens the game once: the one used stays, spent, in its
    browser's history), with its QR code when a phone can reach it.

    >>> import io; said = io.StringIO()
    >>> announce_new_link("http://127.0.0.1:8000/?token=t2", said, host="127.0.0.1")
    >>> print(said.getvalue().strip())
    The link was opened (it opens the game once). For another browser: http://127.0.0.1:8000/?token=t2
    """
    out.write(f"The link was opened (it opens the game once). For another browser: {url}\n")
    if not is_loopback(host):
        print_qr(url, out)
    out.flush()


class NewLinks:
    """Prints each new link (:func:`announce_new_link`) from a thread of its
    own, in the order they come, so that the request that used the last
    link never waits for the terminal: a terminal paused by Ctrl+S (or an
    output nobody reads, its pipe full) blocked the printing, which ran in
    the server's event loop, and with it every request of every device
    until the terminal went on. A terminal gone, or an output closed, fails
    no request either: the link is then not printed."""

    def __init__(self, out: TextIO, host: str) -> None:
        self.out, self.host = out, host
        self.waiting: queue.SimpleQueue[str] = queue.SimpleQueue()
        threading.Thread(target=self._print, name="terrace-new-links", daemon=True).start()

    def say(self, url: str) -> None:
        """Print ``url`` as the next link, soon (never waiting here)."""
        self.waiting.put(url)

    def _print(self) -> None:
        while True:
            url = self.waiting.get()
            with contextlib.suppress(OSError, ValueError):
                announce_new_link(url, self.out, self.host)


def server_config(app: ASGIApp, tls: ssl.SSLContext | None = None,
                  lifespan: Literal["on", "off"] = "on") -> uvicorn.Config:
    """uvicorn's configuration of the game's server (HTTPS with ``tls``)."""
    import uvicorn

    # (uvicorn only when serving)
    from terrace.web.protocol import HEAD_BYTES, GuardedH11Protocol, https_protocol

    # (no proxy stands before the game, so X-Forwarded-* is never believed;
    # TLS is the protocol's, not uvicorn's: see https_protocol)
    protocol = GuardedH11Protocol if tls is None else https_protocol(tls)
    return uvicorn.Config(app, log_level="warning", access_log=False, lifespan=lifespan,
                          timeout_graceful_shutdown=STOP_GRACE_SECONDS, http=protocol, proxy_headers=False,
                          h11_max_incomplete_event_size=HEAD_BYTES, limit_concurrency=SERVED_AT_ONCE)


def serve(app: ASGIApp, sock: socket.socket, pool: SolverPool, tls: ssl.SSLContext | None = None,
          store: GameStore | None = None) -> bool:
    """Run uvicorn on ``sock`` until SIGTERM or Ctrl+C; running searches
    are stopped as soon as a stop is asked for, and so are the waits of
    ``store``'s changes for a database another program holds (see
    :meth:`~terrace.storage.GameStore.stop_waiting`), so the server ends
    within a second or two and answers each request it has begun. True
    when a signal stopped it."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if stopped:
                # (a second SIGTERM stops at once, as uvicorn takes a second Ctrl+C only)
                self.force_exit = True
            stopped.append(sig)
            pool.closing.set()
            if store is not None:
                store.stop_waiting()
            super().handle_exit(sig, frame)

    # (no lifespan: the pool is closed below, where the app's lifespan closed it too; a second
    # Ctrl+C skips uvicorn's lifespan shutdown, and its task, cancelled as the event loop closed,
    # put a traceback on the terminal)
    config = server_config(app, tls, lifespan="off")
    stopped: list[int] = []
    try:
        Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # pragma: no cover - interactive
        stopped.append(signal.SIGINT)
    finally:
        sock.close()
        pool.close()
    return bool(stopped)


def run(store: GameStore, settings: ServerSettings, out: TextIO | None = None,
        sock: socket.socket | None = None) -> bool:
    """Serve the web game on ``store`` until stopped: listen (on ``sock``
    when the caller has bound it already), print the link (a secret one with
    ``settings.remote``) on ``out`` (standard output by default), open the
    browser, serve. Without ``settings.remote`` the game is served on this
    computer only: an address (or ``sock``) other machines can reach is
    refused before anything starts. True when a signal stopped it (SIGTERM,
    Ctrl+C)."""
    check_reach(settings.host, settings.remote)
    if sock is not None:
        check_reach(str(sock.getsockname()[0]), settings.remote)
    if sock is None:
        sock = bind(settings.host, settings.port)
    scheme = "http" if settings.tls is None else "https"
    # (the address listened on, not the name asked for: ``--host mypc``, which Debian's
    # /etc/hosts names 127.0.1.1, or ``--host 127.1``, keeps the game on this computer too)
    listening, port = str(sock.getsockname()[0]), sock.getsockname()[1]
    said = sys.stdout if out is None else out
    keys = None
    if settings.remote:
        printer = NewLinks(said, listening)

        def renewed(link: str) -> None:
            printer.say(game_link(settings.host, port, link, scheme))

        keys = RemoteKeys(renewed=renewed)
    hosts = tuple(machine_hosts(settings.host)) if settings.remote else (settings.host,)
    pool = SolverPool()
    app = create_app(store, default_variant=settings.default_variant, default_rules=settings.default_rules,
                     allowed_hosts=hosts, hint_seconds=settings.hint_seconds,
                     winnable_seconds=settings.winnable_seconds, pool=pool, token=keys)
    url = game_link(settings.host, port, None if keys is None else keys.link, scheme)
    announce(url, settings.remote, said, settings.fingerprint, listening)
    pool.start()
    if settings.open_browser:
        # (the browser opened here gets a link of its own: the printed one stays for the phone)
        # (its token is on the browser's command line, which every user of the computer reads in
        # ps: it opens the game only from a connection of this user's, where the system says whose)
        own = None if keys is None else keys.one_link(only_for=opened_by_this_user)
        opened = url if own is None else game_link(settings.host, port, own, scheme)
        threading.Timer(BROWSER_DELAY, open_browser, args=(opened, keys, own)).start()
    return serve(app, sock, pool, settings.tls, store)


TEXT_BROWSERS = frozenset({"www-browser", "links", "elinks", "lynx", "w3m"})
"""The text browsers Python's :mod:`webbrowser` falls back on in a terminal
with no graphical session (over SSH, as on a home server the phone plays
on): one ran in the terminal ``terrace play`` prints on, over its link and
QR code, and spent the link of the browser opened. None is opened unless
named in ``BROWSER``."""


def open_browser(url: str, keys: RemoteKeys | None = None, own: str | None = None) -> None:
    """Open ``url`` in the browser (never a text browser of this terminal
    that ``BROWSER`` does not name: :data:`TEXT_BROWSERS`); the link
    ``own`` made for it (one of ``keys``) is forgotten when no browser
    opens: nobody would use it."""
    try:
        opened = not text_browsers_only() and webbrowser.open(url)
    except webbrowser.Error:
        opened = False
    if not opened and keys is not None and own is not None:
        keys.forget(own)


def text_browsers_only() -> bool:
    """True when the browser :mod:`webbrowser` would open first is a text
    browser (:data:`TEXT_BROWSERS`: then there is no other, but after it)
    that ``BROWSER`` does not name."""
    if os.environ.get("BROWSER"):
        return False
    try:
        return getattr(webbrowser.get(), "name", None) in TEXT_BROWSERS
    except webbrowser.Error:
        return False
