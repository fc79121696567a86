"""Undo and copy are bounded, and a push is all or nothing, for every game with a simulated table.

``Game.pop`` goes back to the latest snapshot and applies at most ``CHECKPOINT_EVERY - 1`` actions
again, ``Game.copy`` applies none, and an ``apply`` that fails halfway leaves the state and the log
as the fold of the log before the push. The yardstick is always a fresh replay of the log.
"""

from __future__ import annotations

import gc
import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.engine.base import Game, snapshot
from companion.registry import game_class
from companion.sim import new_random_game, play_out, table_model
from tests.games import every_simulated_game

pytestmark = pytest.mark.usefixtures("with_the_test_game")
GAME_IDS = every_simulated_game()


class InjectedFault(RuntimeError):
    """Raised inside ``apply`` by the tests, as a bug or a full memory would."""


def replayed(game: Game[Any]) -> Game[Any]:
    """A fresh game folded from ``game``'s setup and log: what its state must equal."""
    fresh = type(game)(game.setup)
    for action in game.actions:
        fresh.push(action)
    return fresh


def assert_is_the_fold_of_its_log(game: Game[Any]) -> None:
    fresh = replayed(game)
    assert game.state == fresh.state
    assert game.summary() == fresh.summary()
    assert game.decision == fresh.decision


@contextmanager
def counting_applies(cls: type[Game[Any]]) -> Iterator[list[int]]:
    """Count every ``apply`` of ``cls`` (of every instance) while the block runs."""
    count = [0]
    original = cls.apply

    def apply(self: Game[Any], action: Any) -> None:
        count[0] += 1
        original(self, action)

    with mock.patch.object(cls, "apply", apply):
        yield count


@contextmanager
def failing_apply(cls: type[Game[Any]], after_lines: int) -> Iterator[list[bool]]:
    """The next ``apply`` raises :class:`InjectedFault` once it has run ``after_lines`` lines of
    code (its own and those it calls), so whatever those lines changed stays changed; later applies
    (the undo's own) run normally. Yields ``[raised]``."""
    original = cls.apply
    raised = [False]
    armed = [True]

    def apply(self: Game[Any], action: Any) -> None:
        if not armed[0]:
            original(self, action)
            return
        armed[0] = False
        lines = [0]

        def trace(frame: FrameType, event: str, arg: Any) -> Any:
            if event == "line":
                lines[0] += 1
                if lines[0] > after_lines:
                    raised[0] = True
                    sys.settrace(None)
                    raise InjectedFault(f"failed after {after_lines} lines")
            return trace

        previous, collecting = sys.gettrace(), gc.isenabled()
        gc.disable()  # a collection's finalizer would take the fault, and Python ignores an error there
        sys.settrace(trace)
        try:
            original(self, action)
        finally:
            sys.settrace(previous)
            if collecting:
                gc.enable()

    with mock.patch.object(cls, "apply", apply):
        yield raised


def start(game_id: str, seed: int, actions: int, rate: float = 0.4) -> tuple[Game[Any], random.Random, Any]:
    """A random game ``actions`` actions in (or over), the rng and the simulated table that played it."""
    rng = random.Random(seed)
    game = new_random_game(game_id, min(4, game_class(game_id).max_players), rng)
    table = table_model(game, rng, rate)
    play_out(game, rng, table=table, max_actions=actions)
    return game, rng, table


@pytest.mark.parametrize("game_id", GAME_IDS)
@given(seed=st.integers(0, 2**32 - 1), played=st.integers(0, 300), lines=st.integers(0, 400),
       rate=st.sampled_from([0.0, 0.5, 1.0]))
def test_an_apply_that_fails_halfway_changes_nothing(game_id: str, seed: int, played: int, lines: int,
                                                     rate: float) -> None:
    game, rng, table = start(game_id, seed, played, rate)
    if game.is_over():
        return
    log = list(game.actions)
    action = table.choose(game, rng)
    with failing_apply(type(game), lines) as raised:
        try:
            game.push(action)
        except InjectedFault:
            assert raised[0]
            assert game.actions == log
        else:
            assert not raised[0]  # apply ran fewer lines than ``lines``: the push went through
            assert game.actions == [*log, action]
    assert_is_the_fold_of_its_log(game)
    if game.actions == log:
        game.push(action)  # the game goes on as if nothing had failed
    assert_is_the_fold_of_its_log(game)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_refused_action_changes_nothing(game_id: str) -> None:
    game, _, _ = start(game_id, 3, 80)
    state, log = repr(game.state), list(game.actions)
    for action in [game.peek(), object()]:  # the last action again is out of turn or already played
        with counting_applies(type(game)) as applied:
            assert not game.is_legal(action)
            with pytest.raises(ValueError):
                game.push(action)
        assert applied == [0]
    assert (repr(game.state), game.actions) == (state, log)


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize("every", [None, 8])  # the game's own spacing, and one many times shorter than a game
def test_undo_applies_a_bounded_number_of_actions_whatever_the_log_length(game_id: str, every: int | None) -> None:
    with mock.patch.object(Game, "CHECKPOINT_EVERY", every or Game.CHECKPOINT_EVERY):
        game, _, _ = start(game_id, 11, 10_000)
        assert game.is_over()
        spacing, played = game.CHECKPOINT_EVERY, len(game.actions)
        assert every is None or played > 4 * spacing  # a log many snapshots long
        cls = type(game)
        most = 0
        while len(game.actions) > 1:
            length = len(game.actions)
            with counting_applies(cls) as applied:
                game.pop()
            # from the latest snapshot at or before the new length: its distance, never the log's length
            assert applied[0] == (length - 1) % spacing
            most = max(most, applied[0])
            if length % 37 == 0:  # now and then, the fold of the log (a replay each time would be slow)
                assert_is_the_fold_of_its_log(game)
        assert most == min(spacing, played) - 1  # the bound is reached, and it is the spacing's
        assert_is_the_fold_of_its_log(game)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_copy_applies_nothing_and_stays_independent(game_id: str) -> None:
    game, rng, table = start(game_id, 5, 150)
    cls = type(game)
    with counting_applies(cls) as applied:
        clone = game.copy()
    assert applied == [0]
    assert clone.actions == game.actions and clone.actions is not game.actions
    assert clone.state == game.state and clone.summary() == game.summary()
    state, log = repr(game.state), list(game.actions)
    play_out(clone, rng, table=table, max_actions=60)  # the copy plays on and undoes: the original stays
    for _ in range(min(70, len(clone.actions))):  # past what it played on, where the game is that long
        clone.pop()
    assert (repr(game.state), game.actions) == (state, log)
    assert_is_the_fold_of_its_log(clone)
    assert_is_the_fold_of_its_log(game)


# Values a state holds: numbers, strings and tuples (shared by a snapshot), in lists and dicts
# (copied), nested, so that some lists hold only immutable values and some hold mutable ones.
state_values = st.recursive(
    st.integers() | st.text(max_size=3) | st.tuples(st.integers()),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=3), inner, max_size=5),
    max_leaves=30,
)


def change_every_container(value: Any) -> None:
    """Append to every list and add a key to every dict in ``value``, innermost first."""
    if isinstance(value, list):
        for item in value:
            change_every_container(item)
        value.append("changed")
    elif isinstance(value, dict):
        for item in value.values():
            change_every_container(item)
        value["changed"] = 0


@given(value=state_values)
def test_a_snapshot_is_untouched_by_any_later_change(value: Any) -> None:
    """Whether a list or dict holds only immutable values (copied whole) or mutable ones too (copied
    item by item), no change to the original reaches its snapshot."""
    copied = snapshot(value, {})
    expected = repr(copied)
    assert copied == value
    change_every_container(value)
    assert repr(copied) == expected
