"""Reading a record whole with deferred actions rebuilds exactly what reading it line by line does.

The device resumes a journal and ``companion replay`` reads a record with ``GameBuilder(defers=True)``:
an action undone at once is checked, not applied and taken back. Whatever the record, the game, the
count of good lines and the refusal (its words and its line) must be those of the plain builder.
"""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.record import GameBuilder, dumps, export_lines, read_record
from companion.sim import random_game

GAMES = {game_id: random_game(game_id, players, random.Random(3))
         for game_id, players in (("tezuma", 3), ("irohanihohedo", 4), ("tourney", 4), ("zenjidou", 3))}
UNDO = dumps({"type": "undo"})


@st.composite
def journals(draw: st.DrawFn) -> list[str]:
    """A real game's record with undos put in (single and in runs, some undoing a line that then
    comes again, some one too many), and sometimes a line changed into an illegal or a broken one."""
    game = GAMES[draw(st.sampled_from(sorted(GAMES)))]
    lines = export_lines(game)
    header, actions = lines[0], lines[1:draw(st.integers(1, len(lines)))]
    out = [header]
    for index, line in enumerate(actions):
        out.append(line)
        kind = draw(st.sampled_from(["none"] * 6 + ["redo", "undo-run", "wrong-then-undo"]))
        if kind == "redo":
            out += [UNDO, line]
        elif kind == "undo-run":
            run = draw(st.integers(1, 3))
            out += [UNDO] * run + actions[max(0, index + 1 - run):index + 1]
        elif kind == "wrong-then-undo":
            out += [actions[max(0, index - 1)], UNDO]  # a repeated earlier card: usually illegal
    damage = draw(st.sampled_from(["none", "none", "illegal", "garbage", "extra-undo"]))
    where = draw(st.integers(1, len(out)))
    if damage == "illegal":
        out.insert(where, out[where - 1])  # a line again: an action twice, or the header as an action
    elif damage == "garbage":
        out.insert(where, json.dumps({"type": "play", "seat": 99}))
    elif damage == "extra-undo":
        out[1:1] = [UNDO]
    return out


def built(lines: list[str], *, defers: bool) -> tuple[int, str | None, int | None, list[str]]:
    builder: GameBuilder = read_record(lines, GameBuilder(defers=defers))
    failure = builder.failure
    game = export_lines(builder.game) if builder.game is not None else []
    return builder.good, None if failure is None else str(failure), None if failure is None else failure.line, game


@settings(max_examples=150)
@given(journals())
def test_deferred_reading_gives_the_same_game_prefix_and_refusal(lines: list[str]) -> None:
    assert built(lines, defers=True) == built(lines, defers=False)


def test_an_action_undone_at_once_is_checked_not_applied() -> None:
    game = GAMES["tezuma"]
    lines = export_lines(game)[:6]
    applied: list[object] = []

    class Counting(GameBuilder):
        def begin(self, setup, line):  # type: ignore[no-untyped-def]
            super().begin(setup, line)
            original = self.game.apply  # type: ignore[union-attr]

            def counting(action: object) -> None:
                applied.append(action)
                original(action)

            self.game.apply = counting  # type: ignore[union-attr, method-assign]

    journal = [lines[0]] + [line for action in lines[1:] for line in (action, UNDO, action)]
    builder = read_record(journal, Counting(defers=True))
    assert builder.failure is None and builder.good == len(journal)
    assert len(applied) == len(lines) - 1  # each kept action once; none applied only to be undone
    assert export_lines(builder.game) == lines


def test_an_illegal_action_undone_at_once_is_still_refused_at_its_line() -> None:
    lines = export_lines(GAMES["tezuma"])[:4]
    journal = [*lines, lines[-1], UNDO]  # the same card again: refused, though undone at once
    plain, deferred = read_record(journal, GameBuilder()), read_record(journal, GameBuilder(defers=True))
    assert deferred.failure is not None and deferred.failure.line == len(lines) + 1
    assert (str(deferred.failure), deferred.good) == (str(plain.failure), plain.good)
