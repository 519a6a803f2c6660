"""Playing from a phone or tablet on the home network (``terrace play
--remote``): which listening addresses stay on this computer, the names
and addresses other devices may use to reach it, and the QR code of the
secret link.

>>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("::1"), is_loopback("0.0.0.0")
(True, True, True, False)
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from typing import TextIO

WILDCARDS = ("0.0.0.0", "::")


def is_loopback(host: str) -> bool:
    """True when ``host`` is this computer itself: listening there keeps
    the game on it, and a client there is one of its own programs
    (``::ffff:127.0.0.1`` is 127.0.0.1 as a socket listening on ``::`` sees it).

    >>> is_loopback("::ffff:127.0.0.1"), is_loopback("::ffff:192.168.1.9"), is_loopback("not an address")
    (True, False, False)
    """
    if host.lower() == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return (mapped or ip).is_loopback


_PROBES = {socket.AF_INET: "192.0.2.1", socket.AF_INET6: "2001:db8::1"}
"""Addresses for documentation (TEST-NET-1, RFC 5737; RFC 3849), never
routed for real: connecting a UDP socket to one picks the default route."""


def network_address(family: socket.AddressFamily = socket.AF_INET) -> str | None:
    """This computer's address on its network (the one its default route
    uses) in ``family`` (IPv4 unless told), or None. A UDP socket's
    ``connect`` only picks the route: no packet is sent."""
    with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as probe:
        probe.connect((_PROBES[family], 9))
        address: str = probe.getsockname()[0].split("%")[0]  # (without an IPv6 zone)
        if not ipaddress.ip_address(address).is_unspecified:
            return address
    return None


def machine_hosts(host: str) -> list[str]:
    """The names and addresses by which other devices may reach this
    computer: its host name (also with ``.local``), its fully qualified
    name, their addresses, its network address (listening on ``::``, its
    IPv6 one as well), and ``host`` itself."""
    names = {socket.gethostname(), socket.getfqdn()}
    names |= {f"{name.split('.')[0]}.local" for name in list(names) if name}
    found = {name.lower() for name in names if name}
    for name in list(found):
        with contextlib.suppress(OSError, UnicodeError):
            found |= {str(info[4][0]).split("%")[0] for info in socket.getaddrinfo(name, None)}
    if host in WILDCARDS:
        # (a socket on :: takes IPv4 too, so both families are named)
        families = (socket.AF_INET,) if host == "0.0.0.0" else (socket.AF_INET, socket.AF_INET6)
        found |= {a for a in (network_address(f) for f in families) if a}
    else:
        found.add(host.lower().strip("[]"))
    return sorted(found)


def url_host(host: str) -> str:
    """How a URL names ``host`` (brackets around IPv6 addresses)."""
    return f"[{host}]" if ":" in host else host


def print_qr(text: str, out: TextIO) -> bool:
    """Draw ``text`` as a QR code in the terminal; False when the terminal
    cannot show it."""
    import segno

    try:
        # (asked first: the stream writes what its encoding lacks as escapes)
        "\u2580\u2584\u2588 ".encode(getattr(out, "encoding", None) or "utf-8")
        segno.make(text, error="l").terminal(out=out, compact=True)
    except (UnicodeError, LookupError, OSError):
        return False
    return True
