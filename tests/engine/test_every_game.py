"""Invariants every game keeps, over random legal games from its simulated table.

Each game with a table model (:func:`companion.sim.simulated_game_ids`) is checked here, so a new
game's table brings these checks with it: games end, undo inverts push, the written record replays to
the live state and garbage is refused without a trace. What only one game promises (its cards are
conserved, its scoring, its entry orders) stays in that game's own tests. A game only the tests know
(Plain Tricks, written against the trick-game contract alone) joins them through the registry
(tests/games.py), as a new game's package would.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.engine.base import Game
from companion.engine.tricks import TrickGame
from companion.errors import CompanionError
from companion.record import GameBuilder, export_lines, read_record
from companion.registry import game_class
from companion.sim import new_random_game, play_out, table_model
from tests.games import every_simulated_game

pytestmark = pytest.mark.usefixtures("with_the_test_game")
GAME_IDS = every_simulated_game()
seeds = st.integers(0, 2**32 - 1)
# the table model's rate: how often Tezuma's players use an ability, how often Tourney's predictions
# are entered at the reveal rather than before the plays (Irohanihohedo and Zenjidou ignore it)
rates = st.sampled_from([0.0, 0.3, 0.5, 0.8, 1.0])
# every game's card codes and keywords, so that some garbage is almost a card and some parses
near_cards = st.text(alphabet="BUWRFMTSCPNOGY?:0123456789+ -abcdefghiklmnoprstuwy", max_size=24)
garbage = st.lists(near_cards | st.text(max_size=6), max_size=30)


def start(game_id: str, data: st.DataObject, seed: int) -> tuple[Game, random.Random]:
    cls = game_class(game_id)
    players = data.draw(st.integers(cls.min_players, cls.max_players), label="players")
    rng = random.Random(seed)
    return new_random_game(game_id, players, rng), rng


def finish(game: Game, rng: random.Random, *, rate: float = 0.3, max_actions: int = 10_000) -> None:
    """Play ``game`` on with its simulated table."""
    play_out(game, rng, ability_rate=rate, max_actions=max_actions, table=table_model(game, rng, rate))


def replay(game: Game) -> Game:
    """The game its written record rebuilds."""
    builder: GameBuilder = read_record(export_lines(game), GameBuilder(game_class))
    assert builder.failure is None and builder.game is not None, builder.failure
    return builder.game


def test_every_game_has_a_simulated_table() -> None:
    assert {"tezuma", "tezuma-2015", "irohanihohedo", "tourney", "zenjidou", "plain-tricks"} <= set(GAME_IDS)


@pytest.mark.parametrize("game_id", GAME_IDS)
@given(data=st.data(), seed=seeds, rate=rates)
def test_random_legal_games_end_with_every_trick_decided(game_id: str, data: st.DataObject, seed: int,
                                                         rate: float) -> None:
    game, rng = start(game_id, data, seed)
    finish(game, rng, rate=rate)
    assert game.is_over() and game.decision is None
    deals = game.state.deals
    assert len(deals) == game.deal_count()
    for deal in deals:
        assert len(deal.tricks) == game.tricks_in_deal(deal) == sum(deal.tricks_won)
        assert all(trick.result is not None for trick in deal.tricks) and deal.scores is not None
    assert sum(game.totals()) == sum(sum(deal.scores) for deal in deals)
    assert game.state.revokes == []  # a table that follows whenever it can never revokes


@pytest.mark.parametrize("game_id", GAME_IDS)
@given(data=st.data(), seed=seeds, rate=rates)
def test_is_over_is_no_decision_left(game_id: str, data: st.DataObject, seed: int, rate: float) -> None:
    """The layer's is_over (the last deal scored, which check asks on every push) says what
    ``decision is None`` says, at every step of a game."""
    game, rng = start(game_id, data, seed)
    table = table_model(game, rng, rate)
    while game.decision is not None:
        assert not game.is_over()
        action = table.choose(game, rng)
        game.push(action)
        table.after(game, action)
    assert game.is_over()


@pytest.mark.parametrize("game_id", GAME_IDS)
@given(data=st.data(), seed=seeds, rate=rates)
def test_asked_question_is_the_decisions(game_id: str, data: st.DataObject, seed: int, rate: float) -> None:
    """The open question an answer is checked against (which Tezuma and Zenjidou read without
    building the decision) is the decision's question, at every step of a game."""
    game, rng = start(game_id, data, seed)
    assert isinstance(game, TrickGame)
    table = table_model(game, rng, rate)
    while True:
        decision = game.decision
        assert game.asked_question() == (decision.question if decision is not None else None)
        if decision is None:
            break
        action = table.choose(game, rng)
        game.push(action)
        table.after(game, action)


def assert_is_the_fold_of_its_log(game: Game) -> None:
    """The state is what a fresh game folds from the same setup and log."""
    fresh = type(game)(game.setup)
    for action in game.actions:
        fresh.push(action)
    assert game.state == fresh.state and game.summary() == fresh.summary()


@pytest.mark.parametrize("game_id", GAME_IDS)
@given(data=st.data(), seed=seeds, steps=st.integers(1, 400), rate=rates)
def test_pop_undoes_push(game_id: str, data: st.DataObject, seed: int, steps: int, rate: float) -> None:
    game, rng = start(game_id, data, seed)
    table = table_model(game, rng, rate)
    for step in range(steps):
        if game.is_over():
            break
        # States compare as values (a set's repr follows its insertion history, which an undo need not
        # repeat); the copy before the push is the game's own snapshot, so every 50 steps and at the
        # end the state is held against a fresh fold of the log as well.
        before = game.snapshot_state(game.state), game.decision, list(game.actions)
        action = table.choose(game, rng)
        game.push(action)
        assert game.peek() == action
        assert game.pop() == action
        assert (game.state, game.decision, list(game.actions)) == before  # the summary folds from these
        game.push(action)
        table.after(game, action)
        if step % 50 == 49:
            assert_is_the_fold_of_its_log(game)
    assert_is_the_fold_of_its_log(game)


@pytest.mark.parametrize("game_id", GAME_IDS)
@given(data=st.data(), seed=seeds, steps=st.integers(0, 400), rate=rates)
def test_replaying_the_written_record_gives_the_live_state(game_id: str, data: st.DataObject, seed: int, steps: int,
                                                           rate: float) -> None:
    game, rng = start(game_id, data, seed)
    finish(game, rng, rate=rate, max_actions=steps)
    replayed = replay(game)
    assert repr(replayed.state) == repr(game.state)
    assert replayed.summary() == game.summary()


@pytest.mark.parametrize("game_id", GAME_IDS)
@given(data=st.data(), seed=seeds, texts=garbage)
def test_garbage_input_is_refused_or_accepted_never_half_applied(game_id: str, data: st.DataObject, seed: int,
                                                                 texts: list[str]) -> None:
    game, rng = start(game_id, data, seed)
    finish(game, rng, max_actions=rng.randrange(0, 60))
    for text in texts:
        before = repr(game.state), list(game.actions)
        try:
            game.push_text(text)
        except CompanionError as err:  # every refusal is an IllegalAction: a CompanionError and a ValueError
            assert isinstance(err, ValueError) and str(err)
            assert (repr(game.state), list(game.actions)) == before
        else:
            assert game.actions[:-1] == before[1]  # a well-formed entry is one legal action


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize("text", ["B¹", "¹", "W1²", "answer ³", "rest ¹"])
def test_digits_int_cannot_read_are_refused_like_any_typo(game_id: str, text: str) -> None:
    """``"¹".isdigit()`` is true but ``int("¹")`` fails: such an entry is refused, not a crash."""
    game, rng = new_random_game(game_id, game_class(game_id).min_players + 1, random.Random(7)), random.Random(7)
    finish(game, rng, max_actions=20)
    before = repr(game.state), list(game.actions)
    with pytest.raises(CompanionError):
        game.push_text(text)
    assert (repr(game.state), list(game.actions)) == before


FOLD = ("start_deal", "open_trick", "finish_trick", "close_deal", "totals")


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_fold_is_the_layers(game_id: str) -> None:
    """A game varies the fold through its named hooks (new_deal, new_trick, opens_first_trick,
    per_player, ...), never by replacing a step of it."""
    cls = game_class(game_id)
    assert [name for name in FOLD if getattr(cls, name) is not getattr(TrickGame, name)] == []
