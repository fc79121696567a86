"""Tourney's rules as the book states them (seeds/002), and the NPC of the 3-player game."""

from __future__ import annotations

import itertools

import pytest

from companion.carddata import printed_cards
from companion.engine.tricks import SuitedCard
from companion.errors import CardDataError, IllegalAction, RecordError
from companion.games.tourney.rules import NpcRow, Play, Predict, PredictionsDown, Tourney, TourneyTrick, npc_choice
from companion.record import export_lines, read_record
from companion.text import Catalog

# A whole NPC row as it lies: Wyvern 3 in front of Wyvern 12, Fleur-de-lis 2 in front of 11, ...
ROW = "W3 W12 F2 F11 S5 C7 C1"


def new(players: int = 4, dealer: int = 0) -> Tourney:
    return Tourney(Tourney.new_setup(["Aki", "Ben", "Chie", "Dai"][:players], options={"dealer": dealer},
                                     cards=printed_cards("tourney")))


def push(game: Tourney, *texts: str) -> None:
    for text in texts:
        game.push_text(text)


def trick_of(game: Tourney, deal: int, index: int) -> TourneyTrick:
    trick = game.state.deals[deal].tricks[index]
    assert isinstance(trick, TourneyTrick)
    return trick


def cards(text: str) -> list[SuitedCard]:
    return [SuitedCard.parse(part) for part in text.split()]


# --- places, hits, strength -----------------------------------------------------------------


def test_strength_is_absolute_suit_then_number_and_the_lead_suit_only_decides_following() -> None:
    game = new()
    # P2 leads Cross 14; P3 follows with Cross 2; P4 and P1 have no Cross and play Shamrock 1 and Fleur-de-lis 1
    push(game, "C14", "P2?C3", "P3?C4", "P4?C5", "P1?C6", "C2", "S1", "F1")
    result = trick_of(game, 0, 0).result
    assert result is not None
    assert result.places == (1, 3, 4, 2)  # F1 > S1 > C14 > C2 whatever was led
    assert result.winner == 0 and result.next_lead == 0


def test_a_prediction_hits_when_its_suit_names_the_place_the_card_took() -> None:
    game = new()
    # places: P1 W9 1st, P2 W8 2nd (lead), P3 W1 3rd, P4 F14 4th
    push(game, "W8", "P2?F1", "P3?W2", "P4?C9", "P1?W10", "W1", "F14", "W9")
    result = trick_of(game, 0, 0).result
    assert result is not None and result.places == (1, 2, 3, 4)
    assert result.hits == (True, True, False, True)  # P3 named 1st with a Wyvern and came 3rd


def test_deal_score_is_hits_by_place_plus_tricks_or_three_without_a_trick() -> None:
    game = new()
    hits = {"W": 2, "F": 3, "S": 3, "C": 2}
    assert {suit: game.hit_points(suit) for suit in game.suits} == hits
    assert [game.trick_points(won) for won in (0, 1, 2, 7)] == [3, 1, 2, 7]


def test_a_whole_deal_scored_by_hand() -> None:
    """Seven scripted tricks. Each trick P1 plays a Wyvern (1st), P4 a Fleur-de-lis (2nd), P2 an even
    Cross (3rd) and P3 the odd Cross below it (4th). P1 predicts Wyverns (hits 1st: 2 each), P2
    Shamrocks (hits 3rd: 3 each), P3 Fleurs-de-lis and P4 Shamrocks (both miss)."""
    game = new()  # P1 deals: P2 leads the first trick, P1 (who wins every trick) the others
    for k in range(1, 8):
        plays = {"P1": f"W{k + 7}", "P2": f"C{2 * k}", "P3": f"C{2 * k - 1}", "P4": f"F{k + 7}"}
        order = ["P2", "P3", "P4", "P1"] if k == 1 else ["P1", "P2", "P3", "P4"]
        predictions = [f"P1?W{k}", f"P2?S{k}", f"P3?F{k}", f"P4?S{k + 7}"]
        push(game, f"{order[0]}:{plays[order[0]]}", *predictions, *(f"{seat}:{plays[seat]}" for seat in order[1:]))
    deal = game.state.deals[0]
    assert deal.tricks_won == [7, 0, 0, 0]
    assert deal.scores == [7 * 2 + 7, 7 * 3 + 3, 0 + 3, 0 + 3]
    assert game.state.totals == deal.scores and deal.revokes == []
    summary = game.summary()["deals"][0]
    assert summary["hit_points"] == [14, 21, 0, 0] and summary["trick_points"] == [7, 3, 3, 3]
    assert summary["tricks"][3]["places"] == [1, 3, 4, 2]
    assert summary["tricks"][3]["hits"] == [True, True, False, False]
    assert game.decision is not None and game.decision.seat == 2  # deal 2: P2 deals, P3 leads


def test_deals_as_players_dealer_moves_left_first_lead_is_the_dealers_left_neighbour() -> None:
    game = new(4, dealer=2)
    assert game.deal_count() == 4
    assert [game.first_lead(index) for index in range(4)] == [3, 0, 1, 2]
    assert game.decision is not None and game.decision.seat == 3 and game.decision.kind == "lead"


# --- entering a trick --------------------------------------------------------------------------


def test_predictions_before_or_at_the_reveal_fold_to_the_same_state() -> None:
    before = new()
    push(before, "C9", "P4?C2", "P2?S1", "P1?F3", "P3?W5", "W2", "C13", "C4")
    at_reveal = new()
    push(at_reveal, "C9", "P3:W2", "P4:C13", "P1:C4", "P1?F3", "P3?W5", "P2?S1", "P4?C2")
    assert repr(before.state) == repr(at_reveal.state)
    assert before.summary() == at_reveal.summary()
    assert before.decision == at_reveal.decision


def test_the_decision_asks_for_no_prediction_before_the_tricks_last_card() -> None:
    """A prediction is secret until the reveal: the lead's card, the playing cards in turn, and only
    then every prediction, from the lead round. Predictions entered before (records from before) are
    accepted, and the device still asks for the playing cards first."""
    game = new()
    assert game.decision is not None and (game.decision.kind, game.decision.seat) == ("lead", 1)
    with pytest.raises(IllegalAction, match="leads a playing card before any prediction"):
        game.push(Predict.of_card(2, SuitedCard("W", 1)))
    push(game, "C9")
    assert (game.decision.kind, game.decision.seat) == ("play", 2)
    push(game, "P3?W1")  # entered early (a record from before): accepted, the device asks for the plays
    assert (game.decision.kind, game.decision.seat) == ("play", 2)
    push(game, "C1", "C2")
    assert (game.decision.kind, game.decision.seat) == ("play", 0)
    push(game, "C3")  # the trick's last card: the reveal, from the lead round
    assert [(game.decision.kind, game.decision.seat)] == [("predict", 1)]
    with pytest.raises(IllegalAction, match="enter the missing predictions"):
        game.push(Play(1, SuitedCard("C", 4)))
    with pytest.raises(IllegalAction, match="no prediction to make"):
        game.push(Predict.of_card(2, SuitedCard("C", 4)))
    push(game, "S", "P4?S", "F")
    assert len(game.state.deal.tricks) == 2 and game.decision.kind == "lead"
    assert game.state.deal.tricks[0].predictions == [Predict(0, "F"), Predict(1, "S"), Predict.of_card(2, SuitedCard(
        "W", 1)), Predict(3, "S")]


def test_cards_are_unique_a_prediction_cannot_be_played_nor_a_played_card_predicted() -> None:
    game = new()
    push(game, "C9", "P2?S1")
    with pytest.raises(IllegalAction, match="already put down as a prediction") as info:
        game.push(Play(2, SuitedCard("S", 1)))
    assert info.value.code == "tourney.prediction_card"
    with pytest.raises(IllegalAction, match="already played"):
        game.push(Predict.of_card(2, SuitedCard("C", 9)))
    push(game, "P3?W5", "P4?C2", "P1?F3", "W2", "C13", "C4")
    for text in ("S1", "W5", "C13"):  # the next deal's trick still refuses them: same deal
        with pytest.raises(IllegalAction):
            game.push_text(text)


def test_a_prediction_is_entered_by_its_suit_and_scores_as_its_card_did() -> None:
    """「予想にはカードのスートのみを使用します。数字は無視して下さい。」: the suit alone names the place."""
    by_card, by_suit = new(), new()
    push(by_card, "C9", "P2?S1", "P3?W5", "P4?C2", "P1?F3", "W2", "C13", "C4")
    push(by_suit, "C9", "W2", "C13", "C4", "S", "P3?w", "C", "F")  # a bare suit: the prediction asked
    assert by_suit.actions[4:] == [Predict(1, "S"), Predict(2, "W"), Predict(3, "C"), Predict(0, "F")]
    assert by_suit.state.deal.tricks[0].result == by_card.state.deal.tricks[0].result
    summary = by_suit.summary()["deals"][0]["tricks"][0]
    assert summary["predictions"] == ["F", "S", "W", "C"]
    assert by_card.summary()["deals"][0]["tricks"][0]["predictions"] == ["F3", "S1", "W5", "C2"]


def test_the_legal_predictions_are_one_per_suit() -> None:
    game = new()
    push(game, "C9")
    predictions = [action for action in game.generate_legal_actions() if isinstance(action, Predict)]
    assert predictions == [Predict(seat, suit) for seat in (1, 2, 3, 0) for suit in "WFSC"]


def test_a_suit_whose_cards_are_all_accounted_for_is_refused_for_a_prediction_and_a_play() -> None:
    """A suit-only prediction loses the card, so no card can be refused as seen; the count per suit
    still can: 14 Shamrocks, played or predicted, leave none in a hand."""
    game = new()
    push(game, "S1", "S2", "S3", "S4", "S", "S", "S", "S")  # 8 Shamrocks; P1's S4 wins
    push(game, "S5", "S6", "P1?S", "P2?S", "P3?S", "P4?S")  # 14: P1 led S5, P2 played S6 (predictions early)
    assert game.room("S") == 0 and game.open_suits() == ("W", "F", "C")
    with pytest.raises(IllegalAction, match="no S card is left in a hand") as info:
        game.push_text("S7")
    assert info.value.code == "tourney.suit_out"
    push(game, "C1", "C2")  # P2's S6 wins
    push(game, "C3")
    with pytest.raises(IllegalAction, match="no S card is left in a hand"):
        game.push_text("P2?S")
    assert all(action.suit != "S" for action in game.generate_legal_actions() if isinstance(action, Predict))
    assert not any(isinstance(action, Play) and action.card.suit == "S" for action in game.generate_legal_actions())


def test_a_prediction_must_name_a_suit_and_a_card_of_that_suit() -> None:
    game = new()
    push(game, "C9")
    for action, code in ((Predict(1, "X"), "tourney.not_a_suit"),
                         (Predict(1, "S", SuitedCard("W", 3)), "tourney.suit_mismatch")):
        with pytest.raises(IllegalAction) as info:
            game.push(action)
        assert info.value.code == code
    with pytest.raises(IllegalAction, match="X is not a suit: write W, F, S, C"):
        game.push_text("P2?X")


def test_suit_only_and_card_predictions_write_and_read_their_own_record_lines() -> None:
    assert Predict(1, "S").to_json() == {"type": "predict", "seat": 1, "suit": "S"}
    assert Predict.from_json({"type": "predict", "seat": 1, "suit": "S"}) == Predict(1, "S")
    old = {"type": "predict", "seat": 1, "card": "S1"}
    assert Predict.from_json(old) == Predict.of_card(1, SuitedCard("S", 1)) and Predict.from_json(old).to_json() == old
    assert Predict.from_json({**old, "suit": "S"}).to_json() == old
    for line, message in (({**old, "suit": "W"}, "must be its card's suit"), ({"type": "predict", "seat": 1}, "suit"),
                          ({"type": "predict", "seat": 1, "suit": 3}, "suit"), ({**old, "card": "S"}, "not a card")):
        with pytest.raises(RecordError, match=message):
            Predict.from_json(line)


def test_a_refused_action_changes_nothing() -> None:
    game = new()
    push(game, "C9")
    before = repr(game.state), list(game.actions)
    for text in ("P2:C4", "P3:C9", "P2?X3", "P2?W15", "P9?W1", "Q?W1"):
        with pytest.raises(IllegalAction):
            game.push_text(text)
    assert (repr(game.state), list(game.actions)) == before


# --- revokes --------------------------------------------------------------------------------


def declined_cross_in_trick_one(game: Tourney) -> None:
    """P3 plays Wyvern 2 on P2's Cross 9 lead: a decline of Cross."""
    push(game, "C9", "P2?S1", "P3?W5", "P4?C2", "P1?F3", "W2", "C13", "C4")


def test_a_later_playing_card_proves_a_revoke() -> None:
    game = new()
    declined_cross_in_trick_one(game)
    push(game, "P3:F9", "P3?F8", "P4?F7", "P1?F6", "P2?F5", "P4:F4", "P1:F2", "P2:F1")
    assert game.state.revokes == []  # P3 won and led a Fleur-de-lis: nothing about Cross yet
    push(game, "P3:C6")
    [revoke] = game.state.revokes
    assert (revoke.seat, revoke.suit, revoke.trick, revoke.proved_in_trick) == (2, "C", 0, 2)


def test_a_prediction_card_proves_a_revoke_when_revealed() -> None:
    game = new()
    declined_cross_in_trick_one(game)
    push(game, "P3:F9", "P3?C6", "P4?F7", "P1?F6", "P2?F5", "P4:F4", "P1:F2")
    assert game.state.revokes == []  # face down until the trick is complete
    push(game, "P2:F1")
    [revoke] = game.state.revokes
    assert (revoke.seat, revoke.suit, revoke.trick, revoke.proved_in_trick) == (2, "C", 0, 1)


def test_a_suit_only_prediction_proves_a_revoke_by_its_suit() -> None:
    game = new()
    push(game, "C9", "P2?S", "P3?W", "P4?C", "P1?F", "W2", "C13", "C4")  # P3 declines Cross
    push(game, "P3:F9", "P3?C", "P4?F", "P1?F", "P2?F", "P4:F4", "P1:F2", "P2:F1")
    [revoke] = game.state.revokes
    assert (revoke.seat, revoke.suit, revoke.trick, revoke.proved_in_trick) == (2, "C", 0, 1)


def test_a_prediction_of_the_same_trick_proves_nothing_it_left_the_hand_first() -> None:
    game = new()
    push(game, "C9", "P2?S1", "P3?C5", "P4?C2", "P1?F3", "W2", "C13", "C4")
    assert game.state.revokes == []
    # the same when entered at the reveal, after P3's decline
    late = new()
    push(late, "C9", "P3:W2", "P4:C13", "P1:C4", "P2?S1", "P3?C5", "P4?C2", "P1?F3")
    assert late.state.revokes == []


# --- the NPC --------------------------------------------------------------------------------


def test_three_players_enter_the_npc_row_once_per_deal_and_the_npc_never_scores() -> None:
    game = new(3)
    assert game.npc == 3 and game.decision is not None and game.decision.kind == "npc"
    with pytest.raises(IllegalAction, match="NPC's 7 face-up cards"):
        game.push(Play(1, SuitedCard("C", 9)))
    with pytest.raises(IllegalAction, match="7 different face-up cards, not 6"):
        game.push(NpcRow(tuple(cards("W3 W12 F2 F11 S5 C7"))))
    with pytest.raises(IllegalAction, match="not 7"):
        game.push(NpcRow(tuple(cards("W3 W3 F2 F11 S5 C7 C1"))))
    push(game, ROW)
    with pytest.raises(IllegalAction, match="lies in the NPC's row"):
        game.push(Play(1, SuitedCard("W", 12)))
    with pytest.raises(IllegalAction, match="entered once"):
        game.push(NpcRow(tuple(cards("W4 W5 W6 W7 W8 W9 W10"))))
    assert len(game.totals()) == 3


def test_npc_follows_with_the_front_card_of_the_lead_suit_not_its_strongest() -> None:
    game = new(3)  # P1 deals, P2 leads; order P2, P3, NPC, P1
    push(game, ROW, "F5", "P2?S1", "P3?S2", "P1?S3", "F6")
    trick = trick_of(game, 0, 0)
    assert trick.card_of(3) == SuitedCard("F", 2)  # F2 lies in front of F11
    assert trick.npc_reason is not None and trick.npc_reason.code == "tourney.npc.follow"
    assert game.decision is not None and game.decision.seat == 0  # no press for the NPC


def test_npc_without_the_lead_suit_plays_the_front_card_of_its_strongest_suit_left() -> None:
    game = new(3)
    push(game, "F3 F4 F2 F11 C7 C1 C2", "S9", "P2?S1", "P3?S2", "P1?S3", "S10")
    trick = trick_of(game, 0, 0)
    assert trick.card_of(3) == SuitedCard("F", 3)  # no Shamrock, no Wyvern: Fleur-de-lis, front card
    assert trick.npc_reason is not None and trick.npc_reason.code == "tourney.npc.void"


def test_npc_takes_a_place_wins_and_then_leads_with_the_front_card_of_its_strongest_suit() -> None:
    game = new(3)
    push(game, "W3 W12 F2 F11 S5 C7 C1", "S9", "S10", "S2", "P2?C2", "P3?C3", "P1?C4")
    trick = trick_of(game, 0, 0)
    result = trick.result
    assert result is not None
    # P2 S9, P3 S10, NPC S5, P1 S2: the NPC's card is 3rd and P1's 4th, so P1's Cross hits
    assert result.places == (4, 2, 1, 3)
    assert result.hits == (True, False, False, None)
    # P3 won and leads Cross 13; the NPC's seat is next, but its card waits for the predictions to go down
    push(game, "C13")
    assert trick_of(game, 0, 1).card_of(3) is None
    assert game.decision is not None and (game.decision.kind, game.decision.actor) == ("down", None)
    push(game, "down")  # the predictions are down: the play phase, and the NPC plays its front Cross
    assert trick_of(game, 0, 1).card_of(3) == SuitedCard("C", 7)
    assert game.decision is not None and (game.decision.kind, game.decision.seat) == ("play", 0)
    push(game, "W1", "C14", "P3?F1", "P1?F3", "P2?F4")
    assert trick_of(game, 0, 1).result.winner == 0  # P1's Wyvern 1 beats every Cross
    push(game, "S1", "S3", "S4", "F5", "F6", "F7")  # P1 leads S1; P2 S3, P3 S4; the NPC has no Shamrock
    trick = trick_of(game, 0, 2)
    assert trick.card_of(3) == SuitedCard("W", 3)  # no Shamrock left: front Wyvern
    assert trick.result is not None and trick.result.winner == 3
    assert trick.result.reason[0].params["winner"].id == "npc"
    lead = trick_of(game, 0, 3)
    assert lead.lead == 3 and lead.card_of(3) == SuitedCard("W", 12)  # leads its strongest suit's front card
    assert lead.npc_reason is not None and lead.npc_reason.code == "tourney.npc.lead"
    assert game.decision is not None and (game.decision.kind, game.decision.seat) == ("play", 0)
    assert game.state.deals[0].tricks_won[3] == 1


def test_each_action_kind_checks_applies_lists_and_reads_itself_in_the_order_the_device_offers() -> None:
    """The layer's parse and generate_legal_actions go through the kinds (tests/test_architecture_doc.py
    holds the game to giving none of the four): the row first (alone), then the word that the
    predictions are down, the predictions and the plays."""
    game = new(3, dealer=1)
    assert {type(action) for action in itertools.islice(game.generate_legal_actions(), 50)} == {NpcRow}
    assert type(game.parse(ROW)) is NpcRow
    push(game, ROW, "S9")
    kinds = [type(action) for action in game.generate_legal_actions()]
    assert list(dict.fromkeys(kinds)) == [PredictionsDown, Predict, Play]
    assert [type(game.parse(text)) for text in ("down", "P1?S", "S2", "P1:S2")] == [PredictionsDown, Predict, Play,
                                                                                      Play]


def test_with_p3_leading_the_npc_waits_for_the_word_that_the_predictions_are_down() -> None:
    """P2 deals, so P3 leads and the NPC's seat comes next: its card goes down only once the table says
    the predictions are down (or, in a record from before, when the last prediction is in), never
    right after the lead's card; undoing that word takes the NPC's card back."""
    game = new(3, dealer=1)
    push(game, ROW, "S9")
    assert game.trick.lead == 2 and game.trick.card_of(3) is None
    assert game.decision is not None and (game.decision.kind, game.decision.actor) == ("down", None)
    assert PredictionsDown() in list(game.generate_legal_actions())
    game.push(PredictionsDown())
    assert game.trick.card_of(3) == SuitedCard("S", 5)
    assert game.decision is not None and (game.decision.kind, game.decision.seat) == ("play", 0)
    with pytest.raises(IllegalAction, match="nothing waits for the predictions") as info:
        game.push(PredictionsDown())
    assert info.value.code == "tourney.not_waiting"
    assert game.pop() == PredictionsDown() and game.trick.card_of(3) is None  # undo takes it back
    old = new(3, dealer=1)  # a record from before: every prediction first
    push(old, ROW, "S9", "P3?C2", "P1?C3")
    assert old.trick.card_of(3) is None
    push(old, "P2?C4")
    assert old.trick.card_of(3) == SuitedCard("S", 5)


def test_a_play_entered_before_the_word_puts_the_npcs_card_down_first() -> None:
    """A player's playing card after the NPC's seat says the predictions are down too: the NPC's card
    goes down first, and the trick folds to the same state as with the word, or with the
    predictions first (a record from before)."""
    book = new(3, dealer=1)
    push(book, ROW, "S9", "P3?C2", "P1?C3", "P2?C4", "S10", "S11")
    down = new(3, dealer=1)
    push(down, ROW, "S9", "down", "S10", "S11", "P3?C2", "P1?C3", "P2?C4")
    early = new(3, dealer=1)
    push(early, ROW, "S9")
    with pytest.raises(IllegalAction, match="it is P1's turn, not P2's"):
        early.push(Play(1, SuitedCard("S", 10)))  # P1 comes first, after the NPC
    push(early, "P1:S10", "P2:S11")
    assert early.trick.card_of(3) == SuitedCard("S", 5)
    assert early.decision is not None and (early.decision.kind, early.decision.seat) == ("predict", 2)
    push(early, "P3?C2", "P1?C3", "P2?C4")
    assert repr(early.state) == repr(book.state) == repr(down.state)
    assert early.summary() == book.summary() == down.summary()


def test_undoing_the_card_before_the_npcs_takes_the_npcs_card_back() -> None:
    game = new(3)
    push(game, ROW, "F5")
    before = repr(game.state)
    push(game, "F6")
    assert len(trick_of(game, 0, 0).turns) == 3
    assert game.pop() == Play(2, SuitedCard("F", 6))
    assert repr(game.state) == before and len(trick_of(game, 0, 0).turns) == 1


def test_the_npcs_cards_are_not_in_the_log_and_replay_plays_them_again() -> None:
    game = new(3)
    push(game, ROW, "F5", "F6", "F7", "P2?S1", "P3?S2", "P1?S3")
    assert [type(action) for action in game.actions].count(Play) == 3
    replayed = read_record(export_lines(game)).game
    assert replayed.summary() == game.summary()
    assert game.summary()["deals"][0]["npc_row"] == ROW.split()


def test_npc_choice_reads_the_row_front_first_never_sorted() -> None:
    row = cards("C1 C7 S5 F11 F2")  # laid Cross first, Fleur-de-lis 11 in front of 2
    assert str(npc_choice(row, "F").card) == "F11"
    assert str(npc_choice(row, "W").card) == "F11"
    assert str(npc_choice(row, None).card) == "F11"
    assert str(npc_choice(row, "C").card) == "C1"


# --- records and text -----------------------------------------------------------------------


def test_a_record_with_a_bad_npc_line_is_refused_with_its_line() -> None:
    game = new(3)
    lines = [*export_lines(game), '{"type":"npc","cards":"W3"}']
    builder = read_record(lines)
    assert isinstance(builder.failure, RecordError) and builder.failure.line == 2


def test_english_refusal_templates_say_exactly_what_the_engine_says() -> None:
    catalog = Catalog.load()
    game = new(3)
    found = {}

    def refuse(action: object) -> None:
        with pytest.raises(IllegalAction) as info:
            if isinstance(action, str):
                game.push_text(action)
            else:
                game.push(action)
        found[info.value.code] = info.value

    refuse(Play(1, SuitedCard("C", 9)))
    refuse(NpcRow(tuple(cards("W1"))))
    push(game, ROW)
    refuse(NpcRow(tuple(cards(ROW))))
    refuse(Predict.of_card(1, SuitedCard("C", 9)))
    refuse(Play(1, SuitedCard("W", 3)))
    push(game, "C9", "P2?S1")
    refuse(Play(2, SuitedCard("S", 1)))
    refuse(Predict.of_card(1, SuitedCard("S", 2)))
    refuse("P7?S2")
    refuse(Predict(2, "X"))
    refuse(Predict(2, "W", SuitedCard("S", 3)))
    push(game, "P3?S2", "P1?S3", "C10")  # P3 follows; the NPC follows with its front Cross, C7
    refuse(Play(3, SuitedCard("C", 11)))
    push(game, "C12", "F5", "P2:F6", "P3:F7")  # P1 wins and leads; every card is down, no prediction yet
    refuse(Play(0, SuitedCard("F", 8)))
    game = new()  # every Shamrock played or predicted (see the count check's own test)
    push(game, "S1", "S2", "S3", "S4", "S", "S", "S", "S", "S5", "P1?S", "P2?S", "P3?S", "P4?S", "S6")
    refuse("S7")
    game = new(3)
    push(game, ROW, "C9")
    refuse(PredictionsDown())
    codes = {code for code in found if code.startswith("tourney.")}
    assert codes == {"tourney.npc_first", "tourney.row_size", "tourney.row_entered", "tourney.lead_first",
                     "tourney.npc_card", "tourney.prediction_card", "tourney.predicted", "tourney.not_a_seat",
                     "tourney.npc_plays", "tourney.predictions_missing", "tourney.not_a_suit",
                     "tourney.suit_mismatch", "tourney.suit_out", "tourney.not_waiting"}
    for code in codes:
        key = code.replace("tourney.", "tourney.refusal.", 1)
        assert catalog.text("en", key, **found[code].params) == str(found[code])
        assert catalog.text("ja", key, **found[code].params)


@pytest.mark.parametrize(("change", "message"), [
    ({"suits": []}, "4 suits"),
    ({"numbers": list(range(1, 14))}, "whole deck"),
    ({"npc_cards": 6}, "one face-up card a trick"),
    ({"hand_size": 13}, "two cards of a hand"),
])
def test_card_data_is_validated_on_load(change: dict[str, object], message: str) -> None:
    cards = {**printed_cards("tourney"), **change}
    with pytest.raises(CardDataError, match=message):
        Tourney.validate_cards(cards)
