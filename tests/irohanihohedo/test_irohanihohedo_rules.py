"""Irohanihohedo's rules from the book (001): following any colour present, the moving trump marker,
scoring per colour, deals, dealers and leads, revokes proved by later cards, and refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.carddata import printed_cards
from companion.cli import main
from companion.engine.base import Answer
from companion.engine.tricks import Revoke, SuitedCard
from companion.errors import CardDataError, IllegalAction, IllegalPlay
from companion.games.irohanihohedo.rules import Irohanihohedo, Play, colour_scores, deck_mask, marker_colour
from companion.text import Catalog, Formatter

CARDS = printed_cards("irohanihohedo")


def new(players: int = 4, **options: object) -> Irohanihohedo:
    names = ["Aki", "Ben", "Chie", "Dai", "Emi", "Fumi"][:players]
    return Irohanihohedo(Irohanihohedo.new_setup(names, options=options, cards=CARDS))


def cards(*texts: str) -> list[SuitedCard]:
    return [SuitedCard.parse(text) for text in texts]


def play(game: Irohanihohedo, *texts: str) -> None:
    for text in texts:
        game.push_text(text)


def english(game: Irohanihohedo, phrases: object) -> str:
    return Formatter(Catalog.load(), "en", game.term_name).reason(phrases)  # type: ignore[arg-type]


def test_the_books_scoring_example_is_plus_five() -> None:
    # bird 2, 5, 8, 9: the lowest (2) scores, the three others -1 each; flower 6 alone scores 6
    assert colour_scores(cards("O2", "O5", "O8", "O9", "R6")) == 5


def test_scores_have_no_floor() -> None:
    assert colour_scores(cards("O1", "O5", "O8", "O9", "O12")) == 1 - 4
    assert colour_scores(cards("G1", "G2", "G3", "B1", "B2", "B3")) == (1 - 2) * 2


def test_everyone_following_leaves_the_marker_on_the_lead_and_the_highest_wins() -> None:
    game = new(3)  # dealer P1: P2 leads
    play(game, "O7", "O12", "O3")
    trick = game.state.deal.tricks[0]
    assert trick.lead == 1 and marker_colour(trick) == "O"
    assert trick.result is not None and trick.result.winner == 2  # seat 2 played O12
    assert english(game, trick.result.reason) == "P3: highest bird (12)"


def test_a_seat_that_cannot_follow_moves_the_marker_and_its_colour_wins() -> None:
    game = new(4)
    play(game, "O7", "G3", "O12", "G9")  # P3 cannot follow bird: fan takes the marker; P4 follows fan
    trick = game.state.deal.tricks[0]
    assert marker_colour(trick) == "G"
    assert trick.result is not None and trick.result.winner == 0  # P1 played G9
    assert english(game, trick.result.reason) == (
        "P1: highest fan (9); trump marker moved to fan (P3 could not follow)"
    )


def test_the_marker_moves_again_to_the_last_card_that_could_not_follow() -> None:
    game = new(4)
    play(game, "O7", "G3", "B2", "G12")  # P3's fan, then P4's butterfly take the marker; P1's fan 12 follows
    trick = game.state.deal.tricks[0]
    assert marker_colour(trick) == "B"
    assert trick.result is not None and trick.result.winner == 3  # P4's butterfly 2 is the only butterfly


def test_the_winner_leads_the_next_trick_and_the_winner_takes_every_card() -> None:
    game = new(3)
    play(game, "O7", "O12", "O3")
    deal = game.state.deal
    assert deal.tricks[1].lead == 2 and game.decision is not None and game.decision.seat == 2
    assert sorted(deal.captured[2]) == sorted(cards("O12", "O3", "O7"))


def test_a_deal_is_nine_tricks_then_scored_and_the_dealer_moves_left() -> None:
    game = new(3, dealer=2)  # P3 deals: P1 leads the first deal
    assert game.state.deal.trick.lead == 0
    deck = iter(game.deck())
    for _ in range(9 * 3):
        play(game, str(next(deck)))
    first, second = game.state.deals
    assert first.scores is not None and len(first.tricks) == 9 and sum(first.tricks_won) == 9
    assert game.totals() == first.scores == [colour_scores(captured) for captured in first.captured]
    assert second.trick.lead == 1  # P1 deals the second deal: P2 leads


def test_a_game_is_as_many_deals_as_players_and_ties_share_the_win() -> None:
    game = new(3)
    for _ in range(3):
        deck = iter(game.deck())
        for _ in range(27):
            play(game, str(next(deck)))
    assert game.is_over() and len(game.state.deals) == 3
    best = max(game.totals())
    assert game.winners() == [seat for seat, total in enumerate(game.totals()) if total == best]
    with pytest.raises(IllegalAction, match="the game is over"):
        game.push_text("O1")


def test_a_decline_proved_by_a_later_card_is_a_revoke_naming_the_trick() -> None:
    game = new(3)
    play(game, "O7", "G3", "O2")  # P3 did not follow bird in trick 1; its fan 3 took the marker and wins
    assert game.state.revokes == []
    play(game, "O9")  # trick 2: P3 leads a bird, so it held one in trick 1
    assert game.state.revokes == [Revoke(deal=0, trick=0, seat=2, suit="O", proved_in_trick=1)]
    play(game, "O1", "O4", "O10")
    assert len(game.state.revokes) == 1  # flagged once


def test_every_seat_that_declined_a_colour_it_shows_later_is_flagged() -> None:
    game = new(4)
    play(game, "O7", "G3", "B2", "G12")  # P3 declined bird; P4 declined bird and fan; P4 wins (butterfly)
    play(game, "B5", "Y1", "R1", "B9")  # P1 declined butterfly; P2 butterfly and umbrella; P2's flower wins
    assert game.state.revokes == []
    play(game, "O1", "O3", "O4", "O5")  # P3 and P4 now show birds they owed in trick 1
    revokes = game.state.revokes
    assert [(r.seat, r.suit, r.trick, r.proved_in_trick) for r in revokes] == [(2, "O", 0, 2), (3, "O", 0, 2)]


def test_a_revoke_is_not_carried_into_the_next_deal() -> None:
    game = new(3)
    deck = [str(c) for c in game.deck()]
    play(game, "O7", "G3", "O2")  # P3 declines bird
    rest = [c for c in deck if c not in ("O7", "G3", "O2") and not c.startswith("O")]
    play(game, *rest[: 27 - 3])
    assert len(game.state.deals) == 2 and game.state.revokes == []
    play(game, "O1", "O3", "O4")
    assert game.state.revokes == []


def test_a_card_already_played_this_deal_is_refused_and_changes_nothing() -> None:
    game = new(3)
    play(game, "O7")
    before = list(game.actions)
    with pytest.raises(IllegalPlay, match="O7 was already played this deal"):
        game.push_text("O7")
    assert game.actions == before


@pytest.mark.parametrize(("text", "reason"), [
    ("X3", "X3 is not a card: colours are O, G, B, Y, R"),
    ("O13", "O13 is not in the 3-player deck"),
    ("seven", "'seven' is not a card"),
])
def test_cards_outside_the_deck_are_refused_with_a_reason(text: str, reason: str) -> None:
    game = new(3)
    with pytest.raises(IllegalPlay, match=reason):
        game.push_text(text)


def test_only_the_seat_to_play_may_play() -> None:
    game = new(3)
    with pytest.raises(IllegalAction, match="it is P2's turn, not P1's"):
        game.push(Play(0, SuitedCard("O", 3)))


def test_numbers_a_table_told_for_its_player_count_replace_the_default() -> None:
    facts = {"numbers": {"3": {str(n): 1 for n in (1, 2, 4, 5, 7, 8)} | {"12": 0}}}
    game = Irohanihohedo(Irohanihohedo.new_setup("ABC", cards=CARDS, table_facts=facts))
    assert game.numbers == [1, 2, 4, 5, 7, 8] and not game.numbers_by_house
    assert game.decision is not None and game.decision.kind == "play"  # known: nothing to ask
    with pytest.raises(IllegalPlay, match="O3 is not in the 3-player deck"):
        game.push_text("O3")


def test_six_players_use_every_number_without_a_question_or_a_house_ruling() -> None:
    game = new(6)
    assert game.numbers == list(range(1, 13)) and not game.numbers_by_house
    assert game.decision is not None and game.decision.kind == "play"


def test_three_to_five_players_are_asked_once_which_numbers_are_in_play() -> None:
    game = new(4)
    decision = game.decision
    assert decision is not None and decision.kind == "answer" and decision.question is not None
    assert decision.question.key == "numbers:4" and game.numbers_by_house
    for wrong in ([1, 2, 3], list(range(1, 10))):  # 8 numbers, no fewer, no more
        with pytest.raises(IllegalAction, match=f"4 players use 8 numbers: tick 8, not {len(wrong)}"):
            game.push(Answer("numbers:4", deck_mask(CARDS, wrong)))
    with pytest.raises(IllegalAction, match="no question about 'numbers:3'"):
        game.push(Answer("numbers:3", deck_mask(CARDS, [1, 2, 3, 4, 5, 6])))
    game.push_text("1 2 3 4 5 6 7 8")
    assert game.numbers == list(range(1, 9)) and not game.numbers_by_house
    assert game.decision is not None and (game.decision.kind, game.decision.seat) == ("play", 1)
    with pytest.raises(IllegalPlay, match="O9 is not in the 4-player deck"):
        game.push_text("O9")
    assert Irohanihohedo.answer_facts(CARDS, game.actions[0]) == [(f"numbers:4:{n}", int(n <= 8)) for n in range(1, 13)]
    game.pop()
    assert game.decision is not None and game.decision.kind == "answer"  # undo asks again


def test_a_skipped_question_or_a_first_play_applies_the_house_ruling() -> None:
    skipped = new(4)
    skipped.push_text("skip")
    assert skipped.numbers_by_house and skipped.numbers == list(range(1, 13))
    assert Irohanihohedo.answer_facts(CARDS, skipped.actions[0]) == []  # nothing remembered: ask next time
    skipped.push_text("O12")
    played = new(4)  # a record from before the question: its first line is a play
    played.push_text("O12")
    assert played.numbers_by_house and played.state.deal.tricks[0].turns == skipped.state.deal.tricks[0].turns


def test_a_partial_set_of_told_numbers_is_never_used_as_the_deck() -> None:
    facts = {"numbers": {"4": {str(n): 1 for n in (1, 2, 3, 5, 8)} | {"12": 0}}}
    game = Irohanihohedo(Irohanihohedo.new_setup("ABCD", cards=CARDS, table_facts=facts))
    assert game.deck_facts.missing == 3 and game.deck_facts.told == (1, 2, 3, 5, 8)
    assert game.decision is not None and game.decision.question is not None  # asked, the told ones ticked
    assert game.decision.question.suggestion == deck_mask(CARDS, [1, 2, 3, 5, 8])
    assert Irohanihohedo.fact_notes(CARDS, facts) == [
        "numbers:4: 5 of 8 numbers told (3 missing): not used; the device asks at the next 4-player game"]


def test_a_number_spelt_twice_in_a_hand_edited_facts_file_is_not_two_cards() -> None:
    """"01" and "1" made the deck (1, 1, 2, 3, 4, 5): a card twice, so too few for the hands, and
    the device's card picker ran out of cards (a ValueError) before the deal ended."""
    facts = {"numbers": {"3": {"1": 1, "01": 1, "2": 1, "3": 1, "4": 1, "5": 1, "99": 1}}}
    game = Irohanihohedo(Irohanihohedo.new_setup("ABC", cards=CARDS, table_facts=facts))
    assert game.state.numbers is None and game.decision.kind == "answer"  # 5 of 6 told: asked
    with pytest.raises(CardDataError, match="not 'numbers:3:01'"):
        Irohanihohedo.check_fact_key(CARDS, "numbers:3:01")


def test_the_lost_icons_are_listed_as_gaps_and_fact_keys_are_checked() -> None:
    gaps = Irohanihohedo.card_gaps(CARDS)
    assert len(gaps) == 3 and gaps[0].startswith("numbers:3:<number>")  # 6 players use every number
    assert not any(gap.startswith("numbers:6") for gap in gaps)
    Irohanihohedo.check_fact_key(CARDS, "numbers:5:11")
    for key in ["numbers:7:1", "numbers:3:13", "points:3:1", "numbers:3"]:
        with pytest.raises(CardDataError, match="numbers:<players>:<number>"):
            Irohanihohedo.check_fact_key(CARDS, key)


def test_damaged_card_data_is_refused_by_name() -> None:
    broken = dict(CARDS, colours=CARDS["colours"][:4])
    with pytest.raises(CardDataError, match="'colours' must list 5 colours"):
        Irohanihohedo.validate_cards(broken)


@pytest.mark.parametrize("per_player", [0, 3])
def test_cards_per_colour_per_player_must_make_a_deck_the_numbers_hold(per_player: int) -> None:
    """0 made every deck empty (a device resuming such a record crashed drawing its card grid);
    3 x 6 players is more numbers than there are."""
    broken = dict(CARDS, cards_per_colour_per_player=per_player)
    with pytest.raises(CardDataError, match="'cards_per_colour_per_player' must be > 0"):
        Irohanihohedo.validate_cards(broken)


def test_player_counts_outside_three_to_six_are_refused() -> None:
    with pytest.raises(IllegalAction, match="Irohanihohedo is for 3-6 players, not 2"):
        Irohanihohedo.new_setup("AB", cards=CARDS)


def test_the_replay_schema_has_the_common_keys_and_the_marker_and_lowest_cards() -> None:
    game = new(3)
    play(game, "O7", "G3", "O2")
    summary = game.summary()
    assert set(summary) == {"game", "players", "deals", "totals", "winners", "revokes", "pending"}
    (trick,) = summary["deals"][0]["tricks"]
    assert trick["marker"] == "G" and trick["winner"] == 2 and trick["next_lead"] == 2
    assert [c["card"] for c in trick["cards"]] == ["O7", "G3", "O2"]
    assert summary["deals"][0]["lowest"] == [{}, {}, {"G": 3, "O": 2}]


def test_cards_list_names_no_six_player_gap_and_says_how_many_numbers_a_partial_set_misses(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    facts = tmp_path / "facts.json"
    for number in (1, 2, 3):
        assert main(["cards", "--facts", str(facts), "set", "irohanihohedo", f"numbers:4:{number}", "1"]) == 0
    assert "numbers:4: 3 of 8 numbers told (5 missing): not used" in capsys.readouterr().out
    assert main(["cards", "--facts", str(facts), "list"]) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("irohanihohedo")]
    assert not any("numbers:6" in line for line in listed)
    assert sum("not printed in the rules text" in line for line in listed) == 3
    assert listed[-1] == ("irohanihohedo numbers:4: 3 of 8 numbers told (5 missing): not used;"
                          " the device asks at the next 4-player game")
