"""Remote play's secret link leaves nothing behind worth taking: each link
opens the game once, so the one a phone's browser keeps in its history
(and a history synced to other devices) opens nothing any more; the
cookie holds another secret, never in an address."""

from __future__ import annotations

import io
import ipaddress
import re
import socket
import sys
import threading
import time
import webbrowser
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from terrace.storage import MemoryStore
from terrace.web import remote
from terrace.web import server as web_server
from terrace.web.security import RemoteKeys, token_cookie
from web_support import app_client, game_cookie, open_link, started_server

HOST = {"host": "192.168.1.20:8000"}
COOKIE = token_cookie(8000)


def test_a_link_opens_the_game_once_and_a_new_one_is_told() -> None:
    told: list[str] = []
    keys = RemoteKeys(renewed=told.append)
    first = keys.link
    with app_client(store=MemoryStore(), token=keys, allowed_hosts=("192.168.1.20",)) as phone:
        phone.follow_redirects = False
        opened = open_link(phone, f"/?token={first}&game=g", headers=HOST)
        assert opened.status_code == 303 and opened.headers["location"] == "/?game=g"
        assert opened.headers["referrer-policy"] == "no-referrer"
        assert opened.headers["cache-control"] == "no-store"
        cookie = opened.headers["set-cookie"]
        assert cookie.startswith(f"{COOKIE}={game_cookie(keys)};") and first not in cookie
        assert told == [keys.link] and keys.link != first
        # the phone, cookie and all, opening the spent link again: the clean address, nothing more
        again = phone.get(f"/?token={first}", headers={**HOST, "cookie": f"{COOKIE}={game_cookie(keys)}"})
        assert again.status_code == 303 and again.headers["location"] == "/"
        assert "set-cookie" not in again.headers and len(told) == 1
        with_cookie = {**HOST, "cookie": f"{COOKIE}={game_cookie(keys)}"}
        assert phone.get("/api/stats", headers=with_cookie).status_code == 200
    with app_client(store=MemoryStore(), token=keys, allowed_hosts=("192.168.1.20",)) as other:
        other.follow_redirects = False
        for language, words in (("en", "used already"), ("de", "schon benutzt")):
            spent = other.get(f"/?token={first}", headers={**HOST, "accept-language": language})
            assert (spent.status_code, spent.json()["code"]) == (401, "link-spent")
            assert words in spent.json()["error"] and spent.headers["connection"] == "close"
        link_as_cookie = {**HOST, "cookie": f"{COOKIE}={first}"}  # (the link is no cookie)
        assert other.get(f"/?token={first}", headers=link_as_cookie).status_code == 401
        assert open_link(other, f"/?token={keys.link}", headers=HOST).status_code == 303  # (the new link)
        assert len(told) == 2


def test_the_browser_opened_by_play_has_a_link_of_its_own() -> None:
    keys = RemoteKeys()
    printed, own = keys.link, keys.one_link()
    with app_client(store=MemoryStore(), token=keys, allowed_hosts=("192.168.1.20",)) as browser:
        browser.follow_redirects = False
        assert browser.get(f"/?token={own}", headers=HOST).status_code == 303
        assert keys.link == printed  # (the printed link is still the phone's)
        browser.cookies.clear()
        assert browser.get(f"/?token={own}", headers=HOST).json()["code"] == "link-spent"


def test_play_prints_the_next_link_once_one_is_used() -> None:
    """The printed link kept working for as long as the server ran: the
    one in the phone's browser history opened the game for anyone who read
    it there (or in a synced history), the cookie holding the same token."""
    with started_server("--remote", "--host", "127.0.0.1") as server:
        match = re.search(r"(http://\S+/)\?token=(\S+)", server.first_line)
        assert match is not None, server.first_line
        base, token = match.group(1), match.group(2)
        with httpx.Client(base_url=base, trust_env=False, timeout=30) as phone:
            entry = open_link(phone, f"/?token={token}")
            assert entry.status_code == 303
            assert token not in entry.headers["set-cookie"]
            assert phone.get("/api/stats").status_code == 200
        assert server.proc.stdout is not None
        said = ""
        while "?token=" not in said:
            said = server.proc.stdout.readline()
            assert said, "the server printed no new link"
        assert "opens the game once" in said
        renewed = re.search(r"\?token=(\S+)", said)
        assert renewed is not None and renewed.group(1) != token
        with httpx.Client(base_url=base, trust_env=False, timeout=30) as reader_of_the_history:
            refused = reader_of_the_history.get(f"/?token={token}")
            assert (refused.status_code, refused.json()["code"]) == (401, "link-spent")
        with httpx.Client(base_url=base, trust_env=False, timeout=30) as tablet:
            assert open_link(tablet, f"/?token={renewed.group(1)}").status_code == 303
            assert tablet.cookies.get(token_cookie(urlsplit(base).port)) not in (None, token)


def test_play_listens_on_an_ipv6_address_written_as_a_url_writes_it() -> None:
    """``--host [::1]``, as the printed link writes the address, was refused:
    "cannot listen on [::1]:8000: Name or service not known"."""
    with started_server("--host", "[::1]") as server:
        assert server.url.startswith("http://[::1]:"), server.first_line
        with httpx.Client(base_url=server.url, trust_env=False, timeout=30) as client:
            assert client.get("/api/variants").status_code == 200


def test_play_names_the_computers_other_addresses(monkeypatch: pytest.MonkeyPatch) -> None:
    """A computer on two networks (or with a VPN, whose address its
    default route then has) printed the one link, its address out of the
    phone's reach, and never the address the phone could use."""
    monkeypatch.setattr(remote, "interface_addresses", lambda: ["10.8.0.2", "192.168.50.7"])
    monkeypatch.setattr(web_server, "interface_addresses", remote.interface_addresses)
    said = io.StringIO()
    web_server.announce("http://10.8.0.2:8000/?token=t", True, said, host="0.0.0.0")
    assert "write 192.168.50.7 in it instead of 10.8.0.2." in said.getvalue()
    assert {"10.8.0.2", "192.168.50.7"} <= set(remote.machine_hosts("0.0.0.0"))  # (the certificate's)
    said = io.StringIO()  # (listening on one address: the phone has that one)
    web_server.announce("http://192.168.50.7:8000/?token=t", True, said, host="192.168.50.7")
    monkeypatch.setattr(web_server, "interface_addresses", lambda: ["10.8.0.2"])  # (one network)
    web_server.announce("http://10.8.0.2:8000/?token=t", True, said, host="0.0.0.0")
    assert "other addresses" not in said.getvalue()


@pytest.mark.skipif(sys.platform != "linux", reason="the interfaces are read on Linux only")
def test_the_interfaces_addresses_are_this_computers() -> None:
    found = remote.interface_addresses()
    if not found:
        pytest.skip("this machine has no network device with an address")
    assert not any(ipaddress.ip_address(each).is_loopback for each in found)
    for address in found:  # (an address read wrong is no address of this computer)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.bind((address, 0))


def test_a_virtual_interface_is_no_way_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Docker's bridge, with a container running, and a VPN's tunnel were
    named as addresses for the phone: only a device, or a bridge with one
    among its ports, is."""
    devices = {"wlan0": "pci0000:00/net/wlan0", "enp3s0": "pci0000:00/net/enp3s0", "tun0": "virtual/net/tun0",
               "docker0": "virtual/net/docker0", "veth1": "virtual/net/veth1", "br0": "virtual/net/br0"}
    net = tmp_path / "class" / "net"
    net.mkdir(parents=True)
    for name, place in devices.items():
        (tmp_path / "devices" / place).mkdir(parents=True)
        (net / name).symlink_to(tmp_path / "devices" / place)
    for bridge, port in (("docker0", "veth1"), ("br0", "enp3s0")):
        (net / bridge / "brif").mkdir()
        (net / bridge / "brif" / port).symlink_to(net / port)
    monkeypatch.setattr(remote, "NET_CLASS", net, raising=False)
    assert {name for name in devices if remote.is_device(name)} == {"wlan0", "enp3s0", "br0"}


def test_play_waits_for_no_silent_dns_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a network whose DNS server does not answer, the look-ups of the
    computer's own names (``vm.local``: ten seconds and more each) held
    the link back for 24.6 s; those found within NAMES_SECONDS are taken."""
    # (the answering look-ups have 3 s, the silent one 60 s, and the bound
    # is half of that: 0.3 s, 3 s and 2 s left a loaded machine little room)
    monkeypatch.setattr(remote, "NAMES_SECONDS", 3.0, raising=False)
    silent = threading.Event()

    def resolve(name: str, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if name.endswith(".local"):
            silent.wait(60)  # (the resolver's time-out)
            raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.1.2.3", 0))]

    monkeypatch.setattr(socket, "gethostname", lambda: "mypc")
    monkeypatch.setattr(socket, "getfqdn", lambda name="": "mypc.lan")
    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    started = time.monotonic()
    try:
        hosts = remote.machine_hosts("192.168.1.20")
    finally:
        silent.set()
    assert time.monotonic() - started < 30
    assert {"mypc", "mypc.lan", "mypc.local", "10.1.2.3", "192.168.1.20"} <= set(hosts)


def test_a_remote_game_on_this_computer_by_another_name_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--remote --host 127.1`` (or the computer's name, which Debian's
    /etc/hosts gives 127.0.1.1) listens on this computer alone, yet the
    player was told to open the link on the phone, with its QR code."""
    monkeypatch.setattr(web_server, "serve", lambda app, sock, *rest: sock.close())
    monkeypatch.setattr(web_server.SolverPool, "start", lambda pool: None)
    said = io.StringIO()
    settings = web_server.ServerSettings(host="127.1", port=0, remote=True, open_browser=False)
    web_server.run(MemoryStore(), settings, said)
    assert "Only this computer can open the link: it listens on 127.0.0.1" in said.getvalue()
    assert "on your phone" not in said.getvalue()


class _Terminal(io.StringIO):
    """What ``terrace play`` writes, as a terminal would take it."""

    def isatty(self) -> bool:
        return True


def test_the_qr_code_is_dark_on_light_whatever_the_terminals_colours(monkeypatch: pytest.MonkeyPatch) -> None:
    """The code was drawn in the terminal's own colours, its light modules
    as blocks in the text's colour: on a light terminal (macOS Terminal's
    default, dark text on white) it came out inverted. On a terminal its
    blocks are bright white on black now; a file or a pipe gets no codes."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    terminal, piped = _Terminal(), io.StringIO()
    assert remote.print_qr("http://192.168.1.20:8000/?token=t", terminal)
    assert remote.print_qr("http://192.168.1.20:8000/?token=t", piped)
    start, end = "\x1b[97;40m", "\x1b[0m"
    lines = terminal.getvalue().splitlines()
    assert len(lines) > 10 and all(line.startswith(start) and line.endswith(end) for line in lines)
    assert "\x1b" not in piped.getvalue()
    assert [line[len(start):-len(end)] for line in lines] == piped.getvalue().splitlines()


def test_play_opens_no_text_browser_in_its_own_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Over SSH (no graphical session) Python's webbrowser has only the
    text browsers of the terminal: w3m ran there, over the printed link
    and QR code, and spent the browser's link. None runs now (the link
    made for it is forgotten) unless BROWSER names it."""
    ran: list[str] = []

    class TextBrowser(webbrowser.GenericBrowser):
        def open(self, url: str, new: int = 0, autoraise: bool = True) -> bool:
            ran.append(url)
            return True

    monkeypatch.setattr(webbrowser, "_browsers", {"w3m": [None, TextBrowser("w3m")]})
    monkeypatch.setattr(webbrowser, "_tryorder", ["w3m"])
    monkeypatch.delenv("BROWSER", raising=False)
    keys = RemoteKeys()
    own = keys.one_link()
    web_server.open_browser(f"http://127.0.0.1:8000/?token={own}", keys, own)
    assert ran == [] and not keys.is_one_step(own)
    monkeypatch.setenv("BROWSER", "w3m")
    web_server.open_browser("http://127.0.0.1:8000/")
    assert ran == ["http://127.0.0.1:8000/"]
