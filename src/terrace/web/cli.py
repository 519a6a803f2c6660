"""``terrace play``: start the web game and open it in the browser."""

from __future__ import annotations

import errno
import importlib
import socket
import sys
import threading
import webbrowser
from typing import Any

import click

from terrace.clitools import pop_rules, rule_options
from terrace.errors import TerraceError
from terrace.store import GameStore, MemoryStore
from terrace.variants import canonical_name

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def open_store(path: str | None) -> GameStore:
    """The SQLite store of ``terrace.stats`` when it is installed, else a
    store in memory. ``:memory:`` always gives the memory store."""
    if path == ":memory:":
        return MemoryStore()
    try:
        stats = importlib.import_module("terrace.stats")
    except ImportError:
        if path is not None:
            click.echo("note: saved games need terrace.stats; this session keeps games in memory", err=True)
        return MemoryStore()
    opener = getattr(stats, "open_store", None)
    if opener is None:
        return MemoryStore()
    store: GameStore = opener(path)
    return store


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, or a clear error when the port is taken."""
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
    if host in ("0.0.0.0", "::"):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (loopback by default; the page refuses other Host names).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0 = any free port).")
@click.option("--no-browser", is_flag=True, help="Do not open the browser.")
@click.option("--db", type=click.Path(dir_okay=False),
              help="Database of saved games (default: the user data folder; ':memory:' keeps nothing).")
@click.option("--hint-seconds", type=click.FloatRange(0.1, 60), default=2.0, show_default=True,
              help="Time the solver may spend on a hint.")
@rule_options
def play(host: str, port: int, no_browser: bool, db: str | None, hint_seconds: float, **kwargs: Any) -> None:
    """Play in the browser: start the local web game and open it."""
    import uvicorn

    from terrace.web.app import create_app

    variant = canonical_name_or_error(kwargs["variant"])
    rules = pop_rules(kwargs)
    try:
        store = open_store(db)
    except (TerraceError, OSError) as error:
        raise click.ClickException(str(error)) from None
    extra_hosts = () if host in LOOPBACK or host in ("0.0.0.0", "::") else (host,)
    app = create_app(store, default_variant=variant, default_rules=rules,
                     allowed_hosts=extra_hosts, hint_seconds=hint_seconds)
    sock = bind(host, port)
    actual = sock.getsockname()[1]
    url = f"http://{_url_host(host)}:{actual}/"
    click.echo(f"Terrace is running at {url}  (Ctrl+C to stop)", nl=True)
    sys.stdout.flush()
    if not no_browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # pragma: no cover - interactive
        pass
    finally:
        sock.close()


def canonical_name_or_error(name: str) -> str:
    """The preset name, or a usage error naming the known ones."""
    try:
        return canonical_name(name)
    except TerraceError as error:
        raise click.UsageError(str(error)) from None


COMMANDS = [play]
