"""The PC tools as a new user meets them: --version, exit statuses, one-line refusals, cards wording."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import companion
from companion.cli import main
from companion.paths import tools_state_dir
from companion.record import export_lines
from tests.engine.helpers import game_with, trick

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:  # argparse's own exits (--version, --help, usage errors)
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", [["companion"], [sys.executable, "-m", "companion"]])
def test_version_from_the_script_and_from_python_m(command: list[str]) -> None:
    if command == ["companion"]:
        command = [str(Path(sys.executable).with_name("companion"))]
    child = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=60)
    assert child.returncode == 0 and child.stdout.strip() == f"companion {companion.__version__}"


def test_help_documents_the_exit_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "exit status: 0 done; 1 the record is damaged" in out


def bad_record(tmp_path: Path) -> Path:
    game = game_with("paper-egg", "water-trick", "sword-walking", "baby-chicks")
    trick(game, "B9", "B1", "B2", "B3")
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(export_lines(game)) + '\n{"type": "play", "seat": 0, "cards": ["B9"]}\n',
                    encoding="utf-8")
    return path


def test_replay_and_export_give_the_same_status_for_the_same_bad_record(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = bad_record(tmp_path)
    replayed, exported = run(capsys, "replay", str(path)), run(capsys, "export", str(path))
    assert replayed[0] == exported[0] == 1
    assert exported[1] == "" and "B9 was already played" in exported[2]
    assert (
        run(capsys, "replay", str(tmp_path / "absent.jsonl"))[0]
        == run(capsys, "export", str(tmp_path / "absent.jsonl"))[0]
        == 2
    )


@pytest.mark.parametrize(("where", "says"), [("missing/out.jsonl", "does not exist"), (".", "is a directory")])
def test_export_to_a_path_that_cannot_be_a_file_is_refused_first(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, where: str, says: str) -> None:
    code, out, err = run(capsys, "export", str(EXAMPLES / "tezuma.jsonl"), "-o", str(tmp_path / where))
    assert code == 2 and out == "" and err.count("\n") == 1 and says in err


def test_export_to_a_pipe_is_refused_and_leaves_the_pipe_in_place(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The export is renamed into place: over a named pipe (or /dev/stdout, run as root) it would
    replace the pipe by a regular file instead of writing into it."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    code, out, err = run(capsys, "export", str(EXAMPLES / "tezuma.jsonl"), "-o", str(pipe))
    assert code == 2 and out == "" and err.count("\n") == 1 and "not a regular file" in err
    assert stat.S_ISFIFO(pipe.stat().st_mode)


def test_replay_words_counts_as_a_person_would(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "replay", str(EXAMPLES / "tezuma-2015.jsonl"))
    assert code == 0
    assert " 1 tricks" not in out and "-0 penalty" not in out and " 1 points" not in out
    assert " tricks, " in out


def test_cards_import_lists_added_and_changed_facts_and_says_which_file(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    facts = tmp_path / "facts.json"
    assert run(capsys, "cards", "--facts", str(facts), "set", "tezuma-2015", "points:3:5", "8")[0] == 0
    other = tmp_path / "other.json"
    other.write_text(
        json.dumps({"tezuma-2015": {"points": {"3": {"5": 9, "6": 8}}}, "tezuma": {"points": {"C": {"4": 6}}}})
    )
    code, out, err = run(capsys, "cards", "--facts", str(facts), "import", str(other))
    assert code == 0 and f"card facts file {facts}" in err
    assert out.splitlines() == ["changed: tezuma-2015 points:3:5: 8 -> 9", "added: tezuma-2015 points:3:6 = 8",
                                "added: tezuma points:C:4 = 6"]
    code, out, _ = run(capsys, "cards", "--facts", str(facts), "import", str(other))
    assert out.splitlines() == ["unchanged: 3 facts"]
    code, out, _ = run(capsys, "cards", "--facts", str(facts), "delete", "tezuma", "points:C:4")
    assert code == 0 and out.strip() == "deleted: tezuma points:C:4 (was 6)"


def test_cards_import_refuses_what_is_not_a_facts_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    facts = tmp_path / "facts.json"
    code, _, err = run(capsys, "cards", "--facts", str(facts), "import", str(tmp_path / "absent.json"))
    assert code == 2 and "No such file" in err
    code, _, err = run(capsys, "cards", "--facts", str(facts), "import", str(EXAMPLES / "tezuma.jsonl"))
    assert code == 2 and "a game record?" in err and "fix or move it away" not in err
    assert not facts.exists()  # nothing was written


def test_the_tools_act_on_an_installed_devices_state(tmp_path: Path) -> None:
    device = tmp_path / "var-lib"
    home = {"HOME": str(tmp_path / "home")}
    assert tools_state_dir(home, device=device) == tmp_path / "home" / ".local" / "state" / "tabletop-companion"
    device.mkdir()
    assert tools_state_dir(home, device=device) == device
    assert tools_state_dir({**home, "STATE_DIRECTORY": "/srv/s"}, device=device) == Path("/srv/s")


def test_a_broken_line_is_named_in_plain_words(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text('"unterminated\n', encoding="utf-8")
    code, _, err = run(capsys, "replay", str(path))
    assert code == 1 and "Unterminated string starting at column 1" in err and "at at" not in err


def test_run_help_is_plain_text_with_the_exit_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "run", "--help")
    assert code == 0 and "Exit status: 0 stopped normally, 2 a configuration or usage" in out
    assert "``" not in out and ":class:" not in out
    assert "--config-toml" in out and "--page-address-offset" in out and "--i2c-address" in out


def test_replay_prints_no_escape_sequence_a_record_carries(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Seat names and the card data's names come from the record: printed raw, a hostile one
    cleared the terminal or set its title. They print with "?" for each control character."""
    first, rest = (EXAMPLES / "tezuma.jsonl").read_text(encoding="utf-8").split("\n", 1)
    header = json.loads(first)
    header["players"][0] = "\x1b[2J\x1b[31mAki\u202e"
    for ability in header["cards"]["abilities"]:
        ability["en"] = "\x1b]0;pwned\x07" + ability["en"]
    record = tmp_path / "hostile.jsonl"
    record.write_text(json.dumps(header) + "\n" + rest, encoding="utf-8")
    code, out, err = run(capsys, "replay", str(record))
    assert code == 0 and err == ""
    assert "P1 ?[2J?[31mAki?" in out and "?]0;pwned?Baby Chicks" in out
    assert all(char == "\n" or char.isprintable() for char in out)


def test_replay_on_a_terminal_that_cannot_show_japanese_escapes_it(tmp_path: Path) -> None:
    """A Latin-1 or ASCII terminal (PYTHONIOENCODING=ascii here) raised UnicodeEncodeError at the
    first Japanese seat name, and the rest of the replay was lost behind a traceback."""
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    child = subprocess.run([sys.executable, "-m", "companion", "replay", str(EXAMPLES / "tezuma.jsonl")],
                           capture_output=True, text=True, timeout=120, env=env, encoding="ascii")
    assert child.returncode == 0 and child.stderr == ""
    assert "P2 \\u3079\\u3093" in child.stdout and "Totals:" in child.stdout
