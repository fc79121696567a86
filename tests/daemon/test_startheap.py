"""The device's start runs without the cyclic collector and freezes what it built at READY
(companion/daemon/startheap.py says why)."""

import gc
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.daemon.startheap import StartHeap


@pytest.fixture
def collector_restored() -> Iterator[None]:
    """Whatever a test does to the collector, this process's is on and unfrozen after it."""
    yield
    gc.unfreeze()
    gc.enable()


def test_a_paused_start_freezes_its_heap_and_collects_again_when_done(collector_restored: None) -> None:
    start = StartHeap()
    frozen_before = gc.get_freeze_count()
    start.pause()
    assert not gc.isenabled()
    start.done()
    assert gc.isenabled()
    assert gc.get_freeze_count() > frozen_before


def test_done_without_a_pause_leaves_the_collector_as_it_was(collector_restored: None) -> None:
    """A device run inside a process that did not start it (a test's) neither freezes nor enables."""
    gc.disable()
    frozen_before = gc.get_freeze_count()
    StartHeap().done()
    assert not gc.isenabled()
    assert gc.get_freeze_count() == frozen_before


def test_done_twice_freezes_once(collector_restored: None) -> None:
    start = StartHeap()
    start.pause()
    start.done()
    frozen = gc.get_freeze_count()
    start.done()
    assert gc.get_freeze_count() == frozen


def test_the_real_start_runs_no_collection_before_ready_and_collects_after(tmp_path: Path) -> None:
    """``python -m companion``'s main dispatching ``run --mock``: no collector pass from the moment
    the run command's module starts loading to READY; at READY the collector is on again and the
    start's heap frozen."""
    code = (
        "import gc, os, sys\n"
        "import companion.daemon.sdnotify as sdnotify\n"
        "passes = []\n"
        "def ready(self, *args, **kwargs):\n"
        "    print('READY', len(passes), gc.isenabled(), gc.get_freeze_count(), flush=True)\n"
        "    os._exit(0)\n"
        "sdnotify.Notifier.ready = ready\n"
        f"sys.argv = ['companion', 'run', '--mock', '--state-dir', {str(tmp_path / 'state')!r}]\n"
        "from companion.__main__ import main\n"
        "def count(phase, info):\n"
        "    if phase == 'start' and 'companion.daemon.run' in sys.modules:\n"
        "        passes.append(info)\n"
        "gc.callbacks.append(count)\n"
        "sys.exit(main())\n"
    )
    env = {**os.environ, "CACHE_DIRECTORY": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                            stdin=subprocess.DEVNULL, check=True, env=env)
    passes, enabled, frozen = result.stdout.partition("READY ")[2].split()
    assert (passes, enabled) == ("0", "True"), result.stdout + result.stderr
    assert int(frozen) > 10_000  # the modules, classes and screens the start built
