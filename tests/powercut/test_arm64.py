"""The power-cut bench's arm64 guest (the Pi's architecture, emulated): what differs from the x86_64
one is data (bench/powercut/arm64.py), and these tests keep the qemu command, the wheels it is given
and the x86_64 image's cache key what they should be (the VM runs are a bench, not a test)."""

from dataclasses import replace

import pytest

from bench.powercut import vm as vm_module
from bench.powercut.arm64 import ARM64, GUESTS, foreign_problem, manylinux_tags
from bench.powercut.vm import VM, X86_64, ImageCache


def test_the_pi_guest_is_four_emulated_cortex_a53_cores_on_qemus_virt_board():
    assert ARM64.qemu_cmd("tcg") == ["qemu-system-aarch64", "-machine", "virt", "-accel", "tcg", "-cpu", "cortex-a53",
                                     "-smp", "4", "-m", "1024"]


def test_the_x86_64_guest_boots_as_before():
    assert X86_64.qemu_cmd("kvm") == ["qemu-system-x86_64", "-accel", "kvm", "-smp", "1", "-m", "768"]
    assert X86_64.qemu_cmd("tcg", 512) == ["qemu-system-x86_64", "-accel", "tcg", "-cpu", "max", "-smp", "1",
                                           "-m", "512"]


def test_the_x86_64_images_package_list_is_unchanged_so_its_cache_stays_valid():
    assert X86_64.packages == ["linux-image-amd64", "systemd-sysv", "udev", "kmod", "python3", "python3-venv",
                               "e2fsprogs", "dmsetup", "procps", "iproute2", "sudo", "passwd", "python3-evdev"]


def test_the_arm64_image_has_debians_arm64_kernel_and_spidev_from_apt():
    assert ARM64.packages[0] == "linux-image-arm64"
    assert ARM64.packages[1:-2] == X86_64.packages[1:-1]
    assert ARM64.packages[-2:] == ["python3-evdev", "python3-spidev"]


@pytest.fixture
def arm64_vm(monkeypatch, tmp_path):
    monkeypatch.setattr(VM, "guest", ARM64)
    monkeypatch.setattr(VM, "accel", "tcg")
    return VM(ImageCache(tmp_path), tmp_path / "vm", tmp_path / "root.qcow2", [(tmp_path / "state.img", "state")])


def test_the_arm64_vm_boots_debians_kernel_on_the_virt_boards_serial_port(arm64_vm):
    cmd = arm64_vm.cmd
    assert cmd[: len(ARM64.qemu_cmd("tcg"))] == ARM64.qemu_cmd("tcg")
    append = cmd[cmd.index("-append") + 1].split()
    assert "console=ttyAMA0" in append and "console=ttyS0" not in append
    assert f"powercut.slow={ARM64.tcg_slowdown:g}" in append
    assert "serial=state" in " ".join(cmd)


def test_the_x86_64_vm_skips_the_kernels_timer_check_under_emulation_only(monkeypatch, tmp_path):
    def append(accel: str) -> list[str]:
        monkeypatch.setattr(VM, "accel", accel)
        cmd = VM(ImageCache(tmp_path), tmp_path / accel, tmp_path / "root.qcow2", []).cmd
        return cmd[cmd.index("-append") + 1].split()

    monkeypatch.setattr(VM, "guest", X86_64)
    assert "no_timer_check" in append("tcg")
    assert "no_timer_check" not in append("kvm")


def test_timeouts_scale_by_the_guests_emulation(monkeypatch):
    monkeypatch.setattr(VM, "guest", replace(ARM64, tcg_slowdown=3.0))
    monkeypatch.setattr(VM, "accel", "tcg")
    assert VM.slowdown() == 3.0
    monkeypatch.setattr(VM, "accel", "kvm")
    assert VM.slowdown() == 1.0


def test_wheel_tags_run_from_debian_12s_c_library_down_to_manylinux2014():
    tags = manylinux_tags("aarch64", (2, 36))
    assert tags[0] == "manylinux_2_36_aarch64" and tags[-1] == "manylinux2014_aarch64"
    assert "manylinux_2_28_aarch64" in tags and "manylinux_2_17_aarch64" in tags
    assert "manylinux_2_16_aarch64" not in tags and "manylinux_2_37_aarch64" not in tags
    assert len(tags) == 36 - 17 + 1 + 1


def test_pip_fetches_aarch64_wheels_for_python_3_11_only_for_a_foreign_guest():
    assert X86_64.pip_target() == []
    target = ARM64.pip_target()
    assert "--platform=manylinux_2_28_aarch64" in target
    assert {"--python-version=3.11", "--implementation=cp", "--abi=cp311"} <= set(target)


def pip_calls(monkeypatch, tmp_path, guest):
    calls = []
    monkeypatch.setattr(VM, "guest", guest)
    monkeypatch.setattr(vm_module, "run", lambda cmd, **kwargs: calls.append(cmd))
    vm_module.build_wheelhouse(ImageCache(tmp_path / guest.machine))
    return calls


def test_the_arm64_wheelhouse_is_downloaded_for_aarch64_and_builds_nothing_here(monkeypatch, tmp_path):
    (download,) = pip_calls(monkeypatch, tmp_path, ARM64)
    assert download[3] == "download" and "--platform=manylinux_2_36_aarch64" in download
    wanted = " ".join(download).lower()
    assert "spidev" not in wanted and "evdev" not in wanted and "lgpio" in wanted


def test_the_x86_64_wheelhouse_builds_spidev_on_the_host(monkeypatch, tmp_path):
    download, build = pip_calls(monkeypatch, tmp_path, X86_64)
    assert not any(word.startswith("--platform") for word in download)
    assert build[3] == "wheel" and any(word.startswith("spidev") for word in build)


def test_a_foreign_architecture_needs_qemu_user_registered(tmp_path):
    assert foreign_problem(ARM64, "aarch64", tmp_path) is None
    assert "qemu-user-static" in foreign_problem(ARM64, "x86_64", tmp_path)
    (tmp_path / "qemu-aarch64").write_text("enabled\n")
    assert foreign_problem(ARM64, "x86_64", tmp_path) is None
    assert foreign_problem(X86_64, "x86_64", tmp_path / "absent") is None


def test_each_guest_keeps_its_own_image():
    assert len({guest.cache_dir for guest in GUESTS.values()}) == len(GUESTS)
