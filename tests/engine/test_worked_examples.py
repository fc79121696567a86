"""Every worked example of both Tezuma rulebooks, as the books tell them.

Seats: A=P1 (seat 0) ... D=P4 (seat 3). 2015 suits: B butterfly 蝶, U umbrella 傘, W water 水,
R rings 輪っか; later edition: B butterfly, U umbrella, F fan 扇子, M mask. The later edition's trick
examples lost their card pictures; the cards below are ones that fit the text exactly.
"""

import pytest

from tests.engine.helpers import draft, english, new_game, trick

PICKS_2015 = [
    {"penalty": "R", "scoring": "1", "ability": "paper-egg"},
    {"penalty": "B", "scoring": "2", "ability": "horse-swallowing"},
    {"penalty": "U", "scoring": "3", "ability": "butterfly-dance"},
    {"penalty": "W", "scoring": "4", "ability": "five-color-sand"},
]


@pytest.fixture
def game2015():
    game = new_game("tezuma-2015")
    draft(game, PICKS_2015)
    return game


def test_example_1_highest_follower_wins(game2015):
    result = trick(game2015, "B7", "B2", "B6", "B3")
    assert (result.winner, english(game2015, result)) == (0, "P1: highest butterfly (7)")


def test_example_2_off_suit_number_and_following_trump_cannot_win(game2015):
    result = trick(game2015, "U5", "R9", "U8", "UT")
    assert (result.winner, english(game2015, result)) == (2, "P3: highest umbrella (8)")


def test_example_3_first_valid_trump_wins(game2015):
    result = trick(game2015, "W9", "UT", "WT", "RT")
    assert (result.winner, english(game2015, result)) == (1, "P2: first valid trump")
    assert game2015.state.deal.captured[1] == [c for c in game2015.state.deal.tricks[0].turns for c in c.cards]


def test_rare_case_following_trumps_and_off_suit_numbers_first_trump_wins(game2015):
    # section 5: several invalid trumps and otherwise only numbers that do not follow
    result = trick(game2015, "BT", "BT", "U9", "R3")
    assert (result.winner, english(game2015, result)) == (0, "P1: lead trump, nobody followed with a number")


def test_example_4_five_color_sand_beats_butterfly_dance(game2015):
    result = trick(game2015, "B9", "B8 horse-swallowing", "BT butterfly-dance", "five-color-sand")
    assert (result.winner, english(game2015, result)) == (3, "P4: Five-Color Sand")
    deal = game2015.state.deal
    assert len(deal.captured[3]) == 3 and deal.hand[3] == 12


def test_example_4_without_the_sand_butterfly_dance_would_win(game2015):
    result = trick(game2015, "B9", "B8 horse-swallowing", "BT butterfly-dance", "B1")
    assert (result.winner, english(game2015, result)) == (2, "P3: Butterfly Dance makes the trump valid")


# Example 5 needs a whole deal: A (chart #1) takes 4 tricks holding 2 ring cards.
EXAMPLE_5_DEAL = [
    ("B9", "B1", "B2", "B3"),  # A leads and wins tricks 1-4
    ("B8", "B4", "B5", "B6"),
    ("U9", "U2", "U3", "R1"),  # D has no umbrella: R1 goes to A
    ("U8", "U4", "U5", "R2"),
    ("BT", "B7", "BT", "BT"),  # A leads a trump of the lead suit: B's 7 wins
    ("W9", "W1", "W2", "W3"),  # from here B leads (B, C, D, A)
    ("W8", "W4", "W5", "W6"),
    ("W7", "WT", "WT", "WT"),
    ("U7", "U6", "R3", "U1"),
    ("UT", "UT", "R4", "UT"),  # the rare case again: B's lead trump wins
    ("R9", "R5", "R6", "R7"),
    ("R8", "RT", "RT", "RT"),
]


def play_deal(game, tricks):
    for plays in tricks:
        trick(game, *plays)


def test_example_5_chart_points_minus_penalty_cards(game2015):
    play_deal(game2015, EXAMPLE_5_DEAL)
    deal = game2015.state.deals[0]
    assert deal.tricks_won == [4, 8, 0, 0]
    assert sum(c.suit == "R" for c in deal.captured[0]) == 2
    # charts #2-#4 were not printed in the text: the device asks, the table answers
    asked = []
    while game2015.decision.kind == "answer":
        asked.append(game2015.decision.prompt)
        game2015.push_text("0")
    assert asked == [
        "points on chart #2 (P2) for 8 tricks?",
        "points on chart #3 (P3) for 0 tricks?",
        "points on chart #4 (P4) for 0 tricks?",
    ]
    assert deal.points[0] == 6 and deal.penalties[0] == 2 and deal.scores[0] == 4
    assert game2015.state.totals[0] == 4
    assert game2015.decision.kind == "draft" and game2015.decision.seat == 1  # next deal starts at A's left


def test_deal_score_is_floored_at_zero(game2015):
    play_deal(game2015, EXAMPLE_5_DEAL)
    while game2015.decision.kind == "answer":
        game2015.push_text("0")
    deal = game2015.state.deals[0]
    # B took 8 tricks full of butterflies, B's own penalty suit: 0 points minus 9 penalty cards floors at 0
    assert deal.penalties[1] > 0 and deal.scores[1] == 0


# --- the later edition ---------------------------------------------------------------------

PICKS_LATER = [
    {"penalty": "M", "scoring": "B", "ability": "paper-egg"},
    {"penalty": "B", "scoring": "A", "ability": "water-trick"},
    {"penalty": "U", "scoring": "C", "ability": "butterfly-dance"},
    {"penalty": "F", "scoring": "D", "ability": "sword-walking"},
]


@pytest.fixture
def game_later():
    game = new_game(
        "tezuma",
        scoring=["A", "B", "C", "D", "E"],
        abilities=["paper-egg", "water-trick", "butterfly-dance", "sword-walking", "fire-breathing"],
    )
    draft(game, PICKS_LATER)
    return game


def test_later_trick_example_1_all_follow_highest_wins(game_later):
    result = trick(game_later, "F9", "F3", "F5", "F1")
    assert result.winner == 0


def test_later_trick_example_2_trump_that_follows_counts_as_zero(game_later):
    result = trick(game_later, "B6", "U9", "B7", "BT")
    assert (result.winner, english(game_later, result)) == (2, "P3: highest butterfly (7)")


def test_later_trick_example_3_first_valid_trump_wins(game_later):
    # A leads fan; B has no fan and plays a trump (valid); C follows with the fan trump (invalid);
    # D has no fan and plays a trump too, but later than B.
    result = trick(game_later, "F4", "UT", "FT", "MT")
    assert (result.winner, english(game_later, result)) == (1, "P2: first valid trump")


def test_later_lead_trump_wins_when_only_off_suit_numbers_and_lead_suit_trumps(game_later):
    result = trick(game_later, "MT", "MT", "U9", "B3")
    assert result.winner == 0


def test_later_bid_example_exact_hit_pays(game_later):
    game = game_later
    # bid card B is the example's card: 4 tricks -> 8, 5 -> 5, 6 -> 3 (P1 holds it)
    assert [game.points_for("B", t) for t in range(13)] == [0, 0, 0, 0, 8, 5, 3, 0, 0, 0, 0, 0, 0]
    assert [game.points_for("A", t) for t in range(13)] == [0, 3, 5, 8] + [0] * 9
    assert game.points_for("C", 5) is None  # not printed in the text: asked when needed


LATER_BID_DEAL = [
    ("B9", "B1", "B2", "B3"),  # A leads and wins tricks 1-5
    ("B8", "B4", "B5", "B6"),
    ("U9", "U1", "U2", "U3"),
    ("U8", "U4", "U5", "U6"),
    ("F9", "F1", "F2", "M1"),  # D has no fan: A takes M1, a card of A's pain suit
    ("F3", "F8", "F4", "M2"),  # A leads low and loses; B leads from here (B, C, D, A)
    ("F7", "F6", "M3", "F5"),
    ("FT", "FT", "M4", "FT"),  # B's lead trump wins: every other card is a following trump or off-suit
    ("B7", "BT", "BT", "BT"),
    ("U7", "UT", "UT", "UT"),
    ("M9", "M5", "M6", "M7"),
    ("M8", "MT", "MT", "MT"),
]


def test_later_bid_example_five_tricks_scores_five_minus_pain(game_later):
    game = game_later
    for plays in LATER_BID_DEAL:
        trick(game, *plays)
    deal = game.state.deals[0]
    assert deal.tricks_won == [5, 7, 0, 0]
    # bid cards C and D lost their print: asked, answered by the table
    assert game.decision.prompt == "points on bid card C (P3) for 0 tricks?"
    game.push_text("0")
    game.push_text("0")
    assert deal.points[:2] == [5, 0]  # B holds card A (1-3 tricks): 7 tricks misses it
    assert deal.penalties[0] == 1 and deal.scores[0] == 4
    assert game.state.revokes == []
