"""``terrace play``: start the web game and open it in the browser (the
server itself is :mod:`terrace.web.server`)."""

from __future__ import annotations

import ssl
import sys
from typing import Any

import click

from terrace.cli.commands import command
from terrace.cli.errors import stop_on_sigterm
from terrace.cli.options import (
    DATABASE_PATH,
    FilePath,
    Seconds,
    WholeNumber,
    games_db_file,
    once_option,
    placed,
    pop_rules,
    rule_options,
)
from terrace.refusals import clip, quote
from terrace.storage import open_games
from terrace.storage.base import StoreError
from terrace.variants import canonical_name
from terrace.web.endpoints import HINT_SECONDS, HINT_SECONDS_RANGE, WINNABLE_SECONDS, WINNABLE_SECONDS_RANGE
from terrace.web.remote import WILDCARDS
from terrace.web.server import ListenError, ServerSettings, bind, check_reach, run


@command("play")
@once_option("--host", default=None,
             help="Address to listen on: 127.0.0.1 by default, 0.0.0.0 (every IPv4 network) with --remote; "
                  "an IPv6 address with or without brackets ([::1] or ::1).")
@once_option("--port", default=8000, show_default=True, type=WholeNumber(0, 65535),
             help="Port to listen on (0 = any free port).")
@click.option("--remote", is_flag=True,
              help="Let phones and tablets on your network play: prints a secret link (and its QR code), "
                   "which opens the game once (the next is printed then); only browsers that opened "
                   "one are served.")
@click.option("--https", "https", is_flag=True,
              help="Serve HTTPS (recommended with --remote): with a self-signed certificate made on the "
                   "first run and kept in the user data folder, unless --certfile names one.")
@once_option("--certfile", type=FilePath(dir_okay=False),
             help="PEM certificate (chain) to serve HTTPS with; implies --https.")
@once_option("--keyfile", type=FilePath(dir_okay=False),
             help="PEM private key of --certfile (default: the key is in the --certfile file).")
@click.option("--no-browser", is_flag=True, help="Do not open the browser.")
@once_option("--db", type=DATABASE_PATH,
             help="SQLite file of saved games (default: $TERRACE_DB, else games.sqlite in the user data "
                  "folder; ':memory:' keeps nothing).")
@once_option("--hint-seconds", type=Seconds(*HINT_SECONDS_RANGE), default=HINT_SECONDS, show_default=True,
             help="Time the solver may spend on a hint.")
@once_option("--winnable-seconds", type=Seconds(*WINNABLE_SECONDS_RANGE), default=WINNABLE_SECONDS,
             show_default=True,
             help="Time the solver may spend looking for a winnable deal for one new game.")
@rule_options
def play(host: str | None, port: int, remote: bool, https: bool, certfile: str | None,
         keyfile: str | None, no_browser: bool, db: str | None, hint_seconds: float,
         winnable_seconds: float, **kwargs: Any) -> None:
    variant = kwargs["variant"]
    rules = pop_rules(kwargs)  # (which refuses a variant of no preset, naming -v)
    variant = canonical_name(variant)
    host = _listen_host(host, remote)
    if keyfile is not None and certfile is None:
        raise click.UsageError("--keyfile needs --certfile (the certificate it is the key of)")
    tls, fingerprint = _tls(host, https, certfile, keyfile)
    settings = ServerSettings(host=host, port=port, remote=remote, open_browser=not no_browser,
                              default_variant=variant, default_rules=rules,
                              hint_seconds=hint_seconds, winnable_seconds=winnable_seconds,
                              tls=tls, fingerprint=fingerprint)
    sock = bind(host, port)  # an address that cannot be used is refused before the games are touched
    try:
        store = open_games(db)
    except StoreError as error:
        sock.close()
        raise click.ClickException(placed(str(error), games_db_file(db))) from None
    try:
        try:
            store.check_writable()
        except StoreError as error:
            raise click.ClickException(placed(str(error), games_db_file(db))) from None
        # SIGTERM (a service manager's stop, kill) stops the server as Ctrl+C
        # does, and the store is closed below: uvicorn, once stopped, raises
        # the signal again, which without a handler of ours would end the
        # process before that.
        # The first stop signal ignores every later one for the rest of the
        # process (stop_on_sigterm's once): what is left once the server has
        # stopped, closing the database and Python's own end, takes 0.2-0.4 s,
        # and a second Ctrl+C then ended the game by SIGINT (130 in the shell,
        # where one ends it with 0), a second SIGTERM by SIGTERM (143), or,
        # during the close, with "stopped: ..." and 130 or 143. The stop under
        # way ends as it would have, with 0; the server itself takes a second
        # signal as a call to stop at once (serve).
        with stop_on_sigterm(once=True):
            try:
                run(store, settings, sys.stdout, sock)
            except KeyboardInterrupt:
                # (Ctrl+C or SIGTERM in the moment between the link printed
                # and the server taking them: the game ends as it would a
                # moment later, with status 0, not 130 and "stopped: ...")
                sock.close()
    except BaseException:
        sock.close()
        raise
    finally:
        close = getattr(store, "close", None)
        if close is not None:  # a file store leaves no -wal or -shm file behind
            close()


def _listen_host(host: str | None, remote: bool) -> str:
    """The address ``--host`` names to listen on (every address with
    ``--remote``, else this computer's, when not given; an IPv6 address
    without the brackets a URL writes it in), once :func:`check_reach` finds
    it fits ``--remote``; else a usage error."""
    if host is None:
        host = WILDCARDS[0] if remote else "127.0.0.1"
    elif host.startswith("[") and host.endswith("]"):
        host = host[1:-1]  # (an IPv6 address as a URL writes it, as the printed link shows it)
    if "[" in host or "]" in host:
        # (a bracket left over, '[::1': taken for this computer, then refused
        # as "cannot listen on [::1:8000: Name or service not known", status 1)
        given = click.get_current_context().params["host"]
        raise click.UsageError(f"--host {quote(given)} is not an address to listen on: write an IPv6 "
                               "address with both brackets or none ([::1] or ::1)")
    try:
        check_reach(host, remote)
    except ListenError as error:
        raise click.UsageError(str(error)) from None
    return host


def _tls(host: str, https: bool, certfile: str | None, keyfile: str | None
         ) -> tuple[ssl.SSLContext | None, str | None]:
    """The TLS context to serve with (None: plain HTTP) and the fingerprint
    of a self-signed certificate; a certificate that cannot be used is
    refused before anything starts."""
    if certfile is None and not https:
        return None, None
    from terrace.web.remote import machine_hosts
    from terrace.web.tls import CertificateError, ensure_self_signed, fingerprint, server_context

    if certfile is not None:
        return server_context(certfile, keyfile), None
    # (named for the computer's names and addresses also without --remote:
    # the certificate is kept, and a later --remote uses it too)
    cert, key = ensure_self_signed(machine_hosts(host))
    try:
        return server_context(cert, key), fingerprint(cert)
    except CertificateError as error:
        raise CertificateError(f"{error} (delete the folder {clip(str(cert.parent))} to make a new "
                               "self-signed certificate)") from None
