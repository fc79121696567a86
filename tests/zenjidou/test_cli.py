"""``companion cards`` keeps a table's Zenjidou facts as for the other games; a new game embeds them."""

import json

from companion import carddata
from companion.cli import main
from companion.games.zenjidou import Zenjidou


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
