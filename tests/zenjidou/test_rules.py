"""Every rule of the round: start players, facts asked, and round rules A-L.

Three players unless said otherwise; facts from :func:`plain_facts` (colour n % 5, no effects, the
rest card's rule "larger number first"), so the highest number wins unless a test adds effects.
Play goes clockwise: from hand 0 the order is 0, 1, 2. Hands are never entered: each card is entered
as it is put down, and a revoke is proved from the cards seen.
"""

import pytest

from companion.engine.base import Answer
from companion.engine.tricks import Revoke
from companion.errors import IllegalAction, RecordError
from companion.games.zenjidou.rules import (
    HOUSE_F_BOTTOM,
    HOUSE_FIRST_CLOSEST,
    HOUSE_G,
    HOUSE_QUIZ_HANDS,
    HOUSE_TIE_TOP,
    TOP_FOLLOWER,
    TOP_LEAD,
    TOP_NEITHER,
    OutOfOrder,
    Play,
    Side,
    Zenjidou,
)
from tests.zenjidou.helpers import (
    MARK,
    new_game,
    plain_facts,
    play_round,
    played,
    push,
    start_round,
)

HANDS = [[31, 4, 9, 14, 19], [20, 6, 26, 11, 1], [5, 10, 15, 27, 22]]  # as held: the first is played first
BOTTOMS = [hand[0] for hand in HANDS]  # a pile turned over: its shown bottom card is held on top
RED, BLUE = "red", "blue"  # the codes of colours 1 (31, 6, 26, 11, 1 in HANDS) and 0 (20, 5, 10, 15)


def test_round_1_start_is_the_highest_bottom_card_and_play_goes_clockwise() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "A", bottoms=[10, 25, 3])
    assert game.state.deal.start == 1 and game.decision.seat == 1
    push(game, "2")
    assert game.decision.seat == 2  # P2's left neighbour: the next seat


def test_a_4_player_trick_led_by_P2_goes_P2_P3_P4_P1() -> None:
    game = new_game(4, plain_facts())
    start_round(game, 32, "K", bottoms=[10, 25, 3, 4])
    push(game, "30", "29", "28", "27")
    assert [seat for seat, _ in played(game)[0]] == [1, 2, 3, 0]


def test_neighbours_left_is_the_next_seat_and_right_the_previous() -> None:
    game = new_game(4, plain_facts())
    assert [game.left_of(h) for h in range(4)] == [1, 2, 3, 0]
    assert [game.right_of(h) for h in range(4)] == [3, 0, 1, 2]


def test_later_rounds_start_with_the_last_tricks_winner() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "D", BOTTOMS)
    play_round(game, HANDS)
    last = game.state.deals[0].tricks[-1].result.winner
    assert game.state.deals[1].start == last and game.decision.kind == "rest"


def test_replay_start_is_null_until_the_bottoms_are_in() -> None:
    game = new_game(3, plain_facts())
    push(game, "rest 32", "bottom 31")
    assert game.summary()["deals"][0]["start"] is None
    push(game, "bottom 20", "bottom 5")
    assert game.summary()["deals"][0]["start"] == 0


def test_a_record_from_before_clockwise_play_is_refused_naming_why() -> None:
    game = new_game(3, plain_facts())
    old = type(game.setup)(**{**game.setup.__dict__, "options": {}})
    with pytest.raises(RecordError, match="counter-clockwise"):
        Zenjidou(old)


def test_unknown_card_facts_are_asked_when_the_card_first_appears_and_remembered() -> None:
    game = new_game(3, {})
    game.push_text("rest 12")
    assert [game.decision.question.key] == ["card:12:colour"]
    for value in (0, 1, 0, 3):
        game.push(Answer(game.decision.question.key, value))
    assert game.decision.kind == "bottom" and game.fact(12, "rule") == 3
    with pytest.raises(IllegalAction):
        game.push(Answer("card:12:colour", 9))


def test_a_card_seen_twice_in_a_round_is_refused_with_a_code() -> None:
    game = new_game(3, plain_facts())
    game.push_text("rest 12")
    with pytest.raises(IllegalAction) as err:
        game.push_text("bottom 12")
    assert err.value.code == "already_played"


def test_A_cards_are_entered_as_revealed_and_the_shown_bottom_card_plays_itself() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "A", bottoms=[19, 1, 22])
    for card in [31, 5, 20, 4, 10, 6, 9, 15, 26, 14, 27, 11]:
        game.push_text(str(card))
    assert sorted(played(game)[4]) == [(0, 19), (1, 1), (2, 22)]  # the last trick needed no entry
    assert game.decision.kind == "rest" and game.state.deal.index == 1


def test_B_wrong_pointer_is_out_and_the_first_right_pointer_wins() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "B", bottoms=[19, 1, 22])
    push(game, "5", "20", "31")  # hand 2 leads (22 is the highest bottom), then hands 0 and 1
    assert game.decision.kind == "quiz"
    push(game, "point 1 20")  # P1 is wrong
    with pytest.raises(IllegalAction):
        game.push_text("point 1 31")
    push(game, "point 3 31")
    trick = game.state.deal.tricks[0]
    assert trick.result.winner == 2 and trick.result.reason[0].code == "zenjidou.quiz.right"


def test_B_nobody_right_means_the_strongest_card_wins() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "B", bottoms=[19, 1, 22])
    push(game, "5", "20", "31", "point 2 5", "nopoint")
    assert game.state.deal.tricks[0].result.winner == 1  # hand 1 played 31 (clockwise: 2, 0, 1)
    game2 = new_game(3, plain_facts())
    start_round(game2, 32, "B", bottoms=[19, 1, 22])
    push(game2, "5", "20", "31", "point 1 5", "point 2 5", "point 3 20")  # everyone wrong: no more waiting
    assert game2.state.deal.tricks[0].result.winner == 1


def test_B_with_two_players_the_pointer_takes_with_the_first_hand_as_a_named_house_ruling() -> None:
    game = new_game(2, plain_facts())
    start_round(game, 32, "B", bottoms=[19, 1, 22, 2])
    push(game, "5", "20", "31", "7", "point 2 31")
    result = game.state.deal.tricks[0].result
    assert result.winner == 1 and result.house == HOUSE_QUIZ_HANDS and result.reason[-1].code == HOUSE_QUIZ_HANDS


def test_C_first_trick_of_round_1_plays_itself_and_a_right_guess_scores_8() -> None:
    facts = plain_facts({31: {"score": MARK[3]}})
    game = new_game(3, facts)
    start_round(game, 32, "C", BOTTOMS)
    assert game.decision.kind == "guesses"
    push(game, "guess 1 2 1")  # P1 and P3 name P1, P2 names P2
    assert played(game)[0] == [(0, 31), (1, 20), (2, 5)]  # the shown bottoms, held on top
    play_round(game, HANDS, lambda game, held, lead: held[0])  # top to bottom, no follow
    deal = game.state.deals[0]
    assert deal.marks == [3, 0, 0] and deal.bonus == [8, 0, 8]
    assert game.decision.kind == "rest"


def test_C_tie_for_top_every_tied_player_counts_house_ruling() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "C", BOTTOMS)
    push(game, "guess 2 3 1")
    play_round(game, HANDS, lambda game, held, lead: held[0])
    deal = game.state.deals[0]
    assert deal.bonus == [8, 8, 8] and HOUSE_TIE_TOP in deal.house


def test_D_a_card_off_the_lead_colour_is_a_revoke_once_that_hand_shows_the_colour() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "D", BOTTOMS)
    assert played(game)[0] == [(0, 31)]  # D: the start player leads its top card, the shown bottom
    push(game, "20", "5")  # red 31 led; hand 1 puts down 20 (not red) while holding red 6
    assert game.state.revokes == []  # not certain yet: nobody has seen hand 1's hand
    push(game, "4", "6")  # hand 0 won and leads; hand 1 shows red 6
    assert game.state.revokes == [Revoke(0, 0, 1, RED, 1)]
    assert game.summary()["revokes"][0]["reason"][0]["params"]["seat"] == {"seat": 1}


def test_D_declining_the_colour_of_a_shown_bottom_card_still_held_is_a_revoke_at_once() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "D", BOTTOMS)  # hand 1's bottom card 20 (blue) is in its hand
    push(game, "6", "10", "15", "26")  # 31 wins; blue 15 led; hand 1 puts down red 26
    assert game.state.revokes == [Revoke(0, 1, 1, BLUE, 1)]


def test_a_revoke_says_where_the_card_that_proved_it_was_seen_a_later_trick_or_set_up() -> None:
    from companion.text import Catalog, Formatter

    def said(game: Zenjidou) -> list[str]:
        english = Formatter.for_game(Catalog.load(), "en", game)
        return [english.phrase(game.revoke_phrase(revoke)) for revoke in game.state.revokes]

    game = new_game(3, plain_facts())
    start_round(game, 32, "D", BOTTOMS)
    push(game, "20", "5", "4", "6")  # hand 1 declined red 31 in trick 1, then shows red 6 in trick 2
    assert said(game) == ["P2 did not follow red in trick 1 of round 1 but held it (shown in trick 2)"]
    game = new_game(3, plain_facts())
    start_round(game, 32, "D", BOTTOMS)
    push(game, "6", "11", "15", "26")  # blue 15 led; hand 1 declines it while its shown 20 (blue) is held
    assert said(game) == ["P2 did not follow blue in trick 2 of round 1 but held it (shown at set-up)"]


def test_D_the_same_hand_order_entered_card_by_card_adjudicates_as_the_book() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "D", BOTTOMS)
    play_round(game, HANDS)
    assert played(game)[0] == [(0, 31), (1, 6), (2, 5)]  # 31 red; hand 1's topmost red card is 6
    assert game.state.deals[0].scores is not None and game.state.revokes == []


def test_a_shown_bottom_card_is_refused_from_another_hand() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "K", BOTTOMS)
    with pytest.raises(IllegalAction) as err:
        game.push(Play(0, 20))  # hand 1's bottom card
    assert err.value.code == "zenjidou.refusal.bottom_of"
    push(game, "31", "20")  # its own hand may put it down


def test_E_may_follow_so_a_card_off_colour_proves_nothing() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "E", BOTTOMS)
    push(game, "20", "5", "4", "6")  # 31 led by itself (the top card); hand 1 did not follow red
    assert game.state.revokes == []


def test_D_a_round_1_play_neither_following_nor_the_known_top_card_is_out_of_order_at_once() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "D", BOTTOMS)  # red 31 led by itself; hand 2 holds its shown 5 (blue) on top
    push(game, "6", "10")  # hand 1 follows with red 6 (its top 20 does not follow); hand 2: blue 10
    assert game.state.deals[0].out_of_order == [OutOfOrder(0, 0, 2, 10, 5, None, TOP_NEITHER)]
    assert game.state.revokes == []  # no red card is known in hand 2: only the order is proved


def test_D_a_card_off_colour_while_the_known_top_card_follows_is_one_revoke_not_two_flags() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "D", BOTTOMS)
    push(game, "6", "5", "15", "26")  # blue 15 led; hand 1 puts down red 26 while its top 20 is blue
    assert game.state.revokes == [Revoke(0, 1, 1, BLUE, 1)] and game.state.deals[0].out_of_order == []


def test_D_once_the_known_top_card_is_down_the_hand_is_no_longer_checked_against_it() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "D", BOTTOMS)
    push(game, "20", "5", "4", "9", "14")  # the tops went down; then any card may be the next
    assert game.state.deals[0].out_of_order == []


def test_E_a_follower_or_a_card_off_colour_while_the_known_top_card_follows_is_out_of_order() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "E", BOTTOMS)
    push(game, "6", "11", "30", "25", "8")  # 31 wins, leads blue 30; hands 1 and 2 hold blue 20 and 5 on top
    assert [(o.hand, o.card, o.held, o.variant) for o in game.state.deals[0].out_of_order] == [
        (1, 25, 20, TOP_FOLLOWER), (2, 8, 5, TOP_NEITHER)]
    assert game.state.revokes == []  # E owes no colour


def test_J_a_lead_and_a_follower_against_the_known_top_card_are_out_of_order_at_once() -> None:
    game = new_game(4, plain_facts())
    start_round(game, 32, "J", [10, 25, 3, 4])  # hand 1 leads blue 25 by itself; hand 0 holds blue 10 on top
    push(game, "30", "20", "15")  # hands 2 and 3 follow (their tops do not); hand 0 plays 15 over its 10
    deal = game.state.deals[0]
    assert deal.out_of_order == [OutOfOrder(0, 0, 0, 15, 10, None, TOP_FOLLOWER)]
    push(game, "lead self", "7")  # hand 2 won with 30 and leads 7 while its shown 3 is on top
    assert deal.out_of_order[1:] == [OutOfOrder(0, 1, 2, 7, 3, None, TOP_LEAD)]
    assert Zenjidou.order_phrase(game, deal.out_of_order[1]).code == "zenjidou.out_of_order.top_lead"


def test_F_from_the_top_is_checked_against_the_known_top_card_and_from_the_bottom_is_not() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "F", BOTTOMS)
    push(game, "side top", "side bottom", "side top", "7", "10")  # 31 led; hands 1 and 2 put down 7 and 10
    assert game.state.deals[0].out_of_order == [OutOfOrder(0, 0, 2, 10, 5, None, TOP_NEITHER)]


@pytest.mark.parametrize("rule", ["G", "H", "I", "K", "L draw"])
def test_rules_that_do_not_play_from_the_top_check_no_card_against_it(rule: str) -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, rule, BOTTOMS)
    push(game, "30", "7", "10")
    assert game.state.deals[0].out_of_order == []


@pytest.mark.parametrize(("variant", "plays", "held"), [("lowest", ["14", "26"], 20), ("closest", ["3"], 20)])
def test_L_checks_use_round_1_shown_bottom_cards_as_held(variant: str, plays: list[str], held: int) -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, f"L {variant}", BOTTOMS)  # closest: 31 goes down first by itself (house)
    push(game, *plays)  # hand 1 puts down a card while its shown 20 is lower (lowest) or nearer 31 (closest)
    [broken] = game.state.deals[0].out_of_order
    assert (broken.trick, broken.hand, broken.held, broken.shown_in, broken.variant) == (0, 1, held, None, variant)
    assert game.summary()["deals"][0]["out_of_order"][0]["shown_in"] is None


def test_F_asks_each_side_in_play_order_and_names_the_bottom_house_ruling_where_it_applies() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "F", BOTTOMS)
    sides = []
    for side in ("top", "bottom", "top"):
        sides.append(game.decision.seat)
        game.push(Side(game.decision.seat, side))
    assert sides == [0, 1, 2]
    push(game, "1", "5")  # hand 0 led its top card, the shown 31; hand 1 plays from the bottom
    result = game.state.deal.tricks[0].result
    assert result.house == HOUSE_F_BOTTOM and result.reason[-1].code == HOUSE_F_BOTTOM
    assert game.summary()["deals"][0]["sides"] == {"0": "top", "1": "bottom", "2": "top"}


def test_G_each_trick_names_its_house_ruling() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "G", BOTTOMS)
    push(game, "19", "1", "22")
    result = game.state.deal.tricks[0].result
    assert result.house == HOUSE_G and result.reason[-1].code == HOUSE_G


def test_H_asks_nothing_before_the_first_card() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "H", BOTTOMS)
    assert game.decision.kind == "play" and game.decision.seat == 0


def test_I_a_shown_bottom_card_may_come_from_the_right_neighbour_it_was_passed_to() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "I", BOTTOMS)
    assert game.decision.kind == "play"  # the passes happen off the device
    with pytest.raises(IllegalAction):
        game.push(Play(0, 5))  # hand 2's bottom: only hand 2 or its right neighbour, hand 1
    push(game, "20")  # hand 1's bottom, passed right to hand 0
    push(game, "6", "10")
    assert game.state.revokes == []  # 31 may have gone: nothing was known held


def test_J_the_winner_may_name_the_left_neighbour_to_lead() -> None:
    game = new_game(4, plain_facts())
    start_round(game, 32, "J", [10, 25, 3, 4])
    push(game, "20", "21", "30")  # hand 1 led its shown 25 by itself; hand 0 wins with 30
    assert game.decision.kind == "lead" and game.decision.seat == 0
    push(game, "lead left")
    assert game.state.deal.tricks[1].lead == 1 and game.state.deal.tricks[0].result.next_lead == 1
    push(game, "9", "8", "7", "6")  # hand 1 leads 9 and wins; its left neighbour is hand 2
    push(game, "lead left")
    assert game.state.deal.tricks[2].lead == 2


def test_K_any_unseen_card_is_accepted_and_a_revoke_is_flagged_later() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "K", BOTTOMS)
    assert len(list(game.legal_actions)) == 32 - 4 + 1  # unseen cards and its own bottom card
    push(game, "31", "26", "15")  # hand 2 declines red
    push(game, "9", "11", "1")  # hand 2 shows red 1
    assert game.state.revokes == [Revoke(0, 0, 2, RED, 1)]


def test_L_draw_the_device_draws_nothing_the_table_enters_the_card_drawn() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "L draw", BOTTOMS)
    assert game.decision.kind == "play" and game.need().auto is None
    push(game, "14", "26", "27", "4", "6")  # no colour is owed under a random draw
    assert game.state.revokes == [] and played(game)[0] == [(0, 14), (1, 26), (2, 27)]


def test_L_closest_names_its_house_ruling_on_the_first_trick_of_the_game() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "L closest", BOTTOMS)
    push(game, "26", "27", "19", "20", "22")  # the very first play, 31, is the top card (house)
    deal = game.state.deals[0]
    assert deal.tricks[0].result.house == HOUSE_FIRST_CLOSEST and deal.tricks[1].result.house is None


def test_two_players_hold_two_hands_each_and_totals_add_both() -> None:
    facts = plain_facts({n: {"score": MARK[1]} for n in range(1, 33)})
    game = new_game(2, facts)
    hands = [[31, 4, 9, 14, 19], [20, 6, 26, 11, 1], [5, 10, 15, 27, 22], [2, 3, 7, 8, 12]]
    start_round(game, 32, "D", [hand[0] for hand in hands])
    play_round(game, hands)
    deal = game.state.deals[0]
    assert game.n == 4 and sum(game.totals()) == 20
    assert game.totals() == [deal.scores[0] + deal.scores[2], deal.scores[1] + deal.scores[3]]


def test_a_revoke_with_two_players_names_the_player() -> None:
    game = new_game(2, plain_facts())
    start_round(game, 32, "K", [31, 20, 5, 2])
    push(game, "31", "24", "23", "26")  # hands 1 and 2 decline red 31
    push(game, "4", "13", "6", "21")  # hand 2 (P1's second) shows red 6 first
    revoke = game.summary()["revokes"][0]
    assert revoke["seat"] == 2 and revoke["reason"][0]["params"]["seat"] == {"seat": 0}


def test_three_rounds_then_the_game_is_over() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "D", BOTTOMS)
    play_round(game, HANDS)
    for _ in range(2):
        start_round(game, 32, "D")
        play_round(game, HANDS)
    assert game.is_over() and len(game.state.deals) == 3


def test_a_table_fact_out_of_range_is_refused_with_its_key() -> None:
    from companion.errors import CardDataError

    with pytest.raises(CardDataError, match="card:12:colour"):
        new_game(3, plain_facts({12: {"colour": 7}}))
