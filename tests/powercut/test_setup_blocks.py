"""The power-cut bench installs the device by running docs/pi-setup.md's marked blocks as written:
these tests keep the markers and the bench's reading of them in step (the VM runs are a bench,
not a test: bench/powercut.py)."""

import subprocess

from bench.powercut.vm import SETUP_BLOCKS, SLOW_GENERATOR, debian_mirror, for_the_bench, setup_blocks


def test_every_step_the_bench_runs_is_a_marked_block_of_the_setup_guide():
    blocks = setup_blocks()
    assert list(blocks) == SETUP_BLOCKS
    assert blocks["user"].startswith("sudo useradd --system")
    assert "sudo .venv/bin/pip install '.[pi]'" in blocks["venv"]
    assert "sudo systemctl enable --now tabletop-companion" in blocks["service"]
    assert all(block.strip() and "```" not in block for block in blocks.values())


def test_only_the_interactive_editor_is_left_out():
    config = setup_blocks()["config"]
    kept = for_the_bench(config)
    assert "nano" in config and "nano" not in kept
    assert kept.splitlines() == [line for line in config.splitlines() if "nano" not in line]


def test_debootstrap_uses_the_mirror_apt_uses(tmp_path):
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list.d" / "debian.sources").write_text(
        "Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm\n")
    assert debian_mirror(tmp_path) == "http://mirror.example/debian"
    (tmp_path / "sources.list.d" / "debian.sources").unlink()
    (tmp_path / "sources.list").write_text("deb [arch=amd64] http://other.example/debian bookworm main\n")
    assert debian_mirror(tmp_path) == "http://other.example/debian"
    (tmp_path / "sources.list").unlink()
    assert debian_mirror(tmp_path) == "http://deb.debian.org/debian"


def run_generator(tmp_path, cmdline: str):
    script, line, out = tmp_path / "generator", tmp_path / "cmdline", tmp_path / "out"
    script.write_text(SLOW_GENERATOR.replace("/proc/cmdline", str(line)))
    line.write_text(cmdline)
    out.mkdir()
    subprocess.run(["sh", str(script), str(out)], check=True, timeout=30)
    return sorted(path.relative_to(out).as_posix() for path in out.rglob("*") if path.is_file()), out


def test_under_emulation_the_state_disks_wait_and_the_units_start_get_their_timeouts_times_the_slowdown(tmp_path):
    files, out = run_generator(tmp_path, "root=/dev/vda quiet powercut.slow=8 systemd.unit=x\n")
    disk = "dev-disk-by\\x2did-virtio\\x2dstate.device.d/emulated.conf"  # the state disk, as systemd names it
    assert files == [disk, "tabletop-companion.service.d/emulated.conf"]
    assert (out / files[1]).read_text() == "[Service]\nTimeoutStartSec=480\n"
    assert (out / disk).read_text() == "[Unit]\nJobRunningTimeoutSec=240\n"  # the fstab's 30 s device wait


def test_without_the_slowdown_the_unit_is_left_as_shipped(tmp_path):
    assert run_generator(tmp_path, "root=/dev/vda quiet\n")[0] == []
