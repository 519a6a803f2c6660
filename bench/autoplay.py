"""How long does auto-play take? The request ``POST /api/games/{id}/autoplay``
as the page sends it, in process (Starlette's TestClient, the SQLite store in
a file), against the same cards sent home one move request at a time.

    .venv/bin/python bench/autoplay.py [--dir FOLDER] [--runs N]

Positions: the golden won game of Terrace at the first move after which the
finish is certain (31 cards home by foundation moves alone), and Terrace deal
39 after its first base card (two safe moves from the terrace, no finish).
Each figure is the median over ``--runs`` fresh games (the order of the A/B
pair alternates).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from terrace.board import Board
from terrace.record import GameRecord
from terrace.solver import finish_line
from terrace.storage import open_store
from terrace.web.app import create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden" / "terrace-won.json"


def finish_point(record: GameRecord) -> tuple[int, list[str]]:
    """After how many moves the finish is certain, and its line."""
    board = Board(record.rules, record.deal)
    for index, text in enumerate(record.moves):
        line = finish_line(board)
        if line is not None:
            return index, [str(m) for m in line]
        board.push_text(text)
    raise SystemExit("the golden game never becomes finishable")


def new_game(client: TestClient, record: GameRecord, moves: list[str]) -> dict[str, Any]:
    game = client.post("/api/games", json={"variant": record.variant, "options": record.rules.to_dict(),
                                           "deal_number": record.deal.number}).json()
    store = client.app.state.game.store  # type: ignore[attr-defined]
    stored = store.get(game["id"])
    board = stored.board()
    for text in moves:
        board.push_text(text)
    revision = stored.revision
    stored.sync(board)
    store.update(stored, expected_revision=revision, action="move")
    data: dict[str, Any] = client.get(f"/api/games/{game['id']}").json()
    return data


def timed(call: Any) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=None, help="where the database file goes")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    record = GameRecord.from_json(GOLDEN.read_text())
    at, finish = finish_point(record)
    with tempfile.TemporaryDirectory(dir=args.dir) as folder, open_store(Path(folder) / "g.sqlite") as store:
        client = TestClient(create_app(store), base_url="http://localhost")
        one, singles, safe = [], [], []
        for run in range(args.runs):
            for kind in (("auto", "single") if run % 2 == 0 else ("single", "auto")):
                game = new_game(client, record, list(record.moves[:at]))
                url = f"/api/games/{game['id']}"
                if kind == "auto":
                    one.append(timed(lambda url=url: client.post(url + "/autoplay", json={"mode": "finish"})))
                    assert client.get(url).json()["status"] == "won"
                else:
                    def each(url: str = url) -> None:
                        for text in finish:
                            assert client.post(url + "/moves", json={"move": text}).status_code == 200
                    singles.append(timed(each))
            game = client.post("/api/games", json={"variant": "terrace", "deal_number": 39}).json()
            url = f"/api/games/{game['id']}"
            client.post(url + "/moves", json={"move": "c1"})
            safe.append(timed(lambda url=url: client.post(url + "/autoplay", json={"mode": "safe"})))
    ms = lambda xs: f"{statistics.median(xs) * 1000:.1f} ms"  # noqa: E731
    print(f"finish of {len(finish)} cards, one autoplay request: median {ms(one)}")
    print(f"the same {len(finish)} foundation moves, one move request each: median {ms(singles)}"
          f" (ratio {statistics.median(singles) / statistics.median(one):.1f}x)")
    print(f"two safe moves (Terrace deal 39 after c1), one autoplay request: median {ms(safe)}")


if __name__ == "__main__":
    main()
