"""Every rule of the round: start players, facts asked, and round rules A-L.

Three players unless said otherwise; facts from :func:`plain_facts` (colour n % 5, no effects, the
rest card's rule "larger number first"), so the highest number wins unless a test adds effects.
Play goes to the right: from hand 0 the order is 0, 2, 1.
"""

import pytest

from companion.engine.base import Answer
from companion.errors import IllegalAction
from companion.games.zenjidou import HOUSE_FIRST_CLOSEST, HOUSE_G, HOUSE_QUIZ_HANDS, HOUSE_TIE_TOP, Move, Pass, Play, Side

from tests.zenjidou.helpers import MARK, new_game, plain_facts, played, push, start_round

HANDS = [[31, 4, 9, 14, 19], [20, 6, 26, 11, 1], [5, 10, 15, 27, 22]]  # as held: the first is played first


def test_round_1_start_is_the_highest_bottom_card_and_play_goes_right() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "A", bottoms=[10, 25, 3])
    assert game.state.deal.start == 1
    assert [game.decision.seat for _ in range(1)] == [1]
    push(game, "2")
    assert game.decision.seat == 0  # to the right of hand 1


def test_later_rounds_start_with_the_last_tricks_winner() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "D", HANDS)
    last = game.state.deals[0].tricks[-1].result.winner
    assert game.state.deals[1].start == last and game.decision.kind == "rest"


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
    push(game, "5", "20", "31")  # hand 2 leads (22 is the highest bottom)
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
    assert game.state.deal.tricks[0].result.winner == 0  # hand 0 played 31
    game2 = new_game(3, plain_facts())
    start_round(game2, 32, "B", bottoms=[19, 1, 22])
    push(game2, "5", "20", "31", "point 1 5", "point 2 5", "point 3 20")  # everyone wrong: no more waiting
    assert game2.state.deal.tricks[0].result.winner == 0


def test_B_with_two_players_the_pointer_takes_with_the_first_hand_as_a_named_house_ruling() -> None:
    game = new_game(2, plain_facts())
    start_round(game, 32, "B", bottoms=[19, 1, 22, 2])
    push(game, "5", "20", "31", "7", "point 2 31")
    result = game.state.deal.tricks[0].result
    assert result.winner == 1 and result.house == HOUSE_QUIZ_HANDS and result.reason[-1].code == HOUSE_QUIZ_HANDS


def test_C_is_entered_once_then_plays_itself_and_a_right_guess_scores_8() -> None:
    facts = plain_facts({31: {"score": MARK[3]}})
    game = new_game(3, facts)
    start_round(game, 32, "C", HANDS)
    assert game.decision.kind == "guesses"
    push(game, "guess 1 2 1")  # P1 and P3 name P1, P2 names P2
    deal = game.state.deals[0]
    assert deal.scores is not None and played(game)[0] == [(0, 31), (2, 5), (1, 20)]  # top to bottom, no follow
    assert deal.marks == [3, 0, 0] and deal.bonus == [8, 0, 8]
    assert game.decision.kind == "rest"


def test_C_tie_for_top_every_tied_player_counts_house_ruling() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "C", HANDS)
    push(game, "guess 2 3 1")
    deal = game.state.deals[0]
    assert deal.bonus == [8, 8, 8] and HOUSE_TIE_TOP in deal.house


def test_D_plays_the_topmost_card_that_follows_else_the_top_card() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "D", HANDS)
    assert played(game)[0] == [(0, 31), (2, 5), (1, 6)]  # 31 is colour 1; hand 1's topmost colour-1 card is 6
    assert game.state.deals[0].scores is not None  # the whole round needed no press


def test_E_offers_the_top_card_or_the_topmost_follower() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "E", HANDS)
    assert game.need().options == (20, 6)
    with pytest.raises(IllegalAction):
        game.push(Play(1, 26))
    push(game, "20")
    assert played(game)[0] == [(0, 31), (2, 5), (1, 20)]


def test_F_a_hand_that_chose_the_bottom_plays_from_it() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "F", HANDS)
    for _ in range(3):
        game.push(Side(game.decision.seat, "bottom"))
    assert played(game)[0] == [(0, 19), (2, 22), (1, 1)]


def test_G_each_trick_offers_top_or_bottom_as_a_named_house_ruling() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "G", HANDS)
    assert game.need().options == (31, 19)
    push(game, "19")  # colour 4: hand 2 holds none, so its own top or bottom
    assert game.decision.seat == 2 and game.need().options == (5, 22)
    push(game, "22", "1")
    result = game.state.deal.tricks[0].result
    assert result.house == HOUSE_G and result.reason[-1].code == HOUSE_G


def test_H_the_top_card_moves_once() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "H", HANDS)
    with pytest.raises(IllegalAction):
        game.push(Move(0, 5))
    game.push(Move(0, 4))
    game.push(Move(2, 0))
    game.push(Move(1, 0))
    assert played(game)[0] == [(0, 4), (2, 5), (1, 20)]
    assert game.state.deals[0].moved == {0: 4, 2: 0, 1: 0}


def test_I_each_hand_passes_right_and_receives_at_the_bottom() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "I", HANDS)
    game.push(Pass(0, 31))
    game.push(Pass(2, 5))
    game.push(Pass(1, 20))
    deal = game.state.deals[0]
    assert deal.tricks[0].turns[0].cards == (4,)
    assert played(game)[0] == [(0, 4), (2, 10), (1, 6)]
    by_hand = {h: {card for trick in played(game) for hand, card in trick if hand == h} for h in range(3)}
    assert by_hand == {0: {4, 9, 14, 19, 20}, 1: {6, 26, 11, 1, 5}, 2: {10, 15, 27, 22, 31}}


def test_J_the_winner_may_name_the_left_neighbour_to_lead() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "J", HANDS)
    assert game.decision.kind == "lead" and game.decision.seat == 0
    push(game, "lead left")
    assert game.state.deal.tricks[1].lead == 1
    assert game.state.deal.tricks[0].result.next_lead == 1


def test_K_offers_only_followers_when_the_hand_holds_one() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "K", HANDS)
    assert game.decision.kind == "play" and game.decision.seat == 0
    assert sorted(game.need().options) == sorted(HANDS[0])
    push(game, "14")  # colour 4: hand 2 holds none (5, 10, 15 are colour 0; 27, 22 colour 2)
    assert sorted(game.need().options) == sorted(HANDS[2])
    push(game, "27")
    assert sorted(game.need().options) == sorted(HANDS[1])  # no colour 4 either: any card

def test_L_lowest_plays_each_hands_lowest_number() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "L lowest", HANDS)
    assert played(game)[0] == [(0, 4), (2, 5), (1, 1)]


def test_L_closest_plays_the_nearest_number_and_the_larger_on_a_tie() -> None:
    hands = [[31, 4, 8, 14, 19], [20, 12, 26, 11, 1], [5, 10, 15, 27, 22]]
    game = new_game(3, plain_facts())
    start_round(game, 32, "L closest", hands)
    assert played(game)[0] == [(0, 31), (2, 27), (1, 26)]  # nothing before the first: the top card (house)
    assert game.state.deals[0].tricks[0].result.house == HOUSE_FIRST_CLOSEST
    assert game.state.deals[0].tricks[1].result.house is None
    # 31 wins; hand 0 leads closest to the last card 26 from 4, 8, 14, 19: 19; hand 2 then 22 (from 19)
    assert played(game)[1][:2] == [(0, 19), (2, 22)]
    assert played(game)[1][2] == (1, 20)  # 20 and 12 from 22: 20 (|2|)


def test_L_closest_tie_takes_the_larger_number() -> None:
    hands = [[31, 4, 8, 14, 19], [20, 12, 26, 11, 30], [5, 10, 15, 25, 28]]
    game = new_game(3, plain_facts())
    start_round(game, 32, "L closest", hands)
    assert played(game)[0] == [(0, 31), (2, 28), (1, 30)]  # 26 and 30 are both 2 from 28: the larger


def test_L_draw_comes_from_the_recorded_seed() -> None:
    first = new_game(3, plain_facts(), seed=11)
    start_round(first, 32, "L draw", HANDS)
    again = new_game(3, plain_facts(), seed=11)
    start_round(again, 32, "L draw", HANDS)
    assert played(first) == played(again)
    assert {c for _, c in played(first)[0]} <= {c for hand in HANDS for c in hand}


def test_two_players_hold_two_hands_each_and_totals_add_both() -> None:
    facts = plain_facts({n: {"score": MARK[1]} for n in range(1, 33)})
    game = new_game(2, facts)
    hands = [[31, 4, 9, 14, 19], [20, 6, 26, 11, 1], [5, 10, 15, 27, 22], [2, 3, 7, 8, 12]]
    start_round(game, 32, "D", hands)
    deal = game.state.deals[0]
    assert game.n == 4 and sum(game.totals()) == 20
    assert game.totals() == [deal.scores[0] + deal.scores[2], deal.scores[1] + deal.scores[3]]


def test_three_rounds_then_the_game_is_over() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 32, "D", HANDS)
    start_round(game, 32, "D", HANDS)
    start_round(game, 32, "D", HANDS)
    assert game.is_over() and len(game.state.deals) == 3


def test_a_table_fact_out_of_range_is_refused_with_its_key() -> None:
    from companion.errors import CardDataError

    with pytest.raises(CardDataError, match="card:12:colour"):
        new_game(3, plain_facts({12: {"colour": 7}}))
