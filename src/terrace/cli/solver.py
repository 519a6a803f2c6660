"""``terrace solve``, ``terrace hint`` and ``terrace survey``."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import signal
import sys
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import click

from terrace.cli.commands import command
from terrace.cli.errors import Terminated, UnreadableMoves, hang_up_ends, stop_on_sigterm, stopped
from terrace.cli.options import (
    DealRange,
    FilePath,
    Seconds,
    WholeNumber,
    chosen_verdicts_db,
    deal_options,
    dealt_board,
    given,
    message_file,
    once_option,
    placed,
    play_moves,
    pop_rules,
    refuse_unneeded,
    rule_options,
    seconds_text,
    verdicts_db_options,
)
from terrace.cli.output import write_whole
from terrace.errors import InvalidMoveError, TerraceError
from terrace.limits import MAX_NODES
from terrace.moves import MAX_MOVES, SPACES, Move, parse_moves, too_many_moves
from terrace.refusals import clip, quote
from terrace.rules import Rules
from terrace.solver.api import NODE_SLICE, solve
from terrace.solver.chart import ChartsUnavailableError, charts_available, survey_chart
from terrace.solver.cluster import silence_dask_logs
from terrace.solver.fair import SETTING_LIMITS, FairSettings
from terrace.solver.players import PLAYERS, SEEDED, player_key, player_settings
from terrace.solver.pool import MAX_WORKERS, WorkerDiedError
from terrace.solver.stops import catch_stops, restore_stops
from terrace.solver.survey import now, parse_range, run_survey
from terrace.solver.tally import Summary, markdown_table, summarise, summary_json, times
from terrace.solver.verdicts import (
    SOLVER_VERSION,
    Verdict,
    VerdictCacheError,
    VerdictStore,
    at_budget,
    rules_key,
)
from terrace.variants import TITLES, preset_name

DEFAULT_BUDGET = {"perfect": 10.0, "fair": 1800.0, "greedy": 60.0, "random": 60.0}
"""Seconds per deal when ``--max-seconds`` is not given."""


def _budget_help() -> str:
    """--max-seconds' help, from :data:`DEFAULT_BUDGET`: "Budget per deal
    (default: 10 for perfect, 1800 for fair, 60 for greedy and random)."."""
    players: dict[float, list[str]] = {}
    for player, seconds in DEFAULT_BUDGET.items():
        players.setdefault(seconds, []).append(player)
    said = ", ".join(f"{seconds:g} for {' and '.join(names)}" for seconds, names in players.items())
    return f"Budget per deal (default: {said})."


_FAIR = FairSettings()
SAMPLES_RANGE = SETTING_LIMITS["samples"]
SAMPLES_HELP = (f"Sampled stock orders per decision (fair; {SAMPLES_RANGE[0]} to {SAMPLES_RANGE[1]},"
                f" default {_FAIR.samples}), times"
                f" {_FAIR.choice_factor} for the base-card choice and {_FAIR.space_factor} for a move"
                " that empties or fills a pile.")


def _stored_note(done: int, path: object, made: bool = False, unstored: bool = False) -> str:
    """Where a survey that stopped early left its verdicts, and how to go on
    (``made``: the verdict cache was made by this run and deleted again;
    ``unstored``: it stopped because it could not store them)."""
    if not done:
        where = "no verdict cache was left behind" if made else f"{clip(str(path))} is as it was"
        said = "no verdict of this run could be stored" if unstored else "no deal was solved in this run"
        return f"{said}, and {where}; the same command goes on from there"
    return (f"the {done:,} {'deal' if done == 1 else 'deals'} solved in this run "
            f"{'is' if done == 1 else 'are'} stored in {clip(str(path))}; "
            "the same command goes on from there")


def _stop_store(store: VerdictStore, done: int, unstored: bool = False) -> str:
    """Close the verdict cache of a survey that stopped early (deleting it
    when this run made it and stored nothing in it) and say where things stand."""
    store.close_or_discard()
    return _stored_note(done, store.path, store.made and not os.path.exists(store.path), unstored)


@command("solve")
@rule_options
@deal_options
@once_option("--max-seconds", type=Seconds(), default=10.0, show_default=True, help="Time budget.")
@once_option("--max-nodes", type=WholeNumber(1, MAX_NODES), default=None,
             help=f"Node budget (positions entered), checked between slices of {NODE_SLICE:,} positions,"
                  " so the same budget gives the same answer on every machine, unless --max-seconds"
                  " runs out first (give a large one with it); the count can pass it by a few slices."
                  f" At most {MAX_NODES:,}.")
@click.option("--first-win", is_flag=True,
              help="Stop at the first base card that wins (the others may stay unknown); "
                   "much faster on the hardest presets.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def solve_command(
    deal_number: int | None, deal_file: str | None, max_seconds: float,
    max_nodes: int | None, first_win: bool, as_json: bool, **kwargs: Any,
) -> None:
    board = dealt_board(kwargs, deal_number, deal_file)
    progress = None
    if not as_json and sys.stderr.isatty():
        def progress(nodes: int, seconds: float) -> None:
            click.echo(f"\r  {nodes:>12,} positions  {seconds:6.1f} s / {seconds_text(max_seconds)} s",
                       nl=False, err=True)
    elif not as_json:
        click.echo(f"solving for up to {seconds_text(max_seconds)} s ...", err=True)
    with stop_on_sigterm():
        result = solve(board, max_seconds=max_seconds, max_nodes=max_nodes, all_candidates=not first_win,
                       progress=progress)
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


@command("hint")
@rule_options
@deal_options
@once_option("--moves", "-m", default="", help="Moves to play first, e.g. \"c1 s wf\".")
@once_option("--fair/--peek", default=True, show_default=True,
             help="Fair: decide from what a player sees; peek: the solver's line, which sees the stock.")
@once_option("--seed", type=WholeNumber(0), default=0, show_default=True,
             help="Seed of the sampled stock orders (fair): a whole number, 0 or more.")
@once_option("--samples", type=WholeNumber(*SAMPLES_RANGE), default=None, help=SAMPLES_HELP)
@once_option("--max-seconds", "--seconds", "max_seconds", type=Seconds(), default=10.0, show_default=True,
             help="Time budget (named as in solve, deal and survey; --seconds is its older name).")
@once_option("--line", "-l", default="",
             help="The winning line an earlier hint of this game gave (its moves as the hint prints them,"
                  " or its JSON \"line\" as it is): when the"
                  " moves played since follow it and it still wins, the hint continues it instead of"
                  " solving afresh (a new line each time can make the game wander for thousands of moves).")
@click.option("--json", "as_json", is_flag=True, help="Print the hint as JSON.")
def hint_command(deal_number: int | None, deal_file: str | None, moves: str, fair: bool, seed: int,
                 samples: int | None, max_seconds: float, line: str, as_json: bool, **kwargs: Any) -> None:
    from terrace.solver.advice import describe, face_down, hint_report

    refuse_unneeded()
    board = dealt_board(kwargs, deal_number, deal_file)
    illegal = play_moves(board, moves)
    if illegal is not None:
        raise illegal
    given = _line_moves(line)
    try:
        with stop_on_sigterm():
            report = hint_report(board, fair=fair, seed=seed, seconds=max_seconds, samples=samples,
                                 line=given)
    except ValueError as error:  # includes every TerraceError
        raise click.UsageError(str(error)) from None
    click.echo(json.dumps(report) if as_json else describe(report, face_down=face_down(board)))
    if not as_json and len(report.get("line") or ()) > 1:  # (the next hint continues it when given)
        click.echo(f"line (--line continues it): {' '.join(report['line'])}")


def _line_moves(line: str) -> list[Move]:
    """The moves of ``hint --line``: words separated by spaces or commas,
    as the hint prints its line, or the JSON list ``hint --json`` gives
    (``["c2", "t8f"]``, which was refused as "'["c2"' is not a move")."""
    text = line.strip(SPACES)  # (as --moves: a U+00A0 or U+2028 around a move is no space)
    try:
        if not text.startswith("["):
            return parse_moves(text)
        try:
            words = json.loads(text)
        except (ValueError, RecursionError):
            words = None
        if not isinstance(words, list) or not all(isinstance(word, str) for word in words):
            example = json.dumps(["c2", "t8f"])
            raise UnreadableMoves(f"--line: {quote(text)} is not a JSON list of moves such as {example}")
        if len(words) > MAX_MOVES:
            raise InvalidMoveError(too_many_moves())
        return [Move.parse(word) for word in words]
    except TerraceError as error:
        raise UnreadableMoves(f"--line: {error}") from None


@command("survey")
@rule_options
@once_option("--deals", type=DealRange(), default="1-1000", show_default=True,
             help="Deal numbers, e.g. 1-10000.")
@once_option("--player", type=click.Choice(PLAYERS, case_sensitive=False), default="perfect",
             show_default=True,
             help="perfect: the solver, which sees the stock; fair, greedy, random: play-outs.")
@once_option("--samples", type=WholeNumber(*SAMPLES_RANGE), default=None, help=SAMPLES_HELP)
@once_option("--seed", type=WholeNumber(0), default=0, show_default=True,
             help=f"Seed of the {' and '.join(SEEDED)} players' games: a whole number, 0 or more.")
@once_option("--jobs", "-j", type=WholeNumber(1, MAX_WORKERS), default=None,
             help="Worker processes (default, and at most: all cores).")
@once_option("--max-seconds", type=Seconds(), default=None,
             help=_budget_help())
@once_option("--scheduler", default=None, metavar="tcp://HOST:PORT|local:N",
             help="Run on a Dask cluster (needs terrace[cluster]): a scheduler's address, "
                  "or local:N for N worker processes here. Default: a local process pool.")
@verdicts_db_options
@once_option("--out", type=FilePath(file_okay=False), default=".", show_default=True,
             help="Folder for the Markdown table and the PNG chart (with --json, only when given).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with the figures.")
def survey_command(deals: str, player: str, samples: int | None, seed: int, jobs: int | None,
                   max_seconds: float | None, scheduler: str | None, verdicts_db: str | None,
                   old_db: str | None, out: str, as_json: bool, **kwargs: Any) -> None:
    from terrace.solver.cluster import ClusterError, parse_scheduler, run_cluster_survey

    argv = _command_line(click.get_current_context())
    hang_up_ends()
    if given("seed") and player not in SEEDED:
        raise click.UsageError(f"the {player} player plays each deal one way and takes no --seed "
                               f"(it is for the {' and '.join(SEEDED)} players)")
    if samples is not None and player != "fair":
        # (it said "the greedy player has no settings, got samples", a name the command line has not)
        raise click.UsageError(f"the {player} player samples no stock orders and takes no --samples "
                               "(it is for the fair player)")
    rules = pop_rules(kwargs)
    budget = DEFAULT_BUDGET[player] if max_seconds is None else max_seconds
    try:
        first, last = parse_range(deals)
        settings = player_settings(player, {} if samples is None else {"samples": samples})
        key = player_key(player, settings, seed)
        if scheduler is not None:
            parse_scheduler(scheduler)
            if jobs is not None:
                raise ValueError("--jobs sizes the local pool: with --scheduler the cluster's workers "
                                 "run the deals (local:N starts N)")
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    # (with --json the table and chart are written only to an --out given:
    # it was taken and ignored, and its folder stayed empty)
    to_files = not as_json or given("out")
    if to_files:
        _check_writable(Path(out).expanduser())  # before hours of solving, not after
    jobs, scheduler = _held_to_cores(jobs, scheduler)
    name = preset_name(rules) or "custom"
    store_path = chosen_verdicts_db(verdicts_db, old_db)
    try:
        store = VerdictStore(store_path)
    except VerdictCacheError as error:
        where = message_file(verdicts_db or old_db, Path(store_path))
        raise click.ClickException(placed(str(error), where)) from None
    total = last - first + 1
    counts = {"won": 0, "lost": 0, "unknown": 0}
    with click.progressbar(length=total, label=f"{name} {player} {first}-{last}", file=sys.stderr,
                           show_pos=True, show_eta=True) as bar:
        # (read one at a time: a million stored verdicts held as objects were most of 910 MB)
        taken = _Taken(store.each(rules, first, last, key, lines=False), budget)
        bar.update(taken.count)

        def stored_in_run() -> int:
            """The deals whose verdict this run stored (each counted as it is
            stored, in the same step: see survey._Group)."""
            return sum(counts.values())

        started = now()
        pace: dict[str, float] = {"workers": jobs if scheduler is None else 0, "rate": 0.0, "done": 0}

        def show() -> None:
            # (a cluster's verdicts can come in before its next progress
            # report: until that report counts them, the rate is counted here,
            # and a worker has evidently been found)
            done = sum(counts.values())
            reported = scheduler is not None and pace["done"] >= done
            rate = pace["rate"] if reported else done / max(now() - started, 1e-9)
            count = round(pace["workers"])
            workers = f", {count} worker{'' if count == 1 else 's'}" if count else ""
            if scheduler and not pace["workers"] and not done:
                workers = ", waiting for workers"
            bar.label = (f"{name} {player} won {counts['won']} lost {counts['lost']} "
                         f"unknown {counts['unknown']}, {rate:.1f} deals/s{workers}")

        def on_result(number: int, verdict: Verdict) -> None:
            counts[verdict.result] = counts.get(verdict.result, 0) + 1
            show()
            bar.update(1)

        def on_warning(text: str) -> None:
            click.echo("", err=True)
            click.echo(f"warning: {text}", err=True)

        def on_progress(done: int, rate: float, workers: int) -> None:
            pace["workers"], pace["rate"], pace["done"] = workers, rate, done
            show()
            bar.render_progress()

        previous = _stop_on_signals()
        try:
            if scheduler is None:
                # (lines=False: the report needs no winning lines, a million of them 700 MB)
                verdicts, peak = run_survey(rules, first, last, jobs=jobs, max_seconds=budget, store=store,
                                            on_result=on_result, player=player, settings=settings,
                                            seed=seed, lines=False)
            else:
                verdicts, peak = run_cluster_survey(
                    rules, first, last, scheduler=scheduler, max_seconds=budget, store=store,
                    on_result=on_result, on_progress=on_progress, on_warning=on_warning, player=player,
                    settings=settings,
                    seed=seed, lines=False)
        except ClusterError as error:
            if not stored_in_run():
                store.close_or_discard()  # a cluster never reached leaves no empty store behind
                raise click.ClickException(str(error)) from None
            # (lost mid-survey: where its verdicts stand, as the local pool says it)
            raise click.ClickException(f"{error}: {_stop_store(store, stored_in_run())}") from None
        except (WorkerDiedError, VerdictCacheError) as error:
            # (a full disk, a read-only one, a lock held too long: said with
            # where the verdicts of the run stand, as after a stop)
            note = _stop_store(store, stored_in_run(), isinstance(error, VerdictCacheError))
            click.echo("", err=True)
            raise click.ClickException(f"{error}: {note}") from None
        except KeyboardInterrupt as stop:
            note = _stop_store(store, stored_in_run())
            click.echo("", err=True)
            click.echo(f"stopped: {note}", err=True)
            sys.exit(stopped(stop)[1])
        finally:
            restore_stops(previous)
    store.close()
    if taken.elsewhere:
        versions = ", ".join(str(version) for version in sorted(taken.versions))
        click.echo(f"{taken.elsewhere} of the {len(verdicts)} verdicts come from other solver versions "
                   f"({versions}; this one is {SOLVER_VERSION}): stored won and lost verdicts stay "
                   "valid, and an unknown of a newer solver counts", err=True)
    if taken.count:
        click.echo(_taken_note(taken, len(verdicts), budget, store.path), err=True)
    summary = summarise(verdicts)
    # (the table and chart first: a reader of the summary that stops early,
    # 'terrace survey ... | head -1', ended the survey before they were
    # written; a table that cannot be written is said after the summary)
    wrote: str | None = None
    failed: Exception | None = None
    if to_files:
        try:
            wrote = _write_report(out, rules, name, first, last, player, key, budget, summary, verdicts, argv)
        except (click.ClickException, OSError) as error:
            failed = error
    if as_json:
        # (what was surveyed first, so that a report names its survey: the
        # seed and the player's settings too, which change its verdicts)
        surveyed = {"variant": name, "rules": rules.to_dict(), "player": player, "first_deal": first,
                    "last_deal": last, "max_seconds": budget, "seed": seed, "settings": settings}
        seconds = sum(times(verdicts))
        click.echo(json.dumps({**surveyed, **summary_json(summary, seconds)}))
    else:
        click.echo(_summary_text(name, player, summary, peak))
    if failed is not None:
        raise failed
    if wrote is not None:
        click.echo(wrote, err=as_json)  # (with --json, standard output holds the JSON alone)


def _held_to_cores(jobs: int | None, scheduler: str | None) -> tuple[int, str | None]:
    """``--jobs`` (all cores when not given) and ``--scheduler``, a local
    cluster's workers held to the cores this process may run on, each cut
    said on standard error."""
    from terrace.solver.cluster import parse_scheduler

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    cores = min(cores, MAX_WORKERS)  # (a survey starts no more: a machine of 300 cores got 300)
    # (a deal's budget is wall-clock time: more processes than cores would
    # give each deal a share of a core, and store starved unknowns that
    # later surveys of the same budget would take as they are; so for the
    # local pool and for a local cluster alike)
    if jobs is not None and jobs > cores:
        click.echo(f"--jobs {jobs}: this machine runs {cores} at once; using {cores}", err=True)
        jobs = cores
    kind, asked = parse_scheduler(scheduler) if scheduler is not None else ("", 0)
    if kind == "local" and isinstance(asked, int) and asked > cores:
        click.echo(f"--scheduler local:{asked}: this machine runs {cores} at once; using local:{cores}",
                   err=True)
        scheduler = f"local:{cores}"
    return jobs or cores, scheduler


def _summary_text(name: str, player: str, summary: Summary, peak: int) -> str:
    """The survey's three lines of figures (without ``--json``); ``peak``
    is the workers' peak memory in kB, 0 when not known.

    >>> print(_summary_text("terrace", "fair", Summary(1, 1, 0, 0, 0.2, 1.0, 0.5, 0.5, 0.5, 0.0), 0))
    terrace (fair): 1 deal, won 1, lost 0, unknown 0
    win rate 100.0%, Wilson 95% interval 20.0% .. 100.0% (unknowns as lost .. as won)
    seconds per deal: median 0.500, 90th percentile 0.500, 99th percentile 0.500
    """
    rate = summary.won / summary.deals if summary.deals else 0.0
    deals = f"{summary.deals} deal{'' if summary.deals == 1 else 's'}"
    return "\n".join([
        f"{name} ({player}): {deals}, won {summary.won}, lost {summary.lost}, unknown {summary.unknown}",
        f"win rate {100 * rate:.1f}%, Wilson 95% interval "
        f"{100 * summary.low:.1f}% .. {100 * summary.high:.1f}% (unknowns as lost .. as won)",
        f"seconds per deal: median {summary.p50:.3f}, 90th percentile {summary.p90:.3f}, "
        f"99th percentile {summary.p99:.3f}"
        + (f"; {summary.mean_nodes_per_second:,.0f} positions/s" if player == "perfect" else "")
        + (f"; peak worker memory {peak / 1024:.0f} MB" if peak else "")])


def _write_report(out: str, rules: Rules, name: str, first: int, last: int, player: str, key: str,
                  budget: float, summary: Summary, verdicts: Mapping[int, Verdict], argv: list[str]) -> str:
    """Write a survey's Markdown table and chart into the folder ``out``;
    the line that says so."""
    title = TITLES.get(name, name) + ("" if player == "perfect" else f", {player} player")
    command = " ".join(shell_word(a) for a in argv)
    folder = Path(out).expanduser()
    stem = _stem(rules, name, first, last, player, key, budget)
    _make_folder(folder)
    write_whole(folder / f"{stem}.md", markdown_table(title, summary, command, budget))
    if not charts_available():
        return f"wrote {clip(str(folder / (stem + '.md')))} (no chart: {ChartsUnavailableError()})"
    write_whole(folder / f"{stem}.png",
                survey_chart(f"{title} {first}-{last}", {"won": summary.won, "lost": summary.lost,
                                                         "unknown": summary.unknown},
                             list(times(verdicts))))
    # (the folder as someone typed it: a newline or a terminal's escape in it is written escaped)
    return f"wrote {clip(str(folder / (stem + '.md')))} and {clip(str(folder / (stem + '.png')))}"


class _Taken:
    """What a survey takes from the store as it is (the verdicts
    :func:`~terrace.solver.tally.usable` counts), in figures: how many,
    how many another budget found, and how many another solver version."""

    def __init__(self, stored: Iterable[tuple[int, Verdict, int | None]], budget: float) -> None:
        self.count = self.larger = self.smaller = self.elsewhere = 0
        self.versions: set[int] = set()
        for _, verdict, solver in stored:
            if at_budget(verdict, budget) is None:
                continue
            self.count += 1
            self.larger += verdict.max_seconds > budget
            self.smaller += verdict.max_seconds < budget
            if solver is not None and solver != SOLVER_VERSION:
                self.elsewhere += 1
                self.versions.add(solver)


def _taken_note(taken: _Taken, deals: int, budget: float, path: str) -> str:
    """How many of a survey's verdicts it took from the store as they were,
    and how many of those another budget found (a range overlapping an
    earlier survey's counted them without a word)."""
    larger, smaller = taken.larger, taken.smaller
    budgets = [f"{larger} found with a larger budget than {seconds_text(budget)} s"] if larger else []
    budgets += [f"{smaller} with a smaller one" if larger else
                f"{smaller} found with a smaller budget than {seconds_text(budget)} s"] if smaller else []
    why = (f" ({', '.join(budgets)}: a won or lost stands whatever its budget, an unknown of at least this "
           "budget counts)") if budgets else ""
    name = clip(os.path.basename(path) or path)
    verb = "was" if taken.count == 1 else "were"
    return f"{taken.count} of the {deals} verdicts {verb} taken as stored in {name}, not solved again{why}"


def _stop_on_signals() -> dict[int, Any]:
    """Make SIGTERM stop the survey as Ctrl+C does (with
    :class:`~terrace.cli.errors.Terminated`, status 143; the local pool's worker
    processes are stopped on the way out instead of running on to the end of
    their budget), and either signal first quiet the log of the Dask client
    and its event loop (a cluster's connections close mid-request on the
    way out, and Dask logged that with tracebacks). Returns the handlers it
    replaced (none off the main thread)."""
    def stop(signum: int, frame: Any) -> None:
        silence_dask_logs()  # (also the loggers with a level of their own)
        raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt

    return catch_stops(stop)


def _stem(rules: Rules, name: str, first: int, last: int, player: str, key: str, budget: float) -> str:
    """The file name (without suffix) of a survey's table and chart:
    ``survey-PRESET-FIRST-LAST[-PLAYER]``, and when the rules are custom or
    the player's settings, seed or budget are not the defaults, a short hash
    of them, so that different surveys never overwrite each other's files."""
    stem = f"survey-{name}-{first}-{last}" + ("" if player == "perfect" else f"-{player}")
    if name != "custom" and key == player_key(player) and budget == DEFAULT_BUDGET[player]:
        return stem
    text = json.dumps([rules_key(rules), key, budget], separators=(",", ":"))
    return f"{stem}-{hashlib.sha256(text.encode()).hexdigest()[:8]}"


def _command_line(ctx: click.Context) -> list[str]:
    """The ``terrace survey`` command with every option the user gave, from
    the parsed options (``sys.argv`` also holds global options, such as
    ``terrace --debug survey``)."""
    argv = ["terrace", ctx.info_name or "survey"]
    for param in ctx.command.params:
        if not isinstance(param, click.Option) or param.name is None:
            continue
        source = ctx.get_parameter_source(param.name)
        if source in (None, click.core.ParameterSource.DEFAULT):
            continue
        value = ctx.params.get(param.name)
        if param.is_flag:
            if value:
                argv.append(param.opts[-1])
            elif param.secondary_opts:
                argv.append(param.secondary_opts[-1])
            continue
        for item in value if param.multiple and isinstance(value, tuple | list) else [value]:
            if item is not None:
                argv += [param.opts[-1], repr(item) if isinstance(item, float) and item != int(item)
                         else f"{item:g}" if isinstance(item, float) else str(item)]
    return argv


_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _surrogate(char: str) -> bool:
    """Whether ``char`` stands for a byte that was not UTF-8 (Python's
    ``surrogateescape``: 0x80-0xFF read as U+DC80-U+DCFF)."""
    return "\udc80" <= char <= "\udcff"


def shell_word(text: str) -> str:
    r"""``text`` as one word of a POSIX shell's command line, on one line:
    quoted as :func:`shlex.quote` quotes it, or where it holds a control
    character or a byte that is not UTF-8 (a file name the system gave as
    it is, read by Python as a lone surrogate), in bash's ``$'...'`` with
    escapes (a survey's table, UTF-8, could not be written with such a
    byte in its Reproduce line, and a newline broke that line in two).

    >>> print(shell_word("out dir"), shell_word("a\nb"), shell_word("\udcffit's"))
    'out dir' $'a\nb' $'\xffit\'s'
    """
    if text.isprintable() and not any(_surrogate(char) for char in text):
        return shlex.quote(text)
    escaped = []
    for char in text:
        if _surrogate(char):
            escaped.append(f"\\x{ord(char) - 0xDC00:02x}")
        elif char in _ESCAPES:
            escaped.append(_ESCAPES[char])
        elif not char.isprintable():
            escaped.extend(f"\\x{byte:02x}" for byte in char.encode())  # (as bytes: bash in any locale)
        else:
            escaped.append(char)
    return "$'" + "".join(escaped) + "'"


def _check_writable(folder: Path) -> None:
    """Refuse a folder where the table and chart could not be written,
    without making it (it is made when they are written: a survey refused
    or stopped before then left the folders of --out behind)."""
    existing = folder
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        what = "it" if existing == folder else clip(str(existing))
        raise _unwritable(folder, f"{what} is not a folder")
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as error:
        raise _unwritable(folder, str(error.strerror or error)) from None


def _make_folder(folder: Path) -> None:
    """Make the folder of the table and chart (and those above it)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _unwritable(folder, str(error.strerror or error)) from None


def _unwritable(folder: Path, why: str) -> click.ClickException:
    """The refusal of a folder the survey's table and chart cannot be
    written to, saying ``why``."""
    return click.ClickException(f"cannot write the survey's table and chart to {clip(str(folder))}: {why}")
