"""Irohanihohedo's picker shortcuts pressed on the app: the likeliest card first (any colour already
in the trick is owed), the colours in order of likelihood, every arrow wrapping, only unseen cards
of the deck offered, the only possible card ready for OK, the keypad entering a number at once
when no longer number of the deck begins with it, a lone 0 typing ten, and the deck question
answered by digits."""

from __future__ import annotations

from typing import Any

from companion.engine.base import Answer, Game
from companion.engine.tricks import SuitedCard
from companion.games.irohanihohedo.rules import Play, deck_mask
from companion.games.irohanihohedo.screens import DONE, DeckScreen, TrickScreen
from companion.hw.keys import Key, KeyEvent
from companion.ui.picker import Grid
from companion.ui.planner import enter_by_keys, presses_for
from tests.ui.helpers import enter, make_app, new_game, texts

THREE_DECK = [1, 2, 3, 4, 5, 6]  # a told 3-player deck: no two-digit number


def dealt(numbers: list[int] | None = THREE_DECK, players: int = 3) -> Game[Any]:
    """A new game whose deck question is answered with ``numbers`` (None: skipped, the house ruling)."""
    game = new_game("irohanihohedo", players, dealer=0)
    question = game.decision.question  # type: ignore[union-attr]
    game.push(Answer(question.key, deck_mask(game.setup.cards, numbers) if numbers else 0))
    return game


def picker(game: Game[Any], *cards: str) -> tuple[Any, TrickScreen]:
    app = make_app(game)
    enter(app, texts(game, *cards))
    screen = app.top
    assert isinstance(screen, TrickScreen)
    return app, screen


def offered(grid: Grid[SuitedCard]) -> set[SuitedCard]:
    return {card for row in grid.rows for _, card in row}


def test_only_the_deck_s_unseen_cards_are_offered() -> None:
    _, screen = picker(dealt(), "O2")
    cards = offered(screen.grid)
    assert {card.rank for card in cards} == set(THREE_DECK)
    assert SuitedCard("O", 2) not in cards and len(cards) == 5 * 6 - 1


def test_a_follower_starts_on_the_lead_colour() -> None:
    _, screen = picker(dealt(), "O2")
    assert screen.grid.value.suit == "O"
    assert presses_for(screen.app, Play(screen.seat, screen.grid.value)) == [KeyEvent(Key.OK)]


def test_every_colour_already_in_the_trick_counts_as_owed() -> None:
    """P2 led bird, P3 played fan: P1, proved out of bird, owes fan and starts there."""
    _, screen = picker(dealt(), "O2", "G3")
    screen.deal.watch.declined[screen.seat].append(("O", 0))
    try:
        grid = screen.card_grid()
        assert grid.value.suit == "G"
        weight = screen.likelihood(screen.seat, grid)
        assert weight(SuitedCard("O", 4)) == 0.0 and weight(SuitedCard("G", 4)) > weight(SuitedCard("R", 4)) > 0
    finally:
        screen.deal.watch.declined[screen.seat].pop()


def test_the_next_likeliest_colours_are_one_up_or_down_away() -> None:
    _, screen = picker(dealt(), "O2", "G3")
    grid = screen.grid
    owed = {"O", "G"}
    assert grid.value.suit in owed
    assert {grid.moved(Key.UP).value.suit, grid.moved(Key.DOWN).value.suit} & (owed - {grid.value.suit})


def test_every_arrow_wraps_around() -> None:
    app, screen = picker(dealt())
    grid = screen.grid
    group = grid.places(grid.groups[grid.row])
    screen.grid = grid.at_place(group[0])
    app.handle(KeyEvent(Key.LEFT))
    assert (screen.grid.row, screen.grid.col) == group[-1]  # before the lowest number: the highest
    app.handle(KeyEvent(Key.RIGHT))
    assert (screen.grid.row, screen.grid.col) == group[0]
    screen.grid = grid.at_place((0, 0))
    app.handle(KeyEvent(Key.UP))
    assert screen.grid.row == len(grid.rows) - 1  # above the first colour: the last
    app.handle(KeyEvent(Key.DOWN))
    assert screen.grid.row == 0


def test_the_only_card_that_can_come_is_offered_ready_for_ok() -> None:
    """A seat proved out of four colours holds only the fifth: with one card of it unseen, that card
    is under the cursor and one OK (one ``#``) enters it."""
    game = dealt()
    _, screen = picker(game, "O2")
    declined = screen.deal.watch.declined[screen.seat]
    declined += [(colour, 0) for colour in "OGBY"]  # bird, fan, butterfly, umbrella: flower is left
    try:
        only = Grid.of([[(4, SuitedCard("O", 4))], [(5, SuitedCard("R", 5))]])
        start = screen.likely_start(screen.seat, only)
        assert start.value == SuitedCard("R", 5)
        screen.grid = start
        action = Play(screen.seat, SuitedCard("R", 5))
        assert presses_for(screen.app, action) == [KeyEvent(Key.OK)]
        assert presses_for(screen.app, action, "keypad") == [KeyEvent(Key.HASH)]
    finally:
        declined.clear()


def test_a_one_is_entered_at_once_when_the_deck_has_no_ten_to_twelve() -> None:
    app, screen = picker(dealt(), "O2")
    before = len(app.session.game.actions)  # type: ignore[union-attr]
    app.handle(KeyEvent(Key.N1))
    assert app.session is not None and len(app.session.game.actions) == before + 1
    assert app.session.game.actions[-1] == Play(screen.seat, SuitedCard("O", 1))


def test_a_one_waits_for_hash_while_an_eleven_is_in_the_deck() -> None:
    app, screen = picker(dealt([1, 3, 5, 7, 9, 11]), "O3")
    before = len(app.session.game.actions)  # type: ignore[union-attr]
    app.handle(KeyEvent(Key.N1))
    assert app.session is not None and len(app.session.game.actions) == before
    assert app.top.grid.value == SuitedCard("O", 1)  # type: ignore[attr-defined]
    app.handle(KeyEvent(Key.HASH))
    assert app.session.game.actions[-1] == Play(screen.seat, SuitedCard("O", 1))


def test_one_back_undoes_a_card_entered_by_one_key() -> None:
    app, _ = picker(dealt(), "O2")
    before = len(app.session.game.actions)  # type: ignore[union-attr]
    app.handle(KeyEvent(Key.N1))
    app.handle(KeyEvent(Key.BACK, long=True))
    app.handle(KeyEvent(Key.OK))
    assert app.session is not None and len(app.session.game.actions) == before


def test_a_lone_zero_types_ten() -> None:
    """No Irohanihohedo card is 0: ``0`` alone enters the ten of the colour shown, ``1`` ``0`` still does."""
    app, screen = picker(dealt(None), "O2")
    colour = screen.grid.value.suit
    keys(app, "N1", "N0")
    assert app.session is not None and app.session.game.actions[-1] == Play(screen.seat, SuitedCard(colour, 10))
    follower = app.top
    assert isinstance(follower, TrickScreen)
    keys(app, "B", "N0")
    assert app.session.game.actions[-1] == Play(follower.seat, SuitedCard(list(app.session.game.colours)[1], 10))


def test_on_the_card_keypad_the_picker_starts_where_hash_alone_enters_a_number_a_digit_cannot() -> None:
    """With every number in play and the card keypad in use, the start is a 1 or a 10-12 of the lead
    colour (``1`` waits, the others take two digits), so a right guess there is one press and any
    other number one digit; on the joystick the start is the arrows' (likely_start)."""
    game = dealt(None)
    app = make_app(game)
    on_joystick = make_app(dealt(None))
    for action in texts(game, "O2"):
        enter_by_keys(app, action, "keypad")
        enter_by_keys(on_joystick, action, "joystick")
    screen = app.top
    assert isinstance(screen, TrickScreen) and app.card_keypad and not on_joystick.card_keypad
    assert screen.grid.value.suit == "O" and screen.grid.value.rank in (1, 10, 11, 12)
    assert presses_for(app, Play(screen.seat, screen.grid.value), "keypad") == [KeyEvent(Key.HASH)]
    arrows = on_joystick.top
    assert isinstance(arrows, TrickScreen)
    assert arrows.grid == arrows.grid.best_start(arrows.likelihood(arrows.seat, arrows.grid))


def test_the_deck_question_is_typed_by_digits() -> None:
    """Each number ticks as it is typed (``0`` is ten, ``1`` waits for ``#`` beside 10-12), the cursor
    goes to Done, and ``#`` answers; the journal hears the answer the arrows would give."""
    game = new_game("irohanihohedo", 3, dealer=0)
    app = make_app(game)
    screen = app.top
    assert isinstance(screen, DeckScreen) and not screen.ticked
    keys(app, "N2", "N5")
    assert screen.ticked == {2, 5} and screen.grid.value == DONE
    keys(app, "N1")
    assert screen.ticked == {2, 5} and screen.grid.value == 1  # 1, or 10 to 12: it waits
    keys(app, "HASH", "N6", "N8", "N9", "N0")
    assert screen.ticked == {1, 2, 5, 6, 8, 9, 10} and screen.grid.value == DONE
    keys(app, "N1", "HASH")  # typed again: unticked
    keys(app, "HASH")
    answer = Answer("numbers:3", deck_mask(game.setup.cards, [2, 5, 6, 8, 9, 10]))
    assert app.session is not None and app.session.game.actions == [answer]


def keys(app: Any, *names: str) -> None:
    for name in names:
        app.handle(KeyEvent(Key[name]))
