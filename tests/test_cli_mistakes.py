"""Every mistake a person makes at the command line is one line and exit status 2, never a
traceback, and says what is wrong (never ``None``)."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from companion.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def refusal(err: str) -> str:
    """The one line of a refusal (``cards`` first names the facts file it acts on)."""
    lines = [line for line in err.splitlines() if not line.startswith("companion: card facts file")]
    assert len(lines) == 1, err
    assert "None" not in lines[0] and "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(("key", "value", "says"), [
    ("card:5:colour", "9", "zenjidou card:5:colour is 0-4, not 9"),
    ("card:5:score", "6", "zenjidou card:5:score is 0-5, not 6"),
])
def test_a_card_fact_out_of_its_range_is_refused_when_set(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, key: str, value: str, says: str) -> None:
    facts = tmp_path / "facts.json"
    code, out, err = run(capsys, "cards", "--facts", str(facts), "set", "zenjidou", key, value)
    assert (code, out) == (2, "") and says in refusal(err)
    assert not facts.exists()


def test_a_card_fact_out_of_its_range_is_refused_when_imported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    facts, other = tmp_path / "facts.json", tmp_path / "other.json"
    other.write_text(json.dumps({"zenjidou": {"card": {"5": {"colour": 9}}}}), encoding="utf-8")
    code, out, err = run(capsys, "cards", "--facts", str(facts), "import", str(other))
    assert (code, out) == (2, "") and "card:5:colour is 0-4, not 9" in refusal(err)
    assert not facts.exists()


EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "tezuma.jsonl"
LONG = "9" * 5000  # more digits than int() reads: is_digits said yes, then int() raised ValueError


@pytest.mark.parametrize(("game", "key"), [
    ("tezuma-2015", f"points:3:{LONG}"),
    ("zenjidou", f"card:{LONG}:colour"),
    ("irohanihohedo", f"numbers:{LONG}:5"),
    ("irohanihohedo", f"numbers:3:{LONG}"),
])
def test_a_fact_key_of_thousands_of_digits_is_refused_when_set_or_imported(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, game: str, key: str) -> None:
    facts, other = tmp_path / "facts.json", tmp_path / "other.json"
    code, out, err = run(capsys, "cards", "--facts", str(facts), "set", game, key, "1")
    assert (code, out) == (2, "") and "facts are" in refusal(err)
    table: dict[str, object] = {}
    for part in reversed(key.split(":")):
        table = {part: table or 1}
    other.write_text(json.dumps({game: table}), encoding="utf-8")
    code, out, err = run(capsys, "cards", "--facts", str(facts), "import", str(other))
    assert (code, out) == (2, "") and game in refusal(err)
    assert not facts.exists()


@pytest.mark.parametrize(("game", "key"), [
    ("tezuma-2015", "points:3:05"), ("zenjidou", "card:05:colour"), ("irohanihohedo", "numbers:03:5"),
    ("irohanihohedo", "numbers:3:05"),
])
def test_a_number_with_a_leading_zero_in_a_fact_key_is_refused(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, game: str, key: str) -> None:
    """A second spelling of one number: never looked up (the game asked again), or, for
    Irohanihohedo's deck, a number counted twice."""
    facts = tmp_path / "facts.json"
    code, out, err = run(capsys, "cards", "--facts", str(facts), "set", game, key, "1")
    assert (code, out) == (2, "") and f"not {key!r}" in refusal(err)
    assert not facts.exists()


def test_irohanihohedo_facts_are_used_or_not(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    facts = tmp_path / "facts.json"
    code, _, err = run(capsys, "cards", "--facts", str(facts), "set", "irohanihohedo", "numbers:5:11", "2")
    assert code == 2 and "is 0-1, not 2" in refusal(err)
    assert run(capsys, "cards", "--facts", str(facts), "set", "irohanihohedo", "numbers:5:11", "1")[0] == 0


def test_a_folder_given_as_the_facts_file_is_named_not_none(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "cards", "--facts", str(tmp_path), "list")
    assert (code, out) == (2, "") and refusal(err) == f"companion: {tmp_path} is a directory, not a file"


def test_a_facts_file_that_cannot_be_written_says_why(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only facts folder (root, who runs these tests, may write anywhere: the refusal is simulated)."""
    import companion.storage

    def read_only(*_: object) -> Path:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(companion.storage, "durable_temp_file", read_only)
    facts = tmp_path / "facts.json"
    code, out, err = run(capsys, "cards", "--facts", str(facts), "set", "zenjidou", "card:5:colour", "1")
    line = refusal(err)
    assert (code, out) == (2, "") and f"could not write {facts}: Permission denied" in line
    assert line.endswith("(on the device, run it as the service's user: sudo -u companion ...)")


INTERRUPT_DURING_IMPORT = """
import os, signal, sys

class CtrlC:
    '''Sends this process SIGINT, as a Ctrl-C at the terminal does, while {module} loads.'''
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, CtrlC())
sys.argv = ["companion", *{argv!r}]
from companion.__main__ import main
sys.exit(main())
"""


@pytest.mark.parametrize(("argv", "module"), [
    (["run", "--mock"], "companion.daemon.run"),  # `run` is dispatched without the other commands' module
    (["games"], "companion.cli"),
    (["run", "--mock"], "PIL.Image"),
    (["run", "--mock"], "luma.oled.device"),
    (["run", "--mock"], "gpiozero"),
    (["replay", "docs/examples/tezuma.jsonl"], "companion.report"),
    (["scoreboard", "--help"], "companion.organiser.command"),
    (["games"], "companion.registry"),
])
def test_ctrl_c_while_a_command_loads_exits_130_quietly(argv: list[str], module: str) -> None:
    """The first quarter second of every command is spent loading modules: a Ctrl-C then printed
    a KeyboardInterrupt traceback (8 of 8 tries for run)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    child = subprocess.run([sys.executable, "-c", INTERRUPT_DURING_IMPORT.format(module=module, argv=argv)],
                           capture_output=True, text=True, timeout=120, cwd=root, stdin=subprocess.DEVNULL)
    assert (child.returncode, child.stderr, child.stdout) == (130, "", "")


def test_the_companion_script_starts_from_the_interrupt_safe_entry_point() -> None:
    import tomllib

    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["scripts"]["companion"] == "companion.__main__:main"


@pytest.mark.parametrize(("argv", "says"), [
    (["run", "--rotate", "7"], "run: argument --rotate/-r: invalid choice: 7"),
    (["run", "--display", "bogus"], "run: argument --display/-d: invalid choice: 'bogus'"),
    (["run", "--frobnicate"], "run: unrecognized arguments: --frobnicate"),
    (["run", "--contrast", "x"], "run: argument --contrast: invalid int value: 'x'"),
    (["--frobnicate"], "unknown option '--frobnicate': a command comes first"),
    (["replay", "--frobnicate", "x.jsonl"], "replay: unknown option '--frobnicate'"),
    (["cards", "set", "zenjidou", "card:1:colour", "x"], "cards set: argument value: invalid int value: 'x'"),
    ([], "the following arguments are required: COMMAND"),
])
def test_an_option_mistake_is_one_line_naming_the_option_and_the_command(
        capsys: pytest.CaptureFixture[str], argv: list[str], says: str) -> None:
    """luma's mistakes printed its 21-line usage labelled 'companion [-h] [--config CONFIG]', and
    'companion --frobnicate' said a COMMAND was required."""
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith(f"companion: {says}"), err
    assert "usage:" not in err


@pytest.mark.parametrize(("event", "says"), [
    ('broker = "mqtt://[::1"', "[event] broker must be mqtt://HOST[:PORT]"),
    ('broker = "mqtts://10.0.0.2"\nca_file = "CONFIG"', "not a CA certificate (PEM)"),
])
def test_a_broken_event_section_stops_run_with_one_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, event: str, says: str) -> None:
    """An unclosed IPv6 bracket (urlsplit's ValueError) and a CA file that is no certificate (paho's
    ssl.SSLError, raised once the device ran) were tracebacks."""
    config = tmp_path / "config.toml"
    config.write_text(f'[event]\nevent = "cup"\ntable = "1"\n{event.replace("CONFIG", str(config))}\n',
                      encoding="utf-8")
    code, out, err = run(capsys, "run", "--mock", "--check", "--config-toml", str(config))
    assert (code, out) == (2, "") and says in refusal(err)


@pytest.mark.parametrize("argv", [
    ["set", "tezuma-2015", f"points:{LONG}:5", "8"],
    ["set", "tezuma-2015", LONG, "8"],
    ["set", LONG, "points:3:5", "8"],
    ["set", "tezuma-2015", "points:3:5", LONG],
    ["delete", "zenjidou", LONG],
])
def test_a_refusal_quotes_a_long_value_cut_short_with_its_length(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]) -> None:
    facts = tmp_path / "facts.json"
    code, out, err = run(capsys, "cards", "--facts", str(facts), *argv)
    line = refusal(err)
    assert (code, out) == (2, "") and len(line) < 300 and "'… (500" in line and " characters)" in line, line
    assert not facts.exists()


def test_a_record_field_of_thousands_of_characters_is_quoted_short(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = tmp_path / "game.jsonl"
    header = json.dumps({**json.loads(EXAMPLE.read_text(encoding="utf-8").splitlines()[0]), "game": "x" * 5000})
    record.write_text(header + "\n", encoding="utf-8")
    code, _, err = run(capsys, "replay", str(record))
    line = refusal(err)
    assert code != 0 and len(line) < 400 and "unknown game 'xxxx" in line and "(5000 characters)" in line, line
    assert record.read_text(encoding="utf-8") == header + "\n"
