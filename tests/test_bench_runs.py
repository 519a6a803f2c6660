"""The benchmarks that drive the web game and its store run to their
figures on tiny settings: they read the game's JSON as the page does, and
``bench/long.py`` broke unseen when an answer's ``moves`` became a count
(``TypeError: object of type 'int' has no len()``). These are not timed:
only that each ends well and prints its table (``bench/restarts.py``, of
the solver, also each deal as it ends; ``bench/hunters.py`` says when its
hunters ran out of memory)."""

from __future__ import annotations

import importlib.util
import re
import selectors
import subprocess
import sys
from pathlib import Path

import pytest

from browser_support import need_browser
from terrace.solver.search import core_available

BENCH = Path(__file__).resolve().parent.parent / "bench"

RUNS = [
    ("long.py", ["--lengths", "10,300", "--runs", "1", "--skip", "hint,warn"], "undo"),
    ("web.py", ["--moves", "5", "--clients", "2", "--seconds", "1"], "2 clients, 1 s"),
    ("store.py", ["--lengths", "10,300", "--samples", "3", "--moves", "5", "--games", "3"],
     "statistics over"),
    ("autoplay.py", ["--runs", "1"], "one autoplay request"),
    ("other_writer.py", ["--moves", "300", "--rounds", "1"], "after another connection wrote"),
]


@pytest.mark.parametrize(("script", "args", "printed"), RUNS, ids=[run[0] for run in RUNS])
def test_a_web_benchmark_runs_to_its_figures(script: str, args: list[str], printed: str) -> None:
    done = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert printed in done.stdout, done.stdout[-3000:]
    assert "Traceback" not in done.stderr


def test_the_restart_benchmark_prints_each_deal_as_it_ends() -> None:
    # bench/restarts.py said nothing until its table, after hours of deals:
    # a run stopped half-way left nothing, and a slow one could not be told
    # from a stuck one. Here the first deal of a long run is reported while
    # the run goes on (then it is stopped), and a short run ends in the table.
    restarts = [sys.executable, str(BENCH / "restarts.py"), "--variant", "terrace", "--policies", "default"]
    long = subprocess.Popen([*restarts, "--deals", "1-100000", "--nodes", "100000"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert long.stdout is not None
    try:
        with selectors.DefaultSelector() as waiting:
            waiting.register(long.stdout, selectors.EVENT_READ)
            ready = waiting.select(timeout=60)
        assert ready, "no deal reported after 60 s"
        assert long.stdout.readline().startswith("default, seed 20240601, deal 1: won after ")
        assert long.poll() is None
    finally:
        long.kill()
        long.communicate()
    done = subprocess.run([*restarts, "--deals", "2-3", "--nodes", "20000"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:2]] == [f"default, seed 20240601, deal {d}" for d in (2, 3)]
    assert lines[2:5] == ["", "terrace, deals 2-3, 20,000 positions per deal", ""]
    assert lines[-1].startswith("| default | ")


@pytest.mark.skipif(not core_available(), reason="the compiled core is not built")
def test_the_hunter_benchmark_says_when_hunters_ran_out_of_memory(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    # a deal whose hunters all stopped for want of memory read as a deal
    # they did not win: "deal 1: - after 5 positions"
    from terrace.solver import _core

    spec = importlib.util.spec_from_file_location("bench_hunters", BENCH / "hunters.py")
    assert spec is not None and spec.loader is not None
    hunters = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hunters)
    monkeypatch.setattr(sys, "argv", ["hunters.py", "--variant", "admirals-patience", "--deals", "1",
                                      "--nodes", "10000", "--turn", "1000", "--hunter", "beam:64"])
    old = _core.set_memory_limit(0)
    try:
        hunters.main()
    finally:
        _core.set_memory_limit(old)
    printed = capsys.readouterr().out
    assert "deal 1: - after 5 positions (5 of the candidates' hunters out of memory)\n" in printed


def test_the_restart_benchmark_adds_seeds_after_the_first_ones() -> None:
    # more seeds for a setting meant running its first seeds again (a
    # 60-deal run of two seeds takes most of an hour on a loaded machine);
    # --first-seed K starts K after the solver's own seed
    restarts = [sys.executable, str(BENCH / "restarts.py"), "--variant", "terrace", "--policies", "default",
                "--deals", "2-2", "--nodes", "20000"]
    done = subprocess.run([*restarts, "--first-seed", "2", "--seeds", "2"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    seeds = [line.split(":")[0] for line in lines[:2]]
    assert seeds == [f"default, seed {s}, deal 2" for s in (20240603, 20240604)]
    assert lines[3] == "terrace, deals 2-2, 20,000 positions per deal, first seed 20240603, 2 seeds"
    # and what the two seeds would win sharing the budget (a portfolio)
    table = lines[lines.index("| runs | positions each | default |"):]
    assert [row.split(" | ")[:2] for row in table[2:]] == [["| 1", "20,000"], ["| 2", "10,000"]]
    refused = subprocess.run([*restarts, "--first-seed", "-1"], capture_output=True, text=True, timeout=300)
    assert refused.returncode == 1 and "--first-seed -1: give a whole number from 0 to 1000" in refused.stderr


def test_the_branch_benchmark_puts_every_count_of_a_cachegrind_file_on_its_line(tmp_path: Path) -> None:
    # stop 60's script ranked the rows of cg_annotate's own tables and took
    # their summary row ("events annotated": 50 million mispredictions) for
    # a line without a source; bench/branches.py reads the cachegrind file
    # itself: each count on its file, function and line, inlined code (a
    # header's file under the calling function) and counts left off at
    # the end of a row (0) included, the summary line not counted again
    source = tmp_path / "gen.c"
    source.write_text("int a;\nfor (j = 0; j < n; j++) {\n")
    out = tmp_path / "cachegrind.out"
    out.write_text(f"desc: I1 cache: 32768 B\ncmd: python many.py\nevents: Ir Bc Bcm\n"
                   f"fl={source}\nfn=gen\n2 50 10 7\n1 4\nfn=run\n2 5 1 1\n"
                   f"fl={tmp_path / 'state.h'}\nfn=run\n9 30 6 3\nsummary: 89 17 11\n")
    spec = importlib.util.spec_from_file_location("bench_branches", BENCH / "branches.py")
    assert spec is not None and spec.loader is not None
    branches = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(branches)
    counts = branches.read(out.read_text().splitlines())
    assert counts.total == {"Ir": 89, "Bc": 17, "Bcm": 11}
    assert counts.lines[(str(source), "gen", 2)] == {"Ir": 50, "Bc": 10, "Bcm": 7}
    assert counts.lines[(str(source), "gen", 1)]["Bcm"] == 0
    assert counts.lines[(str(tmp_path / "state.h"), "run", 9)]["Bcm"] == 3
    done = subprocess.run([sys.executable, str(BENCH / "branches.py"), str(out), "--top", "2"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Bcm in all: 11\n" in done.stdout
    assert "7  63.6%  gen (gen.c)\n             3  27.3%  run (state.h)\n\n" in done.stdout
    assert "gen.c:2 (gen)  for (j = 0; j < n; j++) {" in done.stdout.split("by line")[1]
    refused = subprocess.run([sys.executable, str(BENCH / "branches.py"), str(out), "--event", "D1mr"],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "has no event D1mr (it has Ir, Bc, Bcm)" in refused.stderr


def test_the_research_benchmark_prints_its_figures_for_the_largest_rules() -> None:
    done = subprocess.run([sys.executable, str(BENCH / "research.py"), "--seconds", "0.01", "largest"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "largest: 1068 actions, tensors of 23728 floats, at most 20800 steps" in done.stdout, done.stdout
    assert "information_state_tensor" in done.stdout and "steps/s" in done.stdout


@pytest.mark.browser
def test_the_page_benchmark_of_long_and_large_games_prints_each_part() -> None:
    """bench/page_long.py on tiny settings (a stored game of 10 moves, one
    timing of each, two new games after two, one window, a drag of three
    pointer moves): each part's table, with its figures in each row."""
    need_browser()
    tiny = ["--lengths", "10", "--runs", "1", "--new-games", "2", "--played", "3", "--pointer-moves", "3",
            "--windows", "390x844"]
    done = subprocess.run([sys.executable, str(BENCH / "page_long.py"), *tiny],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"\s+10( +\d+){6} +\d+ +\d+", lines[3]), done.stdout  # (moves, timings, heap, nodes)
    assert [line.split()[0] for line in lines[6:9]] == ["2", "3", "4"], done.stdout
    assert re.fullmatch(r"\s+390x844 +\d+ +\d+( +\d+\.\d){4}( +\d+){2}", lines[-1]), done.stdout
    assert lines[-2].split()[0] == "window", done.stdout
