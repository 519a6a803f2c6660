"""``terrace play``: start the web game and open it in the browser."""

from __future__ import annotations

import errno
import secrets
import socket
import sys
import threading
import webbrowser
from types import FrameType
from typing import Any

import click
from starlette.types import ASGIApp

from terrace.clitools import Seconds, pop_rules, rule_options
from terrace.errors import TerraceError
from terrace.storage import GameStore, open_games
from terrace.variants import canonical_name
from terrace.web.remote import WILDCARDS, is_loopback, machine_hosts, network_address, print_qr, url_host
from terrace.web.security import TOKEN_PARAM
from terrace.web.workers import SolverPool


def open_store(path: str | None) -> GameStore:
    """The store of ``terrace play --db``: SQLite, or in memory for ``:memory:``."""
    return open_games(path)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, or a clear error when the port is taken. It is
    made as a TCP socket (``IPPROTO_TCP``) so that asyncio sets TCP_NODELAY
    on every connection: without it each keep-alive request waits ~40 ms."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        if sys.platform != "win32":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise click.ClickException(
                f"port {port} on {host} is already in use (is Terrace already running? "
                f"open http://{_url_host(host)}:{port}/ or choose another port with --port)"
            ) from None
        if error.errno == errno.EACCES:
            raise click.ClickException(
                f"not allowed to listen on port {port}: choose another with --port"
            ) from None
        raise click.ClickException(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    return sock


def _url_host(host: str) -> str:
    if host in WILDCARDS:
        return "127.0.0.1"
    return url_host(host)


def serve(app: ASGIApp, sock: socket.socket, pool: SolverPool) -> None:
    """Run uvicorn on ``sock`` until SIGTERM or Ctrl+C; running searches
    are stopped as soon as a stop is asked for, so the server ends within a
    second or two."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            pool.closing.set()
            super().handle_exit(sig, frame)

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                            timeout_graceful_shutdown=1)
    try:
        Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # pragma: no cover - interactive
        pass
    finally:
        sock.close()
        pool.close()


@click.command()
@click.option("--host", default=None,
              help="Address to listen on: 127.0.0.1 by default, 0.0.0.0 (every network) with --remote.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0 = any free port).")
@click.option("--remote", is_flag=True,
              help="Let phones and tablets on your network play: prints a secret link (and its QR code); "
                   "only browsers that opened it are served.")
@click.option("--no-browser", is_flag=True, help="Do not open the browser.")
@click.option("--db", type=click.Path(dir_okay=False),
              help="Database of saved games (default: the user data folder; ':memory:' keeps nothing).")
@click.option("--hint-seconds", type=Seconds(0.1, 60), default=2.0, show_default=True,
              help="Time the solver may spend on a hint.")
@click.option("--winnable-seconds", type=Seconds(0.1, 600), default=10.0, show_default=True,
              help="Time the solver may spend looking for a winnable deal for one new game.")
@rule_options
def play(host: str | None, port: int, remote: bool, no_browser: bool, db: str | None,
         hint_seconds: float, winnable_seconds: float, **kwargs: Any) -> None:
    """Play in the browser: start the local web game and open it."""
    from terrace.web.app import create_app

    variant = canonical_name_or_error(kwargs["variant"])
    rules = pop_rules(kwargs)
    if host is None:
        host = WILDCARDS[0] if remote else "127.0.0.1"
    if not remote and not is_loopback(host):
        raise click.UsageError(
            f"--host {host} lets other machines on the network reach the game: add --remote to "
            "guard it with a secret link, or leave --host out to play on this computer only"
        )
    try:
        store = open_store(db)
        store.check_writable()
    except (TerraceError, OSError) as error:
        raise click.ClickException(str(error)) from None
    token = secrets.token_urlsafe(24) if remote else None
    extra_hosts = tuple(machine_hosts(host)) if remote else (host,)
    pool = SolverPool()
    app = create_app(store, default_variant=variant, default_rules=rules, allowed_hosts=extra_hosts,
                     hint_seconds=hint_seconds, winnable_seconds=winnable_seconds, pool=pool, token=token)
    sock = bind(host, port)
    actual = sock.getsockname()[1]
    url = f"http://{_url_host(host)}:{actual}/"
    if token is None:
        click.echo(f"Terrace is running at {url}  (Ctrl+C to stop)")
    else:
        address = network_address() if host in WILDCARDS else host
        url = f"http://{url_host(address or socket.gethostname())}:{actual}/?{TOKEN_PARAM}={token}"
        click.echo(f"Terrace is running at {url}  (Ctrl+C to stop)")
        click.echo("Open this link on your phone or tablet (same network), or scan the code; "
                   "keep it to yourself: it is the key to your games.")
        print_qr(url, sys.stdout)
    sys.stdout.flush()
    pool.start()
    if not no_browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    serve(app, sock, pool)


def canonical_name_or_error(name: str) -> str:
    """The preset name, or a usage error naming the known ones."""
    try:
        return canonical_name(name)
    except TerraceError as error:
        raise click.UsageError(str(error)) from None


COMMANDS = [play]
