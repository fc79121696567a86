"""``companion cards`` keeps a table's Zenjidou facts as for the other games; a new game embeds them."""

import json

from companion import carddata
from companion.cli import main
from companion.games.zenjidou.rules import Zenjidou


def run(capsys, *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_cards_set_list_and_refuse_for_zenjidou(capsys, tmp_path) -> None:
    facts = tmp_path / "facts.json"
    assert run(capsys, "cards", "--facts", str(facts), "set", "zenjidou", "card:12:effect", "5")[0] == 0
    code, out, _ = run(capsys, "cards", "--facts", str(facts), "list")
    assert "zenjidou card:12:effect = 5 (told by a table)" in out
    assert "zenjidou card:<1-32>:colour" in out
    code, _, err = run(capsys, "cards", "--facts", str(facts), "set", "zenjidou", "card:33:colour", "1")
    assert code != 0 and "card:<1-32>" in err
    told = carddata.facts_for(json.loads(facts.read_text()), "zenjidou")
    setup = Zenjidou.new_setup(["A", "B", "C"], cards=carddata.printed_cards("zenjidou"), table_facts=told)
    game = Zenjidou(setup)
    assert game.fact(12, "effect") == 5 and game.fact(12, "colour") is None


def test_replay_refuses_a_record_from_before_clockwise_play_naming_why(capsys, tmp_path) -> None:
    from pathlib import Path

    example_path = Path(__file__).parents[2] / "docs" / "examples" / "zenjidou.jsonl"
    example = example_path.read_text(encoding="utf-8").splitlines()
    header = json.loads(example[0])
    header["options"] = {}  # as every Zenjidou record before options.direction was written
    old = tmp_path / "old.jsonl"
    old.write_text("\n".join([json.dumps(header), *example[1:]]) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "replay", str(old))
    assert code == 1 and "before play went clockwise" in err and "refused" in err
    code, _, err = run(capsys, "replay", "--json", str(old))
    assert code == 1 and "counter-clockwise" in err


def test_a_journal_from_before_clockwise_play_is_set_aside_with_the_reason_not_resumed(tmp_path) -> None:
    from pathlib import Path

    from companion.daemon.store import Store

    example_path = Path(__file__).parents[2] / "docs" / "examples" / "zenjidou.jsonl"
    example = example_path.read_text(encoding="utf-8").splitlines()
    header = json.loads(example[0])
    header["options"] = {}
    (tmp_path / "current.jsonl").write_text("\n".join([json.dumps(header), *example[1:5]]) + "\n", encoding="utf-8")
    found = Store(tmp_path, wall=lambda: "2026-11-26T08-00-00").recover()
    assert found.game is None and "before play went clockwise" in found.messages[0]
    assert [p.name for p in (tmp_path / "games").iterdir()] == ["damaged-2026-11-26T08-00-00.jsonl"]
