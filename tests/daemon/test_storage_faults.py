"""Every write path under every storage fault: the device keeps running, its files hold exactly
what it shows, the screen says what happened and the log has a line (tests/daemon/faults.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.daemon.faults import DROPS_WRITES, FAULTS, WRITE_PATHS, cell_play, run_cell


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("path", list(WRITE_PATHS))
def test_a_storage_fault_on_a_write_path_is_survived_and_told(tmp_path: Path, path: str, fault: str) -> None:
    cell = run_cell(path, fault, tmp_path / "state")
    assert cell.running
    assert cell.consistent, cell
    assert cell.message, cell
    assert cell.logged is not False, cell


def test_a_card_that_drops_journal_writes_is_caught_at_the_play_and_told(tmp_path: Path) -> None:
    """The card acknowledges the line and keeps nothing: the play is taken back, the screen says the
    card is failing, and the next play is refused rather than acknowledged on a card that lies."""
    cell = cell_play(tmp_path / "state", DROPS_WRITES)
    assert cell.ok, cell
    assert "the card is failing" in cell.message
