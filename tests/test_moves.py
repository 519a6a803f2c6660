"""Move notation: parsing, printing and validation."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from terrace.cli import main
from terrace.errors import InvalidMoveError
from terrace.moves import MAX_INDEX, SEPARATORS, Move, parse_moves
from terrace.refusals import Reason, Refusal


@pytest.mark.parametrize(
    ("text", "fields"),
    [
        ("c1", ("c", 1, "", 0)),
        ("c10", ("c", 10, "", 0)),
        ("s", ("s", 0, "", 0)),
        ("rf", ("r", 0, "f", 0)),
        ("rf3", ("r", 0, "f", 3)),
        ("wf", ("w", 0, "f", 0)),
        ("wt3", ("w", 0, "t", 3)),
        ("rt3", ("r", 0, "t", 3)),  # well formed, though never legal
        ("t2t5", ("t", 2, "t", 5)),
        ("t4f", ("t", 4, "f", 0)),
        ("t4f2", ("t", 4, "f", 2)),
        ("t11t10", ("t", 11, "t", 10)),
        ("f4t1", ("f", 4, "t", 1)),
        ("f16t11", ("f", 16, "t", 11)),
    ],
)
def test_parse_and_print(text: str, fields: tuple[str, int, str, int]) -> None:
    move = Move.parse(text)
    assert (move.source, move.source_index, move.target, move.target_index) == fields
    assert str(move) == text
    assert Move.parse(str(move)) == move
    assert repr(move) == f"Move.parse({text!r})"


def test_case_and_spaces_are_ignored() -> None:
    assert Move.parse(" WF ") == Move.parse("wf")
    assert Move.parse("T2T5") == Move(source="t", source_index=2, target="t", target_index=5)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "is not a move: write e.g. c1, s, wf"),
        ("x", "is not a move"),
        ("t", "is not a move"),
        ("tf", "is not a move"),
        ("wt", "is not a move"),
        ("s1", "is not a move"),
        ("c", "is not a move"),
        ("w f", "is not a move"),
        ("ft1", "is not a move"),
        ("c0", "candidates are numbered from 1"),
        ("t0f", "piles and foundations are numbered from 1"),
        ("wt0", "piles and foundations are numbered from 1"),
        ("wf0", "piles and foundations are numbered from 1"),
        ("f0t1", "piles and foundations are numbered from 1"),
        ("f1f", "a foundation card cannot go to a foundation"),
        ("f1f2", "a foundation card cannot go to a foundation"),
        ("t3t3", "a card cannot move onto its own pile"),
    ],
)
def test_unreadable_moves(text: str, message: str) -> None:
    with pytest.raises(InvalidMoveError, match=message):
        Move.parse(text)


@pytest.mark.parametrize(("text", "quoted"), [("ＲＦ", "'ＲＦ'"), (" T0F ", "'T0F'"), ("C0", "'C0'")])
def test_a_refusal_quotes_the_move_as_given(text: str, quoted: str) -> None:
    """It quoted the move lower-cased ('ｒｆ' for ＲＦ), which the player never wrote."""
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(text)
    assert str(info.value).startswith(f"{quoted} is not a move")


def test_parse_needs_text() -> None:
    with pytest.raises(InvalidMoveError, match="a move must be text"):
        Move.parse(3)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "fields",
    [("x",), ("c", 0), ("s", 1), ("c", 1, "f"), ("r", 1, "f"), ("w", 1, "f"), ("w", 0, "x", 1), ("t", 0, "f"),
     ("t", 1, "t", 0), ("w", 0, "f", -1), ("f", 1, "f"), ("t", 2, "t", 2), ("t", True, "f")],
)
def test_constructor_refuses_impossible_moves(fields: tuple[object, ...]) -> None:
    with pytest.raises(InvalidMoveError, match="not a move"):
        Move(*fields)  # type: ignore[arg-type]


def test_helpers_and_flags() -> None:
    assert Move.choose(2) == Move.parse("c2") and Move.choose(2).is_choice
    assert Move.draw() == Move.parse("s") and Move.draw().is_draw
    assert Move.parse("t1f").to_foundation and not Move.parse("t1t2").to_foundation
    assert not Move.parse("wf").is_choice and not Move.parse("wf").is_draw


def test_moves_are_values() -> None:
    assert {Move.parse("wf"), Move.parse("WF"), Move("w", 0, "f", 0)} == {Move.parse("wf")}
    with pytest.raises(AttributeError):
        Move.parse("wf").source = "r"  # type: ignore[misc]


def test_parse_moves() -> None:
    assert [str(m) for m in parse_moves("c2 s,wf  t2t5,,rf3")] == ["c2", "s", "wf", "t2t5", "rf3"]
    assert parse_moves("") == []
    with pytest.raises(InvalidMoveError):
        parse_moves("c1 zz")


@pytest.mark.parametrize("value", [None, b"c2 s", ["c2", "s"], 3])
def test_parse_moves_needs_text(value: object) -> None:
    with pytest.raises(InvalidMoveError) as info:
        parse_moves(value)  # type: ignore[arg-type]
    assert info.value.code is Refusal.MOVE_NOT_TEXT


@pytest.mark.parametrize("text", ["c١", "t²f", "wt٣", "c٣", "t７f", "c１", "ｔ1f", "wf３", "t1t৩",
                                  "c" + "1" * 5000, "t1t" + "9" * 7])
def test_only_short_ascii_numbers_are_read(text: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(text)
    assert info.value.code is Refusal.MOVE_UNREADABLE
    assert len(str(info.value)) < 300  # the input is quoted, shortened


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("x", Refusal.MOVE_SYNTAX),
        ("c0", Refusal.MOVE_CANDIDATE_FROM_ONE),
        ("t0f", Refusal.MOVE_NUMBERED_FROM_ONE),
        ("f1f", Refusal.MOVE_FOUNDATION_TO_FOUNDATION),
        ("t3t3", Refusal.MOVE_OWN_PILE),
    ],
)
def test_unreadable_moves_name_their_problem(text: str, problem: Refusal) -> None:
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(text)
    reason = info.value.reason
    assert reason is not None and reason.code is Refusal.MOVE_UNREADABLE
    assert reason.params["text"] == text
    nested = reason.params["problem"]
    assert isinstance(nested, Reason) and nested.code is problem
    assert info.value.text("de").startswith(f"„{text}“ ist kein gültiger Zug: ")


@pytest.mark.parametrize(
    "fields", [("t", MAX_INDEX + 1, "f"), ("c", 10**9), ("w", 0, "t", MAX_INDEX + 1), ("f", 1, "t", 10**30)]
)
def test_numbers_past_the_notation_are_refused(fields: tuple[object, ...]) -> None:
    with pytest.raises(InvalidMoveError) as info:
        Move(*fields)  # type: ignore[arg-type]
    nested = info.value.reason.params["problem"] if info.value.reason else None
    assert isinstance(nested, Reason) and nested.code is Refusal.MOVE_NUMBER_TOO_LARGE
    assert str(info.value) == f"not a move: piles, foundations and candidates are numbered up to {MAX_INDEX}"


@given(
    st.sampled_from(["c", "s", "r", "w", "t", "f"]),
    st.integers(0, MAX_INDEX + 2),
    st.sampled_from(["", "t", "f"]),
    st.integers(0, MAX_INDEX + 2),
)
def test_every_move_made_prints_a_move_that_reads_back(
    source: str, source_index: int, target: str, target_index: int
) -> None:
    try:
        move = Move(source, source_index, target, target_index)
    except InvalidMoveError:
        return
    assert Move.parse(str(move)) == move


def test_impossible_fields_name_their_problem() -> None:
    with pytest.raises(InvalidMoveError) as info:
        Move("t", 2, "t", 2)
    assert info.value.code is Refusal.MOVE_MALFORMED
    assert str(info.value) == "not a move: a card cannot move onto its own pile"


@pytest.mark.parametrize("text", ["t01f", "c01", "C002", "t1f01", "f01t1", "t01t7", "wt03", "rf01", "c0001"])
def test_a_number_with_a_leading_zero_is_refused_as_the_places_are(text: str) -> None:
    """Move.parse read 't01f' as t1f (printed back as 't1f', another text)
    while Board.moves_from refused the place 't01': one move had several
    texts, and a place two spellings of which one was refused."""
    with pytest.raises(InvalidMoveError, match="without leading zeros") as info:
        Move.parse(text)
    # (its example is the move itself written so: 'c01' was told "t1f, not t01f", about piles)
    written = re.sub(r"(?<![0-9])0+(?=[0-9])", "", text.lower())
    assert info.value.reason is not None and info.value.reason.params["problem"] == Reason(
        Refusal.MOVE_LEADING_ZERO, written=written, given=text.lower())
    assert str(info.value).endswith(f"without leading zeros ({written}, not {text.lower()})")
    assert str(Move.parse(written)) == written


@pytest.mark.parametrize(("text", "code"), [
    ("c00", Refusal.MOVE_CANDIDATE_FROM_ONE), ("t00f", Refusal.MOVE_NUMBERED_FROM_ONE),
    ("rf00", Refusal.MOVE_NUMBERED_FROM_ONE), ("f00t1", Refusal.MOVE_NUMBERED_FROM_ONE),
    ("t01t00", Refusal.MOVE_NUMBERED_FROM_ONE), ("t01t0", Refusal.MOVE_NUMBERED_FROM_ONE),
])
def test_a_number_of_zeros_is_refused_as_numbered_from_one_not_as_a_leading_zero(text: str,
                                                                                  code: Refusal) -> None:
    """'c00' was told "numbers are written without leading zeros (c0, not
    c00)", and c0 is refused in turn ("candidates are numbered from 1"):
    the advice named no move. A number that is zero however written is
    refused as numbered from 1, as c0 is."""
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(text)
    assert info.value.reason is not None and info.value.reason.params["problem"] == Reason(code)


_NUMBER = st.sampled_from(["", "0", "00", "01", "1", "2", "09", "10", "010", "12"])


@given(st.tuples(st.sampled_from(["c", "C", "s", "r", "w", "t", "T", "f"]), _NUMBER,
                 st.sampled_from(["", "f", "F", "t"]), _NUMBER, st.sampled_from(["", " "])).map("".join)
       | st.text(alphabet="cstfrwCTF0123456789 ,", max_size=16))
def test_a_text_read_as_a_move_is_that_move_s_own_text(text: str) -> None:
    """One notation, one text: what parse reads is, up to case and the
    spaces around it, exactly what str prints."""
    try:
        move = Move.parse(text)
    except InvalidMoveError:
        return
    assert str(move) == text.strip().lower()


def test_legal_moves_and_places_read_back_as_the_same_text() -> None:
    from terrace import Board, get_rules

    for variant in ("terrace", "falling-star", "wood"):
        board = Board.from_number(5, get_rules(variant, piles=12, decks=3) if variant == "wood"
                                  else get_rules(variant))
        for _ in range(40):
            moves = list(board.legal_moves)
            for move in moves:
                assert Move.parse(str(move)) == move and Move.parse(str(move).upper()) == move
                place = str(move)[:1] + (str(move.source_index) if move.source in "tf" else "")
                if not move.is_choice and not move.is_draw:
                    assert move in board.moves_from(place)
            board.push(moves[len(moves) // 2])
            if not board.legal_moves:
                break


def test_a_move_list_holds_at_most_max_moves() -> None:
    """parse_moves read any number of moves (a 10 MB --moves text was a
    list of millions of moves before anything looked at them)."""
    from terrace.moves import MAX_MOVES

    assert len(parse_moves("s " * MAX_MOVES)) == MAX_MOVES
    with pytest.raises(InvalidMoveError, match=f"at most {MAX_MOVES:,} moves") as info:
        parse_moves("s," * (MAX_MOVES + 1))
    assert info.value.code is Refusal.MOVES_TOO_MANY


def test_a_huge_word_is_refused_without_being_read_whole() -> None:
    with pytest.raises(InvalidMoveError, match=r"write e\.g\.") as info:
        Move.parse("t" * 10**7)
    assert len(str(info.value)) < 300


@pytest.mark.parametrize("space", ["\u00a0", "\u3000", "\u2028", "\u0085", "\u1680", "\x1c", "\u2009"])
def test_a_unicode_space_separates_no_moves(space: str) -> None:
    """`--moves` and parse_moves read U+00A0, U+3000, U+2028 and other
    Unicode spaces as separators (the reader split on \\s), and Move.parse
    stripped them, while docs/notation.md says spaces and commas: a move
    list read here could read otherwise in another program. Only ASCII
    white space and commas separate; anything else is part of a word."""
    with pytest.raises(InvalidMoveError, match="is not a move"):
        parse_moves(f"c1{space}s")
    with pytest.raises(InvalidMoveError, match="is not a move"):
        Move.parse(f"{space}wf")
    escaped = space.encode("unicode_escape").decode("ascii")
    result = CliRunner().invoke(main, ["show", "-n", "7", "--moves", f"c1{space}s"])
    assert result.exit_code == 1 and f"move 1 is illegal: 'c1{escaped}s'" in result.stderr, result.stderr
    line = CliRunner().invoke(main, ["hint", "-n", "7", "--peek", "--line", f"c1{space}s"])
    assert line.exit_code == 1 and "--line: " in line.stderr and escaped in line.stderr, line.stderr


def test_the_documented_separators_separate() -> None:
    assert set(SEPARATORS) == set(" \t\n\r\x0b\x0c,")
    text = "c1" + "".join(f"{sep}s" for sep in SEPARATORS) + " \r\n ,wf"
    assert [str(m) for m in parse_moves(text)] == ["c1"] + ["s"] * len(SEPARATORS) + ["wf"]
    assert str(Move.parse(" \t wf \r\n")) == "wf"


class _Index:
    """A whole number of a type of its own (as numpy's int64 is)."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


@pytest.mark.parametrize(("source_index", "target_index"),
                         [(_Index(2), 3), (2, _Index(3)), (_Index(2), _Index(3))])
def test_either_index_of_another_whole_number_type_is_kept_as_an_int(
        source_index: object, target_index: object) -> None:
    """A move's indexes of a whole-number type other than ``int`` are made
    ``int``s, the target's when the source's is already one too (a
    mutation audit: only a non-int source index was tried)."""
    move = Move("t", source_index, "t", target_index)  # type: ignore[arg-type]
    assert move == Move("t", 2, "t", 3) and str(move) == "t2t3"
    assert type(move.source_index) is int and type(move.target_index) is int
