"""companion replay prints any game through the common schema (docs/record-format.md)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from companion.carddata import printed_cards
from companion.cli import main
from companion.engine.tricks import Phrase
from companion.games.irohanihohedo.rules import Irohanihohedo
from companion.record import GameBuilder, read_record
from companion.report import rendered_summary, write_text
from companion.text import Catalog, Formatter

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "docs" / "examples").glob("*.jsonl"))
COMMON = {"game", "players", "deals", "totals", "winners", "revokes", "pending"}
TRICK = {"lead", "winner", "next_lead", "reason", "reason_codes", "house", "cards"}
OWN_KEYS = {
    "tezuma": ({"picks", "points", "penalties"}, set()),
    "irohanihohedo": ({"lowest"}, {"marker"}),
    "tourney": ({"hit_points", "trick_points", "npc_row"}, {"places", "hits", "predictions"}),
    "zenjidou": ({"bonus", "guesses", "sides", "house", "marks", "player_scores", "resolution", "rest", "rule",
                  "out_of_order"},
                 {"low_strong", "pointer", "strongest", "trump", "wrong"}),
}


def replayed(path: Path):
    builder = read_record(path.read_text(encoding="utf-8").splitlines(), GameBuilder())
    assert builder.failure is None and builder.game is not None
    return builder.game


def test_every_game_has_an_example_record() -> None:
    assert {path.stem for path in EXAMPLES} >= {"irohanihohedo", "tezuma", "tezuma-2015", "tourney", "zenjidou"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_examples_replay_through_the_common_schema(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    assert main(["replay", "--json", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    game = replayed(path)
    deal_keys, trick_keys = OWN_KEYS[data["game"].removesuffix("-2015")]
    assert set(data) == COMMON and data["pending"] is None and data["winners"] == game.winners()
    english = Formatter.for_game(Catalog.load(), "en", game)
    for deal in data["deals"]:
        assert set(deal) == {"start", "tricks", "tricks_won", "scores"} | deal_keys
        assert sum(deal["tricks_won"]) == len(deal["tricks"]) and deal["scores"] is not None
        for trick in deal["tricks"]:
            assert set(trick) == TRICK | trick_keys
            assert trick["reason"] == english.reason([Phrase.from_json(p) for p in trick["reason_codes"]])
            assert {turn["seat"] for turn in trick["cards"]} == set(range(len(trick["cards"])))  # a seat a card
    assert data["totals"] == [
        sum(deal["scores"][seat] for deal in data["deals"]) for seat in range(len(data["players"]))
    ]


def test_an_irohanihohedo_replay_reads_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    path = next(path for path in EXAMPLES if path.stem == "irohanihohedo")
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("irohanihohedo: P1 Aki, P2 べん, P3 Chie\n")
    assert ("  trick  4: P2:O5  P3:G2  P1:O3  -> P3: highest fan (2); trump marker moved to fan (P3 could not follow)"
            "\n") in out
    assert "  P1 Aki: 1 trick -> 9\n" in out and out.count("\n  trick ") == 27 and "Winner: P1 Aki" in out


INTERNAL = re.compile(r"low_strong|pointer|strongest \d|wrong \[|hands \{|house \[|marker \"|npc_row|hit_points"
                      r"|\[[a-z]+(-[a-z]+)+\]")  # field names, JSON values, ability ids like [baby-chicks]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_the_plain_replay_has_names_and_seats_not_internal_fields(
    capsys: pytest.CaptureFixture[str], path: Path
) -> None:
    """Plain text showed 'low_strong false  trump "red"  strongest 2  pointer 1  wrong [[0, 13]]' with
    0-based seats, 'hands {}  house []' and ability ids; --json keeps that data."""
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert not INTERNAL.search(out), INTERNAL.search(out)
    assert main(["replay", "--json", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    if data["game"] == "zenjidou":
        assert {"pointer", "wrong", "low_strong"} <= set(data["deals"][0]["tricks"][0])


def test_the_plain_replay_names_abilities_and_a_games_own_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(next(path for path in EXAMPLES if path.stem == "tezuma"))]) == 0
    out = capsys.readouterr().out
    assert "P1 Aki: scoring E, ability Baby Chicks, penalty F" in out and "P1:F2[Baby Chicks]" in out
    assert main(["replay", str(next(path for path in EXAMPLES if path.stem == "tourney"))]) == 0
    assert "  P1 Aki: 1 trick, 2 for predictions, 1 for tricks -> 3\n" in capsys.readouterr().out


def test_revokes_are_said_in_the_replay() -> None:
    game = Irohanihohedo(Irohanihohedo.new_setup(["Aki", "Ben", "Chie"], cards=printed_cards("irohanihohedo")))
    for text in ["O7", "G3", "B2",  # P3 plays a fan on a bird lead: it holds no bird, it says
                 "R1", "R2", "O5"]:  # P3 shows a bird in trick 2
        game.push_text(text)
    summary = rendered_summary(game)
    out = io.StringIO()
    write_text(summary, out)
    [revoke] = summary["revokes"]
    assert (revoke["trick"], revoke["seat"], revoke["suit"], revoke["proved_in_trick"]) == (0, 2, "O", 1)
    assert "REVOKE: P3 did not follow bird in trick 1 of deal 1 but held it (shown in trick 2)\n" in out.getvalue()
    assert "Waiting for: P3: play (trick 3)" in out.getvalue()


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_a_record_cut_anywhere_replays_as_text_and_json(capsys: pytest.CaptureFixture[str], path: Path,
                                                        tmp_path: Path) -> None:
    """A journal read mid-game is a record cut short: every prefix replays, waiting for what comes next."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    for length in sorted({*range(2, len(lines), max(1, len(lines) // 40)), 3, 4, 5}):
        cut.write_text("".join(lines[:length]), encoding="utf-8")
        assert main(["replay", str(cut)]) == 0, f"cut after {length} lines"
        text = capsys.readouterr().out
        assert main(["replay", "--json", str(cut)]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["pending"] is not None and data["pending"]["prompt"] in text
