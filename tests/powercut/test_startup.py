"""The power-cut bench's start-up figures: a boot to the unit's READY split at systemd's own
timestamps (no VM is booted here: ``systemctl show``'s text stands in for the guest's)."""

import pytest

from bench.powercut.startup import Startup, critical_chain, measure, show_values, startup_from
from bench.powercut.vm import BenchError

SHOWN = """UserspaceTimestampMonotonic=41250000
InactiveExitTimestampMonotonic=97500000
ActiveEnterTimestampMonotonic=160000000
"""


def test_systemctl_show_lines_become_a_dict_values_may_hold_equals_signs():
    assert show_values("A=1\nB=x=y\n\nnot a property\n") == {"A": "1", "B": "x=y"}


def test_the_spans_add_up_to_the_units_ready_since_the_kernel_started():
    found = startup_from(show_values(SHOWN))
    assert found == Startup(kernel_s=41.25, userspace_s=56.25, unit_s=62.5)
    assert found.ready_s == pytest.approx(160.0)
    assert found.line() == ("160.0 s = kernel and initramfs 41.2 s + userspace to the unit's start 56.2 s"
                            " + the unit's own start to READY 62.5 s")


@pytest.mark.parametrize("broken", [
    SHOWN.replace("ActiveEnterTimestampMonotonic=160000000", "ActiveEnterTimestampMonotonic=0"),  # not READY yet
    SHOWN.replace("UserspaceTimestampMonotonic=41250000\n", ""),
    SHOWN.replace("97500000", "n/a"),
    SHOWN.replace("97500000", "170000000"),  # READY before the start: a restart's timestamps, not the boot's
])
def test_a_missing_or_unordered_timestamp_is_an_error_not_a_figure(broken):
    with pytest.raises(BenchError):
        startup_from(show_values(broken))


class Guest:
    def __init__(self) -> None:
        self.asked: list[str] = []

    def ok(self, command: str, *, timeout: float = 120) -> str:
        self.asked.append(command)
        return SHOWN


def test_the_guest_is_asked_for_the_managers_and_the_units_timestamps_at_once():
    guest = Guest()
    assert measure(guest).ready_s == pytest.approx(160.0)
    (command,) = guest.asked
    assert "systemctl show -p UserspaceTimestampMonotonic" in command
    assert command.endswith("InactiveExitTimestampMonotonic,ActiveEnterTimestampMonotonic tabletop-companion")


CHAIN = """The time when unit became active or started is printed after the "@" character.
The time the unit took to start is printed after the "+" character.

tabletop-companion.service @22.611s +7.745s
\u2514\u2500basic.target @22.600s
  \u2514\u2500var-lib-tabletop\\x2dcompanion.mount @21.218s +1.203s
"""


def test_the_critical_chain_is_its_units_one_a_line_without_the_legend():
    assert critical_chain(CHAIN) == ["tabletop-companion.service @22.611s +7.745s", "basic.target @22.600s",
                                     "var-lib-tabletop\\x2dcompanion.mount @21.218s +1.203s"]
    assert critical_chain("") == []
