"""The README runs the suite on xdist workers; tests that bound real time still run one at a time."""

import itertools
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TIMED_AND_NOT = '''
import itertools
import os
import time
from pathlib import Path

import pytest

RAN = Path(__file__).with_name("ran")


@pytest.mark.wall_clock
@pytest.mark.parametrize("case", range(6))
def test_timed(case):
    start = time.monotonic()
    time.sleep(0.2)
    (RAN / f"timed-{case}").write_text(f"{os.environ['PYTEST_XDIST_WORKER']} {start} {time.monotonic()}")


@pytest.mark.parametrize("case", range(6))
def test_untimed(case):
    time.sleep(0.2)
'''


def test_wall_clock_tests_never_overlap_on_xdist_workers(tmp_path: Path) -> None:
    """Six timed tests among six others on two workers: each worker runs some, none at once."""
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    wall_clock: bounds real time\n")
    (tmp_path / "conftest.py").write_text("from tests.conftest import pytest_runtest_protocol  # noqa: F401\n")
    (tmp_path / "test_timed.py").write_text(TIMED_AND_NOT)
    (tmp_path / "ran").mkdir()
    child = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                            "--basetemp", str(tmp_path / "base"), str(tmp_path)], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.returncode == 0, child.stdout + child.stderr
    runs = sorted((float(start), float(end), worker) for worker, start, end in
                  (path.read_text().split() for path in (tmp_path / "ran").iterdir()))
    assert len(runs) == 6 and len({worker for _, _, worker in runs}) == 2
    assert all(before[1] <= after[0] for before, after in itertools.pairwise(runs))
