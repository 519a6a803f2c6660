"""The ``terrace`` command line: one module per command group, each
command a thin layer over the library (see ``terrace --help``).

- :mod:`terrace.cli.engine`: ``variants``, ``deal``, ``replay``, ``show``
- :mod:`terrace.cli.solver`: ``solve``, ``hint``, ``survey``
- :mod:`terrace.cli.storage`: ``stats``, ``export``, ``import``
- :mod:`terrace.cli.web`: ``play``
- :mod:`terrace.cli.commands`: the table of the commands and their summaries
- :mod:`terrace.cli.options`: the options they share
- :mod:`terrace.cli.output`: files written whole or not at all
- :mod:`terrace.cli.errors`: how an error ends a command (one line, no traceback)
- :mod:`terrace.cli.stops`: how Ctrl+C ends one (also while the command line loads)
"""

# (no "from __future__ import annotations": it loads the module __future__,
# and everything this module loads before its "try" is a moment where
# Ctrl+C showed a traceback; a Ctrl+C sent 0.16 to 0.5 s after the start
# of "python -m terrace deal -n 1" on a busy machine did, 5 times in 10)
import sys

from terrace.cli.stops import INTERRUPTED, STOPPED

try:
    import importlib
    import locale  # noqa: F401 (click.version_option's gettext loads it below, after this guard)
    import os
    from typing import Any

    import click

    from terrace.cli.commands import COMMANDS
    from terrace.cli.errors import DEBUG_ENV, debug_wanted, passes_through, refusal, stop_on_sigterm, stopped
    from terrace.cli.output import (
        best_effort_standard_error,
        named_standard_output,
        warnings_as_lines,
        whole_standard_output,
    )
except KeyboardInterrupt:
    # Ctrl+C while the command line itself loads (before any command can
    # catch it): the one line and status of a command stopped by Ctrl+C,
    # not a traceback
    if sys.stderr is not None:
        print(f"\n{STOPPED}", file=sys.stderr)
    raise SystemExit(INTERRUPTED) from None

OUTPUT_CLOSED = "Error: standard output is closed: nothing could be written"
"""What every command says, with status 1, when standard output is closed."""


class Main(click.Group):
    """The ``terrace`` group: every error of every command ends in one
    line on standard error (see :mod:`terrace.cli.errors`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            module, _, name = COMMANDS[cmd_name].where.partition(":")
            command = getattr(importlib.import_module(f"terrace.cli.{module}"), name)
            if not isinstance(command, click.Command) or command.name != cmd_name:
                raise RuntimeError(f"terrace.cli.COMMANDS names {cmd_name!r} wrongly")
            self.add_command(command)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # (each command's summary from the table, as click would shorten its
        # help: loading every command's module to read it took 0.5 CPU s)
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            listed = COMMANDS.get(name)
            command = click.Command(name, help=listed.summary) if listed else self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def main(self, *args: Any, **extra: Any) -> Any:
        # A closed standard error (2>&-) would send errors into the output
        # (click falls back to standard output): they go nowhere instead.
        # With standard output closed (>&-) a command would write nothing
        # and end with status 0: it ends with 1 and says so.
        if sys.stderr is None:
            sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (for the process)
        if sys.stdout is None:
            click.echo(OUTPUT_CLOSED, err=True)
            sys.exit(1)
        best_effort_standard_error()  # (2> /dev/full: the command's own output and status all the same)
        whole_standard_output()  # (a reader that stops early: status 1, as for click)
        named_standard_output()  # (> /dev/full: says that standard output could not be written)
        with warnings_as_lines():  # (the library's logged warnings: 'warning: ...', never bare)
            return super().main(*args, **extra)

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.ClickException as error:
            raise refusal(error) from None
        except KeyboardInterrupt as stop:
            # (Ctrl+C while the command line is read, before the command
            # runs: click ended it "Aborted!", status 1)
            raise click.exceptions.Exit(_say_stopped(stop)) from None
        except OSError as error:
            # (the group's own --help and --version write as they are read:
            # "terrace --version > /dev/full" ended in a traceback)
            if passes_through(error):
                raise
            raise refusal(error) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            # SIGTERM stops every command as Ctrl+C does: a database is
            # closed whole (an import's transaction rolled back), a file
            # being written is removed, and the command says so; and so
            # does SIGHUP, the terminal closed (but for a survey: see
            # errors.hang_up_ends)
            with stop_on_sigterm():
                return super().invoke(ctx)
        except KeyboardInterrupt as stop:
            # Ctrl+C (or SIGTERM, see errors.stop_on_sigterm): one line and
            # status 130 (143; 129 for SIGHUP), as ``terrace survey`` ends (click's own
            # "Aborted!" ends with 1, the status of an error)
            ctx.exit(_say_stopped(stop))
        except Exception as error:
            debug = debug_wanted(bool(ctx.params.get("debug")))
            if passes_through(error) or (debug and not isinstance(error, click.ClickException)):
                raise
            if isinstance(error, click.UsageError) and error.ctx is None:
                # (click raises "Option '-n' requires an argument." with no
                # context, so it came without the command's usage reminder)
                error.ctx = self._command_context(ctx)
            raise refusal(error) from None

    def _command_context(self, ctx: click.Context) -> click.Context | None:
        """A context of the command being started, for its usage line."""
        name = ctx.invoked_subcommand
        command = None if name is None else self.get_command(ctx, name)
        return None if command is None else click.Context(command, info_name=name, parent=ctx)


def _say_stopped(stop: KeyboardInterrupt) -> int:
    """Say on standard error that Ctrl+C (or SIGTERM, SIGHUP) stopped the
    command, in one line; answer its exit status."""
    message, status = stopped(stop)
    click.echo("", err=True)
    click.echo(message, err=True)
    return status


@click.group(cls=Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="terrace")
@click.option("--debug", is_flag=True, help=f"Show the traceback of an error (also: {DEBUG_ENV}=1).")
def main(debug: bool) -> None:
    """Terrace (Queen of Italy) and its family of patience games."""


def all_commands() -> dict[str, click.Command]:
    """Every command by name, each module loaded (for the help and the tests).

    >>> sorted(all_commands()) == sorted(COMMANDS)
    True
    """
    ctx = click.Context(main)
    found = {name: main.get_command(ctx, name) for name in main.list_commands(ctx)}
    return {name: command for name, command in found.items() if command is not None}


__all__ = ["COMMANDS", "all_commands", "main"]
