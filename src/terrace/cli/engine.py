"""``terrace variants``, ``deal``, ``replay`` and ``show``: the engine's
commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from terrace.cli.commands import command
from terrace.cli.errors import stop_on_sigterm
from terrace.cli.options import (
    DEAL_NUMBER,
    DEAL_NUMBERS,
    Seconds,
    chosen_verdicts_db,
    deal_options,
    dealt_board,
    load_deal,
    message_file,
    once_option,
    placed,
    play_moves,
    pop_rules,
    refuse_unneeded,
    rule_options,
    rules_line,
    verdicts_db_options,
)
from terrace.errors import TerraceError
from terrace.refusals import Refusal
from terrace.variants import VARIANTS


@command("variants")
def variants() -> None:
    """A preset known by other names ends its line with them (also
    queen-of-italy, signora): --variant takes them too."""
    names = max(len(variant.name) for variant in VARIANTS)
    titles = max(len(variant.title) for variant in VARIANTS)  # (not a fixed width: no title runs over)
    for variant in VARIANTS:
        others = f"; also {', '.join(variant.alias_names)}" if variant.aliases else ""
        click.echo(f"{variant.name:{names}}  {variant.title:{titles}}  {variant.rules.describe()}{others}")


@command("deal")
@rule_options
@once_option("--deal-number", "-n", type=DEAL_NUMBER, default=1, show_default=True,
             help=f"Deal number to print: {DEAL_NUMBERS}.")
@click.option("--winnable", is_flag=True,
              help="The first deal from --deal-number on that the solver proves won.")
@once_option("--max-seconds", type=Seconds(), default=10.0, show_default=True,
             help="Solver budget per deal with --winnable.")
@once_option("--total-seconds", type=Seconds(), default=60.0, show_default=True,
             help="Budget for the whole search with --winnable.")
@verdicts_db_options
def deal(
    deal_number: int, winnable: bool, max_seconds: float, total_seconds: float,
    verdicts_db: str | None, old_db: str | None, **kwargs: Any,
) -> None:
    refuse_unneeded()
    line = rules_line(kwargs["variant"], rules := pop_rules(kwargs))
    number = deal_number
    if winnable:
        path = chosen_verdicts_db(verdicts_db, old_db)
        # (the solver loads only for --winnable: a plain deal starts quicker)
        from terrace.solver.verdicts import VerdictCacheError
        from terrace.solver.winnable import NoWinnableDealError, next_winnable_deal

        try:
            with stop_on_sigterm():
                found = next_winnable_deal(rules, number, max_seconds=max_seconds,
                                           total_seconds=total_seconds, db_path=path)
        except NoWinnableDealError as error:
            raise click.ClickException(f"{error}; give more --total-seconds or other rules") from None
        except VerdictCacheError as error:
            where = message_file(verdicts_db or old_db, Path(path))
            raise click.ClickException(placed(str(error), where)) from None
        except TerraceError as error:
            if error.code is Refusal.NO_WINNABLE_TO_LAST:  # (a search's result, not a usage error)
                raise click.ClickException(str(error)) from None
            raise click.UsageError(str(error)) from None
        click.echo(f"# deal number {found}", err=True)
        number = found
    if line is not None:  # (a deal file of it is played by its rules: see load_deal)
        click.echo(line)
    click.echo(load_deal(rules, number, None)[1].text())


@command("replay")
@rule_options
@deal_options
@once_option("--moves", "-m", default="", help="Moves separated by spaces or commas, e.g. \"c1 s wf\".")
@click.option("--json", "as_json", is_flag=True, help="Print the final position as JSON.")
def replay(deal_number: int | None, deal_file: str | None, moves: str, as_json: bool, **kwargs: Any) -> None:
    board = dealt_board(kwargs, deal_number, deal_file)
    illegal = play_moves(board, moves)
    status = board.status
    if as_json:
        report = {
            "legal": illegal is None,
            "first_illegal": None if illegal is None else illegal.index,
            "reason": None if illegal is None else illegal.reason,
            "won": status.value == "won",
            "lost": status.value == "lost",
            "status": status.value,
            "moves_played": len(board.move_stack),
            "foundation_cards": board.foundation_cards,
            "reserve": len(board.reserve),
            "stock": len(board.stock),
            "waste": len(board.waste),
            "tableau": board.tableau_cards,
            "legal_moves": [str(m) for m in board.legal_moves],
            "position": board.position(),
        }
        click.echo(json.dumps(report))
        return
    click.echo(str(board))
    if illegal is not None:
        raise illegal


@command("show")
@rule_options
@deal_options
@once_option("--moves", "-m", default="", help="Moves to play first.")
def show(deal_number: int | None, deal_file: str | None, moves: str, **kwargs: Any) -> None:
    board = dealt_board(kwargs, deal_number, deal_file)
    illegal = play_moves(board, moves)
    click.echo(str(board))
    click.echo("legal moves: " + (" ".join(str(m) for m in board.legal_moves) or "none"))
    if illegal is not None:
        raise illegal

