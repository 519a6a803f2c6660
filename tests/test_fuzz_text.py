"""Fuzzing the texts the engine reads: deal strings in every spelling and
with look-alike characters, move texts, and records. Whatever comes in is
either read into exactly what the canonical text says or refused with the
engine's error in one line; nothing else escapes."""

from __future__ import annotations

import json
import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from terrace.board import Board
from terrace.cards import CODE, RANKS
from terrace.deal import Deal
from terrace.errors import InvalidDealError, InvalidMoveError, InvalidRecordError
from terrace.moves import Move, parse_moves
from terrace.record import GameRecord
from terrace.rules import Rules
from terrace.symbols import DEAL_SPACES
from terrace.variants import PRESETS, get_rules

LOOKALIKES = ["\u200b", "\ufeff", "\u00a0", "\u3000", "\u0301", "\x00", "\x1b", "\u202e", "\u2028",
              "１", "٣", "Ａ", "Ｓ", "♠", "♥", "ſ", "\u212a", "İ", "10", "1O", "T", "t"]
SEPARATORS = [" ", "\t", "\n", "\r\n", "  ", "\x0b", "\x0c", "\x1c", "\u3000", "\u00a0", "\u2028", "\u0085",
              "\u202f", "\u2007"]


def _spellings(code: str) -> list[str]:
    """Every spelling the notation reads for a card code."""
    rank, suit = code
    ranks = [rank, rank.lower()] + (["10"] if rank == "T" else [])
    return [r + s for r in ranks for s in (suit, suit.lower())]


@settings(max_examples=60, deadline=None)
@given(decks=st.integers(1, 8), number=st.integers(0, 2**63 - 1), seed=st.integers(0, 2**32),
       edits=st.lists(st.sampled_from(["none", "lookalike", "drop", "double", "swap", "junk"]), max_size=3))
def test_a_deal_string_reads_as_its_cards_or_is_refused_in_one_line(
    decks: int, number: int, seed: int, edits: list[str]
) -> None:
    rules = Rules(decks=decks, reserve=min(11, decks * 5), piles=9, candidates=3)
    deal = Deal.from_number(number, rules)
    rng = random.Random(seed)
    words = [rng.choice(_spellings(CODE[card])) for card in deal.cards]
    changed = False
    for edit in edits:
        i = rng.randrange(len(words))
        if edit == "lookalike":
            at = rng.randrange(len(words[i]) + 1)
            words[i] = words[i][:at] + rng.choice(LOOKALIKES) + words[i][at:]
            changed = True
        elif edit == "drop":
            del words[i]
            changed = True
        elif edit == "double":
            words.insert(i, words[i])
            changed = True
        elif edit == "swap":
            j = rng.randrange(len(words))
            words[i], words[j] = words[j], words[i]
        elif edit == "junk":
            words[i] = rng.choice(["XS", "AX", "1S", "11S", "0S", "", "AS2S", "10", "♠A"])
            changed = True
    gaps = [rng.choice(SEPARATORS) for _ in words]
    text = rng.choice(["", " "]) + "".join(w + gap for w, gap in zip(words, gaps, strict=True))
    # (a line or paragraph separator, U+3000 or a control separator between two
    # cards is part of a word: no card, so refused, never silently a gap)
    odd = any(char not in DEAL_SPACES for gap in gaps for char in gap)
    try:
        read = Deal.parse(text, rules)
    except InvalidDealError as error:
        message = str(error)
        assert changed or odd, message  # (every spelling, ASCII or no-break gaps, any order of a pack reads)
        assert message and message.isprintable() and len(message) < 400, message
        return
    assert not odd, repr(text)
    # accepted: exactly the cards its words name (a no-break space put in as
    # a look-alike at a word's end is a gap), each pack whole
    words = [w for w in re.split(f"[{DEAL_SPACES}]+", text) if w]
    assert read.text() == " ".join(w.upper().replace("10", "T") for w in words)
    assert Deal.parse(read.text(), rules) == read
    read.check(rules)


MOVE_PIECES = ["c", "s", "r", "w", "t", "f", "C", "S", "R", "W", "T", "F", "1", "2", "9", "0", "10",
               "999999", "1000000", " ", "\t", ",", *LOOKALIKES]


@settings(max_examples=200, deadline=None)
@given(pieces=st.lists(st.sampled_from(MOVE_PIECES), max_size=6))
def test_a_move_text_reads_as_its_notation_or_is_refused_in_one_line(pieces: list[str]) -> None:
    text = "".join(pieces)
    try:
        move = Move.parse(text)
    except InvalidMoveError as error:
        message = str(error)
        assert message.isprintable() and len(message) < 400, message
        return
    assert str(move) == text.strip().lower()
    assert Move.parse(str(move)) == move
    assert [str(m) for m in parse_moves(f" {text} ,{text}")] == [str(move)] * 2


@settings(max_examples=25, deadline=None)
@given(variant=st.sampled_from(sorted(PRESETS)), number=st.integers(0, 2**63 - 1),
       seed=st.integers(0, 2**32), length=st.integers(0, 80))
def test_record_text_parses_back_to_the_same_text(variant: str, number: int, seed: int, length: int) -> None:
    board = Board.from_number(number, get_rules(variant))
    rng = random.Random(seed)
    for _ in range(length):
        legal = list(board.legal_moves)
        if not legal:
            break
        board.push(rng.choice(legal))
    text = GameRecord.from_board(board, variant).to_json()
    again = GameRecord.from_json(text)
    assert again.to_json() == text
    assert GameRecord.from_json(again.to_json(indent=None)).to_json() == text
    # the same record with keys in another order, spelt in another case, or
    # as UTF-8 bytes with a byte-order mark reads as the same game
    data = json.loads(text)
    shuffled = dict(sorted(data.items(), key=lambda item: rng.random()))
    shuffled["moves"] = [m.upper() if rng.random() < 0.5 else f" {m} " for m in data["moves"]]
    raw = b"\xef\xbb\xbf" + json.dumps(shuffled).encode()
    assert GameRecord.from_json(raw).to_json() == text


@settings(max_examples=40, deadline=None)
@given(cut=st.integers(0, 10_000), seed=st.integers(0, 2**32))
def test_a_truncated_or_damaged_record_is_refused_in_one_line(cut: int, seed: int) -> None:
    board = Board.from_number(seed, get_rules("terrace"))
    board.push_text("c1")
    text = GameRecord.from_board(board, "terrace").to_json()
    rng = random.Random(seed)
    damaged = text[: cut % len(text)]
    if rng.random() < 0.5:  # or one character replaced by a look-alike
        at = rng.randrange(len(text))
        damaged = text[:at] + rng.choice(LOOKALIKES + list(RANKS)) + text[at + 1:]
    try:
        GameRecord.from_json(damaged)
    except InvalidRecordError as error:
        assert str(error).isprintable() and len(str(error)) < 600, str(error)
