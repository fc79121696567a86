"""Deck, draft, layout, revokes and scoring questions: what the table can prove, and what it must be asked."""

from dataclasses import replace

import pytest

from companion.engine.base import Answer
from companion.errors import IllegalAction, IllegalPlay, RecordError
from companion.text import Formatter
from tests.engine.helpers import CATALOG, draft, game_with, new_game, trick


def drafted(game_id="tezuma-2015", players=4, **options):
    game = new_game(game_id, players, **options)
    draft_seats(game)
    return game


def test_three_players_remove_ones_nines_and_a_trump_per_suit():
    game = drafted(players=3)
    assert len(game.unplayed_cards()) == 4 * 7 + 4  # number cards once, one entry per suit with trumps left
    assert game.state.deal.hand == [12, 12, 12]
    with pytest.raises(IllegalPlay, match="B1 is not in the 3-player deck"):
        game.push_text("B1")
    with pytest.raises(IllegalPlay, match="not in the 3-player deck"):
        game.push_text("U9")
    trick(game, "BT", "BT", "B2")
    with pytest.raises(IllegalPlay, match="all 2 butterfly trumps"):
        game.push_text("BT")


def test_a_card_already_played_and_a_fourth_trump_are_refused():
    game = drafted()
    trick(game, "B7", "BT", "BT", "BT")
    leader = game.decision.seat
    with pytest.raises(IllegalPlay, match="B7 was already played this deal"):
        game.push_text("B7")
    with pytest.raises(IllegalPlay, match="all 3 butterfly trumps"):
        game.push_text("BT")
    assert game.decision.seat == leader


def test_not_a_card():
    game = drafted()
    for text, reason in [("X5", "suits are"), ("B0", "rank is 1-9"), ("B10", "not a card")]:
        with pytest.raises(IllegalPlay, match=reason):
            game.push_text(text)


def test_wrong_seat_is_refused_with_whose_turn_it_is():
    game = drafted()
    play = game.parse("B7")
    with pytest.raises(IllegalAction, match="it is P1's turn, not P3's"):
        game.push(type(play)(2, play.cards))


def draft_seats(game):
    """Draft the first legal card each time; return the seats in the order they were asked."""
    seats = []
    while game.decision.kind == "draft":
        seats.append(game.decision.seat)
        game.push(next(iter(game.legal_actions)))
    return seats


def test_2015_draft_goes_round_clockwise_three_times():
    assert draft_seats(new_game("tezuma-2015", start_seat=2)) == [2, 3, 0, 1] * 3


def test_later_draft_snakes_back_from_the_last_picker():
    assert draft_seats(new_game("tezuma", start_seat=1)) == [1, 2, 3, 0, 0, 3, 2, 1, 1, 2, 3, 0]


def test_draft_refuses_a_second_card_of_a_kind_and_a_taken_card():
    game = new_game("tezuma-2015")
    game.push_text("penalty R")
    with pytest.raises(IllegalAction, match="P1 already took R"):
        game.push_text("penalty R")
    game.push_text("scoring 1")
    game.push_text("ability paper-egg")
    game.push_text("penalty B")
    with pytest.raises(IllegalAction, match="P1 already has a minus card"):
        game.push_text("penalty U")
    with pytest.raises(IllegalAction, match="not a laid-out ability"):
        game.push_text("ability water-trick")


def test_2015_layout_rules_chart_7_only_with_four_chart_8_only_with_three():
    with pytest.raises(IllegalAction, match="chart #8 is not used with 4 players"):
        new_game("tezuma-2015", scoring=["1", "2", "3", "4", "8"])
    with pytest.raises(IllegalAction, match="chart #7 must be laid out"):
        new_game("tezuma-2015", scoring=["1", "2", "3", "4", "5"])
    with pytest.raises(IllegalAction, match="lay out 6 different abilities"):
        new_game("tezuma-2015", abilities=["paper-egg"] * 6)
    game = new_game("tezuma-2015", players=3)
    assert game.state.deal.layout == {
        "scoring": ["1", "2", "3", "8"],
        "abilities": [
            "paper-egg",
            "butterfly-dance",
            "linking-rings",
            "baby-chicks",
            "horse-swallowing",
            "five-color-sand",
        ],
    }


def test_later_layout_is_drawn_from_the_seed_and_kept_in_the_setup():
    a, b = new_game("tezuma"), new_game("tezuma")
    assert a.setup.options["layouts"] == b.setup.options["layouts"]
    layout = a.setup.options["layouts"][0]
    assert len(layout["scoring"]) == 5 and len(layout["abilities"]) == 5
    three = new_game("tezuma", players=3)
    assert [len(v) for v in three.setup.options["layouts"][0].values()] == [4, 4]


def test_later_redraw_each_deal_variant():
    game = new_game("tezuma", redraw_each_deal=True)
    layouts = game.setup.options["layouts"]
    assert len(layouts) == 4 and len({tuple(layout["abilities"]) for layout in layouts}) > 1


def test_revoke_is_reported_once_when_a_later_card_proves_it():
    game = game_with("paper-egg", "water-trick", "sword-walking", "baby-chicks")
    trick(game, "B9", "U3", "B2", "B1")  # P2 does not follow butterfly
    assert game.state.revokes == []
    trick(game, "W9", "W1", "W2", "W3")
    trick(game, "W8", "B5", "W4", "W5")  # P2 shows a butterfly: P2 held one in trick 1
    [revoke] = game.state.revokes
    assert (revoke.deal, revoke.trick, revoke.seat, revoke.suit, revoke.proved_in_trick) == (0, 0, 1, "B", 2)
    assert (
        Formatter.for_game(CATALOG, "en", game).phrase(revoke.phrase())
        == "P2 did not follow butterfly in trick 1 of deal 1 but held it (shown in trick 3)"
    )
    trick(game, "W7", "B6", "W6", "R1")
    assert len(game.state.revokes) == 1


def test_a_trump_of_the_declined_suit_proves_a_revoke_too():
    game = game_with("paper-egg", "water-trick", "sword-walking", "baby-chicks")
    trick(game, "B9", "U3", "B2", "B1")
    trick(game, "W9", "W1", "W2", "W3")
    trick(game, "W8", "BT", "W4", "W5")
    assert [r.seat for r in game.state.revokes] == [1]


def test_no_revoke_for_the_first_card_after_a_sand_lead_or_a_cup_and_ball():
    game = game_with("five-color-sand", "cup-and-ball", "water-trick", "sword-walking")
    trick(game, "five-color-sand", "U3", "U4", "B1")  # P2 may set any suit; P4 declines umbrella
    trick(game, "B9", "U5 cup-and-ball", "B2", "B3")
    trick(game, "B8", "B4", "B5", "B6")
    assert game.state.revokes == []
    trick(game, "W9", "W1", "W2", "U6")  # P4 showed umbrella after declining it in trick 1
    assert [(r.seat, r.suit, r.trick) for r in game.state.revokes] == [(3, "U", 0)]


def test_paper_egg_card_must_follow_too():
    game = game_with("water-trick", "paper-egg", "sword-walking", "baby-chicks")
    trick(game, "B9", "paper-egg", "B2", "B3", "U1")
    trick(game, "B8", "B4", "B5", "B6")
    assert [(r.seat, r.suit) for r in game.state.revokes] == [(1, "B")]


def test_table_facts_answer_questions_before_they_are_asked():
    facts = {"points": {"2": {"8": 9}, "3": {"0": 0}, "4": {"0": 1}}}
    game = new_game("tezuma-2015", table_facts=facts)
    abilities = ["paper-egg", "horse-swallowing", "butterfly-dance", "five-color-sand"]
    draft(game, [{"penalty": s, "scoring": c, "ability": a} for s, c, a in zip("RBUW", "1234", abilities, strict=True)])
    from tests.engine.test_worked_examples import EXAMPLE_5_DEAL

    for plays in EXAMPLE_5_DEAL:
        trick(game, *plays)
    assert game.decision.kind == "draft"
    assert game.state.deals[0].points == [6, 9, 0, 1]


def test_an_answer_must_match_the_open_question_and_range():
    game = game_with("paper-egg", "horse-swallowing", "butterfly-dance", "five-color-sand")
    with pytest.raises(IllegalAction, match="no question"):
        game.push(Answer("points:2:8", 3))
    from tests.engine.test_worked_examples import EXAMPLE_5_DEAL

    for plays in EXAMPLE_5_DEAL:
        trick(game, *plays)
    key = game.decision.question.key
    with pytest.raises(IllegalAction, match="points are 0-99"):
        game.push(Answer(key, 100))
    game.push(Answer(key, 7))
    assert game.state.learned[key] == 7


def test_a_game_ends_after_as_many_deals_as_players_and_ties_share_the_win():
    import random

    from companion.sim import random_game

    game = random_game("tezuma", 3, random.Random(3))
    assert game.is_over() and len(game.state.deals) == 3
    assert game.decision is None and game.pending() is None
    totals = game.totals()
    assert game.winners() == [s for s, t in enumerate(totals) if t == max(totals)]
    with pytest.raises(IllegalAction, match="the game is over"):
        game.push_text("B1")


def test_undo_at_the_start_of_a_trick_reopens_the_last_trick():
    game = game_with("paper-egg", "water-trick", "sword-walking", "baby-chicks")
    trick(game, "B9", "B1", "B2", "B3")
    game.pop()
    assert game.decision.seat == 3 and game.state.deal.tricks[-1].result is None
    assert len(game.state.deal.tricks) == 1
    with pytest.raises(IllegalAction, match="nothing to undo"):
        type(game)(game.setup).pop()


def test_redraw_each_deal_is_the_later_editions_variant_only():
    with pytest.raises(IllegalAction, match="same cards every deal") as refused:
        new_game("tezuma-2015", redraw_each_deal=True)
    assert refused.value.code == "no_redraw"


def test_a_custom_first_layout_in_2015_stays_for_every_deal():
    chosen = {
        "scoring": ["1", "2", "3", "4", "7"],
        "abilities": ["paper-egg", "butterfly-dance", "linking-rings", "baby-chicks", "pail-dance", "fire-breathing"],
    }
    game = new_game("tezuma-2015", **chosen)
    assert game.setup.options["layouts"] == [chosen] * 4


def test_a_2015_record_whose_deals_lay_out_different_cards_is_refused():
    game = new_game("tezuma-2015")
    layouts = [dict(game.setup.options["layouts"][0]) for _ in range(4)]
    layouts[2] = {**layouts[2], "abilities": layouts[2]["abilities"][::-1]}
    setup = replace(game.setup, options={**game.setup.options, "layouts": layouts})
    with pytest.raises(RecordError, match="first deal's cards"):
        type(game)(setup)
