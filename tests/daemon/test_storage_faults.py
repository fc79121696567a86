"""Every write path under every storage fault: the device keeps running, its files hold exactly
what it shows, the screen says what happened and the log has a line (tests/daemon/faults.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.daemon.faults import FAULTS, WRITE_PATHS, run_cell


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("path", list(WRITE_PATHS))
def test_a_storage_fault_on_a_write_path_is_survived_and_told(tmp_path: Path, path: str, fault: str) -> None:
    cell = run_cell(path, fault, tmp_path / "state")
    assert cell.running
    assert cell.consistent, cell
    assert cell.message, cell
    assert cell.logged is not False, cell
