"""The event-mode drop-in: network to the broker only, never a listening socket; systemd 252 accepts it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.daemon.test_daemon_systemd_unit import EXEC_START, UNIT, needs_systemd_analyze, parse_unit

DROP_IN = UNIT.parent / "event-mode.conf"


def test_the_unit_alone_has_no_network_and_the_drop_in_opens_only_the_broker():
    unit = parse_unit(UNIT.read_text(encoding="utf-8"))["Service"]
    assert unit["PrivateNetwork"] == ["yes"] and unit["RestrictAddressFamilies"] == ["AF_UNIX"]
    drop_in = parse_unit(DROP_IN.read_text(encoding="utf-8"))["Service"]
    assert drop_in["PrivateNetwork"] == ["no"]
    assert drop_in["RestrictAddressFamilies"] == ["AF_INET AF_INET6"]
    assert drop_in["IPAddressDeny"] == ["any"] and drop_in["IPAddressAllow"][1:] == ["localhost"]
    # Debian 12's systemd 252 lacks BPF_FRAMEWORK: SocketBindDeny= would be a silent no-op there
    assert "SocketBindDeny" not in drop_in and "RestrictNetworkInterfaces" not in drop_in
    # paho-mqtt's constructor listens and accepts once on 127.0.0.1 (its wake-up socket pair): the
    # drop-in must leave both calls, and loopback, to the device
    assert "SystemCallFilter" not in drop_in
    assert unit["SystemCallErrorNumber"] == ["EPERM"] and unit["SystemCallFilter"][0] == "@system-service"


def _verify(directory: Path) -> list[str]:
    result = subprocess.run([shutil.which("systemd-analyze"), "verify", "--man=no", str(directory / UNIT.name)],
                            capture_output=True, text=True, timeout=60, check=False)
    return [line for line in result.stderr.splitlines() if UNIT.name in line or DROP_IN.name in line] + (
        [f"exit status {result.returncode}"] if result.returncode else []
    )


@needs_systemd_analyze
@pytest.mark.parametrize("broken", [False, True], ids=["as-shipped", "broken-copy-is-caught"])
def test_systemd_analyze_verify_accepts_the_unit_with_the_drop_in(tmp_path, broken):
    unit = UNIT.read_text(encoding="utf-8").replace(f"ExecStart={EXEC_START}", f"ExecStart={shutil.which('true')} run")
    (tmp_path / UNIT.name).write_text(unit, encoding="utf-8")
    (tmp_path / f"{UNIT.name}.d").mkdir()
    text = DROP_IN.read_text(encoding="utf-8")
    if broken:
        text = text.replace("IPAddressDeny=any", "IPAddressDeny=anything")
    (tmp_path / f"{UNIT.name}.d" / DROP_IN.name).write_text(text, encoding="utf-8")
    complaints = _verify(tmp_path)
    if broken:
        assert complaints and DROP_IN.name in complaints[0]
    else:
        assert complaints == []
