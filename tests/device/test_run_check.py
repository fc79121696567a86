"""``run --check`` says "all is right" only when the run would start; otherwise it names what is wrong."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from companion.daemon.run import main_run
from companion.daemon.run_options import EVENT_INSTALL

EVENT = '[event]\nbroker = "mqtt://localhost"\nevent = "cup"\ntable = "3"\n'


def check(tmp_path: Path, config: str, *options: str) -> int:
    path = tmp_path / "config.toml"
    path.write_text(config, encoding="utf-8")
    return main_run(["--config-toml", str(path), "--state-dir", str(tmp_path / "state"), "--check", *options])


def said(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().err.strip().splitlines()


def test_an_unreadable_event_password_file_is_named_at_check_and_at_start(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    config = EVENT + f'username = "table-3"\npassword_file = "{tmp_path / "absent"}"\n'
    assert check(tmp_path, config, "--mock") == 2
    lines = said(capsys)
    assert len(lines) == 1 and "password" in lines[0] and str(tmp_path / "absent") in lines[0]
    (tmp_path / "keys").write_text("wait 0.1\n")
    path = tmp_path / "config.toml"
    assert main_run(["--config-toml", str(path), "--mock", "--keys", str(tmp_path / "keys"), "--exit-when-done"]) == 2
    assert said(capsys) == lines


def test_paho_missing_is_named_with_the_readme_install_command(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [name for name in sys.modules if name == "paho" or name.startswith("paho.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "paho", None)  # what find_spec and import see when it is not installed
    assert check(tmp_path, EVENT, "--mock") == 2
    lines = said(capsys)
    assert len(lines) == 1 and "paho-mqtt is not installed" in lines[0] and EVENT_INSTALL in lines[0]
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert EVENT_INSTALL in readme


def test_an_absent_keypad_port_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    port = tmp_path / "ttyACM9"
    assert check(tmp_path, f'keypad = "{port}"\n', "--mock") == 2
    lines = said(capsys)
    assert len(lines) == 1 and str(port) in lines[0] and "no such serial port" in lines[0]
    port.touch()  # present now: all is right
    assert check(tmp_path, f'keypad = "{port}"\n', "--mock") == 0
    assert "all is right" in said(capsys)[-1]


def test_an_absent_i2c_bus_is_named_but_not_in_mock_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check(tmp_path, "i2c_port = 99\n") == 2
    lines = said(capsys)
    assert len(lines) == 1 and "/dev/i2c-99 absent" in lines[0]
    assert check(tmp_path, "i2c_port = 99\n", "--mock") == 0  # a simulated bus needs no I2C
    assert "all is right" in said(capsys)[-1]


def test_an_i2c_device_that_does_not_answer_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import smbus2

    class NoDevice:
        def __init__(self, port: int) -> None:
            self.port = port

        def __enter__(self) -> NoDevice:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def write_quick(self, address: int) -> None:
            raise OSError(121, "Remote I/O error")

    monkeypatch.setattr("companion.hw.display.os.path.exists", lambda path: path == "/dev/i2c-1")
    monkeypatch.setattr(smbus2, "SMBus", NoDevice)
    assert check(tmp_path, 'i2c_address = "0x3D"\n') == 2
    lines = said(capsys)
    assert len(lines) == 1 and "no I2C device answers at 0x3D on /dev/i2c-1" in lines[0]


def test_an_i2c_bus_this_user_cannot_open_is_named_as_that(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import smbus2

    def refused(port: int) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("companion.hw.display.os.path.exists", lambda path: path == "/dev/i2c-1")
    monkeypatch.setattr(smbus2, "SMBus", refused)
    assert check(tmp_path, "") == 2
    [line] = said(capsys)
    assert "cannot open /dev/i2c-1 (Permission denied)" in line and "sudo -u companion" in line
