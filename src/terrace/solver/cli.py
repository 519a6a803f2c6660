"""``terrace solve`` and ``terrace survey``."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from terrace.board import Board
from terrace.clitools import Seconds, deal_options, load_deal, pop_rules, rule_options
from terrace.solver.api import solve
from terrace.solver.chart import ChartsUnavailableError, charts_available, survey_chart
from terrace.solver.survey import markdown_table, parse_range, run_survey, summarise
from terrace.solver.verdicts import Verdict, VerdictStore
from terrace.storage.cli import chosen_verdicts_db, verdicts_db_options
from terrace.variants import TITLES, preset_name


@click.command("solve")
@rule_options
@deal_options
@click.option("--max-seconds", type=Seconds(), default=10.0, show_default=True, help="Time budget.")
@click.option("--max-nodes", type=int, default=None, help="Node budget (positions entered).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def solve_command(
    deal_number: int | None, deal_file: str | None, max_seconds: float,
    max_nodes: int | None, as_json: bool, **kwargs: Any,
) -> None:
    """Prove a deal won (with a winning line) or lost, or say unknown."""
    rules = pop_rules(kwargs)
    board = Board(rules, load_deal(rules, deal_number, deal_file))
    progress = None
    if not as_json and sys.stderr.isatty():
        def progress(nodes: int, seconds: float) -> None:
            click.echo(f"\r  {nodes:>12,} positions  {seconds:6.1f} s / {max_seconds:g} s",
                       nl=False, err=True)
    elif not as_json:
        click.echo(f"solving for up to {max_seconds:g} s ...", err=True)
    result = solve(board, max_seconds=max_seconds, max_nodes=max_nodes, progress=progress)
    if progress is not None:
        click.echo("", err=True)
    if as_json:
        click.echo(json.dumps(result.to_dict()))
        return
    click.echo(f"result: {result.result}"
               + (f" (budget ran out: {result.reason})" if result.result == "unknown" else ""))
    for choice, verdict in result.candidates:
        card = board.peek(choice)
        label = "" if card is None else f" ({_code(card)})"
        click.echo(f"  base card {choice}{label}: {verdict}")
    click.echo(f"positions: {result.nodes:,}  time: {result.seconds:.2f} s")
    if result.moves:
        click.echo(f"winning line ({len(result.moves)} moves):")
        click.echo(" ".join(str(m) for m in result.moves))


def _code(card: int) -> str:
    from terrace.cards import card_code

    return card_code(card)


@click.command("survey")
@rule_options
@click.option("--deals", default="1-1000", show_default=True, help="Deal numbers, e.g. 1-10000.")
@click.option("--jobs", "-j", type=int, default=None, help="Worker processes (default: all cores).")
@click.option("--max-seconds", type=Seconds(), default=10.0, show_default=True, help="Budget per deal.")
@verdicts_db_options
@click.option("--out", type=click.Path(file_okay=False), default=".", show_default=True,
              help="Folder for the Markdown table and the PNG chart.")
def survey_command(deals: str, jobs: int | None, max_seconds: float, verdicts_db: str | None,
                   old_db: str | None, out: str, **kwargs: Any) -> None:
    """Solve many numbered deals in parallel and report the win rate."""
    import os

    argv = ["terrace", "survey", *sys.argv[2:]] if len(sys.argv) > 1 else ["terrace", "survey"]
    rules = pop_rules(kwargs)
    try:
        first, last = parse_range(deals)
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    jobs = jobs or os.cpu_count() or 1
    name = preset_name(rules) or "custom"
    store = VerdictStore(chosen_verdicts_db(verdicts_db, old_db))
    total = last - first + 1
    counts = {"won": 0, "lost": 0, "unknown": 0}
    with click.progressbar(length=total, label=f"{name} {first}-{last}", file=sys.stderr,
                           show_pos=True, show_eta=True) as bar:
        already = store.range(rules, first, last)
        from terrace.solver.verdicts import settled

        done_before = sum(settled(v, max_seconds) for v in already.values())
        bar.update(done_before)

        def on_result(number: int, verdict: Verdict) -> None:
            counts[verdict.result] = counts.get(verdict.result, 0) + 1
            bar.label = (f"{name} won {counts['won']} lost {counts['lost']} "
                         f"unknown {counts['unknown']}")
            bar.update(1)

        verdicts, peak = run_survey(rules, first, last, jobs=jobs, max_seconds=max_seconds,
                                    store=store, on_result=on_result)
    store.close()
    summary = summarise(verdicts)
    rate = summary.won / summary.deals if summary.deals else 0.0
    click.echo(f"{name}: {summary.deals} deals, won {summary.won}, lost {summary.lost}, "
               f"unknown {summary.unknown}")
    click.echo(f"win rate {100 * rate:.1f}%, Wilson 95% interval "
               f"{100 * summary.low:.1f}% .. {100 * summary.high:.1f}% (unknowns as lost .. as won)")
    click.echo(f"seconds per deal: median {summary.p50:.3f}, 90th percentile {summary.p90:.3f}, "
               f"99th percentile {summary.p99:.3f}; {summary.mean_nodes_per_second:,.0f} positions/s"
               + (f"; peak worker memory {peak / 1024:.0f} MB" if peak else ""))
    title = TITLES.get(name, name)
    command = " ".join(shlex.quote(a) for a in argv)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"survey-{name}-{first}-{last}"
    (folder / f"{stem}.md").write_text(markdown_table(title, summary, command, max_seconds))
    if not charts_available():
        click.echo(f"wrote {folder / (stem + '.md')} (no chart: {ChartsUnavailableError()})")
        return
    (folder / f"{stem}.png").write_bytes(
        survey_chart(f"{title} {first}-{last}", {"won": summary.won, "lost": summary.lost,
                                                 "unknown": summary.unknown},
                     [v.seconds for v in verdicts.values()])
    )
    click.echo(f"wrote {folder / (stem + '.md')} and {folder / (stem + '.png')}")


COMMANDS = [solve_command, survey_command]
