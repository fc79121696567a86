"""The power-cut bench's watch on a booted guest: a device that stops acknowledging is reported
with what the guest says about it, instead of a run that waits for nothing (no VM is booted here:
a stand-in answers for the guest, on a clock of its own)."""

from pathlib import Path

import pytest

from bench.powercut.vm import Stalled, wait_acks


class Guest:
    """What :func:`wait_acks` uses of a VM: its acknowledgements so far, the emulation's slowdown,
    the agent's answers and its directory; and a clock that moves only when the bench sleeps,
    acknowledging a line at each moment of ``ack_at``."""

    def __init__(self, workdir: Path, ack_at: list[float]) -> None:
        self.workdir = workdir
        self.acks: list[tuple[float, int]] = []
        self.asked: list[str] = []
        self.now = 0.0
        self._ack_at = sorted(ack_at)

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        while self._ack_at and self._ack_at[0] <= self.now:
            self.acks.append((self._ack_at.pop(0), len(self.acks) + 1))

    def slowdown(self) -> float:
        return 2.0

    def _check_alive(self) -> None:
        pass

    def ok(self, command: str, *, timeout: float = 120) -> str:
        self.asked.append(command)
        return "ActiveState=activating\nNRestarts=3\nstart operation timed out. Terminating."


def wait(guest: Guest, count: int, *, idle: float) -> None:
    wait_acks(guest, 0, count, timeout=600, idle=idle, clock=guest.clock, sleep=guest.sleep)  # type: ignore[arg-type]


def test_a_device_that_stops_acknowledging_is_diagnosed_from_the_guest(tmp_path):
    guest = Guest(tmp_path, ack_at=[1.0, 2.0])
    with pytest.raises(Stalled, match=r"^2 of 5 journal lines acknowledged, none in the last 20 s") as stalled:
        wait(guest, 5, idle=10)  # 10 s times the slowdown
    assert "NRestarts=3" in str(stalled.value) and "timed out" in str(stalled.value)
    assert "systemctl show" in guest.asked[0] and "journalctl" in guest.asked[0]
    assert (tmp_path / "diagnosis.txt").read_text().startswith("ActiveState=activating")


def test_a_device_still_acknowledging_is_waited_for_however_long_the_game(tmp_path):
    guest = Guest(tmp_path, ack_at=[15.0 * n for n in range(1, 41)])  # 600 s in all, 15 s apart
    wait(guest, 40, idle=10)
    assert len(guest.acks) == 40 and guest.asked == []
