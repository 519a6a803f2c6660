"""Game records: JSON round trip and validation."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import pytest

from conftest import craft
from terrace.board import Board
from terrace.deal import DEAL_VERSION, Deal
from terrace.errors import InvalidRecordError
from terrace.moves import Move
from terrace.record import RECORD_FORMAT, RECORD_KEYS, RECORD_VERSION, GameRecord
from terrace.refusals import Refusal
from terrace.rules import Rules
from terrace.variants import get_rules


def _record(moves: str = "c2 s s", name: str = "terrace", **overrides: Any) -> GameRecord:
    rules = get_rules(name, **overrides)
    board = Board.from_number(6, rules)
    for text in moves.split():
        board.push_text(text)
    return GameRecord.from_board(board, name)


def test_round_trip() -> None:
    record = _record()
    again = GameRecord.from_json(record.to_json())
    assert again == record
    assert again.replay() == record.replay()
    assert again.moves == ("c2", "s", "s") and again.result == "playing"


def test_moves_in_another_spelling_are_read_into_the_notation() -> None:
    """Upper case and spaces are read, and written back as the notation
    prints moves (not as the record spelt them); a leading zero is no
    spelling of a move (each move has one text), and is refused."""
    data = json.loads(_record().to_json())
    data["moves"] = ["C2", " S ", "s\t"]
    again = GameRecord.from_dict(data)
    assert again.moves == ("c2", "s", "s") and again == _record()
    assert json.loads(again.to_json())["moves"] == ["c2", "s", "s"]
    data = json.loads(_record("c2 T1t7 t8F").to_json())
    assert data["moves"] == ["c2", "t1t7", "t8f"]
    data["moves"] = ["c2", "T1T7", "t8f2"]
    assert GameRecord.from_dict(data).moves == ("c2", "t1t7", "t8f2")
    data["moves"] = ["c2", "T01T7"]
    with pytest.raises(InvalidRecordError, match=r"move 2 .* without leading zeros"):
        GameRecord.from_dict(data)


def test_a_record_holds_at_most_max_moves() -> None:
    """A record of millions of moves was read and replayed whole."""
    from terrace.moves import MAX_MOVES

    data = json.loads(_record().to_json())
    data["moves"] = ["s"] * (MAX_MOVES + 1)
    with pytest.raises(InvalidRecordError, match=f"at most {MAX_MOVES:,} moves") as info:
        GameRecord.from_dict(data)
    assert info.value.code is Refusal.MOVES_TOO_MANY
    record = _record()
    with pytest.raises(InvalidRecordError, match=f"at most {MAX_MOVES:,} moves"):
        dataclasses.replace(record, moves=("s",) * (MAX_MOVES + 1))


def test_to_dict_writes_the_record_s_own_keys_in_order_then_the_extra_ones() -> None:
    """(to_dict asserted this on every call; it is the code's own promise,
    checked here once.)"""
    record = dataclasses.replace(_record(), extra={"final_position": "x"})
    assert tuple(record.to_dict()) == (*RECORD_KEYS, "final_position")


def test_fields() -> None:
    data = json.loads(_record().to_json())
    assert data == {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "variant": "terrace",
        "rules": get_rules("terrace").to_dict(),
        "deal_number": 6,
        "deal_version": DEAL_VERSION,
        "deal": Deal.from_number(6, get_rules("terrace")).text(),
        "moves": ["c2", "s", "s"],
        "result": "playing",
    }


def test_aliases_are_stored_by_canonical_name() -> None:
    assert _record(name="queen-of-italy").variant == "terrace"


def test_overridden_rules_are_kept() -> None:
    record = _record("c1", candidates=4, spaces="free")
    again = GameRecord.from_json(record.to_json(indent=None))
    assert again.rules.candidates == 4 and again.rules.spaces.value == "free"


def test_deal_without_number() -> None:
    rules = get_rules("falling-star")
    deal = Deal.parse(Deal.from_number(3, rules).text(), rules)
    board = Board(rules, deal)
    board.push_text("s")
    record = GameRecord.from_board(board, "falling-star")
    data = record.to_dict()
    assert data["deal_number"] is None
    assert GameRecord.from_dict(data).replay() == board


def test_result_choosing_at_start() -> None:
    record = _record("")
    assert record.result == "choosing"
    assert GameRecord.from_json(record.to_json()).result == "choosing"


def test_extra_fields_are_written() -> None:
    record = GameRecord(**{**_record().__dict__, "extra": {"player": "ada"}})
    assert record.to_dict()["player"] == "ada"


def test_board_from_a_position_has_no_deal() -> None:
    board = craft(get_rules("terrace"), "6", foundations=["6D"], tableau=["2S"] * 2 + ["3S"] * 2 + ["4S"] * 2
                  + ["JC"] * 2 + ["QC"])
    with pytest.raises(InvalidRecordError, match="a board set up from a position has no deal"):
        GameRecord.from_board(board)


def _bad(change: Any) -> dict[str, Any]:
    data = _record().to_dict()
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="chess"), "not a Terrace game record"),
        (lambda d: d.pop("format"), "not a Terrace game record"),
        (lambda d: d.update(version=2), "record version 2 is not supported"),
        (lambda d: d.update(version=True), "record version true is not supported"),
        (lambda d: d.update(version=1.0), "record version 1.0 is not supported"),
        (lambda d: d.update(variant="klondike"), "unknown variant 'klondike'"),
        (lambda d: d.pop("variant"), "the record has no 'variant'"),
        (lambda d: d.update(variant=3), "'variant' must be a str"),
        (lambda d: d.update(rules=[]), "'rules' must be a dict"),
        (lambda d: d["rules"].update(decks=0), "decks must be between 1 and 8"),
        (lambda d: d["rules"].update(colour=1), "unknown rule option 'colour'"),
        (lambda d: d.update(deal_number="6"), "deal_number must be a whole number or null"),
        (lambda d: d.update(deal_number=True), "deal_number must be a whole number or null"),
        (lambda d: d.update(deal_number=7), "these cards are not deal number 7"),
        (lambda d: d.update(deal_version=9), "deal version 9 is not known"),
        (lambda d: d.update(deal_number=6, deal_version=True), "deal version true is not known"),
        # without a number any version of the numbering will do, but not a non-number
        (lambda d: d.update(deal_number=None, deal_version="x"), "deal version 'x' is not known"),
        (lambda d: d.update(deal_number=None, deal_version=1.5), "deal version 1.5 is not known"),
        (lambda d: d.update(deal_number=None, deal_version=-5), "deal version -5 is not known"),
        (lambda d: d.update(deal_number=None, deal_version=0), "deal version 0 is not known"),
        (lambda d: d.update(deal=d["deal"][3:]), "a deal for 2 decks has 104 cards"),
        (lambda d: d.update(deal=5), "'deal' must be a str"),
        (lambda d: d.update(moves="c1 s"), "'moves' must be a list"),
        (lambda d: d.update(moves=["c1", 2]), "moves must be a list of strings"),
        (lambda d: d.update(moves=["c1", "c2"]), r"move 2 \('c2'\) does not replay: c2: the base card has"),
        (lambda d: d.update(moves=["c1", "zz"]), r"move 2 \('zz'\) does not replay: 'zz' is not a move"),
        (lambda d: d.update(result="won"), "the record says 'won' but its moves lead to 'playing'"),
        (lambda d: d.update(result="draw"), "result must be one of choosing, playing, won, lost"),
        (lambda d: d.pop("result"), "the record has no 'result'"),
    ],
)
def test_load_validates_everything(change: Any, message: str) -> None:
    with pytest.raises(InvalidRecordError, match=message):
        GameRecord.from_dict(_bad(change))


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", "null", "[" * 100000, "9" * 5000])
def test_not_json_or_not_an_object(text: str) -> None:
    with pytest.raises(InvalidRecordError) as info:
        GameRecord.from_json(text)
    assert "set_int_max_str_digits" not in str(info.value)


def test_a_record_reads_alike_as_text_or_bytes_with_or_without_a_byte_order_mark() -> None:
    """The library refused a byte-order mark in text and took UTF-16 bytes,
    ``terrace import`` the other way round: both now take UTF-8 (a mark
    passed over) and refuse anything else."""
    from terrace.storage.transfer import ImportRefusedError, read_games

    text = _record().to_json()
    for given in (text, "\ufeff" + text, text.encode(), "\ufeff".encode() + text.encode()):
        assert GameRecord.from_json(given) == _record()
        assert len(read_games(given)) == 1
    for other in (text.encode("utf-16"), text.encode("utf-32")):
        with pytest.raises(InvalidRecordError, match="not valid JSON: it is not UTF-8 text"):
            GameRecord.from_json(other)
        with pytest.raises(ImportRefusedError, match="it is not UTF-8 text"):
            read_games(other)


def test_replay_reports_the_bad_move() -> None:
    # (refused as it is made, by its replay: a record holds moves that replay)
    with pytest.raises(InvalidRecordError, match=r"move 2 \('rt1'\) does not replay: rt1: "):
        GameRecord(**{**_record().__dict__, "moves": ("c1", "rt1")})


def test_a_refused_move_spelt_another_way_is_named_as_the_engine_prints_it() -> None:
    """A move the notation reads (`` C2 ``) but the rules refuse is named
    once, as ``c2``: the message read "move 2 (' C2 ') does not replay:
    C2 : ...", with the record's spaces and capitals."""
    with pytest.raises(InvalidRecordError) as info:
        GameRecord(**{**_record().__dict__, "moves": ("c1", " C2 ")})
    assert str(info.value) == "move 2 ('c2') does not replay: c2: the base card has already been chosen"


def test_a_record_made_with_a_list_of_moves_is_the_same_value_as_with_a_tuple() -> None:
    """GameRecord(..., moves=["c1"]) was unequal to the record read back
    from its own JSON (a list is not a tuple), and hash() raised TypeError."""
    board = Board.from_number(3)
    board.push_text("c2")
    record = GameRecord.from_board(board)
    listed = dataclasses.replace(record, moves=["c2"])  # type: ignore[arg-type]
    assert listed == record and hash(listed) == hash(record)
    assert GameRecord.from_json(listed.to_json()) == listed
    with pytest.raises(InvalidRecordError, match="moves must be a list of strings"):
        dataclasses.replace(record, moves=["c2", 2])  # type: ignore[list-item]


@pytest.mark.parametrize("key", ["moves", "result", "format", "deal", "rules"])
def test_an_extra_key_may_not_overwrite_a_key_of_the_record(key: str) -> None:
    """extra={"result": "won"} silently replaced the record's own result in
    to_json(), writing a file that no longer loads (or loads as another
    game)."""
    record = GameRecord.from_board(Board.from_number(3))
    with pytest.raises(InvalidRecordError, match=f"the extra key {key!r} is one of the record's own keys"):
        dataclasses.replace(record, extra={key: "won"})
    assert dataclasses.replace(record, extra={"final_position": "x"}).to_dict()["final_position"] == "x"


def test_a_record_made_under_another_name_of_its_variant_is_the_record_it_reads_back_as() -> None:
    """GameRecord("Signora", ...) wrote "Signora" and read back as
    "terrace": a different record value; from_board stored the preset's
    name all along, the constructor did not."""
    board = Board.from_number(3)
    board.push_text("c2")
    record = dataclasses.replace(GameRecord.from_board(board), variant="Signora")
    assert record.variant == "terrace" and GameRecord.from_json(record.to_json()) == record
    with pytest.raises(ValueError, match="unknown variant 'nope'"):
        dataclasses.replace(record, variant="nope")


def _bad_record(*changes: tuple[str, Any]) -> dict[str, Any]:
    """A good record's JSON values with ``changes`` (key, value; a value of
    ``KeyError`` removes the key)."""
    data = _record("c2 s").to_dict()
    for key, value in changes:
        if value is KeyError:
            data.pop(key)
        else:
            data[key] = value
    return data


_TOO_MANY = ["s"] * 100_001
_BAD_RECORDS: list[tuple[Refusal, Any]] = [
    (Refusal.RECORD_NOT_OBJECT, 1),
    (Refusal.RECORD_FORMAT, _bad_record(("format", "chess"), ("moves", _TOO_MANY))),
    (Refusal.RECORD_VERSION, _bad_record(("version", 2), ("moves", [3]))),
    (Refusal.RECORD_FIELD_MISSING, _bad_record(("variant", KeyError), ("moves", _TOO_MANY))),
    (Refusal.RECORD_FIELD_TYPE, _bad_record(("rules", []), ("result", 3))),
    (Refusal.VARIANT_UNKNOWN, _bad_record(("variant", "chess"), ("moves", 3))),
    (Refusal.RECORD_DEAL_NUMBER, _bad_record(("deal_number", "6"), ("moves", [3]))),
    (Refusal.RECORD_DEAL_VERSION, _bad_record(("deal_version", 0), ("moves", _TOO_MANY))),
    (Refusal.DEAL_NOT_THAT_NUMBER, _bad_record(("deal_number", 7), ("moves", _TOO_MANY))),
    (Refusal.DEAL_CARD_COUNT, _bad_record(("deal", "AH 2H"), ("deal_number", 7), ("moves", [3]))),
    (Refusal.RECORD_FIELD_TYPE, _bad_record(("moves", "c2 s"), ("result", KeyError))),
    (Refusal.MOVES_TOO_MANY, _bad_record(("moves", [*_TOO_MANY, 3]), ("result", KeyError))),
    (Refusal.RECORD_MOVES, _bad_record(("moves", ["c2", 3]), ("result", KeyError))),
    (Refusal.RECORD_FIELD_MISSING, _bad_record(("result", KeyError))),
    (Refusal.RECORD_FIELD_TYPE, _bad_record(("result", 3), ("moves", ["zz"]))),
    (Refusal.RECORD_MOVE_UNREADABLE, _bad_record(("moves", ["c2", "zz"]), ("result", "draw"))),
    (Refusal.RECORD_MOVE_ILLEGAL, _bad_record(("moves", ["c2", "c2"]), ("result", "draw"))),
    (Refusal.RECORD_RESULT_UNKNOWN, _bad_record(("result", "draw"))),
    (Refusal.RECORD_RESULT_MISMATCH, _bad_record(("result", "won"))),
]


@pytest.mark.parametrize(("code", "data"), _BAD_RECORDS, ids=[f"{i}-{c.value}" for i, (c, _) in
                                                                enumerate(_BAD_RECORDS)])
def test_every_refusal_of_a_record_comes_out_first_for_its_fault(code: Refusal, data: Any) -> None:
    """Each refusal a record can get comes out for its fault, before any
    fault of a later key (a record too long and of another format is
    refused for its format), alike from ``GameRecord.from_dict``, an
    import and the constructor: the import refused a record of more than
    100,000 moves before reading it ("the record holds more than 100,000
    moves", whatever else was wrong), and the constructor checked the
    moves' types before their number, the reading the other way round."""
    from terrace.storage.rows import clip
    from terrace.storage.transfer import ImportRefusedError, read_games

    with pytest.raises(InvalidRecordError) as info:
        GameRecord.from_dict(data)
    assert info.value.code is code, str(info.value)
    with pytest.raises(ImportRefusedError) as refused:
        read_games(json.dumps(data))
    assert refused.value.reasons == [clip(str(info.value))]
    if code in (Refusal.MOVES_TOO_MANY, Refusal.RECORD_MOVES):
        with pytest.raises(InvalidRecordError) as made:
            dataclasses.replace(_record(), moves=data["moves"])
        assert made.value.code is code


def test_a_record_s_moves_are_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a record checked its moves' number and types, then made
    the record, whose constructor checked both again (and again when the
    moves were respelt): one check now, for the reading and the
    constructor alike."""
    from terrace import record as record_module

    checks = [0]
    check = record_module._record_moves

    def counted(moves: Any) -> tuple[str, ...]:
        checks[0] += 1
        return check(moves)

    expected = _record("c2 s s")
    data = expected.to_dict()
    data["moves"] = ["C2", " s", "S "]
    monkeypatch.setattr(record_module, "_record_moves", counted)
    assert GameRecord.from_dict(data) == expected
    assert checks[0] == 1


def test_a_record_made_with_a_string_for_its_moves_is_refused() -> None:
    """GameRecord(..., moves="c2") took the string's characters as its
    moves ('c', '2'), and failed only at the replay, on a move 'c'."""
    with pytest.raises(InvalidRecordError, match="moves must be a list of strings") as info:
        dataclasses.replace(_record(), moves="c2")
    assert info.value.code is Refusal.RECORD_MOVES


def test_the_refusals_above_are_every_refusal_of_a_record_s_values() -> None:
    """(So that a new refusal of a record is added to the list above.)"""
    elsewhere = {Refusal.RECORD_NOT_JSON, Refusal.RECORD_EXTRA_KEY, Refusal.RECORD_EXTRA_NOT_JSON,
                 Refusal.RECORD_NO_DEAL}
    own = {code for code in Refusal if code.name.startswith("RECORD_")} - elsewhere
    assert own <= {code for code, _ in _BAD_RECORDS}


def test_a_record_is_made_only_of_rules_a_deal_that_fits_them_and_a_known_result() -> None:
    """GameRecord(...) took any rules, deal and result: rules given as a
    preset's name and a deal given as its string failed later, in to_json,
    with AttributeError ('str' object has no attribute 'to_dict'), and a
    two-pack deal under one-pack rules, or a result no game has, were
    written to a record that GameRecord.from_json then refused."""
    record = _record()
    with pytest.raises(TypeError, match=r"rules must be a Rules \(for a preset: terrace.get_rules"):
        dataclasses.replace(record, rules="terrace")
    with pytest.raises(TypeError, match="rules must be a Rules"):
        dataclasses.replace(record, rules=None)
    with pytest.raises(TypeError, match=r"deal must be a Deal \(for a deal string: Deal.parse\(text, rules"):
        dataclasses.replace(record, deal=record.deal.text())
    with pytest.raises(InvalidRecordError, match="a deal for 1 deck has 52 cards, this one has 104") as info:
        dataclasses.replace(record, rules=get_rules("terrace", decks=1, reserve=3))
    assert info.value.code is Refusal.DEAL_CARD_COUNT
    with pytest.raises(InvalidRecordError, match="result must be one of choosing, playing, won") as info:
        dataclasses.replace(record, result="bogus")
    assert info.value.code is Refusal.RECORD_RESULT_UNKNOWN
    one_pack = get_rules("terrace", decks=1, reserve=3)
    fits = dataclasses.replace(record, rules=one_pack, deal=Deal.from_number(6, one_pack), moves=(),
                               result="choosing")
    assert GameRecord.from_json(fits.to_json()) == fits


def test_a_record_made_without_a_result_has_the_result_its_moves_reach() -> None:
    """GameRecord(...) without a result took 'choosing', whatever the moves:
    a record of Falling Star (no choice: 'playing' from the start), or of
    Terrace after c1 and s, was written with a result that GameRecord.from_json
    then refused ("the record says 'choosing' but its moves lead to 'playing'")."""
    falling = get_rules("falling-star")
    record = GameRecord("falling-star", falling, Deal.from_number(1, falling))
    assert record.result == "playing" and GameRecord.from_json(record.to_json()) == record
    terrace = get_rules("terrace")
    deal = Deal.from_number(1, terrace)
    record = GameRecord("terrace", terrace, deal, ("c1", "s"))
    assert record.result == "playing" and GameRecord.from_json(record.to_json()) == record
    assert GameRecord("terrace", terrace, deal).result == "choosing"
    assert GameRecord("terrace", terrace, deal, ("c1",), result="playing").result == "playing"
    with pytest.raises(InvalidRecordError, match=r"move 2 \('c1'\) does not replay"):
        GameRecord("terrace", terrace, deal, ("c1", "c1"))


@pytest.mark.parametrize("extra", [
    {"score": math.nan}, {"score": [math.inf]}, {"player": {"ada"}}, {1: "x"}, [1], "x", {"player": object()},
])
def test_extra_keys_a_reader_could_not_take_back_are_refused(extra: Any) -> None:
    """extra={"score": nan} was written as NaN, which GameRecord.from_json
    refuses (json-not-a-number), and extra=[1] or a set failed in to_dict
    or to_json with a bare TypeError: a record must never be written that
    its own reading refuses."""
    with pytest.raises(InvalidRecordError, match="the extra keys must be an object of text keys") as info:
        dataclasses.replace(_record(), extra=extra)
    assert info.value.code is Refusal.RECORD_EXTRA_NOT_JSON


def test_a_record_s_extra_keys_are_its_own_and_it_never_writes_what_it_would_refuse() -> None:
    """The record kept the very dict it was given: a key of the record's own
    or a NaN put into that dict afterwards (by the caller, or into
    record.extra) was written by to_json, which then failed or wrote a
    record its own reading refused ("record version 7 is not supported")."""
    extra: dict[str, Any] = {"player": "ada", "notes": [1]}
    record = dataclasses.replace(GameRecord.from_board(Board.from_number(3)), extra=extra)
    extra["version"] = 7
    extra["notes"].append(math.nan)
    assert record.extra == {"player": "ada", "notes": [1]}
    again = json.loads(record.to_json())
    assert again["version"] == RECORD_VERSION and again["notes"] == [1]
    assert GameRecord.from_json(record.to_json()) == record
    record.extra["result"] = "won"  # (changed in place: refused when written, not written)
    with pytest.raises(InvalidRecordError) as info:
        record.to_json()
    assert info.value.code is Refusal.RECORD_EXTRA_KEY


def test_a_record_made_with_moves_spelt_another_way_holds_them_as_the_notation_prints_them() -> None:
    """GameRecord(..., moves=("C2", " S ")) kept and wrote the moves as
    given, so the record its own JSON read back as (moves "c2", "s") was
    not equal to it, and the file held moves the notation never prints."""
    terrace = get_rules("terrace")
    record = GameRecord("terrace", terrace, Deal.from_number(3, terrace), ("C2", " S ", "s"))
    assert record.moves == ("c2", "s", "s")
    assert json.loads(record.to_json())["moves"] == ["c2", "s", "s"]
    assert GameRecord.from_json(record.to_json()) == record
    assert dataclasses.replace(record, moves=["C1", "S "], result="playing").moves == ("c1", "s")


def test_a_record_made_with_a_move_that_is_no_move_is_refused_as_its_reading_refuses_it() -> None:
    """GameRecord(..., moves=("c2", "zz"), result="playing") was made and
    written, and its own reading then refused the file."""
    terrace = get_rules("terrace")
    deal = Deal.from_number(3, terrace)
    with pytest.raises(InvalidRecordError) as made:
        GameRecord("terrace", terrace, deal, ("c2", "zz"), "playing")
    assert made.value.code is Refusal.RECORD_MOVE_UNREADABLE
    data = GameRecord("terrace", terrace, deal, ("c2",)).to_dict()
    data["moves"] = ["c2", "zz"]
    with pytest.raises(InvalidRecordError) as read:
        GameRecord.from_dict(data)
    assert str(made.value) == str(read.value) == (
        "move 2 ('zz') does not replay: 'zz' is not a move: write e.g. c1, s, wf, rf, t2t5, wt3 or t4f2")
    with pytest.raises(InvalidRecordError, match=r"move 1 \('t0f'\) does not replay: .* numbered from 1"):
        GameRecord("terrace", terrace, deal, ("t0f",), "playing")


def test_a_record_made_with_a_result_its_moves_do_not_reach_is_refused_as_its_reading_refuses_it() -> None:
    """A result given to GameRecord(...) was checked only when the record
    was read: GameRecord(..., ("c1",), result="won") and one with an illegal
    move (t9t1 before the choice) were made and written, and their own
    reading then refused them. The constructor replays the moves as the
    reading does, with the same words; from_board and a saved game's record
    (checked already) are not replayed again."""
    terrace = get_rules("terrace")
    deal = Deal.from_number(1, terrace)
    with pytest.raises(InvalidRecordError) as made:
        GameRecord("terrace", terrace, deal, ("c1",), "won")
    assert made.value.code is Refusal.RECORD_RESULT_MISMATCH
    data = GameRecord("terrace", terrace, deal, ("c1",)).to_dict()
    with pytest.raises(InvalidRecordError) as read:
        GameRecord.from_dict({**data, "result": "won"})
    assert str(made.value) == str(read.value) == "the record says 'won' but its moves lead to 'playing'"
    with pytest.raises(InvalidRecordError) as illegal:
        GameRecord("terrace", terrace, deal, ("t9t1",), "choosing")
    assert illegal.value.code is Refusal.RECORD_MOVE_ILLEGAL
    board = Board.from_number(1, terrace)
    board.push_text("c1")
    assert GameRecord.from_board(board) == GameRecord("terrace", terrace, deal, ("c1",), "playing")


@pytest.mark.parametrize("count", [1, 20, 21, 25])
def test_an_import_refusal_lists_twenty_reasons_and_counts_the_rest(count: int) -> None:
    """A refused import names its first twenty reasons and counts the rest
    ("; and 5 more" after twenty of 25); with twenty or fewer, no count
    follows (a mutation audit read ``if more`` as ``if not more`` and no
    test failed: "; and 0 more" ended every short refusal)."""
    from terrace.storage.transfer import MAX_REASONS, ImportRefusedError

    reasons = [f"record {n}: bad" for n in range(1, count + 1)]
    error = ImportRefusedError(reasons)
    shown = "; ".join(reasons[:MAX_REASONS])
    more = count - MAX_REASONS
    assert str(error) == f"nothing was imported: {shown}" + (f"; and {more} more" if more > 0 else "")
    assert MAX_REASONS == 20 and error.reasons == reasons
    if count == 1:
        assert str(error) == "nothing was imported: record 1: bad"
    if count == 25:
        assert str(error).endswith("; record 20: bad; and 5 more")


def test_white_space_between_the_records_of_a_file_is_skipped_in_one_go() -> None:
    """The reader of a list of records skipped JSON's white space a
    character at a time, about a microsecond each: 60 MB of spaces between
    the brackets of a file to import (under the 64 MB limit) took 42 s.
    24 million spaces around and between items now take a tenth of a
    second of CPU (a second is the bound here; the old loop took
    four on this machine)."""
    import time

    from terrace.record import json_items

    gap = " \t\r\n" * 1_000_000
    began = time.process_time()
    listed, items = json_items(f"{gap}[{gap}1{gap},{gap}2{gap}]{gap}")
    assert listed and list(items) == [1, 2]
    assert time.process_time() - began < 1.0


def test_a_no_break_space_is_read_as_a_space_outside_the_strings_of_a_record_file_only() -> None:
    """A record copied from a web page: its no-break spaces between the
    JSON's values are spaces, those inside a string (after an escaped
    quote, too) stay."""
    from terrace.record import pasted_json

    text = '{\u00a0"a\\"\u00a0b":\u2007["x\u202f", "\\\\"],\u00a0"c": "\\"\u00a0"}\u00a0'
    assert pasted_json(text) == '{ "a\\"\u00a0b": ["x\u202f", "\\\\"], "c": "\\"\u00a0"} '
    assert json.loads(pasted_json(text)) == {'a"\u00a0b': ["x\u202f", "\\"], "c": '"\u00a0'}


def test_a_board_of_more_than_max_moves_has_no_record() -> None:
    """A board plays on past MAX_MOVES (a card moved to and fro): from_board
    wrote its record, which from_json then refused."""
    from terrace.moves import MAX_MOVES

    board = Board.from_number(0, Rules(spaces="free"))
    board.push_text("c2")
    there, back = Move.parse("t5t1"), Move.parse("t1t5")
    while len(board.move_stack) <= MAX_MOVES:
        board.push(there)
        board.push(back)
    with pytest.raises(InvalidRecordError, match=f"at most {MAX_MOVES:,} moves") as info:
        GameRecord.from_board(board)
    assert info.value.code is Refusal.MOVES_TOO_MANY
    board.pop()
    assert GameRecord.from_board(board).moves[-1] == "t5t1"


@pytest.mark.parametrize(("name", "english", "german"), [
    ("terrace-won", "the game was won after 271 moves: no move follows a win",
     "Das Spiel war nach 271 Zügen gewonnen: Auf einen Sieg folgt kein Zug."),
    ("terrace-lost", "the game was lost after 237 moves: no move was left",
     "Das Spiel war nach 237 Zügen verloren: Es war kein Zug mehr möglich."),
], ids=["won", "lost"])
def test_a_move_after_the_end_of_the_game_is_refused_for_the_end(name: str, english: str,
                                                                  german: str) -> None:
    """A record whose moves end the game and then go on was refused for
    the card or pile the next move names ("s: the stock is empty", "t1t2:
    the 4♠ cannot go on the 6♠ ..."), which did not say that the game was
    over by then, nor when."""
    from store_support import golden

    data = golden(name).to_dict()
    data["moves"].append("S")
    with pytest.raises(InvalidRecordError) as info:
        GameRecord.from_dict(data)
    number = len(data["moves"])
    assert str(info.value) == f"move {number} ('s') does not replay: s: {english}"
    assert info.value.text("de") == f"Zug {number} („s“) lässt sich nicht nachspielen: {german}"


_CONTROL = "holds the control character U+0000, which JSON takes only escaped (is the file damaged?)"
_MORE = ("more follows the JSON value, at line 2 column 1: a record file holds one record, or one list of "
         "records")


@pytest.mark.parametrize(("text", "problem"), [
    ("{}\0\0\0", f"line 1 column 3 {_CONTROL}"),
    ("\0" * 4096, f"line 1 column 1 {_CONTROL}"),
    ('{"format": "\0"}', f"line 1 column 13 {_CONTROL}"),
    ("{}\n{}", _MORE),
    ("[]\n[]", _MORE),
], ids=["nul-padded", "zeros", "nul-in-string", "two-records", "two-lists"])
def test_a_record_file_that_is_no_json_says_what_python_s_reader_left_unclear(text: str,
                                                                              problem: str) -> None:
    """A file padded with NUL bytes (after a crash, or cut short) and two
    records one after the other outside a list (two exports joined by
    cat) were refused as "Extra data: line 1 column 3 (char 2)" or
    "Expecting value: line 1 column 1 (char 0)", saying neither."""
    from terrace.storage.transfer import ImportRefusedError, read_games

    with pytest.raises(InvalidRecordError) as info:
        GameRecord.from_json(text)
    assert str(info.value) == f"not valid JSON: {problem}"
    with pytest.raises(ImportRefusedError) as refused:
        read_games(text)
    assert refused.value.reasons == [f"the file is not valid JSON: {problem}"]
