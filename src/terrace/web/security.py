"""Protections every response of the web game gets.

* The Host header, parsed strictly, must name this machine (``127.0.0.1``,
  ``localhost``, ``[::1]``, any port, a name the server was given, or the
  address the request arrived at), so a page on another site cannot reach
  the game through DNS rebinding.
* Requests that change something must come from the page itself: an
  ``Origin`` header must equal the page's own origin exactly (scheme, host
  and port; ``null`` only with ``Sec-Fetch-Site: same-origin``, or without
  that header with a ``Referer`` on the page's own origin), and no API
  request may say ``Sec-Fetch-Site: cross-site``.
* With remote play's keys (``terrace play --remote``, :class:`RemoteKeys`)
  every request needs the cookie's secret, or a link's token in the
  query once (outside ``/api/``): a ``GET`` of the printed link leads at
  once to the clean address (the token leaves the address bar and the
  tab's history), the browser holding the link by a short-lived cookie of
  its own, and there shows a page whose button (a form, no script)
  ``POST``s to that address; only that ``POST`` spends the link, sets
  that HttpOnly, SameSite=Lax cookie and redirects to the clean address,
  so a program that fetches the link for a preview (a chat) leaves it to
  the person; the link made for the browser ``terrace play`` opens does
  it all at its ``GET``. Else 401, as
  a short page in the browser's language when the request asks for HTML,
  as JSON otherwise. The link's token is good for one use:
  the link a browser opened stays in its history (and in a history synced
  to other devices), where anyone who reads it could have opened the game
  while the server ran; spent, it opens nothing (``link-spent``), and the
  server prints a new link for the next device. The cookie's secret is
  another one, never in an address. Lax, not
  Strict: a browser sends no Strict cookie on a navigation that began on
  another site, so the link tapped in a web mail, or a reload after it,
  answered 401; another site's requests that could change something, or
  read the API, get no Lax cookie, and the checks above refuse them anyway.
  The cookie's name carries the port of the address (:func:`token_cookie`):
  a browser keeps cookies by host name whatever the port, so two servers of
  one computer took each other's place. And a browser sends them to every
  port, so another server of the computer receives the cookie: its value is
  the secret bound to the browser's address (:meth:`RemoteKeys.cookie_for`),
  which opens nothing from another address.
* Request bodies are capped at :data:`MAX_BODY` bytes.
* Every response, refusals and server errors included, carries a strict
  Content-Security-Policy (no inline scripts or styles) and the usual
  hardening headers.

>>> host_is_local("localhost:8000"), host_is_local("[::1]"), host_is_local("evil.test")
(True, True, False)
>>> host_is_local("localhost:8201, evil.example"), host_is_local("127.0.0.1:80@evil")
(False, False)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import re
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from html import escape
from urllib.parse import parse_qsl, quote, urlencode

from starlette.requests import cookie_parser
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from terrace.refusals import Reason
from terrace.web.i18n import (
    WebNotice,
    WebRefusal,
    notice,
    notice_json,
    pick_language,
    refusal_json,
    say,
    sentence,
)
from terrace.whole import digits_value

FETCH_SITES = frozenset({"same-origin", "same-site", "cross-site", "none"})
"""The values of ``Sec-Fetch-Site`` a browser sends."""
MAX_BODY = 16 * 1024
"""The largest request body accepted, in bytes (a move is a few dozen)."""

LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
TOKEN_COOKIE = "terrace_token"
TOKEN_PARAM = "token"
TOKEN_COOKIE_FLAGS = "Path=/; HttpOnly; SameSite=Lax"
"""The token cookie's attributes (see the module docstring for why Lax);
the link's page's cookie (:data:`HELD_COOKIE`) has them too."""
HELD_COOKIE = "terrace_link"
"""The cookie by which a browser holds the printed link it opened, as a
secret of its own, while the link's page asks for the button
(:meth:`RemoteKeys.hold`): the link's token leaves the address first."""
HELD_SECONDS = 600
"""Seconds a browser's hold on a link lasts (its cookie's Max-Age): time
to press the button, and to press it again should the first answer be lost."""
HELD_MOST = 16
"""Most holds kept at once (each needs the printed link): a new one drops
the oldest."""
TRUST_EXTENSION = "terrace.trust"
"""The ASGI extension by which the server's protocol
(:mod:`terrace.web.protocol`) lets the guard say that a connection showed
the token: ``scope["extensions"][TRUST_EXTENSION]["trust"]()``."""
SERVER_ERROR = Reason(WebRefusal.SERVER_ERROR)
CROSS_SITE = Reason(WebRefusal.CROSS_SITE)
TOKEN_NEEDED = Reason(WebRefusal.TOKEN_NEEDED)
LINK_SPENT = Reason(WebRefusal.LINK_SPENT)
TOKEN_BYTES = 24
"""Random bytes of each of remote play's secrets (192 bits): guessing is
hopeless, so failed tries lock nobody out (a lockout would let any machine
of the network lock the player out)."""
BODY_TOO_LARGE = Reason(WebRefusal.BODY_TOO_LARGE, most=MAX_BODY)

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

_IPV6 = re.compile(r"\[([0-9a-f:.]{2,45})\]")
_NAME = re.compile(r"[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?\.?")
_PORT = re.compile(r"(?::([0-9]{1,5}))?")


def parse_host(value: str) -> tuple[str, int | None] | None:
    """The host name and port of a Host header value, or None unless the
    whole value is one host (a name, an IPv4 address or a bracketed IPv6
    address) and an optional port.

    >>> parse_host("[::1]:8000"), parse_host("LocalHost"), parse_host("127.0.0.1:80")
    (('::1', 8000), ('localhost', None), ('127.0.0.1', 80))
    >>> parse_host("[::1]evil.example"), parse_host("a b"), parse_host("x:99999")
    (None, None, None)
    """
    text = value.lower()
    bracketed = _IPV6.match(text)
    if bracketed:
        try:
            host = str(ipaddress.IPv6Address(bracketed.group(1)))
        except ValueError:
            return None
        end = bracketed.end()
    else:
        named = _NAME.match(text)
        if named is None:
            return None
        host, end = named.group(0).rstrip("."), named.end()
    port_match = _PORT.fullmatch(text, end)
    if port_match is None:
        return None
    port = None if port_match.group(1) is None else digits_value(port_match.group(1), 18)
    if port is not None and not 0 < port < 65536:
        return None
    return host, port


def token_cookie(port: int | None, base: str = TOKEN_COOKIE) -> str:
    """The token cookie's name (or another cookie's of the guard, named
    ``base``) on an address with ``port`` (None: the default port, which
    the Host header leaves out).

    >>> token_cookie(8000), token_cookie(None), token_cookie(8000, HELD_COOKIE)
    ('terrace_token_8000', 'terrace_token', 'terrace_link_8000')
    """
    return base if port is None else f"{base}_{port}"


def local_names() -> tuple[str, ...]:
    """The names of :data:`LOCAL_HOSTS` as an address writes them, for the
    refusal of any other Host (``host-not-local``), which said
    "localhost or 127.0.0.1" in words of its own, [::1] missing. The names
    a remote game also answers (:class:`SecurityMiddleware`'s extra hosts,
    the computer's names and addresses) are never said: a page on another
    site that reaches the game by DNS rebinding reads that refusal.

    >>> local_names()
    ('localhost', '127.0.0.1', '[::1]')
    """
    return tuple(sorted((f"[{host}]" if ":" in host else host for host in LOCAL_HOSTS),
                        key=lambda name: (name != "localhost", ":" in name, name)))


def host_is_local(value: str, extra: Iterable[str] = (), arrived_at: str | None = None) -> bool:
    """True when a Host header value names this machine (or one of
    ``extra``), or is the very address the request arrived at
    (``arrived_at``, the socket's own: an address, never a name, so no
    page on another site can send it by DNS rebinding, and the computer's
    addresses besides the one its default route uses are taken: another
    network's, a VPN's neighbour).

    >>> host_is_local("192.168.50.7:8000", arrived_at="192.168.50.7")
    True
    >>> host_is_local("192.168.50.7", arrived_at="::ffff:192.168.50.7")
    True
    >>> host_is_local("evil.test", arrived_at="evil.test"), host_is_local("10.0.0.7", arrived_at="10.0.0.8")
    (False, False)
    """
    parsed = parse_host(value)
    if parsed is None:
        return False
    return parsed[0] in LOCAL_HOSTS or parsed[0] in set(extra) or _is_address(parsed[0], arrived_at)


def _is_address(host: str, address: str | None) -> bool:
    """True when ``host`` is an IP address, the same as ``address`` (an
    IPv4 address seen by a socket listening on ``::`` as ``::ffff:a.b.c.d``)."""
    try:
        ours, theirs = ipaddress.ip_address(host), ipaddress.ip_address(str(address).split("%")[0])
    except ValueError:
        return False
    mapped = theirs.ipv4_mapped if isinstance(theirs, ipaddress.IPv6Address) else None
    return ours == (mapped or theirs)


def same_origin(origin: str, scheme: str, host: str) -> bool:
    """True when an ``Origin`` header is exactly the origin of a page served
    over ``scheme`` under the Host header ``host`` (default ports filled in).

    >>> same_origin("http://localhost:8000", "http", "localhost:8000")
    True
    >>> [same_origin(o, "http", "localhost:8000") for o in
    ...  ("http://localhost:8001", "https://localhost:8000", "null", "http://localhost:8000/x")]
    [False, False, False, False]
    """
    origin_scheme, sep, rest = origin.partition("://")
    if not sep or origin_scheme.lower() != scheme:
        return False
    default = 443 if scheme == "https" else 80
    theirs, ours = parse_host(rest), parse_host(host)
    if theirs is None or ours is None:
        return False
    return (theirs[0], theirs[1] or default) == (ours[0], ours[1] or default)


def _normal_host(name: str) -> str:
    """A host as the Host check compares it: lower case, an IPv6 address
    without brackets and in its shortest form (``fd00:0:0:0:0:0:0:2`` is
    ``fd00::2``, as a browser writes it).

    >>> _normal_host("[FD00:0:0:0:0:0:0:2]"), _normal_host("Example.LAN")
    ('fd00::2', 'example.lan')
    """
    name = name.strip().lower()
    name = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    if ":" in name:
        try:
            return ipaddress.IPv6Address(name).compressed
        except ValueError:
            return name
    return name


def new_secret() -> str:
    """A new secret of :data:`TOKEN_BYTES` random bytes, as URL-safe text."""
    return secrets.token_urlsafe(TOKEN_BYTES)


Address = tuple[str, int]
"""A connection's end as a socket names it: an address and a port."""
Opener = Callable[[Address | None, Address | None], bool]
"""Whether a connection (its client's and its server's :data:`Address`) may open a link."""


class RemoteKeys:
    """Remote play's secrets: the cookie's, the same while the server runs,
    and the links', each good for one use (see the module docstring): the
    link printed for the player (:attr:`link`), which ``renewed`` is told
    anew each time it is spent, and any made for one browser
    (:meth:`one_link`, the browser ``terrace play`` opens), which its first
    ``GET`` spends (one step: no program fetches it for a preview)."""

    def __init__(self, cookie: str | None = None, link: str | None = None,
                 renewed: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.holds: dict[str, _Hold] = {}
        """The browsers' holds on the printed link (:meth:`hold`), by secret, oldest first."""
        self.cookie = cookie or new_secret()
        self.link = link or new_secret()
        if hmac.compare_digest(self.cookie.encode(), self.link.encode()):
            raise ValueError("the link's token must not be the cookie's secret")
        self.renewed = renewed
        self.others: dict[str, Opener | None] = {}
        """Links made for one browser each, not used yet: each token with the
        check of the connection that may open it (None: any may)."""
        self.spent: list[str] = []
        """The link tokens used already (one a device: a few)."""

    def cookie_for(self, client: str) -> str:
        """The game's cookie for a browser at the address ``client``: the
        cookie's secret bound to that address (an HMAC of it), so that the
        cookie a browser sends to every port of the computer (cookies ignore
        ports: another server there, another user's, receives it) opens
        nothing from another address.

        >>> keys = RemoteKeys()
        >>> phone = keys.cookie_for("192.168.1.30")
        >>> phone == keys.cookie_for("192.168.1.30") != keys.cookie_for("192.168.1.31"), keys.cookie in phone
        (True, False)
        """
        digest = hmac.new(self.cookie.encode(), client.encode("utf-8", "replace"), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def one_link(self, only_for: Opener | None = None) -> str:
        """The token of a new link for one browser (not printed); ``only_for``
        (given the client's and the server's address of the request's
        connection) says whether a connection may open it (the browser that
        ``terrace play`` opens: one of this user's programs,
        :func:`terrace.web.remote.opened_by_this_user`)."""
        token = new_secret()
        self.others[token] = only_for
        return token

    def may_open(self, given: str, client: Address | None, server: Address | None) -> bool:
        """True unless ``given`` is a link made for one browser whose check
        (:meth:`one_link`'s ``only_for``) refuses the connection from
        ``client`` to ``server``."""
        check = next((c for token, c in self.others.items() if _equal(given, token)), None)
        return check is None or check(client, server)

    def forget(self, token: str) -> None:
        """Drop the link made for one browser whose token is ``token`` (no
        browser will open it)."""
        self.others = {k: c for k, c in self.others.items() if not _equal(token, k)}

    def is_printed(self, given: str) -> bool:
        """True when ``given`` is the printed link's token (not spent)."""
        return _equal(given, self.link)

    def is_one_step(self, given: str) -> bool:
        """True when ``given`` is the token of a link made for one browser
        (:meth:`one_link`), not used yet."""
        return any(_equal(given, token) for token in self.others)

    def take(self, given: str) -> bool:
        """True when ``given`` is a link's token not used yet, which is
        then spent (the printed link then has a new token, told to
        ``renewed``)."""
        if _equal(given, self.link):
            self.spent.append(self.link)
            self.link = new_secret()
            if self.renewed is not None:
                self.renewed(self.link)
            return True
        for token in self.others:
            if _equal(given, token):
                del self.others[token]
                self.spent.append(token)
                return True
        return False

    def was_spent(self, given: str) -> bool:
        """True when ``given`` is a link token used already."""
        return any(_equal(given, old) for old in self.spent)

    def hold(self, given: str, client: str = "") -> str | None:
        """A new secret by which one browser, at the address ``client``,
        holds the printed link ``given`` (its token, not spent) for
        :data:`HELD_SECONDS`, or None when ``given`` is no such link.
        Nothing is spent: the link's page shows its button to the holder
        (:meth:`holding`), and the button's ``POST`` spends it
        (:meth:`open_held`); the hold is good from that address only, as the
        game's cookie is (:meth:`cookie_for`)."""
        if not self.is_printed(given):
            return None
        now = self.clock()
        self.holds = {k: h for k, h in self.holds.items() if now < h.until}
        while len(self.holds) >= HELD_MOST:
            del self.holds[next(iter(self.holds))]
        secret = new_secret()
        self.holds[secret] = _Hold(given, now + HELD_SECONDS, client)
        return secret

    def _held(self, secret: str, client: str) -> _Hold | None:
        """The hold whose secret is ``secret``, unless it has run out or was
        made for another address than ``client``."""
        found = next((h for k, h in self.holds.items() if _equal(secret, k)), None)
        if found is None or not _equal(client, found.client):
            return None
        return found if self.clock() < found.until else None

    def holding(self, secret: str, client: str = "") -> bool | None:
        """Whether the hold ``secret`` can open the game (its link not used
        yet, or used by this hold itself: the button pressed again when
        the first answer was lost); False when another used the link; None
        for no hold (or one run out, or another address's)."""
        held = self._held(secret, client)
        if held is None:
            return None
        return held.opened or self.is_printed(held.link)

    def open_held(self, secret: str, client: str = "") -> bool:
        """True when the hold ``secret`` opens the game for ``client``: the first
        time its link is spent (:meth:`take`), and again while the hold lasts."""
        held = self._held(secret, client)
        if held is None or not (held.opened or self.take(held.link)):
            return False
        held.opened = True
        return True


@dataclass
class _Hold:
    """One browser's hold on the printed link (:meth:`RemoteKeys.hold`)."""

    link: str
    """The link's token."""
    until: float
    """When the hold runs out (on the keys' clock)."""
    client: str = ""
    """The address of the browser holding the link (:func:`client_address`)."""
    opened: bool = False
    """The hold has opened the game (spent its link)."""


Answer = tuple[int, list[tuple[bytes, bytes]], bytes]
"""A whole answer of the guard: its status, every header, its body."""


class SecurityMiddleware:
    """The checks and headers described in the module docstring."""

    def __init__(
        self, app: ASGIApp, *, allowed_hosts: Iterable[str] = (), token: RemoteKeys | None = None
    ) -> None:
        self.app = app
        self.extra_hosts = frozenset(_normal_host(h) for h in allowed_hosts if h)
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            # The game has no WebSocket: refuse every handshake here, so that
            # none ever reaches the app without the Host and token checks.
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":  # lifespan
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            await _answer(send, refusal)
            return
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception:
            # A bug: answer 500 with the same headers as every response; the
            # server's log still gets the traceback from the raise below.
            if not started:
                await _answer(send, _refused(SERVER_ERROR, scope))
            raise

    def _refusal(self, scope: Scope) -> Answer | None:
        """The answer of the guard itself (a refusal, or a remote link's
        page or redirect), or None to go on to the app."""
        headers = _headers(scope)
        hosts = headers.get("host", [])
        arrived_at = (scope.get("server") or (None,))[0]
        if len(hosts) != 1 or not host_is_local(hosts[0], self.extra_hosts, arrived_at):
            return _refused(Reason(WebRefusal.HOST_NOT_LOCAL, hosts=local_names()), scope)
        if self.token is not None:
            parsed = parse_host(hosts[0])
            assert parsed is not None  # (the Host check above parsed it)
            entry = self._token_entry(scope, headers, parsed[1])
            if entry is not None:
                return entry
        path: str = scope["path"]
        site = _fetch_site(headers)
        method = scope["method"]
        if method in ("GET", "HEAD", "OPTIONS"):
            if path.startswith("/api/") and site == "cross-site":
                return _refused(CROSS_SITE, scope)
            return None
        if not _same_origin_write(scope, headers, hosts[0]):
            return _refused(CROSS_SITE, scope)
        lengths = headers.get("content-length", [])
        size = digits_value(lengths[-1], 18) if lengths else 0  # (a header's digits alone, RFC 9110)
        if size is None or size > MAX_BODY:
            return _refused(BODY_TOO_LARGE, scope)
        return None

    def _token_entry(self, scope: Scope, headers: dict[str, list[str]], port: int | None) -> Answer | None:
        """None when the request carries the cookie's secret (in its cookie
        for ``port``) and no link; else the guard's answer to a link
        (:meth:`_link`), or 401."""
        keys = self.token
        assert keys is not None
        cookies = cookie_parser("; ".join(headers.get("cookie", [])))
        has_cookie = _equal(cookies.get(token_cookie(port), ""), keys.cookie_for(client_address(scope)))
        query = parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True)
        given = [value for key, value in query if key == TOKEN_PARAM]
        held = cookies.get(token_cookie(port, HELD_COOKIE))
        button = scope["method"] == "POST" and _is_form(headers)
        if (given or held is not None or button) and not str(scope["path"]).startswith("/api/"):
            # (the API takes no link: the page does)
            opened = self._link(scope, headers, port, query, given, held, has_cookie)
            if opened is not None:
                return opened
        if has_cookie:
            _trust(scope)
            return None
        # (the connection is closed after the answer: one without the token
        # cannot keep it open, holding a place the player needs)
        spent = len(given) == 1 and keys.was_spent(given[0])
        return _refused(LINK_SPENT if spent else TOKEN_NEEDED, scope, [(b"connection", b"close")])

    def _link(self, scope: Scope, headers: dict[str, list[str]], port: int | None,
              query: list[tuple[str, str]], given: list[str], held: str | None,
              has_cookie: bool) -> Answer | None:
        """A request with a link's token in its query (``given``) or a hold
        on the printed link (``held``, :meth:`RemoteKeys.hold`). A ``GET``
        of the printed link spends nothing: it leads at once to the clean
        address, where the browser holds the link by a cookie of its own,
        so the token leaves the address bar and the tab's history before
        the page shows; there the link's page (:func:`entry_page`) shows
        its button to the holder (a refresh shows it again), whose ``POST``
        (from the page itself) spends the link, sets the cookie and leads
        to the clean address. A program fetching a preview of the link (a
        chat) holds it at most, and leaves it to the person. A ``GET`` of a
        link made for one browser opens the game at once; a browser with
        the cookie goes to the clean address (a link it spent opened again,
        the button pressed twice); the hold that opened the game opens it
        again while it lasts (the button pressed twice before the first
        answer came). None: no link of these (the request goes on as
        without it)."""
        keys = self.token
        assert keys is not None
        method = scope["method"]
        rest = urlencode([(k, v) for k, v in query if k != TOKEN_PARAM])
        clean = _same_site_path(scope) + ("?" + rest if rest else "")
        wanted = _first(headers, "accept-language")
        see_clean = [(b"location", clean.encode("ascii"))]
        opened = json_answer(notice_json(WebNotice.LINK_OPENED, wanted), see_clean)
        hold_name = token_cookie(port, HELD_COOKIE)
        let_go = _with_cookie(opened, scope, hold_name, "", "; Max-Age=0") if held is not None else opened
        if method in ("GET", "HEAD") and given:
            if has_cookie:
                return 303, *let_go
            if len(given) != 1:
                return None
            # (the link of the browser terrace play opened: only from a connection it allows, its
            # token being on that browser's command line, which every user of the computer reads)
            ends = scope.get("client"), scope.get("server")
            if keys.is_one_step(given[0]) and keys.may_open(given[0], *ends) and keys.take(given[0]):
                _trust(scope)
                game_cookie = keys.cookie_for(client_address(scope))
                return 303, *_with_cookie(opened, scope, token_cookie(port), game_cookie)
            secret = keys.hold(given[0], client_address(scope))
            if secret is None:
                return None
            _trust(scope)
            page_there = json_answer(notice_json(WebNotice.LINK_HELD, wanted), see_clean)
            return 303, *_with_cookie(page_there, scope, hold_name, secret, f"; Max-Age={HELD_SECONDS}")
        if has_cookie and method == "POST" and (held is not None or _is_form(headers)):
            # (the button pressed twice, the first answer taken: the clean address, nothing spent)
            return 303, *let_go
        if held is None or has_cookie:
            return None
        state = keys.holding(held, client_address(scope))
        if state is None or method not in ("GET", "HEAD", "POST"):
            return None
        if not state:
            return _refused(LINK_SPENT, scope, [(b"connection", b"close")])
        _trust(scope)
        if method != "POST":
            return 200, *entry_page(pick_language(wanted), clean)
        if not _same_origin_write(scope, headers, _first(headers, "host") or ""):
            return _refused(CROSS_SITE, scope)
        if not keys.open_held(held, client_address(scope)):
            return _refused(LINK_SPENT, scope, [(b"connection", b"close")])
        return 303, *_with_cookie(let_go, scope, token_cookie(port), keys.cookie_for(client_address(scope)))


def client_address(scope: Scope) -> str:
    """The address of the request's client, as the game's cookie is bound
    to it (:meth:`RemoteKeys.cookie_for`): an IPv4 client of a socket
    listening on IPv6 (``::ffff:192.168.1.30``) as itself, an IPv6 one
    without its zone; empty when the server does not say.

    >>> client_address({"client": ("::ffff:192.168.1.30", 5)}), client_address({"client": None})
    ('192.168.1.30', '')
    """
    client = scope.get("client")
    if not client:
        return ""
    text = str(client[0]).split("%")[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return text
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return str(mapped or ip)


def _is_form(headers: dict[str, list[str]]) -> bool:
    """True when the request's body is a form's (as the link's button sends it)."""
    kind = _first(headers, "content-type") or ""
    return kind.split(";")[0].strip().lower() == "application/x-www-form-urlencoded"


def _trust(scope: Scope) -> None:
    """Tell the server that the request's connection showed the token."""
    hook = (scope.get("extensions") or {}).get(TRUST_EXTENSION)
    if hook is not None:
        hook["trust"]()


def _same_site_path(scope: Scope) -> str:
    r"""The request's path as a redirect may name it: percent-encoded ASCII
    (no line break can reach a header) that starts with exactly one slash,
    so that ``//evil.example`` or ``/\evil.example`` stays on this site.

    >>> _same_site_path({"path": "//evil.example/x"})
    '/evil.example/x'
    >>> _same_site_path({"path": "/\\evil.example"})
    '/evil.example'
    >>> _same_site_path({"path": "/a\r\nSet-Cookie: x/\u20ac"})
    '/a%0D%0ASet-Cookie%3A%20x/%E2%82%AC'
    """
    return "/" + quote(str(scope["path"]).lstrip("/\\"), safe="/")


def _headers(scope: Scope) -> dict[str, list[str]]:
    """The request's headers by lower-case name, each with its values."""
    headers: dict[str, list[str]] = {}
    for key, value in scope["headers"]:
        headers.setdefault(key.decode("latin-1").lower(), []).append(value.decode("latin-1"))
    return headers


def _first(headers: dict[str, list[str]], name: str) -> str | None:
    """The first value of the header ``name``, or None without one."""
    values = headers.get(name)
    return values[0] if values else None


def _fetch_site(headers: dict[str, list[str]]) -> str:
    """The request's ``Sec-Fetch-Site`` (``same-origin`` without one): a
    browser sends one of four values once; anything else, or two, is no
    browser of this page, and treated as ``cross-site``."""
    sites = headers.get("sec-fetch-site", ["same-origin"])
    site = sites[0].strip().lower() if len(sites) == 1 else "cross-site"
    return site if site in FETCH_SITES else "cross-site"


def _same_origin_write(scope: Scope, headers: dict[str, list[str]], host: str) -> bool:
    """True when a request that changes something may come from the page
    itself: at most one ``Origin``, exactly the page's own, and
    ``Sec-Fetch-Site`` ``same-origin`` or ``none``. ``Origin: null`` (a
    browser's privacy setting, or a referrer policy, hides the page's
    origin; but a sandboxed frame of any site sends it too) is taken only
    when the browser names the page's own origin otherwise
    (:func:`_vouched_same_origin`)."""
    origins = headers.get("origin", [])
    if len(origins) > 1:
        return False
    if origins and origins[0].strip() == "null":
        return _vouched_same_origin(scope, headers, host)
    if origins and not same_origin(origins[0], scope["scheme"], host):
        return False
    return _fetch_site(headers) in ("same-origin", "none")


_URL_ORIGIN = re.compile(r"[a-z][a-z0-9+.-]*://[^/?#]*", re.IGNORECASE)


def _vouched_same_origin(scope: Scope, headers: dict[str, list[str]], host: str) -> bool:
    """True when a request whose ``Origin`` is ``null`` says otherwise that
    it comes from the page itself: ``Sec-Fetch-Site: same-origin`` (a
    browser sends it, and no page can set it), or, from a browser that
    sends no ``Sec-Fetch-Site``, one ``Referer`` on the page's own origin
    (a page cannot name another site's address there).

    >>> scope = {"scheme": "http"}
    >>> [_vouched_same_origin(scope, h, "localhost:8000") for h in (
    ...     {"sec-fetch-site": ["same-origin"]}, {"sec-fetch-site": ["cross-site"]},
    ...     {"referer": ["http://localhost:8000/?game=g"]}, {"referer": ["http://localhost:8000.evil/"]},
    ...     {}, {"sec-fetch-site": ["none"]})]
    [True, False, True, False, False, False]
    """
    sites = headers.get("sec-fetch-site")
    if sites is not None:
        return _fetch_site(headers) == "same-origin"
    referers = headers.get("referer", [])
    found = _URL_ORIGIN.match(referers[0].strip()) if len(referers) == 1 else None
    return found is not None and same_origin(found.group(0), scope["scheme"], host)


def _with_cookie(answer: tuple[list[tuple[bytes, bytes]], bytes], scope: Scope, name: str,
                 secret: str, lasting: str = "") -> tuple[list[tuple[bytes, bytes]], bytes]:
    """``answer`` (headers and body) setting the guard's cookie ``name`` to
    ``secret`` (``lasting``: its Max-Age, if any)."""
    secure = "; Secure" if scope["scheme"] == "https" else ""  # (never sent back over plain HTTP)
    cookie = f"{name}={secret}; {TOKEN_COOKIE_FLAGS}{lasting}{secure}"
    headers, body = answer
    return [(b"set-cookie", cookie.encode()), *headers], body


ENTRY_STYLE = "button{font:inherit;min-height:44px;min-width:44px;padding:0 1.25em}"
"""The style of a remote link's page, inline (the page's own files need
the cookie it is there to give): its button as large as the game's on a
touch screen (44 px high, style.css), where the browser's own was 21 px
high and 13 px of text on a phone, the first thing the player taps."""


def inline_source(text: str) -> str:
    """The Content-Security-Policy source that lets exactly the inline
    ``text`` through (its SHA-256 hash), and nothing else inline."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


ENTRY_CSP = (f"default-src 'none'; style-src {inline_source(ENTRY_STYLE)}; base-uri 'none'; "
             "form-action 'self'; frame-ancestors 'none'")
"""The policy of a remote link's page (:func:`entry_page`): nothing to
load, no style but its own, and its form may go to this site only."""
ENTRY_REFERRER = b"same-origin"
"""The referrer policy of a remote link's page: with ``no-referrer`` a
browser sends ``Origin: null`` with the form's ``POST`` (Fetch, "append a
request Origin header"), which the guard takes only when the browser
vouches for the page otherwise (:func:`_vouched_same_origin`);
``same-origin`` sends the page's own origin, and still no ``Referer`` to
any other site."""


def entry_page(language: str, action: str) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The headers and body of the page a remote link shows: a form whose
    button ``POST``s to ``action`` (the link itself), no script needed."""
    form = (f'<p>{escape(sentence(notice(WebNotice.LINK_ENTRY, language)))}</p>'
            f'<form method="post" action="{escape(action)}">'
            f'<button type="submit">{escape(notice(WebNotice.LINK_BUTTON, language))}</button></form>')
    page = _page(language, WebNotice.LINK_ENTRY, form, ENTRY_STYLE)
    return page_answer(page, csp=ENTRY_CSP, referrer=ENTRY_REFERRER)


def _page(language: str, code: StrEnum, body: str, style: str = "") -> str:
    """A small HTML page of the guard (``body`` is HTML already; ``style``
    its inline stylesheet, which its policy must name)."""
    return ("<!DOCTYPE html>\n"
            f'<html lang="{language}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<meta name="robots" content="noindex"><title>Terrace</title>'
            + (f"<style>{style}</style>" if style else "") + "</head>"
            f'<body data-code="{escape(code.value)}"><h1>Terrace</h1>{body}</body></html>\n')


_NO_QUALITY = re.compile(r"q\s*=\s*0(?:\.0{0,3})?", re.IGNORECASE)
"""A weight of 0 (``q`` in either case: ABNF's strings ignore case, RFC 5234)."""


def wants_html(scope: Scope) -> bool:
    """True when the request's ``Accept`` names HTML (as a browser's
    navigation does; ``fetch`` and API clients send ``*/*`` or JSON).

    >>> wants_html({"headers": [(b"accept", b"text/html,application/xhtml+xml,*/*;q=0.8")]})
    True
    >>> [wants_html({"headers": [(b"accept", v)]}) for v in (b"*/*", b"text/html;q=0", b"text/html;Q=0")]
    [False, False, False]
    """
    accepted = ",".join(v.decode("latin-1") for k, v in scope["headers"] if k.lower() == b"accept")
    for part in accepted.split(","):
        media, *params = part.split(";")
        if media.strip().lower() in ("text/html", "application/xhtml+xml"):
            return not any(_NO_QUALITY.fullmatch(p.strip()) for p in params)
    return False


def _refused(reason: Reason, scope: Scope, extra: Sequence[tuple[bytes, bytes]] = ()) -> Answer:
    """A refusal as the app sends its own: the status of the refusal table,
    the words in the request's language, and the code; as a short page to
    a browser that asks for one (:func:`wants_html`), with the same words."""
    wanted = next((v.decode("latin-1") for k, v in scope["headers"] if k.lower() == b"accept-language"), None)
    if wants_html(scope):
        language = pick_language(wanted)
        words = f"<p>{escape(sentence(say(reason, language)))}</p>"
        return reason.status, *page_answer(_page(language, reason.code, words), extra)
    return reason.status, *json_answer(refusal_json(reason, wanted), extra)


def _equal(given: str, token: str) -> bool:
    """Compare in constant time."""
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode())


def json_answer(
    body_data: Mapping[str, object], extra: Sequence[tuple[bytes, bytes]] = ()
) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The headers and body of an answer of the guard (or of the server's
    protocol, :mod:`terrace.web.protocol`): the app's own JSON (compact,
    UTF-8), never cached, with ``extra`` and the hardening headers."""
    body = bytes(JSONResponse(body_data).body)
    return _with_headers(b"application/json", body, extra), body


def page_answer(page: str, extra: Sequence[tuple[bytes, bytes]] = (), *, csp: str = CSP,
                referrer: bytes = b"no-referrer") -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The headers and body of a page of the guard: HTML, never cached,
    with ``extra`` and the hardening headers (``csp`` and ``referrer`` for
    its policies)."""
    body = page.encode()
    own = {b"content-security-policy": csp.encode(), b"referrer-policy": referrer}
    return _with_headers(b"text/html; charset=utf-8", body, extra, own), body


def _with_headers(kind: bytes, body: bytes, extra: Sequence[tuple[bytes, bytes]],
                  own: dict[bytes, bytes] | None = None) -> list[tuple[bytes, bytes]]:
    """An answer's headers: its type and length, no-store, ``extra``, and
    the hardening headers (those named in ``own`` with its values)."""
    hardening = [(k, (own or {}).get(k, v)) for k, v in SECURITY_HEADERS]
    return [(b"content-type", kind), (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store"), *extra, *hardening]


async def send_refusal(send: Send, reason: Reason, scope: Scope,
                       extra: Sequence[tuple[bytes, bytes]] = ()) -> None:
    """Answer the request of ``scope`` with the refusal ``reason``."""
    await _answer(send, _refused(reason, scope, extra))


async def _answer(send: Send, answer: Answer) -> None:
    status, headers, body = answer
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
