"""Every ability and every conflict that rulings.md settles, one trick at a time."""

import pytest

from companion.errors import IllegalAction, IllegalPlay
from companion.games.tezuma.rules import Card
from tests.engine.helpers import english, game_with, new_game, trick


def test_sword_walking_wins_a_tie_of_valid_trumps_even_when_later():
    game = game_with("paper-egg", "water-trick", "sword-walking", "baby-chicks")
    result = trick(game, "B5", "UT", "RT sword-walking", "B2")
    assert (result.winner, result.rule) == (2, "trump-sword")


def test_sword_walking_wins_a_tie_at_the_top_value():
    game = game_with("horse-swallowing", "sword-walking", "water-trick", "baby-chicks")
    result = trick(game, "B6 horse-swallowing", "B8 sword-walking", "B2", "B3")
    assert (result.winner, english(game, result)) == (1, "P2: Sword Walking wins the tie at 8")


def test_sword_walking_outside_the_tie_changes_nothing():
    game = game_with("horse-swallowing", "sword-walking", "water-trick", "baby-chicks")
    result = trick(game, "B7 horse-swallowing", "B2 sword-walking", "B9", "B3")
    assert (result.winner, result.rule) == (0, "follow-tie")


def test_tie_from_an_ability_goes_to_the_first_played():
    game = game_with("water-trick", "horse-swallowing", "sword-walking", "baby-chicks")
    result = trick(game, "B9", "B7 horse-swallowing", "B2", "B3")
    assert (result.winner, english(game, result)) == (0, "P1: first of the tied butterfly 9s")


def test_paper_egg_puts_its_card_down_last_and_loses_the_trump_race():
    game = game_with("water-trick", "paper-egg", "sword-walking", "baby-chicks")
    trick(game, "W5", "paper-egg", "UT")
    assert game.decision.seat == 3
    game.push_text("W2")
    assert game.decision.seat == 1 and "Paper Egg" in game.decision.prompt
    result = trick(game, "RT")
    assert (result.winner, english(game, result)) == (2, "P3: first valid trump")
    plays = game.state.deal.tricks[0].plays()
    assert [(seat, ability) for seat, _, ability in plays] == [(0, None), (2, None), (3, None), (1, "paper-egg")]


def test_paper_egg_not_by_the_lead_and_its_card_takes_no_second_ability():
    game = game_with("paper-egg", "water-trick", "sword-walking", "baby-chicks")
    with pytest.raises(IllegalPlay, match="cannot be used by the lead player"):
        game.push_text("paper-egg")
    game2 = game_with("water-trick", "paper-egg", "sword-walking", "baby-chicks")
    trick(game2, "W5", "paper-egg", "W6", "W7")
    with pytest.raises(IllegalPlay, match="already used an ability this trick"):
        game2.push_text("W9 paper-egg")


def test_water_trick_voids_every_trump_even_one_played_before_it():
    game = game_with("paper-egg", "baby-chicks", "sword-walking", "water-trick")
    result = trick(game, "B3", "UT", "B2", "B1 water-trick")
    assert (result.winner, english(game, result)) == (0, "P1: highest butterfly (3); Water Trick voided the trumps")


def test_butterfly_dance_makes_a_following_trump_valid_and_beats_water_trick():
    game = game_with("paper-egg", "water-trick", "butterfly-dance", "baby-chicks")
    result = trick(game, "B9", "B1 water-trick", "BT butterfly-dance", "B2")
    assert (result.winner, english(game, result)) == (2, "P3: Butterfly Dance overrides Water Trick")


def test_butterfly_dance_not_by_the_lead():
    game = game_with("butterfly-dance", "water-trick", "paper-egg", "baby-chicks")
    with pytest.raises(IllegalPlay, match="lead player"):
        game.push_text("BT butterfly-dance")


def test_baby_chicks_user_leads_next_whoever_wins():
    game = game_with("paper-egg", "baby-chicks", "water-trick", "sword-walking")
    result = trick(game, "B9", "B1 baby-chicks", "B2", "B3")
    assert (result.winner, result.next_lead) == (0, 1)
    assert english(game, result).endswith("P2 leads next (Baby Chicks)")
    assert game.decision.seat == 1


def test_pail_dance_users_left_neighbour_leads_next():
    game = game_with("paper-egg", "water-trick", "pail-dance", "sword-walking")
    result = trick(game, "B9", "B1", "B2 pail-dance", "B3")
    assert (result.winner, result.next_lead) == (0, 3)


@pytest.mark.parametrize(
    ("plays", "next_lead", "named"),
    [
        (("B9", "B1 baby-chicks", "B2 pail-dance", "B3"), 3, "Pail Dance"),
        (("B9", "B1 pail-dance", "B2 baby-chicks", "B3"), 2, "Baby Chicks"),
    ],
)
def test_house_ruling_the_later_next_lead_ability_decides(plays, next_lead, named):
    chicks_seat = 1 if "baby-chicks" in plays[1] else 2
    abilities = ["paper-egg", "x", "x", "sword-walking"]
    abilities[chicks_seat] = "baby-chicks"
    abilities[3 - chicks_seat] = "pail-dance"
    game = game_with(*abilities)
    result = trick(game, *plays)
    assert result.next_lead == next_lead
    assert result.house == "tezuma.house.next-lead"
    assert english(game, result).endswith(f"; house ruling: later next-lead ability wins ({named})")


def test_house_ruling_counts_declaration_order_not_paper_egg_put_down_order():
    # Pail Dance declared first (P2), Baby Chicks second (P3); P2's egg card goes down last: still Chicks.
    game = game_with("water-trick", "pail-dance", "baby-chicks", "sword-walking")
    result = trick(game, "B9", "B1 pail-dance", "B2 baby-chicks", "B3")
    assert result.next_lead == 2


def test_horse_swallowing_adds_two_and_makes_an_invalid_trump_worth_two():
    game = game_with("paper-egg", "horse-swallowing", "water-trick", "sword-walking")
    result = trick(game, "B8", "B7 horse-swallowing", "B2", "B3")
    assert (result.winner, result.value) == (1, 9)
    game2 = game_with("water-trick", "horse-swallowing", "paper-egg", "sword-walking")
    result2 = trick(game2, "BT", "BT horse-swallowing", "U9", "R3")
    assert (result2.winner, result2.value) == (1, 2)


def test_linking_rings_may_leave_suit_number_cannot_win_trump_is_valid_no_revoke():
    game = game_with("paper-egg", "linking-rings", "water-trick", "sword-walking")
    result = trick(game, "B3", "U9 linking-rings", "B2", "B1")
    assert result.winner == 0
    result2 = trick(game, "B4", "UT linking-rings", "B5", "B6")
    assert (result2.winner, result2.rule) == (1, "trump")
    trick(game, "B9", "B7", "W1", "W2")  # P2 shows butterflies again: no revoke, Linking Rings freed them
    assert game.state.revokes == []


def test_cup_and_ball_counts_any_suit_as_following():
    game = game_with("paper-egg", "cup-and-ball", "water-trick", "sword-walking")
    result = trick(game, "B3", "U9 cup-and-ball", "B2", "B1")
    assert (result.winner, result.value) == (1, 9)
    assert "Cup and Ball" in english(game, result)


def test_cup_and_ball_makes_a_trump_invalid():
    game = game_with("paper-egg", "cup-and-ball", "water-trick", "sword-walking")
    result = trick(game, "B3", "UT cup-and-ball", "B2", "B1")
    assert result.winner == 0


def test_fire_breathing_sums_two_cards_and_returns_the_lower_one():
    game = game_with("paper-egg", "fire-breathing", "water-trick", "sword-walking")
    result = trick(game, "B9", "B3+B7 fire-breathing", "B2", "B1")
    assert (result.winner, result.value, str(result.returned)) == (1, 10, "B3")
    deal = game.state.deal
    assert "B3" not in [str(c) for c in deal.captured[1]] and len(deal.captured[1]) == 4
    assert deal.hand == [11, 11, 11, 11]
    trick(game, "B3", "B4", "B5", "B6")  # P2 leads with the returned B3: it is back in hand
    assert str(deal.tricks[1].turns[0].cards[0]) == "B3" and deal.hand == [10, 10, 10, 10]


def test_fire_breathing_partners_are_the_other_unseen_number_cards_of_the_suit():
    """What the picker offers after Fire Breathing's first card: the engine's, never the screen's."""
    game = game_with("paper-egg", "fire-breathing", "water-trick", "sword-walking")
    game.push_text("B9")
    partners = game.fire_partners(Card("B", 3))
    assert {card.suit for card in partners} == {"B"} and not any(card.is_trump for card in partners)
    assert Card("B", 3) not in partners and Card("B", 9) not in partners and Card("B", 4) in partners
    assert len(partners) == len(game.ranks) - 2


def test_declining_the_suit_of_a_card_fire_breathing_returned_is_a_revoke_at_once():
    game = game_with("paper-egg", "fire-breathing", "water-trick", "sword-walking")
    trick(game, "B9", "B3+B7 fire-breathing", "B2", "B1")  # B3 goes back to P2's hand, in public
    trick(game, "U1", "U2", "U3", "U9")  # P2 (trick 1's winner) leads; P1 wins with U9 and leads next
    assert game.state.revokes == []
    trick(game, "B8", "W5", "B4", "B5")  # P2 plays water while everyone saw B3 go back to its hand
    [revoke] = game.state.revokes
    assert (revoke.trick, revoke.seat, revoke.suit, revoke.proved_in_trick) == (2, 1, "B", 2)


def test_playing_the_returned_card_leaves_nothing_to_prove():
    game = game_with("paper-egg", "fire-breathing", "water-trick", "sword-walking")
    trick(game, "B9", "B3+B7 fire-breathing", "B2", "B1")
    trick(game, "B3", "B4", "B5", "B6")  # P2 leads the returned B3: it left the hand
    trick(game, "U9", "U1", "U2", "U3")
    trick(game, "B8", "W5", "W4", "W3")  # P2 declines butterfly with nothing known in hand
    assert game.state.revokes == []


def test_fire_breathing_refuses_trumps_two_suits_and_too_few_cards():
    game = game_with("paper-egg", "fire-breathing", "water-trick", "sword-walking")
    game.push_text("B9")
    for text, reason in [
        ("BT+B3 fire-breathing", "no trump"),
        ("B3+U3 fire-breathing", "one suit"),
        ("B3 fire-breathing", "two number cards"),
    ]:
        with pytest.raises(IllegalPlay, match=reason):
            game.push_text(text)


# The lead plays the suit's highest card left and everyone follows lower: P1 leads all twelve tricks.
LEAD_KEEPS = [
    (f"{s}{a}", f"{s}{b}", f"{s}{c}", f"{s}{d}")
    for s in "BUWR"
    for a, b, c, d in [(9, 8, 7, 6), (5, 4, 3, 2), (1, "T", "T", "T")]
]


def test_fire_breathing_needs_two_cards_in_hand():
    game = game_with("paper-egg", "fire-breathing", "water-trick", "sword-walking")
    for plays in LEAD_KEEPS[:11]:
        trick(game, *plays)
    game.push_text("R1")
    with pytest.raises(IllegalPlay, match="P2 has 1 card"):
        game.push_text("R2+R3 fire-breathing")


def test_many_umbrellas_doubles_a_four_or_five_only():
    game = game_with("paper-egg", "many-umbrellas", "water-trick", "sword-walking")
    assert trick(game, "B9", "B5 many-umbrellas", "B2", "B1").value == 10
    game2 = game_with("paper-egg", "many-umbrellas", "water-trick", "sword-walking")
    assert trick(game2, "B7", "B6 many-umbrellas", "B2", "B1").winner == 0


def test_five_color_sand_by_the_lead_lets_the_next_card_set_the_suit():
    game = game_with("five-color-sand", "paper-egg", "water-trick", "sword-walking")
    result = trick(game, "five-color-sand", "U2", "U9", "B1")
    assert (result.winner, result.rule) == (0, "sand")
    deal = game.state.deal
    assert deal.tricks[0].lead_suit == "U" and len(deal.captured[0]) == 3 and deal.hand[0] == 12
    assert game.state.revokes == []


def test_five_color_sand_has_one_use_and_leaves_a_card_in_hand_at_the_end():
    game = game_with("five-color-sand", "paper-egg", "water-trick", "sword-walking", game_id="tezuma")
    trick(game, "five-color-sand", "U2", "U9", "B1")
    with pytest.raises(IllegalPlay, match="no Five-Color Sand uses left"):
        game.push_text("five-color-sand")


@pytest.mark.parametrize(("game_id", "uses"), [("tezuma-2015", 4), ("tezuma", 2)])
def test_water_trick_uses_per_edition(game_id, uses):
    game = game_with("water-trick", "paper-egg", "sword-walking", "baby-chicks", game_id=game_id)
    suits = "".join(game.suits)
    tricks = [tuple(p.replace(p[0], suits["BUWR".index(p[0])]) for p in plays) for plays in LEAD_KEEPS]
    for lead, *rest in tricks[:uses]:
        trick(game, f"{lead} water-trick", *rest)
    assert game.state.deal.uses[0] == 0
    with pytest.raises(IllegalPlay, match="no Water Trick uses left"):
        game.push_text(f"{tricks[uses][0]} water-trick")


def test_ability_must_be_held():
    game = game_with("paper-egg", "water-trick", "sword-walking", "baby-chicks")
    with pytest.raises(IllegalPlay, match="does not hold Five-Color Sand"):
        game.push_text("five-color-sand")


def test_beginner_variant_has_no_abilities():
    game = new_game("tezuma-2015", beginner=True)
    assert game.kinds == ("penalty", "scoring")
    for text in [
        "penalty R",
        "penalty B",
        "penalty U",
        "penalty W",
        "scoring 1",
        "scoring 2",
        "scoring 3",
        "scoring 4",
    ]:
        game.push_text(text)
    with pytest.raises(IllegalPlay, match="beginner"):
        game.push(type(game.parse("B1"))(0, (Card("B", 1),), "paper-egg"))


def test_a_refused_action_changes_nothing():
    game = game_with("paper-egg", "water-trick", "sword-walking", "baby-chicks")
    game.push_text("B7")
    before = repr(game.state), list(game.actions)
    for text in ["B7", "B1 five-color-sand", "XT", "B0"]:
        with pytest.raises(IllegalAction):
            game.push_text(text)
    assert (repr(game.state), list(game.actions)) == before


def test_the_later_edition_has_no_beginner_variant():
    with pytest.raises(IllegalAction, match="no beginner variant") as refused:
        new_game("tezuma", beginner=True)
    assert refused.value.code == "no_beginner"
