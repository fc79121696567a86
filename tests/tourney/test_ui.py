"""Tourney on the device: whole games by key presses alone, the NPC's row and cards, places and hits."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.engine.tricks import SuitedCard
from companion.errors import IllegalAction
from companion.games.tourney.rules import NpcRow, Play, Predict, PredictionsDown, Tourney
from companion.games.tourney.screens import DownScreen, Entry, NpcRowScreen, NpcSeatNotice, PlacesScreen, TrickScreen
from companion.hw.keys import Key, KeyEvent
from companion.record import export_lines, read_record
from companion.sim import new_random_game, play_out, random_game
from companion.ui.planner import enter_by_keys, presses_for
from companion.ui.screens import SetupForm
from companion.ui.tricks import DealScreen, FinalScreen, RevokeScreen
from tests.tourney.test_secret import frame
from tests.ui.helpers import check_golden, choose_game, make_app, press, press_all, renamed, texts

ROW = "W3 W12 F2 F11 S5 C7 C1"


@cache
def simulated(players: int) -> Tourney:
    """A whole game from the simulated table, as the device asks it: the plays, then the predictions
    at the reveal."""
    game = renamed(random_game("tourney", players, random.Random(players), ability_rate=0.5))
    assert isinstance(game, Tourney)
    return game


def enter(app: Any, actions: Any, layout: str = "joystick") -> int:
    """Enter each action by the planner's keys alone (the NPC's row a card at a time); the presses."""
    return sum(enter_by_keys(app, action, layout) for action in actions)


def keys(app: Any, *names: str) -> Any:
    for name in names:
        app.handle(press(Key[name]))
    return app


@pytest.mark.parametrize("players", [3, 4])
def test_a_whole_game_by_keys_matches_its_replay(players: int) -> None:
    played = simulated(players)
    app = make_app(Tourney(played.setup))
    assert app.session is not None
    heard: list[tuple[str, dict[str, Any]]] = []
    app.session.listeners.append(lambda change, data: heard.append((change, data)))
    presses = cards = 0
    for action in played.actions:
        presses += enter_by_keys(app, action)
        assert app.message is None and app.session.game.actions[-1] == action
        cards += len(action.cards) if isinstance(action, NpcRow) else 1
    replayed = read_record(export_lines(app.session.game)).game
    assert app.session.game.summary() == replayed.summary() == played.summary()
    assert heard == [("action", action.to_json()) for action in played.actions]
    while len(app.screens) > 1:  # the last trick, the last deal's table, then the ranking
        app.handle(KeyEvent(app.top.leave_key))
    assert isinstance(app.top, FinalScreen)
    print(f"tourney, {players} players: {presses / cards:.2f} presses per card")
    assert presses / cards <= 5  # 56 cards behind four arrows and OK, plus AUX for the order


def test_the_setup_form_starts_a_game_with_the_chosen_dealer() -> None:
    app = make_app()
    choose_game(app, "tourney")
    form = app.top
    assert isinstance(form, SetupForm) and form.players.value == "4"
    keys(app, "DOWN", "LEFT", *["DOWN"] * 4, "RIGHT", "RIGHT", "DOWN", "OK")  # 3 players, P3 deals, Start
    assert app.session is not None
    game = app.session.game
    assert game.setup.players == ("Aki", "Ben", "Chie") and game.setup.options["dealer"] == 2
    assert isinstance(app.top, NpcSeatNotice)  # the house ruling that seats the NPC, named at set-up
    check_golden(app, "tourney-npc-seat")
    keys(app, "OK")
    assert isinstance(app.top, NpcRowScreen)


def test_four_players_start_without_the_npc_notice() -> None:
    app = make_app()
    choose_game(app, "tourney")
    keys(app, "UP", "OK")  # Start, with 4 players
    assert app.session is not None and isinstance(app.top, TrickScreen)


def three_player_app(language: str = "en") -> Any:
    game = Tourney(Tourney.new_setup(["Aki", "Ben", "Chie"], cards=simulated(3).setup.cards))
    return make_app(game, language=language)


def test_the_npc_row_is_entered_card_by_card_and_back_takes_the_last_one_back() -> None:
    app = three_player_app()
    screen = app.top
    assert isinstance(screen, NpcRowScreen)
    row = NpcRow(tuple(SuitedCard.parse(c) for c in ROW.split()))
    keys = presses_for(app, row)
    assert keys.count(KeyEvent(Key.OK)) == len(row.cards)  # a card at a time, each confirmed
    for event in keys[: keys.index(KeyEvent(Key.OK)) + 1]:
        app.handle(event)
    assert screen.chosen == [SuitedCard("W", 3)]
    with pytest.raises(ValueError, match="not what NpcRowScreen expects"):
        presses_for(app, NpcRow((SuitedCard("W", 4), *row.cards[1:])))  # not the row begun
    check_golden(app, "tourney-npc-row")
    app.handle(press(Key.BACK))
    assert screen.chosen == [] and app.top is screen
    enter(app, [row])
    assert app.session.game.actions == [row]
    assert isinstance(app.top, TrickScreen) and app.top.entry.seat == 1  # P1 deals, P2 leads


def test_the_npcs_card_is_shown_where_the_next_entry_begins_and_needs_no_press() -> None:
    app = three_player_app()
    game = app.session.game
    enter(app, texts(game, ROW, "F5", "F6"))  # P2 leads, P3 plays: the NPC's turn, its card shown at once
    assert game.trick.card_of(3) == SuitedCard("F", 2)
    screen = app.top
    assert isinstance(screen, TrickScreen) and screen.entry == Entry(Play, 0) and len(app.screens) == 1
    drawn = frame_texts(app)
    assert ("Put down F2 for the NPC", True) in drawn  # highlighted
    assert ("the front card of the lead suit", False) in drawn  # and why
    check_golden(app, "tourney-npc")
    enter(app, texts(game, "F7"))
    assert not any("for the NPC" in text for text, _ in frame_texts(app))  # the next entry: read


def test_at_the_reveal_aux_steps_through_the_open_predictions_only() -> None:
    app = three_player_app()
    game = app.session.game
    enter(app, texts(game, ROW, "C9", "C10", "C11"))  # P2, P3, the NPC's C7, P1: every card is down
    screen = app.top
    assert isinstance(screen, TrickScreen) and screen.entry.kind is Predict and screen.entry.seat == 1
    assert screen.entries() == [Entry(Predict, 1), Entry(Predict, 2), Entry(Predict, 0)]  # no play offered
    app.handle(press(Key.AUX, long=True))  # held: back round to the last open prediction
    assert screen.entry == Entry(Predict, 0)
    app.handle(press(Key.AUX))
    assert screen.entry == Entry(Predict, 1)
    assert presses_for(app, Predict(0, "S"))[0] == KeyEvent(Key.AUX, long=True)
    with pytest.raises(ValueError, match="not what TrickScreen expects"):
        presses_for(app, Play(2, SuitedCard("C", 12)))  # every card is down


def test_with_p3_leading_the_npc_plays_once_the_predictions_are_down() -> None:
    """P2 deals: P3 leads, the NPC's seat is next. One press says the predictions are down (the NPC's
    card shown nowhere before it), then the NPC's card is called for, then P1's and P2's plays, and
    only then the predictions, at the reveal."""
    game = Tourney(Tourney.new_setup(["Aki", "Ben", "Chie"], options={"dealer": 1}, cards=simulated(3).setup.cards))
    app = make_app(game)
    enter(app, texts(game, ROW, "S9"))
    assert isinstance(app.top, DownScreen) and game.trick.card_of(3) is None
    assert presses_for(app, PredictionsDown()) == [KeyEvent(Key.OK)]
    assert presses_for(app, PredictionsDown(), "keypad") == [KeyEvent(Key.HASH)]
    check_golden(app, "tourney-down")
    keys(app, "OK")
    assert game.actions[-1] == PredictionsDown() and game.trick.card_of(3) == SuitedCard("S", 5)
    assert isinstance(app.top, TrickScreen) and app.top.entry == Entry(Play, 0)
    assert ("Put down S5 for the NPC", True) in frame_texts(app)
    check_golden(app, "tourney-npc-turn")
    enter(app, texts(game, "S10", "S11"))
    assert isinstance(app.top, TrickScreen) and app.top.entry == Entry(Predict, 2)  # the reveal, from the lead
    enter(app, texts(game, "C", "C", "C"))
    assert isinstance(app.top, PlacesScreen)
    result = game.state.deal.tricks[0].result
    assert result is not None and result.winner == 1 and result.places == (2, 1, 3, 4)


def mid_prediction(language: str = "en") -> Any:
    """Trick 1 of a 4-player game at the reveal: P2 led Cross 9, P3 played Wyvern 2, P4 Cross 13, P1
    Cross 4; P2's prediction is asked first (the lead's), then P3's, P4's and P1's."""
    game = Tourney(Tourney.new_setup(["Aki", "Ben", "Chie", "Dai"], cards=simulated(4).setup.cards))
    app = make_app(game, language=language)
    enter(app, texts(game, "C9", "W2", "C13", "C4"))
    return app


def test_prediction_entry() -> None:
    check_golden(mid_prediction(), "tourney-predict", docs=True)
    check_golden(mid_prediction("ja"), "tourney-predict-ja")


def test_places_and_hits_after_the_trick() -> None:
    app = mid_prediction()
    enter(app, texts(app.session.game, "S", "W", "C", "F"))
    assert isinstance(app.top, PlacesScreen)
    check_golden(app, "tourney-result")


def test_places_with_the_npc_and_the_reminder() -> None:
    app = three_player_app()
    enter(app, texts(app.session.game, ROW, "S9", "S10", "S2", "C", "C", "C"))
    assert isinstance(app.top, PlacesScreen)
    check_golden(app, "tourney-result-npc", docs=True)


def test_a_revoke_proved_by_a_prediction_is_shown_after_the_places() -> None:
    app = mid_prediction()
    game = app.session.game
    enter(app, texts(game, "S", "W", "C", "F"))  # P3 declined Cross
    keys(app, "OK")
    enter(app, texts(game, "F9", "F4", "F2", "F1", "C", "F", "F", "F"))  # P3 leads; at the reveal, a Cross
    assert isinstance(app.top, PlacesScreen)
    keys(app, "OK")
    assert isinstance(app.top, RevokeScreen) and app.top.revoke.seat == 2


def test_a_refusal_in_japanese_uses_tourneys_own_templates() -> None:
    app = three_player_app("ja")
    with pytest.raises(IllegalAction) as info:
        app.session.game.push(Play(1, SuitedCard("C", 9)))
    assert app.ui.refusal(info.value) == "先にNPCの表向きのカード7枚を入力してください"


def test_the_deal_table_has_tricks_hits_and_score_per_player() -> None:
    played = simulated(3)
    app = make_app(Tourney(played.setup))
    first_deal = next(i for i, a in enumerate(played.actions) if app.session and i > 0 and isinstance(a, NpcRow))
    enter(app, played.actions[:first_deal])
    screens = [type(screen) for screen in app.screens]
    assert DealScreen in screens and PlacesScreen in screens
    deal_screen = next(screen for screen in app.screens if isinstance(screen, DealScreen))
    columns = app.ui.deal_columns(app.session.game.state.deals[0])
    assert [head for head, _ in columns] == ["deal.tricks", "tourney.deal.hits", "deal.score"]
    assert all(len(values) == 3 for _, values in columns)
    assert deal_screen.index == 0


key_names = st.sampled_from([Key.OK] * 4 + [Key.UP, Key.DOWN, Key.LEFT, Key.RIGHT] * 2 + [Key.BACK, Key.AUX] * 2)
key_presses = st.lists(st.builds(KeyEvent, key_names, st.sampled_from([False] * 9 + [True])), min_size=40, max_size=300)


@given(st.integers(0, 2**16), st.integers(0, 150), key_presses)
def test_random_presses_never_crash_and_the_record_replays(seed: int, prefix: int, events: list[KeyEvent]) -> None:
    rng = random.Random(seed)
    game = new_random_game("tourney", rng.choice([3, 4]), rng)
    play_out(game, rng, ability_rate=0.3, max_actions=prefix)
    press_all(game, rng, events)


def replayed_until(players: int, found: Any) -> tuple[Any, Any]:
    """An app on the simulated game just before the first action ``found(game, action)`` accepts."""
    played = simulated(players)
    game = Tourney(played.setup)
    for action in played.actions:
        if found(game, action):
            return make_app(game), action
        game.push(action)
    raise AssertionError("the simulated game has no such action")


def test_a_follower_starts_on_the_lead_suit_and_a_right_guess_is_one_press() -> None:
    app, action = replayed_until(4, lambda game, action: isinstance(action, Play) and game.trick.turns)
    screen = app.top
    assert isinstance(screen, TrickScreen) and screen.entry == Entry(Play, action.seat)
    lead = screen.trick.lead_suit
    assert screen.grid.value.suit == lead
    # people win high or duck low: no start is fewer presses away, on average, than the cursor's
    weight = screen.likelihood(action.seat, screen.grid)
    grid = screen.grid

    def expected(start: Any) -> float:
        distance = start.distances()
        places = [((r, c), value) for r, row in enumerate(grid.rows) for c, (_, value) in enumerate(row)]
        return sum(weight(value) * distance[place] for place, value in places)

    ranks = [value.rank for row in grid.rows for _, value in row if value.suit == lead]
    extremes = [grid.at(SuitedCard(lead, rank)) for rank in (min(ranks), max(ranks))]
    assert all(expected(grid) <= expected(extreme) + 1e-9 for extreme in extremes)
    guessed = Play(action.seat, screen.grid.value)
    assert presses_for(app, guessed) == [KeyEvent(Key.OK)]
    assert presses_for(app, guessed, "keypad") == [KeyEvent(Key.HASH)]


def test_the_suits_come_likeliest_first_a_followers_lead_suit_on_top() -> None:
    app, _ = replayed_until(4, lambda game, action: isinstance(action, Play) and game.trick.turns
                                 and game.trick.lead_suit != game.suits[0])  # not the suit listed first
    screen = app.top
    assert isinstance(screen, TrickScreen) and screen.grid.value.suit == screen.trick.lead_suit
    assert screen.grid.groups[screen.grid.row] == screen.grid.groups[0]


def test_a_prediction_starts_on_the_suit_with_most_cards_left_and_skips_a_suit_the_seat_lacks() -> None:
    app = mid_prediction()  # C9 led, W2 C13 C4 played: 13 W, 14 F, 14 S, 11 C can still be out of sight
    screen = app.top
    assert isinstance(screen, TrickScreen) and screen.entry == Entry(Predict, 1) and screen.typing() is None
    assert screen.suit == "F"  # F and S tie: the stronger; the lead suit is no likelier for a prediction
    game = app.session.game
    game.state.deal.watch.declined[1].append(("F", 0))  # as if P2 had declined Fleur-de-lis earlier
    try:
        assert screen.likely_suit(1) == "S"
    finally:
        game.state.deal.watch.declined[1].pop()


@pytest.mark.parametrize("suit", ["W", "F", "S", "C"])
def test_the_likely_suit_is_one_press_and_every_other_suit_two_on_the_joystick(suit: str) -> None:
    app = mid_prediction()
    keys_for = presses_for(app, Predict(1, suit))
    arrow = {"W": Key.UP, "F": Key.RIGHT, "S": Key.DOWN, "C": Key.LEFT}[suit]  # drawn beside each suit
    assert keys_for == ([KeyEvent(Key.OK)] if suit == "F" else [KeyEvent(arrow), KeyEvent(Key.OK)])
    for event in keys_for:
        app.handle(event)
    assert app.session.game.actions[-1] == Predict(1, suit)
    assert isinstance(app.top, TrickScreen) and app.top.entry == Entry(Predict, 2)  # P3's prediction next


@pytest.mark.parametrize(("letter", "suit"), [(Key.A, "W"), (Key.B, "F"), (Key.C, "S"), (Key.D, "C")])
def test_on_the_keypad_a_suit_key_enters_its_suit_at_once_and_back_takes_it_back(letter: Key, suit: str) -> None:
    app = mid_prediction()
    assert presses_for(app, Predict(1, suit), "keypad") == [KeyEvent(letter)]  # one press, whatever is shown
    app.handle(KeyEvent(letter))  # the suit key names the whole entry, as a digit naming a card alone does
    game = app.session.game
    assert game.actions[-1] == Predict(1, suit) and app.top.entry == Entry(Predict, 2)
    app.handle(KeyEvent(Key.STAR))  # BACK: the prediction comes back and P2 is asked again
    assert len(game.actions) == 4 and app.top.entry == Entry(Predict, 1)
    fresh = mid_prediction()
    fresh.handle(KeyEvent(Key.HASH))  # # alone: the likely suit
    assert fresh.session.game.actions[-1] == Predict(1, "F")


def test_back_at_the_reveal_takes_the_last_prediction_back_and_asks_that_seat_again() -> None:
    app = mid_prediction()
    game = app.session.game
    keys(app, "DOWN", "OK")  # P2 predicts Shamrock; P3's prediction is next
    assert game.actions[-1] == Predict(1, "S") and app.top.entry == Entry(Predict, 2)
    keys(app, "BACK")
    assert game.actions[-1] == Play(0, SuitedCard("C", 4)) and isinstance(app.top, TrickScreen)
    assert app.top.entry == Entry(Predict, 1) and app.top.suit == "F"  # asked again, on the likely suit
    keys(app, "LEFT", "OK")
    assert game.actions[-1] == Predict(1, "C")
    fresh = make_app(Tourney(game.setup))
    keys(fresh, "BACK")  # no prediction open: BACK opens the menu, as on every game screen
    assert not isinstance(fresh.top, TrickScreen)


def test_a_suit_whose_cards_are_all_accounted_for_is_drawn_as_a_dot_and_not_offered() -> None:
    app = mid_prediction()
    game = app.session.game
    screen = app.top
    game.state.deal.told["W"] = 14  # as if every Wyvern had been played or revealed this deal
    try:
        assert game.open_suits() == ("F", "S", "C")
        app.render()
        keys(app, "UP")  # Wyvern's arrow: not offered, the cursor stays
        assert screen.suit == "F" and app.message is None
        app.handle(KeyEvent(Key.A))  # nor its suit key
        assert len(game.actions) == 4 and app.message is None
        assert screen.likely_suit(1) != "W"
    finally:
        game.state.deal.told["W"] = 1


def test_the_only_card_left_is_ready_for_ok_on_both_inputs() -> None:
    """As if every other card had been seen this deal: the one card left is under the cursor."""
    played = simulated(4)
    game = Tourney(played.setup)
    for action in played.actions:
        if isinstance(action, Play) and len(game.trick.turns) == 3:
            break
        game.push(action)
    assert isinstance(action, Play)
    for card in game.deck():
        if card != action.card:
            game.deal.seen.setdefault(card, "played")
    app = make_app(game)
    assert isinstance(app.top, TrickScreen) and app.top.grid.value == action.card
    assert presses_for(app, action) == [KeyEvent(Key.OK)]
    assert presses_for(app, action, "keypad") == [KeyEvent(Key.HASH)]
    app.handle(KeyEvent(Key.HASH))
    assert app.session.game.actions[-1] == action


def test_the_keypad_types_every_card_of_the_npcs_row() -> None:
    app = three_player_app()
    row = NpcRow(tuple(SuitedCard.parse(c) for c in ROW.split()))
    pressed: list[KeyEvent] = []
    enter_by_keys(app, row, "keypad", pressed.append)
    assert app.session.game.actions == [row]
    assert not any(event.long for event in pressed)  # no held digit stands for an arrow: each card typed
    assert len(pressed) <= 2 * len(row.cards)  # a letter for a new suit, one or two digits (# after a 1)
    assert len(pressed) < enter(three_player_app(), [row])  # fewer than on the joystick


def test_a_whole_game_on_the_card_keypad_matches_its_replay() -> None:
    played = simulated(3)
    app = make_app(Tourney(played.setup))
    presses = enter(app, played.actions, "keypad")
    assert app.session.game.summary() == read_record(export_lines(app.session.game)).game.summary()
    assert app.session.game.summary() == played.summary()
    assert presses < enter(make_app(Tourney(played.setup)), played.actions)


def test_on_the_keypad_a_follower_types_the_number_alone_and_1_waits_for_hash_beside_10_to_14() -> None:
    def lead_suit_keeps_1_and_10(game: Tourney, action: Any) -> bool:
        if not (isinstance(action, Play) and game.trick.turns and game.decision.kind == "play"):
            return False
        unseen = {card for card in game.deck() if card not in game.deal.seen}
        lead = game.trick.lead_suit
        return SuitedCard(lead, 1) in unseen and SuitedCard(lead, 10) in unseen and SuitedCard(lead, 5) in unseen

    app, action = replayed_until(4, lead_suit_keeps_1_and_10)
    lead = app.top.trick.lead_suit
    entered = len(app.session.game.actions)
    app.handle(KeyEvent(Key.N1))
    assert len(app.session.game.actions) == entered and app.top.grid.value == SuitedCard(lead, 1)  # 1 or 1x?
    app.handle(KeyEvent(Key.N0))  # 10: entered at once, no letter (the lead suit is shown)
    assert app.session.game.actions[-1] == Play(action.seat, SuitedCard(lead, 10))
    app.handle(KeyEvent(Key.STAR, long=True))  # held *: undo offered, # takes the card back
    app.handle(KeyEvent(Key.HASH))
    assert len(app.session.game.actions) == entered
    app.handle(KeyEvent(Key.N5))
    assert app.session.game.actions[-1] == Play(action.seat, SuitedCard(lead, 5))


def test_the_npcs_last_card_is_shown_on_the_reveal() -> None:
    """The NPC plays the trick's last card: the reveal's screen says which card to put down for it, and
    the first prediction is one press, as at every reveal."""
    game = Tourney(Tourney.new_setup(["Aki", "Ben", "Chie"], options={"dealer": 2}, cards=simulated(3).setup.cards))
    app = make_app(game)
    enter(app, texts(game, ROW, "F5", "F6", "F7"))  # P1 leads: P2, P3, then the NPC last
    screen = app.top
    assert isinstance(screen, TrickScreen) and screen.predicting() and len(app.screens) == 1
    assert ("Put down F2 for the NPC", True) in frame_texts(app)
    assert presses_for(app, Predict(0, "C"), "keypad") == [KeyEvent(Key.D)]
    assert presses_for(app, Predict(0, screen.suit)) == [KeyEvent(Key.OK)]


def frame_texts(app: Any) -> list[tuple[str, bool]]:
    """The strings the screen on top draws, each with whether it is inverted (test_secret.py's text model)."""
    return [(drawn.text, drawn.inverted) for drawn in frame(app)]


def test_the_picker_weighs_a_suits_unseen_cards_by_how_many_can_still_be_in_a_hand() -> None:
    """Four Shamrocks played and four revealed by suit alone: ten are unseen, but only six can still be
    in a hand, so each unseen Shamrock is 6/10 as likely as an unseen card of a suit with none revealed."""
    game = Tourney(Tourney.new_setup(["Aki", "Ben", "Chie", "Dai"], cards=simulated(4).setup.cards))
    app = make_app(game)
    enter(app, texts(game, "S1", "S2", "S3", "S4", "S", "S", "S", "S"))
    screen = app.screens[0]  # under the trick's places
    assert isinstance(screen, TrickScreen) and screen.entry.kind is Play and game.room("S") == 6
    weight = screen.likelihood(screen.entry.seat, screen.grid)
    assert weight(SuitedCard("S", 7)) == pytest.approx(0.6 * weight(SuitedCard("W", 7)))


def test_the_npc_row_is_asked_as_listed_strongest_suit_first() -> None:
    """The screen lists the suits' rows strongest first and starts on Wyvern; the simulated table
    enters them in that order (the NPC's rules need each suit's order only)."""
    app = three_player_app()
    screen = app.top
    assert isinstance(screen, NpcRowScreen) and screen.grid.value.suit == "W"
    game = simulated(3)
    for row in (action for action in game.actions if isinstance(action, NpcRow)):
        suits = [card.suit for card in row.cards]
        assert suits == sorted(suits, key=game.suits.index)


def test_the_card_picker_offers_no_suit_whose_cards_are_all_accounted_for() -> None:
    """Fourteen Shamrocks played or revealed (eight of them by suit alone, so eight Shamrock numbers
    are still unseen): the engine says no Shamrock can be in a hand, and the card picker offers none,
    on either input (before, it offered them and the engine refused)."""
    game = Tourney(Tourney.new_setup(["Aki", "Ben", "Chie", "Dai"], cards=simulated(4).setup.cards))
    for text in ("S1", "S2", "S3", "S4", "S", "S", "S", "S", "S5", "S6", "P1?S", "P2?S", "P3?S", "P4?S"):
        game.push_text(text)
    unseen = [card for card in game.deck() if card.suit == "S" and card not in game.deal.seen]
    assert game.open_suits() == ("W", "F", "C") and len(unseen) == 8
    app = make_app(game)
    screen = app.top
    assert isinstance(screen, TrickScreen) and screen.entry == Entry(Play, 2)
    offered = {card.suit for row in screen.grid.rows for _, card in row}
    assert offered == {"W", "F", "C"}
    app.handle(KeyEvent(Key.C))  # the card keypad's Shamrock: not offered, the picker stays
    assert screen.grid.value.suit != "S" and app.message is None
