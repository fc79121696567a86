"""Files that are not what they should be: a clear message from every reader, never a traceback
or a hang, and the device keeps running with what it has (issue: faults and bad input)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.daemon.store import Store
from companion.daemon.virtual import VirtualDevice
from companion.errors import CompanionError
from companion.hw.keys import Key, KeyEvent
from companion.ui.app import Settings

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "tezuma.jsonl"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


BAD_FILES = {
    "a directory": lambda path: path.mkdir(),
    "a character device": lambda path: path.symlink_to("/dev/zero"),
    "not UTF-8": lambda path: path.write_bytes(b'{"tezuma": {"points": {"A": {"1": 3}}}}\xff\xfe'),
    "nested 100,000 deep": lambda path: path.write_bytes(b"[" * 100_000),
    "an integer of 5,000 digits": lambda path: path.write_bytes(
        b'{"tezuma": {"points": {"A": {"1": ' + b"7" * 5000 + b"}}}}"
    ),
    "NaN": lambda path: path.write_bytes(b'{"tezuma": {"points": {"A": {"1": NaN}}}}'),
}


@pytest.mark.parametrize("kind", list(BAD_FILES))
def test_cards_import_refuses_a_bad_file_by_name(tmp_path: Path, capsys, kind: str) -> None:
    bad = tmp_path / "import.json"
    BAD_FILES[kind](bad)
    code, err = run(capsys, "cards", "--facts", str(tmp_path / "facts.json"), "import", str(bad))
    assert (code == 2 and err.startswith(f"companion: {bad}")) or err.startswith(f"companion: cannot read {bad}"), err
    assert not (tmp_path / "facts.json").exists()


@pytest.mark.parametrize("kind", list(BAD_FILES))
@pytest.mark.parametrize("command", [["replay"], ["replay", "--json"], ["export"]])
def test_replay_and_export_refuse_a_bad_file_by_name(tmp_path: Path, capsys, kind: str, command: list[str]) -> None:
    bad = tmp_path / "game.jsonl"
    BAD_FILES[kind](bad)
    code, err = run(capsys, *command, str(bad))
    assert code in (1, 2) and err.startswith("companion: ") and str(bad) in err, err


def test_cards_import_of_a_missing_file_is_an_error_not_an_empty_import(tmp_path: Path, capsys) -> None:
    code, err = run(capsys, "cards", "--facts", str(tmp_path / "facts.json"), "import", str(tmp_path / "nope.json"))
    assert code == 2 and "no such file" in err.lower()


@pytest.mark.parametrize("kind", list(BAD_FILES))
def test_bad_settings_and_facts_files_fall_back_with_a_notice(tmp_path: Path, kind: str, caplog) -> None:
    BAD_FILES[kind](tmp_path / "settings.json")
    BAD_FILES[kind](tmp_path / "card-facts.json")
    store = Store(tmp_path)
    assert store.load_settings() == Settings()
    assert store.table_facts("tezuma") == {}
    notices = store.take_notices()
    assert len(notices) == 2 and "settings.json" in notices[0] and "card-facts.json" in notices[1]
    assert all(record.levelname == "ERROR" for record in caplog.records) and len(caplog.records) == 2
    with pytest.raises(CompanionError, match="later games will ask again"):
        store.remember_fact("tezuma", "points:A:1", 3)  # a damaged file is never silently replaced


def test_a_state_directory_that_cannot_be_made_leaves_a_running_device_that_says_why(tmp_path: Path) -> None:
    (tmp_path / "not-a-dir").write_text("a file where the parent directory should be")
    dev = VirtualDevice(tmp_path / "not-a-dir" / "state")
    try:
        assert any("state directory" in m for m in dev.device.startup_messages)
        assert "state directory" in (dev.app.message or "")
        dev.press(KeyEvent(Key.UP))
        dev.press(KeyEvent(Key.OK))  # start a game: refused with the reason, the device goes on
        assert dev.game is None and "could not start the new game" in (dev.app.message or "")
    finally:
        dev.close()


def test_a_damaged_settings_file_is_named_on_the_screen_at_start(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_bytes(b"\xff")
    dev = VirtualDevice(tmp_path)
    try:
        assert "settings.json" in (dev.app.message or "")
    finally:
        dev.close()


def test_replay_reads_standard_input_with_the_same_reader(tmp_path: Path, capsys, monkeypatch) -> None:
    data = EXAMPLE.read_bytes().rstrip(b"\n")  # no newline after the last line: still counts
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code = main(["replay", "--json", "-"])
    out = capsys.readouterr().out
    assert code == 0 and json.loads(out)["game"] == "tezuma"


def test_cards_set_on_a_fresh_install_creates_the_state_directory(tmp_path: Path, capsys) -> None:
    facts = tmp_path / "state" / "card-facts.json"
    code, err = run(capsys, "cards", "--facts", str(facts), "set", "tezuma-2015", "points:2:5", "7")
    assert code == 0, err
    assert json.loads(facts.read_text(encoding="utf-8")) == {"tezuma-2015": {"points": {"2": {"5": 7}}}}


def test_cards_set_through_a_symlinked_facts_file_writes_the_file_it_points_to(tmp_path: Path, capsys) -> None:
    """A facts file kept elsewhere (a synced folder) and linked into place stays linked."""
    (tmp_path / "synced").mkdir()
    target, link = tmp_path / "synced" / "card-facts.json", tmp_path / "card-facts.json"
    target.write_text(json.dumps({"tezuma-2015": {"points": {"3": {"5": 8}}}}), encoding="utf-8")
    link.symlink_to(target)
    assert run(capsys, "cards", "--facts", str(link), "set", "tezuma-2015", "points:4:2", "6")[0] == 0
    assert link.is_symlink() and link.resolve() == target
    assert json.loads(target.read_text(encoding="utf-8")) == {"tezuma-2015": {"points": {"3": {"5": 8}, "4": {"2": 6}}}}
    assert sorted(p.name for p in target.parent.iterdir()) == [".card-facts.json.lock", "card-facts.json"]
