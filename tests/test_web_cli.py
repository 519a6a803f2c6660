"""``terrace play``: start-up, a port already in use, and the game store."""

from __future__ import annotations

import io
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from terrace.cli import main
from terrace.refusals import quote
from terrace.storage import MemoryStore, open_games
from terrace.web import server as web_server
from terrace.web.security import RemoteKeys
from terrace.web.server import bind
from web_support import running_server


def test_play_is_registered() -> None:
    result = CliRunner().invoke(main, ["play", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--no-browser", "--db", "--variant"):
        assert option in result.output


def test_port_in_use_gives_a_clear_message() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["play", "--port", str(port), "--no-browser", "--db", ":memory:"])
    assert result.exit_code == 1
    assert f"port {port} on 127.0.0.1 is already in use" in result.output
    assert "--port" in result.output


def test_unknown_variant_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["play", "--variant", "chess", "--no-browser"])
    assert result.exit_code == 2
    assert "unknown variant" in result.output


def test_memory_store() -> None:
    assert isinstance(open_games(":memory:"), MemoryStore)


def test_server_answers_and_uses_the_default_variant() -> None:
    with running_server("--variant", "falling-star") as url:
        assert url.startswith("http://127.0.0.1:")
        with httpx.Client(base_url=url, trust_env=False, timeout=30) as client:
            page = client.get("/")
            assert page.status_code == 200
            assert "content-security-policy" in page.headers
            game = client.post("/api/games", json={}).json()
            assert game["variant"] == "falling-star"
            assert game["status"] == "playing"
            refused = client.get("/api/variants", headers={"host": "rebound.example"})
            assert refused.status_code == 421


def test_games_survive_a_restart_with_a_database(tmp_path: Path) -> None:
    pytest.importorskip("terrace.storage")
    db = tmp_path / "games.sqlite"
    # The later --db wins over the :memory: that running_server passes.
    with (
        running_server("--db", str(db)) as url,
        httpx.Client(base_url=url, trust_env=False, timeout=30) as client,
    ):
        game = client.post("/api/games", json={"deal_number": 7}).json()
        assert (
            client.post(f"/api/games/{game['id']}/moves", json={"move": "c1", "after": 0}).status_code == 200
        )
    with (
        running_server("--db", str(db)) as url,
        httpx.Client(base_url=url, trust_env=False, timeout=30) as client,
    ):
        current = client.get("/api/games/current").json()
        assert current["id"] == game["id"]
        assert current["moves"] == 1 and current["last_played"] == "c1"
        assert current["deal_number"] == 7
        stale = client.post(f"/api/games/{game['id']}/moves", json={"move": "s", "after": 0})
        assert stale.status_code == 409


def test_accepted_connections_send_at_once() -> None:
    """The listening socket is a TCP socket, so asyncio sets TCP_NODELAY on
    every accepted connection (without it a keep-alive request waits ~40 ms
    for Nagle's algorithm and the peer's delayed ACK)."""
    import asyncio

    listener = bind("127.0.0.1", 0)
    port = listener.getsockname()[1]
    flags: list[int] = []

    async def run() -> None:
        accepted = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                raw = transport.get_extra_info("socket")
                flags.append(raw.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()
                accepted.set_result(None)

        server = await asyncio.get_running_loop().create_server(Probe, sock=listener)
        with socket.create_connection(("127.0.0.1", port)):
            await asyncio.wait_for(accepted, 10)
        server.close()
        await server.wait_closed()

    asyncio.run(run())
    assert flags and flags[0] != 0


@pytest.mark.parametrize("option", ["--hint-seconds", "--winnable-seconds"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "0", "soon", "1e400"])
def test_play_refuses_budgets_that_never_run_out(option: str, value: str) -> None:
    result = CliRunner().invoke(main, ["play", option, value, "--no-browser", "--db", ":memory:"])
    assert result.exit_code == 2
    assert "time budget" in result.output or "too" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", ""])
def test_listening_beyond_this_computer_needs_remote(host: str) -> None:
    result = CliRunner().invoke(main, ["play", "--host", host, "--no-browser", "--db", ":memory:"])
    assert result.exit_code == 2
    assert "--remote" in result.output


@pytest.mark.parametrize("host", ["my-laptop.invalid", "a b", "999.1.1.1", "x\ny"])
def test_a_host_that_is_no_address_is_refused_as_such(host: str) -> None:
    """A --host that names no address at all was refused for letting
    "other machines on the network reach the game", and --remote, which
    that message asked for, then failed to listen there."""
    result = CliRunner().invoke(main, ["play", "--host", host, "--no-browser", "--db", ":memory:"])
    assert result.exit_code == 2
    assert f"Error: --host {quote(host)} is not an address to listen on (" in result.output, result.output
    assert "other machines" not in result.output


@pytest.mark.parametrize("host", ["127.1", "127.0.0.1", "localhost", "::1"])
def test_a_host_whose_every_address_is_this_computers_own_needs_no_remote(host: str) -> None:
    web_server.check_reach(host, remote=False)  # ("127.1" is 127.0.0.1: it was refused)


@pytest.mark.parametrize(("host", "bound"), [
    ("0.0.0.0", None), ("192.168.1.20", None), ("127.0.0.1", "0.0.0.0"),
])
def test_the_server_itself_serves_the_network_only_with_the_token(
    monkeypatch: pytest.MonkeyPatch, host: str, bound: str | None
) -> None:
    """Only ``terrace play`` refused ``--host`` beyond this computer without
    ``--remote``: the server's own ``run`` (any other front end, or a
    socket bound by the caller) served every machine of the network
    without a token. ``run`` refuses now, before it starts anything."""
    served: list[object] = []
    monkeypatch.setattr(web_server, "serve", lambda *args: served.append(args))
    sock = bind(bound, 0) if bound is not None else None
    try:
        settings = web_server.ServerSettings(host=host, port=0, open_browser=False)
        with pytest.raises(web_server.ListenError, match="--remote"):
            web_server.run(MemoryStore(), settings, io.StringIO(), sock)
    finally:
        if sock is not None:
            sock.close()
    assert served == []


@pytest.mark.parametrize(("open_browser", "browser_opens", "left"), [
    (False, True, 0), (True, False, 0), (True, True, 1),
])
def test_a_link_for_the_browser_exists_only_while_a_browser_may_open_it(
    monkeypatch: pytest.MonkeyPatch, open_browser: bool, browser_opens: bool, left: int
) -> None:
    """``terrace play --remote`` made a link of its own for the browser it
    opens also with ``--no-browser``, and kept it when no browser could be
    opened: a key to the games that nobody would use, good for as long as
    the server ran (and, handed to the browser's command, in the process
    list of the computer). Such a link is made only to open the browser,
    and forgotten when no browser opens."""
    made: list[RemoteKeys] = []
    opened: list[str] = []

    def app(*args: object, token: RemoteKeys | None = None, **kwargs: object) -> object:
        assert token is not None
        made.append(token)
        return object()

    def open_url(url: str) -> bool:
        opened.append(url)
        return browser_opens

    class AtOnce:  # (threading.Timer without the wait)
        def __init__(self, delay: float, call: Any, args: tuple[Any, ...]) -> None:
            self.call, self.args = call, args

        def start(self) -> None:
            self.call(*self.args)

    monkeypatch.setattr(web_server, "create_app", app)
    monkeypatch.setattr(web_server, "serve", lambda app, sock, pool, tls, store: pool.close())
    monkeypatch.setattr(web_server.webbrowser, "open", open_url)
    monkeypatch.setattr(web_server.threading, "Timer", AtOnce)
    monkeypatch.setattr(web_server.SolverPool, "start", lambda self: None)
    settings = web_server.ServerSettings(host="127.0.0.1", port=0, remote=True, open_browser=open_browser)
    web_server.run(MemoryStore(), settings, io.StringIO())
    (keys,) = made
    assert len(keys.others) == left
    assert len(opened) == (1 if open_browser else 0)
    if opened:
        assert keys.link not in opened[0] and "?token=" in opened[0]


@pytest.mark.parametrize(("args", "host", "opens", "printed_fingerprint"), [
    ([], "127.0.0.1", True, False),
    (["--no-browser"], "127.0.0.1", False, False),
    (["--remote", "--no-browser"], "0.0.0.0", False, False),
    (["--host", "[::1]", "--no-browser"], "::1", False, False),
    (["--https", "--no-browser"], "127.0.0.1", False, True),
])
def test_play_hands_the_server_the_host_browser_and_fingerprint_it_was_given(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, args: list[str], host: str, opens: bool,
    printed_fingerprint: bool,
) -> None:
    """What ``terrace play`` asks of the server: --remote alone listens on
    every address, --host [::1] on ::1, --no-browser opens none, --https
    shows the self-signed certificate's fingerprint (a mutation audit changed
    each in cli/web.py and test_web_cli.py/test_web_edge.py passed)."""
    from terrace.cli import web as cli_web
    from terrace.web.tls import fingerprint, self_signed_paths

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    given: list[web_server.ServerSettings] = []
    monkeypatch.setattr(cli_web, "run", lambda _store, settings, _out, _sock: given.append(settings))
    result = CliRunner().invoke(main, ["play", "--port", "0", "--db", ":memory:", *args])
    assert result.exit_code == 0, result.output
    (settings,) = given
    assert (settings.host, settings.open_browser) == (host, opens)
    if printed_fingerprint:
        assert settings.tls is not None
        assert settings.fingerprint == fingerprint(self_signed_paths()[0])
    else:
        assert (settings.tls, settings.fingerprint) == (None, None)
