"""The table page's drop-in: the room's network may reach the page, nothing else; systemd 252 accepts
it alone and beside the event-mode drop-in."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.daemon.test_daemon_systemd_unit import EXEC_START, UNIT, needs_systemd_analyze, parse_unit

DROP_IN = UNIT.parent / "table-page.conf"
EVENT_DROP_IN = UNIT.parent / "event-mode.conf"


def test_the_drop_in_opens_the_room_and_puts_back_only_what_a_server_needs():
    drop_in = parse_unit(DROP_IN.read_text(encoding="utf-8"))["Service"]
    assert drop_in["PrivateNetwork"] == ["no"] and drop_in["RestrictAddressFamilies"] == ["AF_INET AF_INET6"]
    assert drop_in["IPAddressDeny"] == ["any"] and drop_in["IPAddressAllow"] == ["localhost", "192.168.1.0/24"]
    assert drop_in["SystemCallFilter"] == ["listen accept accept4"]
    assert DROP_IN.name > EVENT_DROP_IN.name  # read after event-mode.conf: the addresses add up
    assert "SocketBindDeny" not in drop_in and "RestrictNetworkInterfaces" not in drop_in


@needs_systemd_analyze
@pytest.mark.parametrize("with_event", [False, True], ids=["alone", "beside-event-mode"])
def test_systemd_analyze_verify_accepts_the_unit_with_the_drop_in(tmp_path: Path, with_event: bool) -> None:
    unit = UNIT.read_text(encoding="utf-8").replace(f"ExecStart={EXEC_START}", f"ExecStart={shutil.which('true')} run")
    (tmp_path / UNIT.name).write_text(unit, encoding="utf-8")
    (tmp_path / f"{UNIT.name}.d").mkdir()
    for drop_in in [DROP_IN, *([EVENT_DROP_IN] if with_event else [])]:
        shutil.copy(drop_in, tmp_path / f"{UNIT.name}.d" / drop_in.name)
    result = subprocess.run([shutil.which("systemd-analyze"), "verify", "--man=no", str(tmp_path / UNIT.name)],
                            capture_output=True, text=True, timeout=60, check=False)
    complaints = [line for line in result.stderr.splitlines() if UNIT.name in line or ".conf" in line]
    assert (result.returncode, complaints) == (0, [])
