"""Playing from a phone or tablet on the home network (``terrace play
--remote``): which listening addresses stay on this computer, the names
and addresses other devices may use to reach it, and the QR code of the
secret link.

>>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("::1"), is_loopback("0.0.0.0")
(True, True, True, False)
"""

from __future__ import annotations

import contextlib
import functools
import io
import ipaddress
import os
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO, TypeVar

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


PROC_SOCKETS = ("/proc/net/tcp", "/proc/net/tcp6")
"""Where Linux lists the computer's TCP sockets with the user owning each."""


def _listed_forms(address: str) -> set[str]:
    """How :data:`PROC_SOCKETS` write ``address`` (an IPv4 address also as
    IPv6 maps it, and the other way round): the address's 32-bit words in
    hexadecimal, each as the machine stores it.

    >>> import sys
    >>> sorted(_listed_forms("127.0.0.1")) == (["0000000000000000FFFF00000100007F", "0100007F"]
    ...     if sys.byteorder == "little" else ["00000000000000000000FFFF7F000001", "7F000001"])
    True
    """
    ip = ipaddress.ip_address(address.split("%")[0])
    v4 = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else ip
    forms = set()
    if v4 is not None:
        forms.add(f"{struct.unpack('=I', v4.packed)[0]:08X}")
        ip = ipaddress.IPv6Address(b"\0" * 10 + b"\xff\xff" + v4.packed)
    forms.add("".join(f"{word:08X}" for word in struct.unpack("=4I", ip.packed)))
    return forms


def socket_owner(client: tuple[str, int], server: tuple[str, int]) -> int | None:
    """The id of the user whose program holds the client's end of a TCP
    connection from ``client`` to ``server`` (addresses and ports as the
    server's socket sees them), when that end is on this computer and
    Linux lists it (:data:`PROC_SOCKETS`); else None."""
    try:
        wanted = {(f"{ours}:{client[1]:04X}", f"{theirs}:{server[1]:04X}")
                  for ours in _listed_forms(client[0]) for theirs in _listed_forms(server[0])}
    except (ValueError, TypeError):
        return None
    for path in PROC_SOCKETS:
        try:
            lines = Path(path).read_text(encoding="ascii", errors="replace").splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 7 and (fields[1], fields[2]) in wanted and fields[7].isdigit():
                return int(fields[7])
    return None


def opened_by_this_user(client: tuple[str, int] | None, server: tuple[str, int] | None) -> bool:
    """True when the connection from ``client`` to ``server`` was opened by
    a program of the user running this process (the browser ``terrace
    play`` opened), as far as the system says: on Linux, by the owner of
    its socket (:func:`socket_owner`), so that another user of the
    computer, who reads the browser's command line and its link in ``ps``,
    cannot open that link; where no system list of sockets exists (macOS,
    Windows), True."""
    if not any(os.path.exists(path) for path in PROC_SOCKETS):
        return True
    if client is None or server is None:
        return False
    owner = socket_owner(client, server)
    return owner is not None and owner == os.getuid()


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


SIOCGIFFLAGS, SIOCGIFADDR = 0x8913, 0x8915
"""Linux's ioctls that read a network interface's flags and its IPv4 address."""
IFF_UP_RUNNING = 0x1 | 0x40
"""The flags of an interface that is up and connected (a bridge with
nothing on it, as Docker's own without containers, is not running)."""


def interface_addresses() -> list[str]:
    """The IPv4 addresses of this computer's network interfaces (each
    one's first, of those up, connected and of a device of its own:
    :func:`is_device`), loopback and link-local ones left out: besides its
    default route's (:func:`network_address`), which may be a VPN's, those
    of another network (a second Wi-Fi, Ethernet). Linux only: none
    elsewhere."""
    if sys.platform != "linux":
        return []
    import fcntl

    found: set[ipaddress.IPv4Address] = set()
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for _, name in socket.if_nameindex():
            with contextlib.suppress(OSError):
                # (struct ifreq: the name in 16 bytes, then a sockaddr_in whose address is at 20)
                asked = struct.pack("256s", name.encode()[:15])
                flags = struct.unpack_from("H", fcntl.ioctl(probe.fileno(), SIOCGIFFLAGS, asked), 16)[0]
                if flags & IFF_UP_RUNNING == IFF_UP_RUNNING and is_device(name):
                    found.add(ipaddress.IPv4Address(fcntl.ioctl(probe.fileno(), SIOCGIFADDR, asked)[20:24]))
    return [str(a) for a in sorted(found) if not (a.is_loopback or a.is_link_local or a.is_unspecified)]


NAMES_SECONDS = 2.0
"""Most seconds :func:`machine_hosts` waits for the look-ups of the
computer's names and their addresses, taking those found by then: on a
network whose DNS server does not answer, each look-up waited for the
resolver's time-outs, and ``terrace play --remote`` printed its link after
24.6 s (measured: ``localhost.local`` and ``vm.local``, ten seconds and
more each)."""

T = TypeVar("T")


def _answered(calls: list[Callable[[], T]], until: float) -> list[T]:
    """The results of ``calls``, each made in a thread of its own, that came
    before ``until`` (on the monotonic clock); a call that failed or is
    late gives none (its thread, a daemon, is left to end by itself)."""
    results: list[T | None] = [None] * len(calls)

    def make(index: int) -> None:
        with contextlib.suppress(OSError, UnicodeError):
            results[index] = calls[index]()

    threads = [threading.Thread(target=make, args=(index,), daemon=True) for index in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, until - time.monotonic()))
    return [result for result, thread in zip(results, threads, strict=True)
            if result is not None and not thread.is_alive()]


def _addresses_of(name: str) -> set[str]:
    """The addresses ``name`` has (an IPv6 one without its zone)."""
    return {str(info[4][0]).split("%")[0] for info in socket.getaddrinfo(name, None)}


NET_CLASS = Path("/sys/class/net")
"""Where Linux shows each network interface, as a link to its device."""


def is_device(interface: str) -> bool:
    """True when the network ``interface`` is a device of this computer
    (Wi-Fi, Ethernet), or a bridge with one among its ports, as a virtual
    machine's host bridges its network: no phone reaches the computer by
    a virtual one alone (a VPN's tunnel, the bridge of Docker's
    containers, 172.17.0.1). True where Linux does not tell."""
    if "/devices/virtual/" not in str((NET_CLASS / interface).resolve()):
        return True
    ports = NET_CLASS / interface / "brif"
    return ports.is_dir() and any(is_device(port.name) for port in ports.iterdir())


def machine_hosts(host: str) -> list[str]:
    """The names and addresses by which other devices may reach this
    computer: its host name (also with ``.local``), its fully qualified
    name, their addresses, its network address (listening on ``::``, its
    IPv6 one as well) and those of its other networks
    (:func:`interface_addresses`) when it listens on every network, and
    ``host`` itself."""
    until = time.monotonic() + NAMES_SECONDS
    names = {socket.gethostname(), *_answered([socket.getfqdn], until)}
    names |= {f"{name.split('.')[0]}.local" for name in list(names) if name}
    found = {name.lower() for name in names if name}
    for addresses in _answered([functools.partial(_addresses_of, name) for name in found], until):
        found |= addresses
    if host in WILDCARDS:
        # (a socket on :: takes IPv4 too, so both families are named)
        families = (socket.AF_INET,) if host == "0.0.0.0" else (socket.AF_INET, socket.AF_INET6)
        found |= {a for a in (network_address(f) for f in families) if a}
        found |= set(interface_addresses())
    else:
        found.add(host.lower().strip("[]"))
    return sorted(found)


def url_host(host: str) -> str:
    """How a URL names ``host`` (brackets around IPv6 addresses)."""
    return f"[{host}]" if ":" in host else host


QR_COLOURS = ("\x1b[97;40m", "\x1b[0m")
"""What each line of a QR code on a terminal starts and ends with: its
light modules, drawn as blocks in the text's colour, bright white, and its
dark ones, spaces, black. In the terminal's own colours a light terminal
(dark text on white, as macOS Terminal's default) showed the code
inverted, light modules dark, which not every reader of QR codes reads
(ZXing, for one, only when asked to)."""


def print_qr(text: str, out: TextIO) -> bool:
    """Draw ``text`` as a QR code in the terminal (in :data:`QR_COLOURS`
    when :func:`shows_colours`); False when the terminal cannot show it."""
    import segno

    try:
        # (asked first: the stream writes what its encoding lacks as escapes)
        "\u2580\u2584\u2588 ".encode(getattr(out, "encoding", None) or "utf-8")
        drawn = io.StringIO()
        segno.make(text, error="l").terminal(out=drawn, compact=True)
        start, end = QR_COLOURS if shows_colours(out) else ("", "")
        out.write("".join(f"{start}{line}{end}\n" for line in drawn.getvalue().splitlines()))
    except (UnicodeError, LookupError, OSError):
        return False
    return True


def shows_colours(out: TextIO) -> bool:
    """True when ``out`` is a terminal that shows ANSI colours: not a file
    or a pipe, not ``TERM=dumb``, no ``NO_COLOR`` asked for, and not
    Windows' console (which may show the codes as text)."""
    with contextlib.suppress(AttributeError, ValueError, OSError):
        return (out.isatty() and sys.platform != "win32" and os.environ.get("TERM") != "dumb"
                and not os.environ.get("NO_COLOR"))
    return False
