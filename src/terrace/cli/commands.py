"""The table of the ``terrace`` commands: where each is and its one-line
summary, read by ``terrace --help`` without loading any command's module
(which loads the solver, the web server or the games store), and the
first words of the command's own help (:func:`command`)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, NamedTuple

import click


class Listed(NamedTuple):
    """A command of ``terrace``: its module of :mod:`terrace.cli` and
    attribute there (``"engine:show"``), and the sentence that sums it up."""

    where: str
    summary: str


COMMANDS: dict[str, Listed] = {
    "variants": Listed("engine:variants", "List the presets and their rules."),
    "deal": Listed("engine:deal", "Print the deal string of a numbered deal."),
    "replay": Listed("engine:replay",
                     "Replay moves on a deal and report the position after the last legal one."),
    "show": Listed("engine:show", "Draw a position in text, with its legal moves."),
    "solve": Listed("solver:solve_command",
                    "Prove a deal won (with a winning line) or lost, or say unknown."),
    "hint": Listed("solver:hint_command", "Suggest a move for the position after --moves."),
    "survey": Listed("solver:survey_command",
                     "Solve or play many numbered deals in parallel and report the win rate."),
    "stats": Listed("storage:stats", "Show how you are doing, per variant and overall."),
    "export": Listed("storage:export", "Write saved games as game records (JSON)."),
    "import": Listed("storage:import_",
                     "Import game records from each FILE (a record, a list, or an export's index of parts)."),
    "play": Listed("web:play", "Play in the browser: start the local web game and open it."),
}
"""Each command by name. A command's module is imported only when the
command is run (or its help asked for), so ``terrace stats`` does not load
the solver nor the web server, and ``terrace --help`` loads none of them."""


def command(name: str) -> Callable[[Callable[..., Any]], click.Command]:
    """``click.command`` for the command ``name`` of :data:`COMMANDS`: its
    help is the table's summary, then the function's docstring, which says
    the rest (if anything).

    >>> @command("show")
    ... def show() -> None:
    ...     '''More words.'''
    >>> show.help
    'Draw a position in text, with its legal moves. More words.'
    """
    def make(func: Callable[..., Any]) -> click.Command:
        rest = inspect.cleandoc(func.__doc__ or "")
        return click.command(name, help=f"{COMMANDS[name].summary} {rest}".rstrip())(func)

    return make
