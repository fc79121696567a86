"""Where a boot's time to the device's READY went, from systemd's own monotonic clock in the guest
(microseconds since the kernel started)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bench.powercut.vm import UNIT, BenchError

MANAGER = ("UserspaceTimestampMonotonic",)  # systemd started on the root file system
STARTED = ("InactiveExitTimestampMonotonic", "ActiveEnterTimestampMonotonic")  # the unit's start job, READY=1


class Shell(Protocol):
    def ok(self, command: str, *, timeout: float = 120) -> str: ...


@dataclass(frozen=True)
class Startup:
    """A boot to the unit's READY=1 in three spans that add up to it."""

    kernel_s: float  # the kernel and the initramfs, to systemd on the root file system
    userspace_s: float  # systemd's start to the unit's start job (what it waits for: units, the state disk)
    unit_s: float  # the unit's own start: the program's start-up to READY=1

    @property
    def ready_s(self) -> float:
        return self.kernel_s + self.userspace_s + self.unit_s

    def line(self) -> str:
        return (f"{self.ready_s:.1f} s = kernel and initramfs {self.kernel_s:.1f} s + userspace to the unit's"
                f" start {self.userspace_s:.1f} s + the unit's own start to READY {self.unit_s:.1f} s")


def show_values(text: str) -> dict[str, str]:
    """``systemctl show``'s ``Name=value`` lines as a dict."""
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def startup_from(values: dict[str, str]) -> Startup:
    """The spans from the manager's and the unit's timestamps; a timestamp that is missing, zero (not
    reached yet) or out of order is an error, not a figure."""
    try:
        userspace, start, ready = (int(values[name]) for name in (*MANAGER, *STARTED))
    except (KeyError, ValueError):
        raise BenchError(f"systemd's start-up timestamps are incomplete: {values}") from None
    if not 0 < userspace <= start <= ready:
        raise BenchError(f"systemd's start-up timestamps are not in order (not READY yet?): {values}")
    return Startup(userspace / 1e6, (start - userspace) / 1e6, (ready - start) / 1e6)


def critical_chain(text: str) -> list[str]:
    """``systemd-analyze critical-chain``'s chain, one unit a line (its times as systemd prints them:
    ``@`` when it became active, ``+`` how long its start took), without the legend above it."""
    return [line.strip(" \u2514\u2500|`-") for line in text.splitlines()
            if line.strip() and not line.startswith("The time ")]


def measure(vm: Shell) -> Startup:
    """The current boot's spans, asked once the unit is active (before any restart of it)."""
    return startup_from(show_values(vm.ok(f"systemctl show -p {','.join(MANAGER)} &&"
                                          f" systemctl show -p {','.join(STARTED)} {UNIT}")))


def chain_to_unit(vm: Shell) -> list[str]:
    """What the unit's start waited for in this boot, from systemd's critical chain."""
    return critical_chain(vm.ok(f"systemd-analyze critical-chain --no-pager {UNIT}.service || true"))
