"""``companion run`` options: config.toml, user errors refused up front, repeatable scripted runs."""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.config import RunConfig, all_settings, check_config, load_config
from companion.daemon.run import _open_display
from companion.daemon.run_options import add_run_arguments, checked_display_args, resolve_options
from companion.errors import ConfigError
from companion.hw.boards import load_board

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "docs" / "examples" / "first-tricks.keys"
EXAMPLE = ROOT / "docs" / "config.example.toml"
SHORT_SCRIPT = "press RIGHT\npress UP\n"


def unwritable_dir(tmp_path: Path) -> Path:
    """A directory this process cannot create files in. Root ignores modes, but /proc refuses even
    root, and it is there in a chroot too (arm64-check mounts it; /sys it does not, where root may write)."""
    return Path("/proc") if os.geteuid() == 0 else tmp_path / "read-only"


def prepare(tmp_path: Path) -> None:
    """The files the mistakes below name."""
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "binary.keys").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    (tmp_path / "ok.keys").write_text(SHORT_SCRIPT)
    if os.geteuid() != 0:
        unwritable_dir(tmp_path).mkdir(mode=0o555)
    configs = {"unknown-key.toml": 'bord = "waveshare-oled-1.3-hat"\n', "latin1.toml": 'board = "caf\xe9"\n',
               "deep.toml": "a = " + "[" * 3000 + "\n", "bad-value.toml": "rotate = 5\n",
               "offset-on-ssd1306.toml": "page_address_offset = 0\n", "bad-display.toml": 'display = "ssd9999"\n',
               "bad-buzzers.toml": 'buzzers = "12,x"\n', "buzzer-list.toml": "buzzers = [12, 16]\n",
               "keypad-buzzers.toml": 'keypad = "/dev/ttyACM7"\nkeypad_buzzers = true\n',
               "board-pin-buzzers.toml": 'buzzers = "12,5"\n'}
    for name, text in configs.items():
        (tmp_path / name).write_bytes(text.encode("latin-1"))
    (tmp_path / "deep.json").write_text("[" * 100_000)
    (tmp_path / "board-dir.toml").mkdir()


def mistakes(tmp_path: Path) -> dict[str, tuple[list[str], str]]:
    """Each mistake a new user makes: the options, and what the one-line message must say."""
    a_file, binary, keys, state = (tmp_path / name for name in ("a-file", "binary.keys", "ok.keys", "state"))
    run = ["--mock", "--state-dir", str(state)]
    return {
        "state dir is a file": (["--mock", "--state-dir", str(a_file)], "is a file, not a directory"),
        "state dir below a file": (["--mock", "--state-dir", str(a_file / "s")], "is a file, not a directory"),
        "state dir read-only": (["--mock", "--state-dir", str(unwritable_dir(tmp_path) / "s")], "not writable"),
        "save-frame missing folder": ([*run, "--save-frame", str(tmp_path / "no" / "x.png")], "does not exist"),
        "save-frame a directory": ([*run, "--save-frame", str(tmp_path)], "is a directory"),
        "save-frame unknown type": ([*run, "--save-frame", str(tmp_path / "x.pgx")], "image type"),
        "save-frame scale out of range": (
            [*run, "--save-frame", str(tmp_path / "x.png"), "--save-frame-scale", "0"],
            "--save-frame-scale 0: give 1-16",
        ),
        "keys binary": ([*run, "--keys", str(binary)], "not UTF-8"),
        "keys missing": ([*run, "--keys", str(tmp_path / "absent.keys")], "cannot read key script"),
        "keys a directory": ([*run, "--keys", str(tmp_path)], "Is a directory"),
        "state-dir empty": (["--mock", "--check", "--state-dir", ""], "--state-dir: an empty name: give a directory"),
        "keys without mock": (["--state-dir", str(state), "--keys", str(keys)], "add --mock"),
        "exit-when-done without keys": ([*run, "--exit-when-done"], "give one with --keys"),
        "keys-virtual-time without keys": ([*run, "--keys-virtual-time"], "give one with --keys"),
        "config unknown key": (
            [*run, "--config-toml", str(tmp_path / "unknown-key.toml")],
            "unknown key 'bord' (did you mean 'board'?)",
        ),
        "config not UTF-8": ([*run, "--config-toml", str(tmp_path / "latin1.toml")], "not UTF-8"),
        "config nested too deeply": ([*run, "--config-toml", str(tmp_path / "deep.toml")], "nested too deeply"),
        "config a directory": ([*run, "--config-toml", str(tmp_path)], "Is a directory"),
        "config missing": ([*run, "--config-toml", str(tmp_path / "absent.toml")], "No such file"),
        "config bad value": ([*run, "--config-toml", str(tmp_path / "bad-value.toml")], "rotate: 5 is not one of 0, 2"),
        "config unknown display": (
            [*run, "--config-toml", str(tmp_path / "bad-display.toml")],
            "'ssd9999' is not a luma display",
        ),
        "offset on ssd1306": ([*run, "--config-toml", str(tmp_path / "offset-on-ssd1306.toml")], "SH1106 setting"),
        "board nested too deeply": ([*run, "--board", str(tmp_path / "deep.json")], "nested too deeply"),
        "board a directory": ([*run, "--board", str(tmp_path / "board-dir.toml")], "Is a directory"),
        "contrast out of range": ([*run, "--contrast", "300"], "300 is not one of 15-255"),
        "buzzers not a pin list": ([*run, "--buzzers", "12,x"], "--buzzers: buzzers: '12,x' is not BCM pins 0-27"),
        "buzzers a pin twice": ([*run, "--buzzers", "12,16,12"], "'12,16,12' is not BCM pins 0-27"),
        "buzzers past GPIO27": ([*run, "--buzzers", "12,28"], "'12,28' is not BCM pins 0-27"),
        "buzzers empty": ([*run, "--buzzers", ""], "'' is not BCM pins 0-27"),
        "config buzzers not a pin list": (
            [*run, "--config-toml", str(tmp_path / "bad-buzzers.toml")],
            "bad-buzzers.toml: buzzers: '12,x' is not BCM pins 0-27",
        ),
        "config buzzers as a list": (
            [*run, "--config-toml", str(tmp_path / "buzzer-list.toml")],
            "buzzers: expected text, got [12, 16]",
        ),
        "buzzer on a board key": (
            [*run, "--buzzers", "12,5"],
            "seat 2's GPIO5 is key BACK on board adafruit-oled-bonnet",
        ),
        "config buzzer on a board key": (
            [*run, "--config-toml", str(tmp_path / "board-pin-buzzers.toml")],
            "seat 2's GPIO5 is key BACK",
        ),
        "buzzer on a display pin": (
            [*run, "--board", "waveshare-oled-1.3-hat", "--buzzers", "24"],
            "GPIO24 is the display's gpio_DC",
        ),
        "both buzzers on the command line": (
            [*run, "--keypad", "/dev/ttyACM7", "--buzzers", "12", "--keypad-buzzers"],
            "on GPIO (--buzzers) and on the keypad (--keypad-buzzers)",
        ),
        "buzzers here, keypad buzzers in config": (
            [*run, "--config-toml", str(tmp_path / "keypad-buzzers.toml"), "--buzzers", "12"],
            "on GPIO (--buzzers) and on the keypad (keypad_buzzers in config.toml) stamp presses on different clocks",
        ),
        "keypad buzzers without a keypad": (
            [*run, "--keypad-buzzers"],
            "--keypad-buzzers needs the keypad's serial port",
        ),
    }


@pytest.mark.parametrize("mistake", sorted(mistakes(Path("/nonexistent"))))
def test_a_user_mistake_is_one_line_and_exit_2_before_anything_starts(
        mistake: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prepare(tmp_path)
    argv, says = mistakes(tmp_path)[mistake]
    assert main(["run", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("companion: ") and "\n" not in err and says in err, err
    assert not (tmp_path / "state" / "current.jsonl").exists()  # no game was started


def test_the_real_command_refuses_with_one_line_and_status_2(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('bord = "waveshare-oled-1.3-hat"\n')
    child = subprocess.run([sys.executable, "-m", "companion", "run", "--mock", "--state-dir", str(tmp_path)],
                           env={**os.environ, "CONFIGURATION_DIRECTORY": str(tmp_path)}, capture_output=True,
                           text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert child.returncode == 2
    assert child.stderr.splitlines() == [
        f"companion: {tmp_path}/config.toml: unknown key 'bord' (did you mean 'board'?);"
        " every key is in docs/config.example.toml"]


def readme_scripted_example() -> list[str]:
    """The README's scripted start, as its words: ``companion run --mock --keys ...``."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (command,) = re.findall(r"`(companion run --mock --keys [^`]+)`", readme)
    return shlex.split(command)


def test_the_readme_scripted_example_ends_the_same_every_time(tmp_path: Path) -> None:
    """Without --state-dir a scripted run plays on a fresh state: it never resumes the last run's game.
    The second run plays the script on its own jumping clock (--keys-virtual-time) and must end on the
    same frame as the first, pressed in real time as the README's words run it."""
    words = readme_scripted_example()
    assert "--state-dir" not in words and "--save-frame" in words
    home = tmp_path / "home"
    frames = []
    for run, clock in ((1, []), (2, ["--keys-virtual-time"])):
        work = tmp_path / f"run{run}"
        work.mkdir()
        (work / "docs").symlink_to(ROOT / "docs")
        child = subprocess.run([sys.executable, "-m", "companion", *words[1:], *clock], cwd=work, capture_output=True,
                               text=True, timeout=120, stdin=subprocess.DEVNULL,
                               env={**os.environ, "HOME": str(home), "PYTHONPATH": str(ROOT)})
        assert child.returncode == 0, child.stderr
        assert "fresh temporary state" in child.stderr
        frame = words[words.index("--save-frame") + 1]
        frames.append((work / frame).read_bytes())
    assert frames[0] == frames[1]
    assert not (home / ".local" / "state").exists()  # the user's own state was not touched


def run_options(argv: list[str], config: RunConfig) -> argparse.Namespace:
    parser = argparse.ArgumentParser(allow_abbrev=False)
    add_run_arguments(parser)
    return resolve_options(parser.parse_args(argv), config)


def test_config_toml_reaches_the_driver_and_the_command_line_wins(tmp_path: Path) -> None:
    config_file = tmp_path / "config.toml"
    config_file.write_text('board = "waveshare-oled-1.3-hat"\nrotate = 2\npage_address_offset = 0\n'
                           'language = "ja"\ncontrast = 100\nkeypad = "/dev/ttyACM7"\n')
    config = load_config(config_file)
    options = run_options(["--mock", "--contrast", "120"], config)
    assert (options.board, options.keypad, options.language, options.contrast) == (
        "waveshare-oled-1.3-hat", "/dev/ttyACM7", "ja", 120)
    display, _ = _open_display(options, checked_display_args(options, load_board(options.board), config.luma_argv()))
    assert type(display.device).__name__ == "sh1106" and display.device.rotate == 2
    assert display.device._page_address_offset == 0 and display.bus.panel.column_offset == 0
    display, _ = _open_display(
        options, checked_display_args(options, load_board(options.board), [*config.luma_argv(), "--rotate", "0"])
    )
    assert display.device.rotate == 0  # the command line wins


def test_buzzers_from_config_toml_and_the_command_line_wins(tmp_path: Path) -> None:
    config_file = tmp_path / "config.toml"
    config_file.write_text('keypad = "/dev/ttyACM7"\nbuzzers = "12, 16,20"\nkeypad_buzzers = false\n')
    config = load_config(config_file)
    options = run_options(["--mock"], config)
    assert (options.buzzers, options.keypad_buzzers) == ("12, 16,20", False)
    assert run_options(["--mock", "--buzzers", "21,26"], config).buzzers == "21,26"
    config_file.write_text('keypad = "/dev/ttyACM7"\nkeypad_buzzers = true\n')
    config = load_config(config_file)
    assert (run_options(["--mock"], config).buzzers, run_options(["--mock"], config).keypad_buzzers) == (None, True)
    options = run_options(["--mock", "--no-keypad-buzzers", "--buzzers", "12"], config)  # GPIO instead, this once
    assert (options.buzzers, options.keypad_buzzers) == ("12", False)
    assert run_options(["--mock"], RunConfig({})).keypad_buzzers is None  # no buzzers at all


def test_companion_run_opens_the_buzzers_config_toml_lists(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The real command on mock pins: config.toml's pins become one buzzer per seat, seat 1 first."""
    import companion.hw.buzzers as buzzers

    opened: list[dict[int, str]] = []

    class Recorded(buzzers.GpioBuzzers):
        def __init__(self, pins: dict[int, int], *args: object, **kwargs: object) -> None:
            super().__init__(pins, *args, **kwargs)  # type: ignore[arg-type]
            opened.append({seat: str(device.pin) for seat, device in enumerate(self._inputs)})

    monkeypatch.setattr(buzzers, "GpioBuzzers", Recorded)
    (tmp_path / "config.toml").write_text('buzzers = "12,16,20,21"\n')
    (tmp_path / "s.keys").write_text(SHORT_SCRIPT)
    argv = ["run", "--mock", "--config-toml", str(tmp_path / "config.toml"), "--state-dir", str(tmp_path / "state"),
            "--keys", str(tmp_path / "s.keys"), "--exit-when-done"]
    assert main(argv) == 0, capsys.readouterr().err
    assert main([*argv, "--buzzers", "26,19"]) == 0, capsys.readouterr().err
    assert opened == [{0: "GPIO12", 1: "GPIO16", 2: "GPIO20", 3: "GPIO21"}, {0: "GPIO26", 1: "GPIO19"}]


def test_a_board_file_sets_the_sh1106_column_offset(tmp_path: Path) -> None:
    board_text = (ROOT / "hardware" / "custom-board.example.toml").read_text(encoding="utf-8")
    board_text = board_text.replace('driver = "ssd1306"', 'driver = "sh1106"\npage_address_offset = 0')
    (tmp_path / "board.toml").write_text(board_text)
    board = load_board(str(tmp_path / "board.toml"))
    assert board.display.page_address_offset == 0
    display, _ = _open_display(
        run_options(["--mock"], RunConfig({})), checked_display_args(run_options(["--mock"], RunConfig({})), board, [])
    )
    assert display.device._page_address_offset == 0
    (tmp_path / "bad.toml").write_text(board_text.replace('driver = "sh1106"', 'driver = "ssd1306"'))
    with pytest.raises(ConfigError, match=r"display\.page_address_offset: only the sh1106 driver has one"):
        load_board(str(tmp_path / "bad.toml"))


def test_the_example_config_holds_every_key_and_each_is_valid() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    assignments = [re.sub(r"^# ?", "", line).split("#")[0].strip() for line in text.splitlines()
                   if re.match(r"^#? ?[a-z_0-9]+ = ", line)]
    keys = [line.split("=")[0].strip() for line in assignments]
    assert sorted(keys) == sorted(all_settings())
    import tomllib

    check_config(tomllib.loads("\n".join(assignments)), str(EXAMPLE))
    assert set(tomllib.loads(text)) == {"board"}  # as shipped it sets only the board


def test_luma_config_file_is_read(tmp_path: Path) -> None:
    luma_file = tmp_path / "luma.conf"
    luma_file.write_text("--rotate=2\n")
    options = run_options(["--mock"], RunConfig({}))
    display, _ = _open_display(
        options, checked_display_args(options, load_board("adafruit-oled-bonnet"), ["--config", str(luma_file)])
    )
    assert display.device.rotate == 2


def scripted_run(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Play ``s.keys`` with these options; returns what the command printed on stderr."""
    child = subprocess.run([sys.executable, "-m", "companion", "run", "--mock", "--state-dir", str(tmp_path),
                            "--keys", str(tmp_path / "s.keys"), "--exit-when-done", *args],
                           capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                           env={**os.environ, **(env or {})})
    assert child.returncode == 0, child.stderr
    return child.stderr


def test_language_from_config_toml_shows_on_the_device(tmp_path: Path) -> None:
    (tmp_path / "s.keys").write_text("wait 0\n")
    (tmp_path / "config.toml").write_text('language = "ja"\n')
    from PIL import Image

    scripted_run(tmp_path, "--save-frame", str(tmp_path / "ja.png"),
                       env={"CONFIGURATION_DIRECTORY": str(tmp_path)})
    scripted_run(tmp_path, "--save-frame", str(tmp_path / "ja2.png"), "--language", "ja")
    scripted_run(tmp_path, "--save-frame", str(tmp_path / "en.png"), "--language", "en")
    ja, ja2, en = (Image.open(tmp_path / f"{name}.png").tobytes() for name in ("ja", "ja2", "en"))
    assert ja == ja2 != en


@pytest.mark.parametrize("obstacle", ["a file named companion-frames", "an unwritable folder"])
def test_display_capture_refuses_a_folder_it_cannot_write_before_anything_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], obstacle: str) -> None:
    """Both gave a traceback once the first frame was written."""
    if obstacle == "a file named companion-frames":
        (tmp_path / "companion-frames").write_text("notes")
        monkeypatch.chdir(tmp_path)
        says = "companion-frames is a file, not a directory"
    else:
        monkeypatch.chdir(unwritable_dir(tmp_path) if os.geteuid() == 0 else tmp_path)
        if os.geteuid() != 0:
            tmp_path.chmod(0o555)
        says = "companion-frames is not writable"
    try:
        code = main(["run", "--mock", "--display", "capture", "--state-dir", str(tmp_path / "state")])
    finally:
        tmp_path.chmod(0o755)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and says in err, err
    assert not (tmp_path / "state" / "current.jsonl").exists()  # nothing started


def test_display_capture_writes_its_frames_into_a_folder_of_their_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.keys").write_text(SHORT_SCRIPT)
    assert main(["run", "--mock", "--display", "capture", "--transform", "none", "--state-dir", str(tmp_path / "state"),
                 "--keys", "s.keys", "--exit-when-done"]) == 0
    assert "companion-frames/frame_NNNNNN.png" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["companion-frames", "s.keys", "state"]
    assert len(list((tmp_path / "companion-frames").glob("frame_*.png"))) >= 2


def test_config_toml_takes_luma_options_the_old_list_refused(tmp_path: Path) -> None:
    """spi_mode, gpio_chip_select and spi_transfer_size were refused though the docs promised every option."""
    (tmp_path / "config.toml").write_text('interface = "spi"\nspi_mode = 3\ngpio_chip_select = 7\n'
                                          'spi_transfer_size = 2048\nspi_cs_high = true\ninverse = false\n'
                                          'gpio_reset_hold_time = 0.5\n')
    config = load_config(tmp_path / "config.toml")
    options = run_options(["--mock"], config)
    luma_args = checked_display_args(options, load_board("adafruit-oled-bonnet"), config.luma_argv())
    assert (luma_args.spi_mode, luma_args.gpio_chip_select, luma_args.spi_transfer_size) == (3, 7, 2048)
    assert (luma_args.spi_cs_high, luma_args.inverse, luma_args.gpio_reset_hold_time) == (True, False, 0.5)


@pytest.mark.parametrize(("text", "says"), [
    ("seed = 3\n", "seed is an option of one run, not a key of this file"),
    ("spi_mode = \"x\"\n", "spi_mode: expected a whole number, got 'x'"),
    ("block_orientation = 45\n", "block_orientation: 45 is not one of 0, 90, -90, 180"),
])
def test_config_toml_refuses_what_is_not_a_key_or_not_its_kind(tmp_path: Path, text: str, says: str) -> None:
    (tmp_path / "config.toml").write_text(text)
    with pytest.raises(ConfigError, match=re.escape(says)):
        load_config(tmp_path / "config.toml")


def documented_config_check() -> list[str]:
    """The config check docs/pi-setup.md gives, with this checkout's companion for the installed one."""
    text = (ROOT / "docs" / "pi-setup.md").read_text(encoding="utf-8")
    block = text.split("<!-- config-check -->")[1].split("<!-- /config-check -->")[0]
    command = shlex.split(block.strip().strip("`").strip())
    assert command[0] == "/opt/tabletop-companion/.venv/bin/companion"
    assert " ".join(command) in EXAMPLE.read_text(encoding="utf-8")  # the example file gives the same
    return [sys.executable, "-m", "companion", *command[1:]]


@pytest.mark.parametrize(("config", "status"), [("example", 0), ('bord = "x"\n', 2), ("rotate = 5\n", 2)])
def test_the_documented_config_check_works(tmp_path: Path, config: str, status: int) -> None:
    """The old check, 'run --mock --keys /dev/null --exit-when-done', always failed: /dev/null is
    not a regular file. The documented one passes the example file and refuses a wrong one."""
    text = EXAMPLE.read_text(encoding="utf-8") if config == "example" else config
    (tmp_path / "config.toml").write_text(text, encoding="utf-8")
    child = subprocess.run(documented_config_check(), capture_output=True, text=True, timeout=120, cwd=tmp_path,
                           env={**os.environ, "CONFIGURATION_DIRECTORY": str(tmp_path)}, stdin=subprocess.DEVNULL)
    if status == 0 and child.returncode == 2 and "I2C" in child.stderr:  # a machine without the panel's bus
        assert len(child.stderr.splitlines()) == 1 and ("I2C bus /dev/i2c-1 absent" in child.stderr
                                                        or "no I2C device" in child.stderr), child.stderr
        return
    assert child.returncode == status, child.stderr
    assert child.stdout == "" and len(child.stderr.splitlines()) == 1, child.stderr
    if status == 0:
        assert f"all is right (options from {tmp_path}/config.toml): board adafruit-oled-bonnet" in child.stderr
