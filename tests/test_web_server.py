"""The real server as a subprocess: it stops within 2 s even during a
search, plain requests never wait behind searches, a client that goes
away stops its search, a client that goes away mid-upload leaves no
traceback, remote play needs the secret link, a request's head is bounded in size
and time, and a database another program holds locked delays only the
requests that need it."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import logging
import os
import re
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

import httpx
import pytest

from store_support import locked_by_another
from terrace.web.app import STATIC
from terrace.web.protocol import CLIENT_CONNECTIONS, HEAD_BYTES, HEAD_SECONDS
from terrace.web.remote import network_address
from terrace.web.security import token_cookie
from web_support import Server, open_link, started_server

HARD = {"winnable": True, "options": {"decks": 8}}
"""Rules whose deals the solver rarely proves won: a long search."""


def _search_in_background(url: str, results: list[Any]) -> threading.Thread:
    def ask() -> None:
        try:
            response = httpx.post(url + "api/games", json=HARD, timeout=120, trust_env=False)
            results.append(response.status_code)
        except httpx.HTTPError as error:
            results.append(error)

    thread = threading.Thread(target=ask, daemon=True)
    thread.start()
    return thread


def _raw_request(url: str, body: bytes, length: int | None = None, path: str = "/api/games") -> socket.socket:
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    sock = socket.create_connection((parts.hostname, parts.port), timeout=10)
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {length or len(body)}\r\n\r\n"
    )
    sock.sendall(head.encode() + body)
    return sock


COMPILED = importlib.util.find_spec("terrace.solver._core") is not None


def _searching(server: int) -> int:
    """How many of the ``server`` process's worker processes search: they
    have the solver's compiled core loaded, which a worker loads with its
    first search (Linux's /proc)."""
    found = 0
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                if not entry.isdigit() or int(stat.read().rsplit(")", 1)[1].split()[1]) != server:
                    continue
            with open(f"/proc/{entry}/maps") as maps:
                found += "/_core." in maps.read()
        except (OSError, ValueError, IndexError):
            continue
    return found


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_during_a_search_ends_the_server_within_2_s(sig: int) -> None:
    """A search (of a 120 s budget) does not hold the stop up: the server
    ends within 2 s on a quiet machine. On a busy one even an idle server
    takes longer (2.2-3.3 s at a load of 19 on 2 cores, which failed this
    test on a wall-clock 2 s), so the bound grows with the time an idle
    server takes to stop, measured just before with the same signal; and
    it is 20 s at least, a sixth of the search's budget (11.1 s measured
    beside an idle server's 2.3 s at load ~40, stop 70: the two searches
    share the cores with the stop)."""
    with started_server() as idle:
        baseline = idle.stop(sig)
    with started_server("--winnable-seconds", "120") as server:
        results: list[Any] = []
        # five searches: two run, two wait for a worker, and one is refused
        # at once, which tells that the others are held (was: one search and
        # a fixed 2 s, taken to mean it was running)
        threads = [_search_in_background(server.url, results) for _ in range(5)]
        deadline = time.monotonic() + 120
        while not results or (COMPILED and _searching(server.proc.pid) < 2):
            assert time.monotonic() < deadline, ("the searches never ran", results)
            time.sleep(0.05)
        assert results == [503]
        took = server.stop(sig)
        for thread in threads:
            thread.join(10)
        assert took < max(20.0, 4 * baseline + 10.0), (took, baseline)
        assert len(results) == 5, results
        assert all(result == 503 or isinstance(result, httpx.HTTPError) for result in results), results
        assert "Traceback" not in server.stderr()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_closes_the_database_and_ends_with_status_0(sig: int, tmp_path: Path) -> None:
    """SIGTERM (a service manager's stop) ends the game as Ctrl+C does: the
    log is folded into the database file, so that the file alone holds
    every game, and the status is 0."""
    db = tmp_path / "games.sqlite"
    with (
        started_server("--db", str(db)) as server,
        httpx.Client(base_url=server.url, trust_env=False, timeout=30) as client,
    ):
        game = client.post("/api/games", json={"deal_number": 7}).json()
        moved = client.post(f"/api/games/{game['id']}/moves", json={"move": "c1", "after": 0})
        assert moved.status_code == 200
        server.stop(sig)
        assert server.proc.returncode == 0
        assert "Traceback" not in server.stderr()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.sqlite"]


def test_ctrl_c_pressed_twice_ends_the_server_quietly(tmp_path: Path) -> None:
    """A second Ctrl+C soon after the first (uvicorn's force quit) skipped
    uvicorn's lifespan shutdown, and its task, cancelled as the event loop
    closed, put a traceback on the terminal (3 runs of 3, the second 0.05 s
    after the first). The game ends with 0, says nothing and closes the
    database."""
    db = tmp_path / "games.sqlite"
    with started_server("--db", str(db)) as server:
        assert httpx.post(server.url + "api/games", json={}, trust_env=False).status_code == 201
        os.kill(server.proc.pid, signal.SIGINT)
        time.sleep(0.05)
        server.stop(signal.SIGINT)
        assert server.stderr() == ""
        assert server.proc.returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.sqlite"]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("when", ["at the start", "once it answers"])
def test_a_stop_signal_sent_again_and_again_while_the_game_stops_ends_it_with_0_quietly(
        sig: int, when: str) -> None:
    """A second Ctrl+C 0.2-0.36 s after the first, while the stopped game
    closed its database and Python ended, ended it by SIGINT (130 in the
    shell), where one Ctrl+C, or a second at 0.05 s, ends it with 0; a
    second SIGTERM at any moment of the stop ended it by SIGTERM (143 in
    the shell), 3 times of 3 (within 0.05-0.3 s), and one that came as a
    solver process was being started left that process's "EOFError: Ran out
    of input" on the terminal (3 times of 8). The signal is sent every
    20 ms here until the game has ended, reaching every moment of its stop
    (from the link printed, or from its first answer on): status 0 and
    nothing said, as for one, within the time a stop takes."""
    with started_server() as server:
        if when == "once it answers":
            assert httpx.get(server.url + "api/variants", trust_env=False).status_code == 200
        started = time.monotonic()
        while server.proc.poll() is None:
            assert time.monotonic() - started < 30, "the game did not stop"
            with contextlib.suppress(ProcessLookupError):
                os.kill(server.proc.pid, sig)
            time.sleep(0.02)
        assert server.proc.returncode == 0  # (before: -2, died of SIGINT; -15, of SIGTERM)
        assert server.stderr() == ""


def test_plain_requests_never_wait_behind_searches() -> None:
    with (
        started_server("--winnable-seconds", "60") as server,
        httpx.Client(base_url=server.url, trust_env=False, timeout=30) as client,
    ):
        results: list[Any] = []
        threads = [_search_in_background(server.url, results) for _ in range(6)]
        # two searches run, two wait, the others are refused as soon as they
        # arrive (on a busy machine the six clients take a while to start)
        deadline = time.monotonic() + 50  # (20 s ran out at load ~60, stop 70; the searches hold 60 s)
        while len(results) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        # (two refused: the four others are held, two running and two in
        # line, for their 60 s: no fixed wait is needed to see no more come)
        assert results == [503, 503]
        game = client.post("/api/games", json={"deal_number": 7}).json()
        took = []
        for _ in range(5):
            started = time.perf_counter()
            assert client.get("/api/variants").status_code == 200
            moved = client.post(f"/api/games/{game['id']}/moves", json={"move": "c1", "after": 0})
            assert moved.status_code == 200
            client.post(f"/api/games/{game['id']}/undo", json={})
            took.append(time.perf_counter() - started)
        # (the median of five rounds: a request held behind the searches
        # waits their 60 s in every round, where a loaded machine's pause of
        # a second, which failed a bound on each round, hits one or two; the
        # bound is a sixth of that wait: at 1 s, the median was 1.38 s at
        # load ~30, stop 70, with the two searches busy on two cores)
        assert sorted(took)[2] < 10.0, took
        server.stop()
        for thread in threads:
            thread.join(10)


def test_a_client_that_goes_away_stops_its_search() -> None:
    with (
        started_server("--winnable-seconds", "120", "--hint-seconds", "0.5") as server,
        httpx.Client(base_url=server.url, trust_env=False, timeout=30) as client,
    ):
        game = client.post("/api/games", json={"deal_number": 7}).json()
        asked = f"/api/games/{game['id']}/hint"
        body = httpx.Request("POST", "/", json=HARD).read()
        # fill both workers and the waiting line with long searches (120 s
        # each): a hint is then turned away (waited for, not slept: on a
        # loaded machine 1.5 s was sometimes too short to read them all)
        gone = [_raw_request(server.url, body) for _ in range(4)]
        deadline = time.monotonic() + 60
        while client.post(asked, json={}).status_code != 503:
            assert time.monotonic() < deadline, "the long searches never filled the workers"
            time.sleep(0.1)
        for sock in gone:
            sock.close()
        # their clients gone, the searches stop: a hint is answered long
        # before the 120 s they would have taken
        started = time.monotonic()
        while (hint := client.post(asked, json={})).status_code == 503:
            assert time.monotonic() - started < 60, "the searches of the clients gone went on"
            time.sleep(0.1)
        assert hint.status_code == 200, hint.text


def _server_end(client_port: int, server_port: int) -> tuple[str, int] | None:
    """The server's end of a connection on this machine, from Linux's
    /proc/net/tcp: its TCP state (``01`` established, ``08`` close-wait:
    the client has gone, the server has not closed yet) and how many bytes
    sent to it it has not read yet; None once it has gone."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as rows:
            for row in list(rows)[1:]:
                fields = row.split()
                local, remote = (int(address.rsplit(":", 1)[1], 16) for address in fields[1:3])
                if (local, remote) == (server_port, client_port):
                    return fields[3], int(fields[4].split(":")[1], 16)
    return None


def _wait_for_server_end(ports: tuple[int, int], done: Callable[[tuple[str, int] | None], bool]) -> None:
    deadline = time.monotonic() + 30
    while not done(_server_end(*ports)):
        assert time.monotonic() < deadline, _server_end(*ports)
        time.sleep(0.01)


def test_a_client_gone_mid_upload_leaves_no_traceback() -> None:
    with started_server() as server:
        for _ in range(3):
            sock = _raw_request(server.url, b'{"variant": "ter', length=1000)
            ports = sock.getsockname()[1], sock.getpeername()[1]
            # the server has read the head and the start of the body (was: a fixed 0.2 s)
            _wait_for_server_end(ports, lambda end: end == ("01", 0))
            sock.close()
            # the server has seen the client go and closed its end (was: a fixed 0.5 s)
            _wait_for_server_end(ports, lambda end: end is None or end[0] != "08")
        with httpx.Client(base_url=server.url, trust_env=False, timeout=30) as client:
            assert client.get("/api/variants").status_code == 200
        server.stop()
        errors = server.stderr()
        assert "Traceback" not in errors
        assert errors.strip() == ""


def test_remote_play_needs_the_secret_link() -> None:
    with started_server("--remote", "--host", "127.0.0.1") as server:
        match = re.search(r"(http://\S+/)\?token=(\S+)", server.first_line)
        assert match is not None, server.first_line
        base, token = match.group(1), match.group(2)
        cookie_name = token_cookie(urlsplit(base).port)
        # One character changed; "x" would be no change for a token that ends in "x".
        wrong = token[:-1] + ("y" if token.endswith("x") else "x")
        with httpx.Client(base_url=base, trust_env=False, timeout=30) as client:
            for path in ("/", "/api/variants", "/favicon.ico", f"/?token={wrong}", "/?token="):
                refused = client.get(path)
                assert refused.status_code == 401, path
                assert "content-security-policy" in refused.headers
            assert client.post("/api/games", json={}).status_code == 401
            assert client.get(f"/?token={token}").status_code == 303  # (to its page: the link is unused)
            entry = open_link(client, f"/?token={token}")
            assert entry.status_code == 303
            assert entry.headers["location"] == "/"
            cookie = entry.headers["set-cookie"]
            assert cookie.startswith(f"{cookie_name}=") and token not in cookie  # (another secret)
            assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
            assert client.cookies.get(cookie_name) not in (None, token)
            assert client.get("/").status_code == 200
            assert client.post("/api/games", json={}).status_code == 201
            # The token leaves the address even with the cookie set (the
            # link is spent, but this browser has the cookie); the
            # redirect stays on this site and puts no raw byte in a header.
            redirects = (
                (f"/?token={token}", "/"),
                (f"//evil.example/?token={token}", "/evil.example/"),
                (f"/%5Cevil.example?token={token}", "/evil.example"),
                (f"/a%0d%0aX-Evil:%201?token={token}&game=g", "/a%0D%0AX-Evil%3A%201?game=g"),
                (f"/%E2%82%AC?token={token}", "/%E2%82%AC"),
            )
            for path, location in redirects:
                again = client.get(httpx.URL(base).copy_with(raw_path=path.encode()))
                assert again.status_code == 303 and again.headers["location"] == location, path
                assert "x-evil" not in again.headers
            # (as a browser names the computer: with the port, whose cookie it sends)
            name = f"{socket.gethostname().lower()}:{urlsplit(base).port}"
            assert client.get("/api/variants", headers={"host": name}).status_code == 200
            assert client.get("/api/variants", headers={"host": "evil.example"}).status_code == 421
            # (uvicorn's raw path, as the app reads it: an escaped slash is another spelling)
            escaped = client.get(httpx.URL(base).copy_with(raw_path=b"/api%2Fvariants"))
            assert (escaped.status_code, escaped.json()["code"]) == (404, "not-found")
        with httpx.Client(base_url=base, trust_env=False, timeout=30) as stranger:
            stranger.cookies.set(cookie_name, "guess")
            assert stranger.get("/").status_code == 401
        server.stop()
        assert "Traceback" not in server.stderr()


def _get_as_another_user(url: str, uid: int = 65534) -> bytes:
    """The raw answer to a GET of ``url`` sent by a process of the user
    ``uid`` (nobody), as another user of the computer who read the link in
    ``ps`` would send it (a fork that only uses sockets: no exec)."""
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    request = (f"GET {parts.path}?{parts.query} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
               "Connection: close\r\n\r\n").encode()
    readable, writable = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(readable)
            os.setgid(uid)
            os.setuid(uid)
            with socket.socket(socket.AF_INET) as sock:
                sock.settimeout(20)
                sock.connect((parts.hostname, parts.port))
                sock.sendall(request)
                while chunk := sock.recv(65536):
                    os.write(writable, chunk)
        finally:
            os._exit(0)
    os.close(writable)
    answer = b""
    with os.fdopen(readable, "rb") as reading:
        answer = reading.read()
    os.waitpid(pid, 0)
    return answer


@pytest.mark.skipif(not hasattr(os, "fork") or os.geteuid() != 0 or not Path("/proc/net/tcp").exists(),
                    reason="needs root (to be another user) and Linux's list of sockets")
def test_the_link_on_the_browsers_command_line_opens_nothing_for_another_user(tmp_path: Path) -> None:
    """``terrace play --remote`` opens the browser with a link of its own,
    on the browser's command line, which every user of the computer reads
    in ``ps``: another user who read it there opened the game with it
    (303, the game's cookie set) before the browser did, and the browser
    then read link-spent. The link opens the game only from a connection of
    this user's programs now: 401 for the other user, and the link left for
    the browser, which opens the game."""
    opened = tmp_path / "opened"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\necho "$1" > {opened}\n')
    browser.chmod(0o755)
    proc = subprocess.Popen(
        [sys.executable, "-m", "terrace", "play", "--remote", "--host", "127.0.0.1", "--port", "0", "--db",
         ":memory:"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1", BROWSER=f"{browser} %s"))
    try:
        deadline = time.monotonic() + 60
        while not opened.exists() or not opened.read_text().strip():
            assert proc.poll() is None and time.monotonic() < deadline, "no browser was opened"
            time.sleep(0.05)
        link = opened.read_text().strip()  # (what ps shows)
        assert "token=" in link, link
        theirs = _get_as_another_user(link)
        assert theirs.startswith(b"HTTP/1.1 401 "), theirs[:300]  # (before: 303, and the game's cookie)
        assert b"set-cookie" not in theirs.lower()
        ours = httpx.get(link, trust_env=False, timeout=30)
        assert ours.status_code == 303 and ours.headers["set-cookie"].startswith("terrace_token_")
    finally:
        Server(proc, "", "").stop()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def test_two_remote_servers_on_one_computer_each_keep_their_link() -> None:
    """A browser keeps cookies by host name, whatever the port: two servers
    of one computer (a player each, with a database each) set the same
    cookie, so opening the second link answered 401 on the first server's
    page from then on. Each server's cookie has a name of its own."""
    with started_server("--remote", "--host", "127.0.0.1") as first, \
            started_server("--remote", "--host", "127.0.0.1") as second:
        links = [re.search(r"http://\S+\?token=\S+", s.first_line) for s in (first, second)]
        assert all(links), (first.first_line, second.first_line)
        with httpx.Client(trust_env=False, timeout=30, follow_redirects=True) as browser:  # (one cookie jar)
            for link in links:
                assert link is not None
                assert open_link(browser, link.group(0)).status_code == 200  # (the game's page)
            assert browser.get(first.url + "api/games").status_code == 200
            assert browser.get(second.url + "api/games").status_code == 200
            assert len(browser.cookies) == 2


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs 127.0.0.2 on the loopback")
def test_a_cookie_another_server_of_the_computer_receives_opens_nothing_from_elsewhere() -> None:
    """A browser sends its cookies to every port of a host: another server
    of the computer (another user's, on another port) that the phone
    visited received the game's cookie, and opened the game with it from
    anywhere (200). The cookie is bound to the address of the browser it
    was given to: sent from another address it opens nothing (401), while
    the phone plays on."""
    with started_server("--remote", "--host", "127.0.0.1") as server:
        match = re.search(r"http://\S+\?token=\S+", server.first_line)
        assert match is not None, server.first_line
        name = token_cookie(urlsplit(server.url).port)
        phone_network = httpx.HTTPTransport(local_address="127.0.0.2")  # (the phone: another address)
        with httpx.Client(transport=phone_network, trust_env=False, timeout=30) as phone:
            assert open_link(phone, match.group(0)).status_code == 303
            received = phone.cookies.get(name)  # (what the other server receives, name and all)
            assert received is not None
            assert phone.get(server.url + "api/stats").status_code == 200
        with httpx.Client(trust_env=False, timeout=30) as thief:  # (from the computer itself)
            stolen = thief.get(server.url + "api/stats", headers={"cookie": f"{name}={received}"})
            assert (stolen.status_code, stolen.json()["code"]) == (401, "token-needed")  # (before: 200)


def _connect(url: str) -> socket.socket:
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    return socket.create_connection((parts.hostname, parts.port), timeout=HEAD_SECONDS + 10)


def _read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


SHORT_HEAD_SECONDS = 6.0
"""The head's deadline of the server whose deadline the test waits for
(HEAD_SECONDS, 10 s, would be a test's wait; at 2.5 s the keep-alive client
was served once before the close at load ~60, stop 70, not twice)."""


def test_a_request_head_is_bounded_in_size_and_time() -> None:
    """A head larger than HEAD_BYTES is refused (400) at once (the server's
    memory stays bounded); one that never ends is closed after HEAD_SECONDS,
    also before any byte; a plain keep-alive client is served meanwhile."""
    with started_server(constants={"terrace.web.protocol.HEAD_SECONDS": SHORT_HEAD_SECONDS}) as server:
        host = urlsplit(server.url).netloc
        big = _connect(server.url)
        big.sendall(f"GET /api/stats HTTP/1.1\r\nHost: {host}\r\nX-Big: ".encode() + b"a" * (4 * HEAD_BYTES))
        assert _read_all(big).startswith(b"HTTP/1.1 431 ")
        big.close()
        started = time.monotonic()
        silent, partial = _connect(server.url), _connect(server.url)
        partial.sendall(f"GET /api/stats HTTP/1.1\r\nHost: {host}\r\n".encode())
        with httpx.Client(base_url=server.url, trust_env=False, timeout=10) as client:
            served = 0
            # served until the server closes the silent connections (was: three
            # times, 0.5 s apart); select() waits for that close, at most 0.5 s a turn
            while not select.select([silent, partial], [], [], 0.5 if served else 0)[0]:
                assert client.get("/api/stats").status_code == 200
                served += 1
            assert served >= 2, served
        assert _read_all(silent) == b"" and _read_all(partial) == b""  # closed by the server
        assert SHORT_HEAD_SECONDS - 0.5 < time.monotonic() - started < SHORT_HEAD_SECONDS + 20
        silent.close()
        partial.close()
        server.stop()
        assert "Traceback" not in server.stderr()


def _network_address() -> str | None:
    """This machine's address on its network (not loopback), if it has one."""
    address = network_address()
    return None if address is None or address.startswith("127.") else address


def test_a_request_without_the_token_closes_its_connection() -> None:
    with started_server("--remote", "--host", "127.0.0.1") as server:
        host = urlsplit(server.url).netloc
        asking = _connect(server.url)
        asking.settimeout(30)  # (the server closes it at once; the answer is what is tested)
        asking.sendall(f"GET /api/stats HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        answer = _read_all(asking)
        assert answer.startswith(b"HTTP/1.1 401 ") and b"connection: close" in answer.lower()
        asking.close()
        server.stop()


def test_one_machine_on_the_network_cannot_hold_the_servers_connections() -> None:
    """One address other than this computer's own may hold
    CLIENT_CONNECTIONS connections at most (more close as they open), so
    the player's requests still find a place."""
    address = _network_address()
    if address is None:
        pytest.skip("this machine has no network address besides loopback")
    # (the head's deadline a minute: "at once" is within half of it, where
    # 5 s of HEAD_SECONDS's 10 left a loaded machine little room)
    with started_server("--remote", "--host", "0.0.0.0",
                        constants={"terrace.web.protocol.HEAD_SECONDS": 60.0}) as server:
        port = urlsplit(server.url).port
        url = f"http://{address}:{port}/"
        held = [_connect(url) for _ in range(CLIENT_CONNECTIONS)]
        # (no wait needed, was a fixed 0.3 s: the server takes connections in
        # the order they opened, and counts each as it takes it)
        extra = _connect(url)
        extra.settimeout(30)
        assert _read_all(extra) == b""  # closed at once, long before the head's deadline
        extra.close()
        local = _connect(f"http://127.0.0.1:{port}/")  # this computer's own: not bounded
        local.sendall(f"GET /api/stats HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        local.settimeout(30)
        assert local.recv(64).startswith(b"HTTP/1.1 401 ")
        local.close()
        closed = [(sock.getsockname()[1], sock.getpeername()[1]) for sock in held[:4]]
        for sock in held[:4]:
            sock.close()
        for ports in closed:  # the server has seen them go (was: a fixed 0.3 s)
            _wait_for_server_end(ports, lambda end: end is None or end[0] != "08")
        again = _connect(url)
        again.settimeout(30)
        again.sendall(f"GET /api/stats HTTP/1.1\r\nHost: {address}:{port}\r\n\r\n".encode())
        assert _read_all(again).startswith(b"HTTP/1.1 401 ")  # a place again: answered
        again.close()
        for sock in held[4:]:
            sock.close()
        server.stop()
        assert "Traceback" not in server.stderr()


def test_listening_on_all_addresses_takes_requests_by_the_ipv6_network_address() -> None:
    """``--remote --host ::`` named no IPv6 address of this computer, so a
    phone that reached it by one was refused (421) instead of asked for the
    token (401)."""
    address = network_address(socket.AF_INET6)
    if address is None:
        pytest.skip("this machine has no IPv6 network address")
    with started_server("--remote", "--host", "::") as server:
        port = urlsplit(server.url).port
        asking = _connect(f"http://[{address}]:{port}/")
        asking.settimeout(30)  # (5 s ran out at load ~30, stop 70: the answer is what is tested)
        asking.sendall(f"GET /api/stats HTTP/1.1\r\nHost: [{address}]:{port}\r\n\r\n".encode())
        assert _read_all(asking).startswith(b"HTTP/1.1 401 ")
        asking.close()
        server.stop()


def test_a_locked_database_delays_only_the_requests_that_need_it(tmp_path: Any) -> None:
    """Another program holds the games database's write lock: a move waits
    for it (and is refused when it stays locked), while the page's files
    and the rules, which need no database, answer at once meanwhile."""
    db = tmp_path / "games.sqlite"
    # (the move's wait cut from BUSY_TIMEOUT_SECONDS's 10 s: the requests that need no database are
    # asked while it waits; 12 s, and a bound of half of it on each, where 4 s and 2 s left a loaded
    # machine little room, stop 70)
    with started_server("--db", str(db), constants={"terrace.storage.sqlite.BUSY_TIMEOUT_SECONDS": 12.0}) \
            as server, httpx.Client(base_url=server.url, trust_env=False, timeout=60) as client:
        game = client.post("/api/games", json={"deal_number": 3}).json()
        holder = sqlite3.connect(db, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            body = json.dumps({"move": "c1"}).encode()
            mover = _connect(server.url)
            host = urlsplit(server.url).netloc
            mover.sendall(f"POST /api/games/{game['id']}/moves HTTP/1.1\r\nHost: {host}\r\n"
                          f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                          "Connection: close\r\n\r\n".encode() + body)
            # the server has read the move, which now waits for the lock (was: a fixed 0.5 s)
            ports = mover.getsockname()[1], mover.getpeername()[1]
            _wait_for_server_end(ports, lambda end: end == ("01", 0))
            with httpx.Client(base_url=server.url, trust_env=False, timeout=60) as other:
                for path in ("/favicon.svg", "/api/variants", "/"):
                    started = time.monotonic()
                    assert other.get(path).status_code == 200
                    assert time.monotonic() - started < 6.0, path
            answer = _read_all(mover)
            mover.close()
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert answer.startswith(b"HTTP/1.1 503 "), answer[:200]  # store-unavailable: nothing changed
        assert client.get(f"/api/games/{game['id']}/line").json()["moves"] == []
        server.stop()


def test_a_stop_while_a_move_waits_for_a_locked_database_answers_it(tmp_path: Path) -> None:
    """Stopped while a move waits for the write lock another program holds,
    the server gave the move its 1 s of grace and then cancelled it: a
    plain-text 500 and a traceback on the terminal. The move now stops
    waiting at once: refused as not saved (JSON, 503), nothing on the
    terminal, the database sound and the port free."""
    db = tmp_path / "games.sqlite"
    # (the busy timeout a minute: a move that waited it out would take a
    # minute, where the stop took 7.6 s at load ~60, stop 70)
    with started_server("--db", str(db), constants={"terrace.storage.sqlite.BUSY_TIMEOUT_SECONDS": 60.0}) \
            as server, httpx.Client(base_url=server.url, trust_env=False, timeout=30) as client:
        game = client.post("/api/games", json={"deal_number": 3}).json()
        with locked_by_another(db):
            mover = _raw_request(server.url, json.dumps({"move": "c1"}).encode(),
                                 path=f"/api/games/{game['id']}/moves")
            ports = mover.getsockname()[1], mover.getpeername()[1]
            _wait_for_server_end(ports, lambda end: end == ("01", 0))  # (read: the move waits for the lock)
            took = server.stop()
            answer = _read_all(mover)
            mover.close()
        # (the old code's traceback and 500 fail it below; the bound is loose for loaded machines:
        # 2.0 s failed once beside the suite at load 10, 5.0 s at load ~60)
        assert server.proc.returncode == 0 and took < 30.0, took
        assert server.stderr() == ""
    head, body = answer.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 503 "), answer[:300]
    assert json.loads(body)["code"] == "not-saved"
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA quick_check").fetchall() == [("ok",)]
        assert conn.execute("SELECT revision FROM games").fetchall() == [(0,)]
    with socket.socket() as again:  # (the port is free)
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        again.bind(("127.0.0.1", ports[1]))


SLOW_SAVE = """
import os, pathlib, time
from terrace.storage import sqlite

def held(name):
    hold = pathlib.Path(os.environ["TERRACE_TEST_HOLD"])
    (hold / name).touch()
    while not (hold / "go").exists():  # (a slow disk; the first statistics of 100,000 games)
        time.sleep(0.01)

_update, _statistics = sqlite.SqliteStore.update, sqlite.SqliteStore.statistics

def update(self, game, *, expected_revision, action):
    held("saving")
    return _update(self, game, expected_revision=expected_revision, action=action)

def statistics(self, zone=None, **options):
    held("reading")
    return _statistics(self, zone, **options)

sqlite.SqliteStore.update, sqlite.SqliteStore.statistics = update, statistics
"""


def _server_site(tmp_path: Path, code: str) -> dict[str, str]:
    """The environment of a server that runs ``code`` as it starts (a
    ``sitecustomize`` in a folder of its own, ``TERRACE_TEST_HOLD``)."""
    hold = tmp_path / "hold"
    hold.mkdir()
    (hold / "sitecustomize.py").write_text(code)
    return {"PYTHONPATH": os.pathsep.join([str(hold), os.environ.get("PYTHONPATH", "")]),
            "TERRACE_TEST_HOLD": str(hold)}


def test_a_stop_answers_a_slow_save_as_saved_and_a_slow_read_as_stopped(tmp_path: Path) -> None:
    """Stopped while a move was being saved (a slow disk) and the statistics
    read (the first of 100,000 games take 45 s), the server cancelled both
    requests after its second of grace: plain-text 500s, and tracebacks on
    the terminal, whether the move was then saved or not. The save is
    awaited and answered, 200 with the move stored; the read is answered
    503 ``server-stopped`` (JSON, Retry-After) as the grace ends, and ends
    in its thread, the server with it."""
    env = _server_site(tmp_path, SLOW_SAVE)
    hold = Path(env["TERRACE_TEST_HOLD"])
    db = tmp_path / "games.sqlite"
    with started_server("--db", str(db), env=env) as server, \
            httpx.Client(base_url=server.url, trust_env=False, timeout=30) as client:
        game = client.post("/api/games", json={"deal_number": 3}).json()
        mover = _raw_request(server.url, json.dumps({"move": "c1"}).encode(),
                             path=f"/api/games/{game['id']}/moves")
        reader = _connect(server.url)
        reader.sendall(f"GET /api/stats HTTP/1.1\r\nHost: {urlsplit(server.url).netloc}\r\n\r\n".encode())
        deadline = time.monotonic() + 30
        while not ((hold / "saving").exists() and (hold / "reading").exists()):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        os.kill(server.proc.pid, signal.SIGTERM)
        read = _read_all(reader)  # (as the grace ends: uvicorn cancels what still runs)
        reader.close()
        (hold / "go").touch()
        answer = _read_all(mover)
        mover.close()
        assert server.proc.wait(60) == 0  # (10 s ran out at load ~60, stop 70)
        assert server.stderr() == ""
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:300]
    head, body = read.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 503 ") and b"\r\nretry-after: 5\r\n" in head, read[:300]
    assert json.loads(body)["code"] == "server-stopped"
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA quick_check").fetchall() == [("ok",)]
        assert conn.execute("SELECT revision, move_count FROM games").fetchall() == [(1, 1)]


FILE_PART = 8192
"""The parts a server of the slow client's test sends a file in (the
page's files are split in modules, none larger than Starlette's 64 KB
parts any more: a file of several parts, whatever their sizes)."""

SMALL_SEND_BUFFER = f"""
import socket
from starlette.responses import FileResponse
from terrace.web import protocol

FileResponse.chunk_size = {FILE_PART}

_made = protocol.GuardedH11Protocol.connection_made

def connection_made(self, transport):  # (a slow network: few bytes on their way at a time)
    transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    _made(self, transport)

protocol.GuardedH11Protocol.connection_made = connection_made
"""


def test_a_stop_cuts_an_answer_a_slow_client_is_taking_without_a_traceback(tmp_path: Path) -> None:
    """Stopped while a client slow to take its bytes (a phone on a poor
    network) was sent one of the page's files of more than one part, the
    server cancelled the request after its second of grace and uvicorn put
    the cancel's traceback on the terminal. The connection is cut quietly
    now: the client sees the answer end early, the server ends with 0 and
    says nothing."""
    largest = max((path for path in STATIC.rglob("*") if path.is_file()), key=lambda p: p.stat().st_size)
    size = largest.stat().st_size
    assert size > 4 * FILE_PART  # (sent in parts: one part waits for the client)
    with started_server(env=_server_site(tmp_path, SMALL_SEND_BUFFER)) as server:
        parts = urlsplit(server.url)
        reader = socket.socket()
        reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        reader.settimeout(30)
        reader.connect((parts.hostname, parts.port))
        path = largest.relative_to(STATIC).as_posix()
        reader.sendall(f"GET /static/{path} HTTP/1.1\r\nHost: {parts.netloc}\r\n\r\n".encode())
        assert reader.recv(1, socket.MSG_PEEK) == b"H"  # (the answer has begun, and is not read)
        os.kill(server.proc.pid, signal.SIGTERM)
        assert server.proc.wait(60) == 0  # (10 s ran out at load ~60, stop 70)
        answer = _read_all(reader)
        reader.close()
        assert server.stderr() == ""
    assert answer.startswith(b"HTTP/1.1 200 ") and len(answer) < size, len(answer)


def test_a_change_that_ends_as_the_stop_cancels_its_request_is_answered() -> None:
    """A stop's cancel that came as a change ended (its thread done, the
    answer not yet made: a loaded machine) was passed on, and the request
    of a change that was saved was answered as not answered, where the
    cancel during the change was not: now both await the change's result."""
    from terrace.web.endpoints import to_the_end

    async def cancelled_as_it_ends() -> int:
        done = threading.Event()

        def change() -> int:
            done.set()
            return 7

        request = asyncio.ensure_future(to_the_end(change))
        await asyncio.sleep(0)  # (it waits for the change)
        done.wait(10)
        time.sleep(0.05)  # (the event loop held: the change's end is queued, and then the cancel)
        request.cancel()
        return await request

    assert asyncio.run(cancelled_as_it_ends()) == 7


def test_a_whole_request_head_over_the_limit_is_refused_too() -> None:
    """h11 bounds only a head that has not ended; one that arrives whole in
    one write was answered 200 at 100 KB."""
    with started_server() as server:
        host = urlsplit(server.url).netloc
        for size, status in ((HEAD_BYTES // 2, b"200"), (HEAD_BYTES + 100, b"431"), (100_000, b"431")):
            client = _connect(server.url)
            client.sendall(f"GET /api/stats HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n"
                           f"X-Big: {'a' * size}\r\n\r\n".encode())
            assert _read_all(client).startswith(b"HTTP/1.1 " + status + b" "), size
            client.close()
        server.stop()
        assert "Traceback" not in server.stderr()


class _OtherProtocol(asyncio.Protocol):
    """A WebSocket library's protocol, as uvicorn would switch a
    connection to when one is installed (``websockets`` or ``wsproto``)."""

    taken: ClassVar[list[bytes]] = []

    def __init__(self, **_: Any) -> None:
        pass

    def data_received(self, data: bytes) -> None:
        self.taken.append(data)


class _Transport(asyncio.Transport):
    """A connection from a phone on the network, recording what is written."""

    def __init__(self) -> None:
        super().__init__()
        self.written = b""
        self.closed = False
        self.protocol: asyncio.BaseProtocol | None = None

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("192.168.1.9", 50000), "sockname": ("192.168.1.20", 8000)}.get(name, default)

    def write(self, data: Any) -> None:
        self.written += bytes(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.protocol = protocol

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass


@pytest.mark.parametrize("upgrade", [b"websocket", b"h2c"])
def test_a_request_to_switch_protocols_stays_a_request_of_the_guarded_protocol(upgrade: bytes) -> None:
    """The game has no WebSocket. With a WebSocket library installed,
    uvicorn handed a connection asking for one to that library's protocol:
    out of the head's deadline and size, and its address stayed counted for
    good (``connection_lost`` never came to this protocol), so a page in
    any tab of the player's phone could shut the phone out of the game with
    CLIENT_CONNECTIONS ``new WebSocket(...)``. Without one, uvicorn warned
    on the player's terminal, for each such request, to install one. Now
    such a request is an ordinary one: answered, and no warning."""
    import uvicorn

    from terrace.web import protocol as web_protocol

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})

    async def connect() -> _Transport:
        config = uvicorn.Config(app, ws=_OtherProtocol, lifespan="off", log_level="warning")
        config.load()
        server_log.addHandler(heard)  # (after the Config, which sets up uvicorn's logging anew)
        guarded = web_protocol.GuardedH11Protocol(config=config, server_state=uvicorn.server.ServerState(),
                                                  app_state={})
        transport = _Transport()
        guarded.connection_made(transport)
        guarded.data_received(b"GET / HTTP/1.1\r\nHost: 192.168.1.20:8000\r\nConnection: Upgrade\r\n"
                              b"Upgrade: " + upgrade + b"\r\nSec-WebSocket-Version: 13\r\n"
                              b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
        for _ in range(1000):  # (the app's task runs on this loop: at once, but the machine may be busy)
            if transport.written:
                break
            await asyncio.sleep(0.01)
        (transport.protocol or guarded).connection_lost(None)  # (the transport tells its protocol now)
        return transport

    class Warnings(logging.Handler):
        def __init__(self) -> None:
            super().__init__(logging.WARNING)
            self.said: list[str] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.said.append(record.getMessage())

    _OtherProtocol.taken = []
    heard = Warnings()
    server_log = logging.getLogger("uvicorn.error")  # (what the terminal shows)
    try:
        transport = asyncio.run(connect())
    finally:
        server_log.removeHandler(heard)
    assert transport.protocol is None and _OtherProtocol.taken == []
    assert transport.written.startswith(b"HTTP/1.1 200 ")
    assert "192.168.1.9" not in web_protocol._open_from
    assert heard.said == []


def test_a_paused_terminal_stops_no_request() -> None:
    """Ctrl+S in the terminal of ``terrace play --remote`` stops its
    output; the next link, printed once the link was used, was printed in
    the server's event loop, so the button's POST got no answer, nor did
    any other request of any device, until Ctrl+Q. The link is now printed
    from a thread of its own: the requests are answered, and the link
    comes out once the terminal goes on."""
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "terrace", "play", "--port", "0", "--no-browser", "--db", ":memory:",
         "--remote", "--host", "127.0.0.1"],
        stdout=slave, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    os.close(slave)
    try:
        said = b""
        while b"Only this computer" not in said:  # (its second line)
            assert select.select([master], [], [], 30)[0], said
            said += os.read(master, 4096)
        found = re.search(rb"(http://\S+/)\?token=(\S+)", said)
        assert found is not None, said
        base, token = found.group(1).decode(), found.group(2).decode()
        os.write(master, b"\x13")  # (Ctrl+S: the terminal takes no more output)
        with httpx.Client(base_url=base, trust_env=False, timeout=20) as phone:
            assert open_link(phone, f"/?token={token}").status_code == 303  # (no answer before)
            assert phone.get("/api/variants").status_code == 200
        assert not select.select([master], [], [], 0.5)[0]  # (the link waits for the terminal)
        os.write(master, b"\x11")  # (Ctrl+Q)
        later = b""
        while b"For another browser" not in later:
            assert select.select([master], [], [], 30)[0], later
            later += os.read(master, 4096)
        assert token.encode() not in later
    finally:
        proc.kill()
        proc.wait()
        os.close(master)


SHORT_BUSY = 8.0
"""The store's busy timeout in :func:`test_a_flood_of_moves_on_a_locked_database_is_refused_in_time`
(at 2 s, the bound of three quarters of it failed on a spread of 1.7 s at
load ~60, stop 70; the old code's spread is the whole timeout)."""
SHORT_BUSY_SITE = f"from terrace.storage import sqlite\nsqlite.BUSY_TIMEOUT_SECONDS = {SHORT_BUSY}\n"


def _answers_in_time(url: str, requests: list[bytes]) -> list[tuple[float, bytes]]:
    """Each of ``requests`` sent on a connection of its own, all opened
    first, then sent at once: each answer, with the seconds since its send."""
    socks = [_connect(url) for _ in requests]
    sent = {}
    for sock, request in zip(socks, requests, strict=True):
        sock.sendall(request)
        sent[sock] = time.monotonic()
    answers = []
    for sock in socks:
        answer = _read_all(sock)
        answers.append((time.monotonic() - sent[sock], answer))
        sock.close()
    return answers


def test_a_flood_of_moves_on_a_locked_database_is_refused_in_time(tmp_path: Path) -> None:
    """60 moves sent at once while another program holds the database's
    write lock: the first 40 were refused after the store's busy timeout
    (10 s), the other 20 after twice that (20.8 s), waiting for one of the
    40 threads of the changes before their own wait began. Each is refused
    now after the busy timeout (here made 8 s) from its arrival, all of them
    within a moment of one another: JSON 503 ``not-saved`` with Retry-After,
    nothing stored; the lock gone, a move is stored once."""
    db = tmp_path / "games.sqlite"
    with started_server("--db", str(db), env=_server_site(tmp_path, SHORT_BUSY_SITE)) as server, \
            httpx.Client(base_url=server.url, trust_env=False, timeout=30) as client:
        game = client.post("/api/games", json={"deal_number": 3}).json()
        moves = f"/api/games/{game['id']}/moves"
        body = json.dumps({"move": "c1"}).encode()
        request = (f"POST {moves} HTTP/1.1\r\nHost: {urlsplit(server.url).netloc}\r\nConnection: close\r\n"
                   f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
        with locked_by_another(db):
            answers = _answers_in_time(server.url, [request] * 60)
        told = sorted(round(took, 2) for took, _ in answers)
        for _, answer in answers:
            head, refusal = answer.split(b"\r\n\r\n", 1)
            assert head.startswith(b"HTTP/1.1 503 ") and b"\r\nretry-after: 5\r\n" in head, answer[:300]
            assert json.loads(refusal)["code"] == "not-saved"
        # (each waits the busy timeout from its arrival: a loaded machine delays the arrivals, all alike)
        assert told[-1] - told[0] < SHORT_BUSY * 0.75, told
        assert client.post(moves, json={"move": "c1", "revision": 0}).status_code == 200
        assert client.get(f"/api/games/{game['id']}/line").json()["moves"] == ["c1"]
        server.stop()
        assert server.stderr() == ""
