"""The Debian 12 VM the power-cut bench boots: image building, qemu, and talking to the guest.

Nothing here knows about games; bench/powercut.py says what to play and what to check.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SUITE = "bookworm"
# What the guest needs beyond debootstrap's minimal base (and its architecture's kernel, Guest):
# systemd as init, the Python the device runs on, the tools the docs' commands use (sudo, useradd
# from passwd), and dmsetup/e2fsprogs for the state disk.
BASE_PACKAGES = ["systemd-sysv", "udev", "kmod", "python3", "python3-venv", "e2fsprogs", "dmsetup", "procps",
                 "iproute2", "sudo", "passwd"]
# Raspberry Pi OS has these groups; Debian has only dialout. The docs' useradd names all four.
PI_GROUPS = ["gpio", "i2c", "spi"]
SETUP_BLOCKS = ["user", "copy", "venv", "config", "service"]
STATE_DIR = "/var/lib/tabletop-companion"
UNIT = "tabletop-companion"
SHARE_TAG = "host"
SHARE_MOUNT = "/mnt/host"
KEYS_FILE = "game.keys"
STATE_DISK_MB = 128
LOG_DISK_MB = 1024
KERNEL_ARGS = "root=/dev/vda rw quiet net.ifnames=0 systemd.show_status=0"  # and the Guest's console
# The headless stand-in for the Pi's hardware: the unit exactly as shipped, started with the
# mock display and a key script read from the host's share; its acknowledgements go to the
# bench's FIFO. Only ExecStart= changes; the sandbox is the unit's own.
DROP_IN = f"""[Unit]
RequiresMountsFor={SHARE_MOUNT}
Wants=powercut-acks.service
After=powercut-acks.service

[Service]
Environment=COMPANION_ACK_PIPE=/run/powercut/acks
ExecStart=
ExecStart=/opt/tabletop-companion/.venv/bin/companion run --mock --keys {SHARE_MOUNT}/{KEYS_FILE} \\
    --state-dir {STATE_DIR} --seed 4 --verbose
"""
AGENT_UNIT = """[Unit]
Description=power-cut bench agent
DefaultDependencies=no
After=local-fs.target

[Service]
ExecStart=/usr/local/sbin/powercut-agent agent
Restart=always

[Install]
WantedBy=multi-user.target powercut.target
"""
ACKS_UNIT = """[Unit]
Description=power-cut bench acknowledgement relay

[Service]
ExecStart=/usr/local/sbin/powercut-agent acks
Restart=always
"""
# Under CPU emulation everything takes many times longer than on the Pi, udev and the device's start
# too. A whole-game pull's next boot once did nothing for 10 minutes: udev had not made the state
# disk's /dev/disk/by-id link within the fstab's x-systemd.device-timeout=30s, its mount gave up, and
# the unit (which needs the state directory mounted) failed with "Dependency failed" and never
# started. With ``powercut.slow=N`` on the kernel command line (the bench adds it under --accel tcg)
# this generator gives that wait, and the unit's start (TimeoutStartSec=, whose end would kill the
# device and start it again), N times their time; nothing else of the unit changes, and under KVM it
# does nothing. (The escaped name is systemd's for /dev/disk/by-id/virtio-state.)
SLOW_GENERATOR = """#!/bin/sh
for word in $(cat /proc/cmdline); do
    case "$word" in powercut.slow=*) slow="${word#powercut.slow=}" ;; esac
done
[ -n "$slow" ] || exit 0
mkdir -p "$1/tabletop-companion.service.d"
printf '[Service]\\nTimeoutStartSec=%s\\n' "$((60 * slow))" >"$1/tabletop-companion.service.d/emulated.conf"
disk='dev-disk-by\\x2did-virtio\\x2dstate.device'
mkdir -p "$1/$disk.d"
printf '[Unit]\\nJobRunningTimeoutSec=%s\\n' "$((30 * slow))" >"$1/$disk.d/emulated.conf"
"""
# Booted instead of multi-user.target when the bench sets the state disk up itself (dm targets).
BENCH_TARGET = """[Unit]
Description=power-cut bench: the system without the device's unit
Requires=basic.target
After=basic.target
"""


@dataclass(frozen=True)
class Guest:
    """What differs between the architectures the VM is built for and booted as (bench/powercut/arm64.py
    has the Pi's); the rest of the image and the bench is the same."""

    debian_arch: str  # debootstrap's --arch
    machine: str  # uname -m, and the wheels' platform
    kernel_package: str  # Debian's kernel (dm-log-writes and dm-flakey are modules of it)
    qemu: str
    qemu_package: str  # the Debian package that carries ``qemu``
    machine_args: tuple[str, ...]  # qemu's board, before the accelerator
    tcg_cpu: str  # the CPU qemu emulates under TCG
    smp: int
    memory_mb: int
    console: str  # the kernel's serial console
    tcg_slowdown: float  # how much longer than under KVM the guest takes under TCG (timeouts scale by it)
    # What docs/pi-setup.md (section 2) installs from apt for the [pi] extra and Debian also carries
    # for this architecture: the virtualenv sees it (--system-site-packages), so pip neither
    # downloads nor builds it.
    from_apt: tuple[tuple[str, str], ...]
    # pip download's --platform tags for the guest's wheels; empty: the host's own (same machine)
    pip_platforms: tuple[str, ...] = ()
    cache_dir: str = ""  # under --cache, so that each architecture keeps its own image
    tcg_kernel_args: str = ""  # more of the kernel's command line under TCG only

    @property
    def packages(self) -> list[str]:
        return [self.kernel_package, *BASE_PACKAGES, *sorted({package for _, package in self.from_apt})]

    def qemu_cmd(self, accel: str, memory_mb: int | None = None) -> list[str]:
        """qemu, its board, CPU, cores and memory (the devices and disks come after)."""
        speed = ["-accel", "kvm"] if accel == "kvm" else ["-accel", "tcg", "-cpu", self.tcg_cpu]
        return [self.qemu, *self.machine_args, *speed, "-smp", str(self.smp), "-m", str(memory_mb or self.memory_mb)]

    def pip_target(self) -> list[str]:
        """pip download's options for wheels that run on the guest (nothing when the host's own do)."""
        if not self.pip_platforms:
            return []
        return [*(f"--platform={tag}" for tag in self.pip_platforms), "--python-version=3.11",
                "--implementation=cp", "--abi=cp311"]


X86_64 = Guest(debian_arch="amd64", machine="x86_64", kernel_package="linux-image-amd64",
               qemu="qemu-system-x86_64", qemu_package="qemu-system-x86", machine_args=(), tcg_cpu="max",
               smp=1, memory_mb=768, console="ttyS0", tcg_slowdown=8.0, from_apt=(("evdev", "python3-evdev"),),
               # on a loaded host the emulated timer can miss the kernel's early check, which then
               # panics ("IO-APIC + timer doesn't work"): an image build once died so
               tcg_kernel_args="no_timer_check")


class BenchError(RuntimeError):
    """The bench could not do what it was asked; the message says what and where to look."""


def run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, text=True, capture_output=True, check=False, **kwargs)  # type: ignore[call-overload]
    if done.returncode != 0:
        raise BenchError(f"{' '.join(cmd)} failed ({done.returncode}): {(done.stderr or done.stdout).strip()[-800:]}")
    return done  # type: ignore[no-any-return]


def debian_mirror(sources: Path = Path("/etc/apt")) -> str:
    """The Debian mirror this machine's apt uses (debootstrap must go the same way)."""
    files = [*sorted(sources.glob("sources.list.d/*.sources")), sources / "sources.list",
             *sorted(sources.glob("sources.list.d/*.list"))]
    for path in files:
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for uri in re.findall(r"^URIs:\s*(\S+)", text, re.M) + re.findall(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)", text, re.M):
            if uri.rstrip("/").endswith("/debian"):
                return uri
    return "http://deb.debian.org/debian"


def setup_blocks(doc: Path = REPO / "docs" / "pi-setup.md") -> dict[str, str]:
    """The shell blocks of docs/pi-setup.md between ``<!-- setup:NAME -->`` markers, as written."""
    text = doc.read_text(encoding="utf-8")
    blocks = {}
    for name in SETUP_BLOCKS:
        try:
            marked = text.split(f"<!-- setup:{name} -->", 1)[1].split(f"<!-- /setup:{name} -->", 1)[0]
            blocks[name] = marked.split("```", 2)[1].lstrip("\n")
        except IndexError:
            raise BenchError(f"docs/pi-setup.md has no <!-- setup:{name} --> block") from None
    return blocks


def for_the_bench(block: str) -> str:
    """A docs block as the bench runs it: as written, except an interactive editor (``nano``), which
    the bench cannot type into; the config stays the documented example (every key commented)."""
    return "".join(line for line in block.splitlines(keepends=True) if not re.match(r"\s*(sudo\s+)?nano\s", line))


def project_files() -> list[str]:
    """The worktree's files as the docs' rsync would copy them (tracked and new, not ignored)."""
    out = run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"]).stdout
    return sorted(name for name in out.split("\0") if name and (REPO / name).is_file())


def tree_digest(names: list[str], *extra: str) -> str:
    digest = hashlib.sha256()
    for name in names:
        digest.update(name.encode() + b"\0" + (REPO / name).read_bytes())
    for text in extra:
        digest.update(text.encode())
    return digest.hexdigest()[:16]


@dataclass
class ImageCache:
    """Where the built pieces live; each step is skipped when its output is already there."""

    root: Path
    log: list[str] = field(default_factory=list)

    @property
    def rootfs(self) -> Path:
        return self.root / "rootfs"

    @property
    def wheelhouse(self) -> Path:
        return self.root / "wheelhouse"

    @property
    def base(self) -> Path:
        return self.root / "base.img"

    @property
    def kernel(self) -> Path:
        return self.root / "vmlinuz"

    @property
    def initrd(self) -> Path:
        return self.root / "initrd.img"

    @property
    def stamp(self) -> Path:
        return self.root / "base.json"

    def say(self, line: str) -> None:
        self.log.append(line)
        print(line, flush=True)


def build_rootfs(cache: ImageCache) -> None:
    """debootstrap for the guest's architecture (another one's second stage runs under qemu-user,
    through binfmt_misc: Debian's qemu-user-static)."""
    guest = VM.guest
    packages = cache.root / "rootfs.packages"
    if cache.rootfs.is_dir() and packages.is_file() and packages.read_text() == " ".join(guest.packages):
        return
    mirror = debian_mirror()
    cache.say(f"debootstrap {SUITE} ({guest.debian_arch}) from {mirror} (once; a few minutes)")
    temp = cache.root / "rootfs.tmp"
    shutil.rmtree(temp, ignore_errors=True)
    run(["debootstrap", f"--arch={guest.debian_arch}", "--variant=minbase", f"--include={','.join(guest.packages)}",
         SUITE, str(temp), mirror], timeout=3600)
    shutil.rmtree(cache.rootfs, ignore_errors=True)
    temp.rename(cache.rootfs)
    packages.write_text(" ".join(guest.packages))


def build_wheelhouse(cache: ImageCache) -> None:
    """Every wheel ``pip install '.[pi]'`` needs in the guest, which has no network: downloaded here
    through this machine's pip configuration; spidev (an sdist only) built into a wheel here, for
    the same Python and C library as the guest's (both Debian 12)."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    needs = [*project["build-system"]["requires"], *project["project"]["dependencies"],
             *project["project"]["optional-dependencies"]["pi"]]
    guest = VM.guest
    key = hashlib.sha256("\n".join(needs).encode()).hexdigest()[:16]
    marker = cache.wheelhouse / f".done-{key}"
    if marker.exists():
        return
    cache.say(f"wheelhouse: pip download for the guest (python 3.11, {guest.machine})")
    shutil.rmtree(cache.wheelhouse, ignore_errors=True)
    cache.wheelhouse.mkdir(parents=True)
    def name(requirement: str) -> str:
        return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].strip().lower()

    needs = [n for n in needs if name(n) not in dict(guest.from_apt)]
    sources = [n for n in needs if name(n) == "spidev"]
    binary = [n for n in needs if n not in sources]
    pip = ["python3", "-m", "pip"]
    run([*pip, "download", "--only-binary=:all:", *guest.pip_target(), "-d", str(cache.wheelhouse), *binary],
        timeout=1800)
    if sources:
        if guest.pip_platforms:
            raise BenchError(f"{', '.join(sources)}: only a source package, which this host cannot build for"
                             f" {guest.machine}; the guest takes it from apt (Guest.from_apt)")
        run([*pip, "wheel", "--no-deps", "-w", str(cache.wheelhouse), *sources], timeout=1800)
    marker.touch()


def stage_rootfs(cache: ImageCache, files: list[str]) -> None:
    """The bench's own pieces and the project (where the docs' rsync would put it) in the rootfs."""
    root = cache.rootfs
    (root / "etc/hostname").write_text("companion\n")
    (root / "etc/hosts").write_text("127.0.0.1 localhost\n127.0.1.1 companion\n")
    (root / "etc/fstab").write_text(
        "/dev/vda / ext4 defaults 0 1\n"
        # the Pi's mount options for the card (Raspberry Pi OS: defaults,noatime); the disk by its
        # serial, so the bench's dm-log-writes runs (another serial) leave it unmounted
        f"/dev/disk/by-id/virtio-state {STATE_DIR} ext4 defaults,noatime,nofail,x-systemd.device-timeout=30s 0 2\n"
        f"{SHARE_TAG} {SHARE_MOUNT} 9p trans=virtio,version=9p2000.L,nofail 0 0\n")
    for group in PI_GROUPS:
        if f"\n{group}:" not in "\n" + (root / "etc/group").read_text():
            run(["chroot", str(root), "groupadd", "--system", group])
    (root / "etc/pip.conf").write_text("[global]\nno-index = true\nfind-links = /var/cache/powercut/wheels\n")
    wheels = root / "var/cache/powercut/wheels"
    shutil.rmtree(wheels, ignore_errors=True)
    shutil.copytree(cache.wheelhouse, wheels)
    shutil.copy2(HERE / "agent.py", root / "usr/local/sbin/powercut-agent")
    os.chmod(root / "usr/local/sbin/powercut-agent", 0o755)
    units = root / "etc/systemd/system"
    (units / "powercut-agent.service").write_text(AGENT_UNIT)
    (units / "powercut-acks.service").write_text(ACKS_UNIT)
    (units / "powercut.target").write_text(BENCH_TARGET)
    for target in ("multi-user.target", "powercut.target"):
        wants = units / f"{target}.wants"
        wants.mkdir(exist_ok=True)
        link = wants / "powercut-agent.service"
        if not link.is_symlink():
            link.symlink_to("/etc/systemd/system/powercut-agent.service")
    generators = root / "etc/systemd/system-generators"
    generators.mkdir(parents=True, exist_ok=True)
    (generators / "powercut-emulated").write_text(SLOW_GENERATOR)
    os.chmod(generators / "powercut-emulated", 0o755)
    drop_in = units / "tabletop-companion.service.d"
    drop_in.mkdir(exist_ok=True)
    (drop_in / "powercut.conf").write_text(DROP_IN)
    # no root password: the serial console is for watching the boot, the agent does the work
    run(["chroot", str(root), "passwd", "-d", "root"])
    project = root / "root/tabletop-companion"
    shutil.rmtree(root / "opt/tabletop-companion", ignore_errors=True)
    shutil.rmtree(project, ignore_errors=True)
    for name in files:
        target = project / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target)
    kernels = sorted((root / "boot").glob("vmlinuz-*"))
    if not kernels:
        raise BenchError(f"no kernel in {root}/boot: the debootstrap did not install {VM.guest.kernel_package}")
    version = kernels[-1].name.removeprefix("vmlinuz-")
    shutil.copy2(kernels[-1], cache.kernel)
    shutil.copy2(root / "boot" / f"initrd.img-{version}", cache.initrd)


def make_ext4(image: Path, megabytes: int, *, label: str, source: Path | None = None) -> None:
    image.unlink(missing_ok=True)
    with open(image, "wb") as disk:
        disk.truncate(megabytes << 20)
    # inode tables and the journal written now, as on a card prepared long ago, not by a kernel
    # thread in the middle of the run
    run(["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", "-L", label,
         *(["-d", str(source)] if source else []), str(image)], timeout=1200)


def blank_disk(image: Path, megabytes: int) -> None:
    image.unlink(missing_ok=True)
    with open(image, "wb") as disk:
        disk.truncate(megabytes << 20)


def kvm_problem() -> str | None:
    """Why this machine's /dev/kvm cannot boot Debian's kernel, or None when it can be tried."""
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "no usable /dev/kvm here (KVM is needed to boot the VM at full speed)"
    modules = Path("/sys/module")
    if (modules / "kvm_pvm").is_dir() and not any((modules / name).is_dir() for name in ("kvm_intel", "kvm_amd")):
        return ("this /dev/kvm is PVM (kvm_pvm), which boots only PVM guest kernels, not Debian's"
                " (it hangs as the kernel starts)")
    return None


class VM:
    """One qemu-system-x86_64 (KVM, or TCG emulation where KVM cannot run Debian's kernel), or the
    ``guest``'s qemu: serial console to a file, the agent and the acknowledgements on virtio-serial
    ports, the host's share over 9p."""

    accel = "kvm"
    guest = X86_64

    @classmethod
    def slowdown(cls) -> float:
        """How much longer the guest takes than under KVM (timeouts scale by it)."""
        return 1.0 if cls.accel == "kvm" else cls.guest.tcg_slowdown

    def __init__(self, cache: ImageCache, workdir: Path, root: Path, disks: list[tuple[Path, str]], *,
                 target: str | None = None, memory_mb: int | None = None) -> None:
        self.workdir = workdir
        self.share = workdir / "share"
        self.share.mkdir(parents=True, exist_ok=True)
        os.chmod(self.share, 0o755)
        self.console = workdir / "console.log"
        self.acks: list[tuple[float, int]] = []  # (host time, journal size) as the relay forwards them
        self._agent_path = workdir / "agent.sock"
        self._acks_path = workdir / "acks.sock"
        append = f"{KERNEL_ARGS} console={self.guest.console}" + (f" systemd.unit={target}" if target else "")
        if self.accel != "kvm":
            append += " ".join(["", f"powercut.slow={self.slowdown():g}", *self.guest.tcg_kernel_args.split()])
        drives = [(f"file={root},format={'qcow2' if root.suffix == '.qcow2' else 'raw'}", "root")]
        drives += [(f"file={path},format=raw", serial) for path, serial in disks]
        self.cmd = [*self.guest.qemu_cmd(self.accel, memory_mb), "-nodefaults", "-display", "none", "-no-reboot",
                    "-kernel", str(cache.kernel), "-initrd", str(cache.initrd), "-append", append,
                    "-serial", f"file:{self.console}",
                    "-device", "virtio-serial-pci",
                    "-chardev", f"socket,id=agent,path={self._agent_path},server=on,wait=off",
                    "-device", "virtserialport,chardev=agent,name=powercut.agent",
                    "-chardev", f"socket,id=acks,path={self._acks_path},server=on,wait=off",
                    "-device", "virtserialport,chardev=acks,name=powercut.acks",
                    "-virtfs", f"local,path={self.share},mount_tag={SHARE_TAG},security_model=none,id=share",
                    "-device", "virtio-rng-pci"]
        for number, (drive, serial) in enumerate(drives):  # vda, vdb, ... in this order
            self.cmd += ["-drive", f"{drive},if=none,id=disk{number},cache=none",
                         "-device", f"virtio-blk-pci,drive=disk{number},serial={serial}"]
        self.proc: subprocess.Popen[bytes] | None = None
        self.started = 0.0
        self._agent: socket.socket | None = None
        self._agent_file = None
        self._requests = 0
        self._reader: threading.Thread | None = None

    def write_keys(self, script: str) -> None:
        path = self.share / KEYS_FILE
        path.write_text(script, encoding="utf-8")
        os.chmod(path, 0o644)

    def start(self) -> None:
        for path in (self._agent_path, self._acks_path):
            path.unlink(missing_ok=True)
        self.started = time.monotonic()
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(self.workdir / "qemu.err", "wb"))  # noqa: SIM115
        deadline = time.monotonic() + 30
        while not (self._agent_path.exists() and self._acks_path.exists()):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise BenchError(f"qemu did not start: {(self.workdir / 'qemu.err').read_text()[-500:]}")
            time.sleep(0.05)
        self._agent = self._connect(self._agent_path)
        self._agent_file = self._agent.makefile("rwb", buffering=0)
        acks = self._connect(self._acks_path)
        self._reader = threading.Thread(target=self._read_acks, args=(acks,), daemon=True)
        self._reader.start()

    def _connect(self, path: Path) -> socket.socket:
        """Connect to one of qemu's chardev sockets (it may not listen yet the moment it exists)."""
        deadline = time.monotonic() + 30
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(str(path))
                return sock
            except OSError:
                sock.close()
                self._check_alive()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _read_acks(self, sock: socket.socket) -> None:
        with sock, sock.makefile("rb") as lines:
            for line in lines:
                parts = line.split()
                if len(parts) == 2 and parts[0] == b"ack" and parts[1].isdigit():
                    self.acks.append((time.monotonic(), int(parts[1])))

    def wait_agent(self, timeout: float = 120) -> float:
        """Wait until the guest's agent answers; returns seconds since qemu started."""
        timeout *= self.slowdown()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(BenchError, TimeoutError, OSError):
                if self.sh("true", timeout=2, wait=3)[0] == 0:
                    return time.monotonic() - self.started
            self._check_alive()
        raise BenchError(f"the guest's agent did not answer within {timeout:.0f} s; see {self.console}")

    def _check_alive(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            raise BenchError(f"qemu exited; see {self.console}")

    def sh(self, command: str, *, timeout: float = 120, wait: float | None = None) -> tuple[int, str]:
        """Run ``command`` in the guest as root; (exit status, output)."""
        assert self._agent is not None and self._agent_file is not None
        timeout *= self.slowdown()
        self._agent.settimeout(wait if wait is not None else timeout + 30)
        self._requests += 1
        self._agent_file.write((json.dumps({"id": self._requests, "sh": command, "timeout": timeout}) + "\n").encode())
        while True:
            try:
                line = self._agent_file.readline()
            except TimeoutError:  # a socket file that timed out cannot be read again: a fresh connection
                self._agent.close()
                self._agent = self._connect(self._agent_path)
                self._agent_file = self._agent.makefile("rwb", buffering=0)
                raise
            if not line:
                raise BenchError("the agent's port closed")
            reply = json.loads(line)
            if reply.get("id") == self._requests:  # else the late answer to a request given up on
                return int(reply["rc"]), str(reply["out"])

    def ok(self, command: str, *, timeout: float = 120) -> str:
        code, out = self.sh(command, timeout=timeout)
        if code != 0:
            raise BenchError(f"in the guest: {command!r} failed ({code}): {out.strip()[-1500:]}")
        return out

    def pull(self) -> None:
        """The power cord: qemu killed, no shutdown, nothing flushed that the guest had not."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)
        self._close()

    def poweroff(self, timeout: float = 90) -> None:
        """A clean shutdown (qemu exits with -no-reboot); pulled if it hangs."""
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(Exception):
            self._agent_file.write((json.dumps({"sh": "systemctl poweroff", "timeout": 5}) + "\n").encode())
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.pull()
        self._close()

    def _close(self) -> None:
        if self._agent is not None:
            self._agent.close()
            self._agent = None
        if self._reader is not None:
            self._reader.join(timeout=5)


class Stalled(BenchError):
    """The device acknowledged nothing for too long; the message carries what the guest said why."""


def diagnose(vm: VM) -> str:
    """What the unit was doing, from the guest (its state, restarts, last log lines), in one text;
    also written to ``diagnosis.txt`` beside the console log."""
    try:
        text = vm.ok(f"systemctl show -p ActiveState,SubState,Result,NRestarts,ExecMainStatus,TimeoutStartUSec {UNIT};"
                     f" journalctl -b --no-pager -o short-monotonic -u {UNIT} | tail -25; echo failed units:;"
                     " systemctl --failed --no-legend --plain; journalctl -b --no-pager -o short-monotonic -p warning"
                     " | grep -i -E 'timed out|dependency' | head -5", timeout=60)
    except (BenchError, OSError) as err:
        text = f"(the guest's agent did not answer: {err})"
    (vm.workdir / "diagnosis.txt").write_text(text)
    return text


def restarts_this_boot(vm: VM) -> str:
    """"" when the unit has not been restarted in this boot, else how often and systemd's reasons (a
    restart plays the key script again from its start, on a game that has moved on)."""
    code, out = vm.sh(f"systemctl show -p NRestarts --value {UNIT}", timeout=30)
    if code != 0 or out.strip() in ("", "0"):
        return ""
    why = vm.sh(f"journalctl -b --no-pager -o cat -u {UNIT} | grep -E 'timed out|Watchdog|Failed|Main process'"
                " | sort | uniq -c | head -5", timeout=30)[1]
    return f"the unit restarted {out.strip()} times: {' / '.join(line.strip() for line in why.splitlines())}"


def wait_acks(vm: VM, since: int, count: int, timeout: float, *, idle: float | None = None,
              clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
    """Wait for ``count`` acknowledgements after the first ``since``; :class:`Stalled` (with the
    guest's diagnosis) after ``timeout`` seconds, or ``idle`` seconds without a new one (both times
    the emulation's slowdown). ``clock`` and ``sleep``: the host's, unless a test's."""
    timeout *= vm.slowdown()
    started = clock()
    deadline = started + timeout
    seen, last = len(vm.acks), started
    while len(vm.acks) - since < count:
        now = clock()
        if len(vm.acks) != seen:
            seen, last = len(vm.acks), now
        if now > deadline or (idle is not None and now - last > idle * vm.slowdown()):
            raise Stalled(f"{len(vm.acks) - since} of {count} journal lines acknowledged, none in the last"
                          f" {now - last:.0f} s ({now - started:.0f} s waited); the guest says:\n{diagnose(vm)}")
        vm._check_alive()
        sleep(0.2)


@contextlib.contextmanager
def booted(vm: VM) -> Iterator[VM]:
    """A started VM that is never left running, whatever happens inside."""
    try:
        vm.start()
        yield vm
    finally:
        vm.pull()


def build_base(cache: ImageCache) -> bool:
    """The cached image: debootstrap, the bench's pieces, then a first boot that runs the steps of
    docs/pi-setup.md as written (sections 3-6) and shuts down cleanly. True when it was built now."""
    files = project_files()
    blocks = setup_blocks()
    # rebuilt when what the guest runs changes (the program, its packaging, the unit, the docs it is
    # installed by, the bench's guest side), not for every change to the tests or benches
    guest = [name for name in files if name.startswith(("companion/", "systemd/", "pyproject.toml"))
             or name in ("docs/pi-setup.md", "docs/config.example.toml")]
    digest = tree_digest(guest, DROP_IN, AGENT_UNIT, ACKS_UNIT, BENCH_TARGET, SLOW_GENERATOR,
                         (HERE / "agent.py").read_text(),
                         inspect.getsource(stage_rootfs), " ".join(VM.guest.packages + PI_GROUPS))
    if cache.base.exists() and cache.stamp.exists() and json.loads(cache.stamp.read_text()).get("tree") == digest:
        return False
    started = time.monotonic()
    cache.root.mkdir(parents=True, exist_ok=True)
    build_rootfs(cache)
    build_wheelhouse(cache)
    stage_rootfs(cache, files)
    cache.say("root image: mkfs.ext4 -d")
    temp = cache.root / "base.img.tmp"
    make_ext4(temp, 3072, label="root", source=cache.rootfs)
    work = cache.root / "install"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    make_ext4(work / "state.img", STATE_DISK_MB, label="companion-state")
    vm = VM(cache, work, temp, [(work / "state.img", "state")])
    vm.write_keys("")
    steps = []
    with booted(vm):
        vm.wait_agent()
        for name in SETUP_BLOCKS:
            block = for_the_bench(blocks[name])
            cache.say(f"docs/pi-setup.md setup:{name}")
            out = vm.ok(f"set -ex; cd /root; {block}", timeout=1200)
            steps.append({"block": name, "output": out[-3000:]})
        vm.ok("systemctl is-enabled tabletop-companion && systemctl is-active tabletop-companion")
        vm.poweroff()
    temp.rename(cache.base)
    seconds = time.monotonic() - started
    cache.stamp.write_text(json.dumps({"tree": digest, "build_seconds": round(seconds), "steps": steps}, indent=1))
    cache.say(f"image built in {seconds:.0f} s")
    return True
