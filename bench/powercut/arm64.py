"""The Pi's architecture for the power-cut bench's VM: arm64 Debian 12 booted on an emulated Cortex-A53.

A Pi 3 and a Pi Zero 2 W have four Cortex-A53 cores; qemu's ``virt`` board with ``-cpu cortex-a53
-smp 4`` runs the same instruction set on as many cores, under TCG (this x86_64 host cannot run it
natively), so everything takes many times longer than on the Pi: its start-up figures are an upper
bound, not the Pi's. 1 GiB is a Pi 3's memory (a Zero 2 W has 512 MiB); the boot and the device's
start do not come near either.
"""

from __future__ import annotations

import os
from pathlib import Path

from bench.powercut.vm import X86_64, Guest

GLIBC = (2, 36)  # Debian 12's, as Raspberry Pi OS Bookworm's


def manylinux_tags(machine: str, glibc: tuple[int, int] = GLIBC) -> tuple[str, ...]:
    """The wheel platform tags a C library of version ``glibc`` runs, newest first: pip download takes
    only the tags it is given when it fetches for another machine, not the older ones they imply."""
    major, newest = glibc
    return (*(f"manylinux_{major}_{minor}_{machine}" for minor in range(newest, 16, -1)), f"manylinux2014_{machine}")


ARM64 = Guest(debian_arch="arm64", machine="aarch64", kernel_package="linux-image-arm64",
              qemu="qemu-system-aarch64", qemu_package="qemu-system-arm", machine_args=("-machine", "virt"),
              tcg_cpu="cortex-a53", smp=4, memory_mb=1024, console="ttyAMA0",
              # the bench's waits and the unit's start timeout scale by it (the figures are measured):
              # the x86_64 guest's, since both reach READY in comparable times under TCG here
              # (docs/figures.md: 32-65 s for this one, 28.6-84.9 s for the x86_64 one's single core)
              tcg_slowdown=X86_64.tcg_slowdown,
              # Debian carries spidev for arm64 as Raspberry Pi OS does (docs/pi-setup.md section 2
              # installs it from apt): no C compiler for aarch64 on this host
              from_apt=(("evdev", "python3-evdev"), ("spidev", "python3-spidev")),
              pip_platforms=manylinux_tags("aarch64"), cache_dir="arm64")
GUESTS = {"x86_64": X86_64, "arm64": ARM64}


def foreign_problem(guest: Guest, host_machine: str | None = None,
                    binfmt: Path = Path("/proc/sys/fs/binfmt_misc")) -> str | None:
    """Why this host cannot debootstrap ``guest``'s architecture, or None: another architecture's
    second stage runs its programs, which needs qemu-user registered with binfmt_misc."""
    if guest.machine == (host_machine or os.uname().machine):
        return None
    if (binfmt / f"qemu-{guest.machine}").exists():
        return None
    return (f"debootstrap --arch={guest.debian_arch} needs qemu-user-static registered for {guest.machine}"
            " (sudo apt install qemu-user-static binfmt-support)")
