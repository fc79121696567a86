"""Pull the power at the block layer, and boot the shipped unit, on a real Linux kernel under KVM.

Run: python bench/powercut.py [--quick] [--cache DIR] [--games ID,...] [--pulls N]
(root, /dev/kvm, and Debian's qemu-system-x86, debootstrap and e2fsprogs; docs/reliability.md).
``--arch arm64`` builds and boots the Pi's architecture instead, emulated (bench/powercut/arm64.py).

1. A Debian 12 image (debootstrap, Debian's kernel), set up by running the shell blocks of
   docs/pi-setup.md marked ``<!-- setup:NAME -->`` as written, cached under --cache.
2. The state disk on dm-log-writes: whole games played by key script through the unit, a mark in
   the log at each acknowledged journal line; then the disk rebuilt at every flush, FUA write and
   mark, ``fsck.ext4 -n``, mounted, and the device started on it (tests/powercut/checks.py).
3. dm-flakey: the state disk failing writes for a while mid-game; another acknowledging writes and
   dropping them (a lying card), checked after the boot's plug is pulled.
4. The VM's power pulled at random moments (qemu killed); the next boot's unit resumes.
   With --quick: two boots (the first pull in the log's boot), event mode (a cached layer) on.
5. The unit on a real boot: boot-to-READY, restarts after SIGSEGV and SIGKILL, the watchdog after
   SIGSTOP, journald, its user, ``systemd-analyze security``.

Prints, last: ``powercut: <flush points> flush points, <marks> acknowledged actions, lost <n>,
resumed <r>/<t>, fsck clean <c>/<t>, power pulls <p>, lost after pulls <m>``. Without /dev/kvm it
says so in one line and exits 2.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import inspect
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.powercut import startup
from bench.powercut.arm64 import GUESTS, foreign_problem
from bench.powercut.vm import (
    KEYS_FILE,
    LOG_DISK_MB,
    REPO,
    SHARE_MOUNT,
    STATE_DIR,
    STATE_DISK_MB,
    UNIT,
    VM,
    BenchError,
    ImageCache,
    Stalled,
    booted,
    build_base,
    kvm_problem,
    make_ext4,
    restarts_this_boot,
    run,
    wait_acks,
)
from companion.registry import game_ids
from tests.device.killing import plan_game
from tests.powercut.checks import (
    Expected,
    check_state,
    common_lines,
    lost_lines,
    numbered_lines,
    numpad_script,
    plan_script,
    read_state_files,
    torn_instants,
)
from tests.powercut.logwrites import WriteLog

TOOLS = {"qemu-img": "qemu-utils", "debootstrap": "debootstrap",  # and the guest's qemu
         "mkfs.ext4": "e2fsprogs", "fsck.ext4": "e2fsprogs", "losetup": "mount", "mount": "mount"}
PLAN_SEED = 1
ACTIONS: int | None = None  # each game's first N actions only (--actions); None: whole games
SETTINGS_EVERY = 10  # the key scripts turn the contrast every N actions: settings.json written mid-game
STALL_S = 75  # a boot with no acknowledgement for this long (times the emulation's slowdown) has stalled


def planned_game(game_id: str) -> list[Any]:
    return plan_game(game_id, PLAN_SEED)[:ACTIONS]


STARTED = time.monotonic()


def say(line: str) -> None:
    print(f"[{time.monotonic() - STARTED:5.0f} s] {line}", flush=True)


@dataclass
class Figures:
    flush_points: int = 0
    marks: int = 0
    lost: int = 0
    resumed: int = 0
    checked: int = 0
    fsck_clean: int = 0
    pulls: int = 0
    lost_after_pulls: int = 0
    state_files: dict[str, int] = field(default_factory=dict)  # each state file's versions seen in the log
    fsck_clean_after_replay: int = 0  # disks (points, pulls) fsck found unclean, clean once ext4's journal was replayed
    stalled: int = 0  # boots in which the device stopped acknowledging (diagnosed, then pulled)
    fsck_clean_after_pulls: int = 0
    control_points: int = 0
    control_lost: int = 0
    notes: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)  # wall time of each phase (they overlap with --quick)
    dropped: dict[str, Any] = field(default_factory=dict)  # what the writes the disk dropped did (drop_writes)

    @contextmanager
    def timed(self, phase: str) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            self.seconds[phase] = round(self.seconds.get(phase, 0) + time.monotonic() - started, 1)

    def summary(self) -> str:
        return (f"powercut: {self.flush_points} flush points, {self.marks} acknowledged actions, lost {self.lost},"
                f" resumed {self.resumed}/{self.checked}, fsck clean {self.fsck_clean}/{self.checked},"
                f" power pulls {self.pulls}, lost after pulls {self.lost_after_pulls}")


def overlay(base: Path, target: Path) -> Path:
    """A throw-away copy-on-write root disk over a cached image (the base, raw, or a layer over it)."""
    run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2" if base.suffix == ".qcow2" else "raw",
         "-b", str(base), str(target)])
    return target


def guest_state(vm: VM, into: Path) -> Path:
    """A copy of the guest's state directory (the device's files), unpacked under ``into``."""
    out = vm.ok(f"tar -C {STATE_DIR} --exclude=lost+found -cf - . 2>/run/tar.err | base64 -w0")
    said = vm.ok("cat /run/tar.err").strip()
    if said:
        say(f"tar of the guest's state directory said: {said[-300:]}")
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(base64.b64decode(out.strip()))) as archive:
        archive.extractall(into, filter="data")
    return into


# --- 2. every flush point ---------------------------------------------------------------------


ROSTER = ("Aki", "Ben", "Chie", "Dai", "Eri", "Fumi")  # the names the setup form seats first


def seed_roster() -> str:
    """A guest command that gives the state directory a roster holding the names the games seat, so
    that every new game rewrites ``players.json`` (the names used last move to the front)."""
    roster = json.dumps({"players": [{"name": name, "used": 0} for name in ROSTER]})
    return (f"echo '{roster}' > {STATE_DIR}/players.json && "
            f"chown -R companion:companion {STATE_DIR} && chmod 0750 {STATE_DIR}")


EVENT = "powercut"
CONFIG = "/etc/tabletop-companion/config.toml"
# docs/event.md's [event] section, for a broker that is never there (192.0.2.10 is a documentation
# address; the VM has no network at all): the device keeps its cursor file all the same
EVENT_CONFIG = f"""
[event]
broker = "mqtt://192.0.2.10"
event = "{EVENT}"
table = "1"
"""


def event_wheels(cache: ImageCache) -> Path:
    """The wheels of the ``event`` extra (pyproject.toml), downloaded here once for the guest."""
    import tomllib

    needs = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    wanted = needs["event"]
    wheels = cache.root / "event-wheels"
    marker = wheels / f".done-{hashlib.sha256(' '.join(wanted).encode()).hexdigest()[:16]}"
    if not marker.exists():
        shutil.rmtree(wheels, ignore_errors=True)
        run(["python3", "-m", "pip", "download", "--only-binary=:all:", "-d", str(wheels), *wanted], timeout=1800)
        marker.touch()
    return wheels


def event_mode(vm: VM) -> None:
    """Event mode as docs/event.md sets it up: the ``event`` extra installed, the unit's drop-in that
    gives it the network, an ``[event]`` section in config.toml. Its cursor file
    (``event-powercut.json``) is then written as each game starts, a state file like the others."""
    vm.ok(f"cd /opt/tabletop-companion && .venv/bin/pip install -q --find-links {SHARE_MOUNT}/event-wheels '.[event]'"
          f" && mkdir -p /etc/systemd/system/{UNIT}.service.d && cp systemd/event-mode.conf"
          f" /etc/systemd/system/{UNIT}.service.d/ && cp {CONFIG} {CONFIG}.plain && cat >> {CONFIG} <<'EOF'\n"
          f"{EVENT_CONFIG}EOF\nsystemctl daemon-reload", timeout=900)


def event_image(cache: ImageCache, work: Path) -> Path:
    """The cached image in event mode: a layer over the base in which :func:`event_mode` ran once
    (a boot of its own, then a clean shutdown), rebuilt when the base, the event extra's wheels or
    the setup change. Boots over it start the unit in event mode without installing it each time."""
    wheels = event_wheels(cache)
    layer, stamp = cache.root / "event.qcow2", cache.root / "event.json"
    key = hashlib.sha256("\n".join([cache.stamp.read_text(), *sorted(path.name for path in wheels.iterdir()),
                                    inspect.getsource(event_mode), EVENT_CONFIG]).encode()).hexdigest()[:16]
    if layer.exists() and stamp.exists() and stamp.read_text() == key:
        return layer
    started = time.monotonic()
    temp = overlay(cache.base, cache.root / "event.tmp.qcow2")
    vm = VM(cache, work / "vm-event", temp, [], target="powercut.target")
    shutil.copytree(wheels, vm.share / "event-wheels", dirs_exist_ok=True)
    with booted(vm):
        vm.wait_agent()
        event_mode(vm)
        vm.poweroff()
    temp.rename(layer)
    stamp.write_text(key)
    say(f"event mode set up as docs/event.md says, in a layer cached over the image"
        f" ({time.monotonic() - started:.0f} s)")
    return layer


def without_event_mode(vm: VM) -> str:
    """Event mode taken back out (the unit would not start with it), and why it would not, from
    the unit's log."""
    why = vm.ok(f"journalctl -b --no-pager -o cat -u {UNIT} | grep -v '^$' | tail -6").strip()
    vm.ok(f"rm /etc/systemd/system/{UNIT}.service.d/event-mode.conf && mv {CONFIG}.plain {CONFIG} &&"
          f" systemctl daemon-reload && systemctl reset-failed {UNIT}")
    return why


@dataclass
class LoggedGame:
    game_id: str
    planned: list[Any]
    journal: bytes  # the finished game's journal, as the guest held it at the end


def play_logged(cache: ImageCache, work: Path, games: list[str], figures: Figures, *, image: Path, event: bool,
                after: Callable[[VM, list[LoggedGame]], None] | None = None,
                disks: tuple[tuple[Path, str], ...] = ()) -> list[LoggedGame]:
    """Play ``games`` in turn on a state disk that sits on dm-log-writes; keep the log. ``after``
    runs in the same boot once the log is closed, with the games played (the log's checks start
    then, on the host, beside the failing and dropped writes on the VM's disks ``flaky`` and
    ``dropped``, and with --quick the first pull: boots saved); ``disks`` are more of them. The
    boot ends with its plug pulled (the log is closed and on its disk by then), so that the disk
    whose writes were dropped is checked as a pulled plug leaves it.
    ``image``: the root image, ``event`` when it is :func:`event_image`'s (the device in event mode,
    so that its cursor file is a state file too)."""
    state_img, log_img = work / "logged-state.img", work / "log.img"
    for blank, size in ((state_img, STATE_DISK_MB), (log_img, LOG_DISK_MB)):
        blank.unlink(missing_ok=True)
        with open(blank, "wb") as disk:
            disk.truncate(size << 20)
    flaky_img, dropped_img = work / "flaky-state.img", work / "dropped-state.img"
    for fresh in (flaky_img, dropped_img):
        make_ext4(fresh, STATE_DISK_MB, label="companion-state")
    vm = VM(cache, work / "vm-log", overlay(image, work / "root-log.qcow2"),
            [(state_img, "rawstate"), (log_img, "log"), (flaky_img, "flaky"), (dropped_img, "dropped"), *disks],
            target="powercut.target")
    played = []
    with booted(vm):
        vm.wait_agent()
        vm.ok("modprobe dm-log-writes && "
              "dmsetup create logw --table \"0 $(blockdev --getsz /dev/disk/by-id/virtio-rawstate)"
              " log-writes /dev/disk/by-id/virtio-rawstate /dev/disk/by-id/virtio-log\" && "
              "mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 -L companion-state /dev/mapper/logw && "
              f"mount -o defaults,noatime /dev/mapper/logw {STATE_DIR} && {seed_roster()} && sync && "
              # the checks start here: the roster, which the bench writes as any program would (not
              # atomically), is on the disk before (a first run found it empty at the first point)
              "dmsetup message logw 0 mark mkfs")
        for game_id in games:
            planned = planned_game(game_id)
            script = plan_script(guest_state(vm, work / "mirror"), game_id, planned, resume=False,
                                 settings_every=SETTINGS_EVERY)
            vm.write_keys(script)
            since = len(vm.acks)
            vm.ok(f"dmsetup message logw 0 mark game:{game_id}")
            code, out = vm.sh(f"systemctl start {UNIT}")
            if code != 0 and event:
                why = without_event_mode(vm)
                event = False
                figures.notes.append(f"event mode: the unit did not start with it: {why}")
                say(f"event mode: the unit did not start with it, so it was taken out; its log said: {why}")
                code, out = vm.sh(f"systemctl start {UNIT}")
            if code != 0:
                raise BenchError(f"the unit did not start: {out.strip()[-500:]}")
            wait_acks(vm, since, len(planned) + 1, timeout=60 + 0.5 * len(script.splitlines()), idle=STALL_S)
            vm.ok(f"systemctl stop {UNIT}")
            journal = (guest_state(vm, work / "mirror") / "current.jsonl").read_bytes()
            played.append(LoggedGame(game_id, planned, journal))
            say(f"logged: {game_id}, {len(planned)} actions, {len(vm.acks) - since} acknowledgements")
        vm.ok(f"umount {STATE_DIR} && dmsetup message logw 0 mark end && dmsetup remove logw && sync")
        if after is not None:
            after(vm, played)
        vm.pull()
    return played


@contextmanager
def mounted(image: Path) -> Iterator[Path]:
    """``image`` mounted (read-write: mounting replays ext4's journal, as a boot would) on a loop device."""
    loop = run(["losetup", "-f", "--show", str(image)]).stdout.strip()
    point = Path(tempfile.mkdtemp(prefix="powercut-mnt-"))
    try:
        run(["mount", "-t", "ext4", "-o", "defaults,noatime", loop, str(point)])
        try:
            yield point
        finally:
            run(["umount", str(point)])
    finally:
        subprocess.run(["losetup", "-d", loop], check=False)
        point.rmdir()


def check_every_point(work: Path, played: list[LoggedGame], figures: Figures, *, stride: int = 1) -> None:
    """Rebuild the state disk at every flush, FUA write and mark of the log and check each."""
    log_path = work / "log.img"
    replayed_clean = figures.fsck_clean_after_replay
    with open(log_path, "rb") as log_file:
        log = WriteLog.read(log_file)
        disk_path, scratch = work / "replay.img", work / "scratch.img"
        disk_path.unlink(missing_ok=True)
        with open(disk_path, "wb") as disk:
            disk.truncate(STATE_DISK_MB << 20)
        by_id = {game.game_id: game for game in played}
        plans = tuple(tuple(game.planned) for game in played)
        finished: list[bytes] = []
        game: LoggedGame | None = None
        acknowledged = b""
        started = False
        applied = 0
        histories: dict[str, list[bytes | None]] = {}
        flushes = 0
        # the control: each acknowledgement's journal size, so that every point can also be asked
        # for the next one, as if the device had acknowledged one line before its fsync
        next_ack: dict[int, int | None] = {}
        upcoming = None
        for entry in reversed(log.entries):
            next_ack[entry.index] = upcoming
            if entry.mark and entry.mark.startswith("ack:"):
                upcoming = int(entry.mark[4:])
            elif entry.mark and entry.mark.startswith("game:"):
                upcoming = None
        with open(disk_path, "r+b") as disk:
            for entry in log.entries:
                if entry.mark is not None:
                    if entry.mark == "mkfs":
                        started = True
                    elif entry.mark.startswith("game:"):
                        if game is not None:
                            finished.append(game.journal)
                        game, acknowledged = by_id[entry.mark[5:]], b""
                    elif entry.mark.startswith("ack:") and game is not None:
                        acknowledged = game.journal[: int(entry.mark[4:])]
                        figures.marks += 1
                is_flush = bool(entry.flags & 0b11)
                flushes += is_flush
                if not started or not (entry.mark is not None or is_flush):
                    continue
                if entry.mark is None and flushes % stride:
                    continue
                log.replay(log_file, disk, applied, entry.index + 1)
                applied = entry.index + 1
                figures.flush_points += is_flush
                expected = Expected(tuple(finished), acknowledged, plans)
                early_size = next_ack[entry.index]
                early = (Expected(tuple(finished), game.journal[:early_size], plans)
                         if game is not None and early_size is not None else None)
                check_point(disk_path, scratch, expected, figures, histories, entry.index, early)
    for name, history in sorted(histories.items()):
        torn = torn_instants(history)
        for index in torn:
            figures.lost += 1
            figures.notes.append(f"{name} torn or missing at check {index}")
        versions = len({content for content in history if content is not None})
        figures.state_files[name] = versions
        say(f"{name}: {versions} versions on the disk across the points, {len(torn)} torn, missing or stepped back")
    say(f"replayed {len(log.entries)} log entries: {figures.flush_points} flush points and {figures.marks} marks"
        f" checked, lost {figures.lost}, resumed {figures.resumed}/{figures.checked},"
        f" fsck clean {figures.fsck_clean}/{figures.checked} as the disk was"
        f" (+{figures.fsck_clean_after_replay - replayed_clean} once ext4's journal was replayed)")
    say(f"control: had each acknowledgement come one journal line early, the same checks would have found"
        f" a loss at {figures.control_lost} of {figures.control_points} points")


def check_point(disk: Path, scratch: Path, expected: Expected, figures: Figures,
                histories: dict[str, list[bytes | None]], index: int, early: Expected | None) -> None:
    run(["cp", "--sparse=always", str(disk), str(scratch)])
    figures.checked += 1
    fsck = subprocess.run(["fsck.ext4", "-n", "-f", str(scratch)], capture_output=True, text=True, check=False)
    if fsck.returncode == 0:
        figures.fsck_clean += 1
    else:
        # as the pulls do: what it found on the disk as it was, and again once ext4's journal is
        # replayed (which the mount below, and a boot's fsck, do first)
        subprocess.run(["e2fsck", "-E", "journal_only", "-y", str(scratch)], capture_output=True, check=False)
        again = subprocess.run(["fsck.ext4", "-n", "-f", str(scratch)], capture_output=True, text=True, check=False)
        figures.fsck_clean_after_replay += again.returncode == 0
        found = " / ".join(line for line in fsck.stdout.splitlines() if line.strip() and not line.startswith("Pass"))
        figures.notes.append(f"entry {index}: fsck.ext4 -n said {fsck.returncode}: {found[-300:]}; after the"
                             f" journal's replay it says {again.returncode}")
    with mounted(scratch) as state:
        verdict = check_state(state, expected)
        if early is not None:
            figures.control_points += 1
            figures.control_lost += bool(lost_lines(state, early))
    figures.lost += len(verdict.lost) + len(verdict.unreadable)
    figures.notes += [f"entry {index}: {what}" for what in verdict.lost + verdict.unreadable]
    if verdict.resumed:
        figures.resumed += 1
    else:
        figures.notes.append(f"entry {index}: not resumed: {verdict.why_not_resumed}")
    for name, content in verdict.state_files.items():
        history = histories.setdefault(name, [None] * (figures.checked - 1))
        history.append(content)


# --- 3. failing writes ------------------------------------------------------------------------


def flaky_writes(cache: ImageCache, work: Path, game_id: str, figures: Figures, image: Path) -> None:
    """:func:`flaky_in` and :func:`dropped_in` in a boot of their own, which ends with its plug pulled."""
    flaky_img, dropped_img = work / "flaky-state.img", work / "dropped-state.img"
    for disk in (flaky_img, dropped_img):
        make_ext4(disk, STATE_DISK_MB, label="companion-state")
    vm = VM(cache, work / "vm-flaky", overlay(image, work / "root-flaky.qcow2"),
            [(flaky_img, "flaky"), (dropped_img, "dropped")], target="powercut.target")
    with booted(vm):
        vm.wait_agent()
        flaky_in(vm, work, game_id, figures)
        dropped_in(vm, work, game_id, figures)
    dropped_after_pull(work, figures)


def flakey_tables(serial: str, feature: str) -> tuple[str, str]:
    """dm tables for the VM's disk ``serial``: one that passes every write through, and dm-flakey's
    ``feature`` (``error_writes``, ``drop_writes``) on every write."""
    disk = f"/dev/disk/by-id/virtio-{serial}"
    return (f"0 $(blockdev --getsz {disk}) linear {disk} 0",
            f"0 $(blockdev --getsz {disk}) flakey {disk} 0 0 3600 1 {feature}")


def switch_table(vm: VM, name: str, table: str) -> None:
    """``table`` for the dm device ``name``, between two writes as a card's fault would come:
    --nolockfs, no freeze of the mounted ext4 around the switch (freezing flushes, which fails
    while writes fail)."""
    vm.ok(f"dmsetup load {name} --table \"{table}\" && dmsetup suspend --nolockfs {name} && dmsetup resume {name}")


def a_third_in(vm: VM, game_id: str, planned: list[Any]) -> int:
    """A fresh ``game_id`` started through the unit, played until a third of ``planned`` is
    acknowledged; the acknowledgements before it (``vm.acks[since:]`` are this game's)."""
    vm.write_keys(plan_script(Path("/nonexistent"), game_id, planned, resume=False, pace=0.05))
    since = len(vm.acks)
    vm.ok(f"systemctl start {UNIT}")
    wait_acks(vm, since, len(planned) // 3, timeout=300, idle=STALL_S)
    return since


def flaky_in(vm: VM, work: Path, game_id: str, figures: Figures) -> None:
    """Mid-game, the state disk (the VM's disk ``flaky``, a fresh ext4) fails every write for a while
    (dm-flakey ``error_writes``), then works again: the device says so in one line, and loses
    nothing it acknowledged."""
    planned = planned_game(game_id)
    healthy, failing = flakey_tables("flaky", "error_writes")
    vm.ok(f"modprobe dm-flakey && dmsetup create flaky --table \"{healthy}\" && "
          f"mount -o defaults,noatime /dev/mapper/flaky {STATE_DIR}")
    since = a_third_in(vm, game_id, planned)
    switch_table(vm, "flaky", failing)
    time.sleep(4)
    switch_table(vm, "flaky", healthy)
    time.sleep(2)
    messages = vm.ok(f"journalctl -u {UNIT} -b --no-pager -o cat | grep -E 'could not save|closed for writing'"
                     " | head -3 || true")
    vm.ok(f"systemctl stop {UNIT}; umount {STATE_DIR} && mount -o defaults,noatime /dev/mapper/flaky {STATE_DIR}")
    acknowledged = max(size for _, size in vm.acks[since:])
    mirror = guest_state(vm, work / "flaky-mirror")
    journal = (mirror / "current.jsonl").read_bytes()
    files, unreadable = read_state_files(mirror)
    vm.ok(f"umount {STATE_DIR} && dmsetup remove flaky")
    kept = len(journal) >= acknowledged
    figures.lost += (not kept) + len(unreadable)
    figures.notes += [f"failing writes: {name} is not whole JSON" for name in unreadable]
    first = messages.strip().splitlines()[0] if messages.strip() else "(no message in the log)"
    say(f"failing writes: acknowledged {acknowledged} journal bytes before and during the outage,"
        f" {'all kept' if kept else f'only {len(journal)} kept'}; state files"
        f" {', '.join(name for name, content in files.items() if content is not None)}"
        f" {'whole' if not unreadable else 'NOT whole: ' + ', '.join(unreadable)}; the device said: {first}")
    figures.notes.append(f"failing writes: {first}")


DROPPED_MOUNT = "/mnt/dropped"
DROP_SECONDS = 4
CONTROL_FILE = f"{DROPPED_MOUNT}/plain-writer.txt"  # on the state disk; the device reads no such file
# The control: a writer that trusts fsync (a numbered line appended and fsynced every 50 ms, each
# counted once fsync returned), as the journal did before it read its lines back; it runs from
# just before the window to the end of the phase, on the same disk.
PLAIN_WRITER = f"""import os, time
fd = os.open("{CONTROL_FILE}", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
end, count = time.monotonic() + {3 * DROP_SECONDS}, 0
while time.monotonic() < end:
    os.write(fd, b"%08d\\n" % count)
    os.fsync(fd)
    count += 1
    with open("/run/plain-writer.count", "w") as out:
        out.write(str(count))
    time.sleep(0.05)
"""


def dropped_in(vm: VM, work: Path, game_id: str, figures: Figures) -> None:
    """Mid-game, the state disk (the VM's disk ``dropped``, a fresh ext4) acknowledges every write
    and keeps none for a while (dm-flakey ``drop_writes``: a lying card), then works again. Found:
    what the device said, what it acknowledged before, during and after, and what the disk holds
    after the window (the journal read past the page cache, ``O_DIRECT``). The file system stays
    mounted (at :data:`DROPPED_MOUNT`; the state directory is a bind of it) until the boot's plug is
    pulled; :func:`dropped_after_pull` then checks the disk as the plug left it."""
    planned = planned_game(game_id)
    healthy, dropping = flakey_tables("dropped", "drop_writes")
    vm.ok(f"modprobe dm-flakey && dmsetup create dropped --table \"{healthy}\" && mkdir -p {DROPPED_MOUNT} && "
          f"mount -o defaults,noatime /dev/mapper/dropped {DROPPED_MOUNT} && mount --bind {DROPPED_MOUNT} {STATE_DIR}")
    began = vm.ok("date +%s").strip()  # this phase's lines of the unit's log, not the failing writes'
    since = a_third_in(vm, game_id, planned)
    (vm.share / "plain-writer.py").write_text(PLAIN_WRITER, encoding="utf-8")
    vm.ok(f"(nohup python3 {SHARE_MOUNT}/plain-writer.py > /run/plain-writer.log 2>&1 &) && sleep 1")
    switch_table(vm, "dropped", dropping)
    window = time.monotonic()
    time.sleep(DROP_SECONDS)
    switch_table(vm, "dropped", healthy)
    healed = time.monotonic()
    time.sleep(2 * DROP_SECONDS)  # the table plays on after the window
    said = vm.ok(f"journalctl -u {UNIT} -b --since=@{began} --no-pager -o cat | grep -E 'card is failing|could not"
                 " save|closed for writing' | head -2 || true").strip().splitlines()
    vm.ok(f"systemctl stop {UNIT}; for _ in $(seq 120); do pgrep -f plain-[w]riter.py > /dev/null || break;"
          " sleep 0.5; done")  # [w]: not the pattern's own shell
    acks = vm.acks[since:]
    journal = f"{STATE_DIR}/current.jsonl"
    shown = base64.b64decode(vm.ok(f"base64 -w0 {journal}"))
    on_card = base64.b64decode(vm.ok(f"dd if={journal} iflag=direct bs=64k status=none | base64 -w0"))
    control = int(vm.ok("cat /run/plain-writer.count").strip())
    control_on_card = numbered_lines(base64.b64decode(
        vm.ok(f"dd if={CONTROL_FILE} iflag=direct bs=64k status=none | base64 -w0")))
    vm.ok(f"umount {STATE_DIR}")  # the bind only: the file system stays mounted, nothing more flushed
    acknowledged = max((size for _, size in acks), default=0)
    found = {
        "acknowledged": acknowledged,
        "acks_before": sum(when < window for when, _ in acks),
        "acks_during": sum(window <= when < healed for when, _ in acks),
        "acks_after": sum(when >= healed for when, _ in acks),
        "shown": len(shown),
        "on_card_after_window": len(on_card) if on_card.startswith(shown[:acknowledged]) else
        sum(map(len, common_lines(on_card, shown))),
        "said": said[0] if said else "(nothing in the log)",
        "control_acknowledged": control,
        "control_on_card_after_window": control_on_card,
        "acknowledged_bytes": base64.b64encode(shown[:acknowledged]).decode(),
    }
    figures.dropped = found
    say(f"dropped writes: {found['acks_before']} plays acknowledged before the {DROP_SECONDS} s window,"
        f" {found['acks_during']} in it, {found['acks_after']} after; the card holds"
        f" {found['on_card_after_window']} of the {acknowledged} acknowledged journal bytes after the window;"
        f" the device said: {found['said']}")
    say(f"dropped writes, the control (a writer that trusts fsync, on the same disk): {control} lines fsynced,"
        f" {control_on_card} of them on the card after the window")


def dropped_after_pull(work: Path, figures: Figures) -> None:
    """The disk whose writes were dropped, as the pulled plug left it: fsck, mounted (its journal
    replayed, as a boot would), and every journal byte the device acknowledged looked for."""
    found = figures.dropped
    if not found:
        return
    scratch = work / "dropped-scratch.img"
    run(["cp", "--sparse=always", str(work / "dropped-state.img"), str(scratch)])
    fsck = subprocess.run(["fsck.ext4", "-n", "-f", str(scratch)], capture_output=True, text=True, check=False)
    found["fsck"] = fsck.returncode
    if fsck.returncode:
        found["fsck_said"] = " / ".join(line for line in fsck.stdout.splitlines()
                                        if line and not line.startswith("Pass"))[-400:]
        # as a boot would: the journal replayed, then the fsck a boot runs (preen, -p)
        subprocess.run(["e2fsck", "-E", "journal_only", "-y", str(scratch)], capture_output=True, check=False)
        again = subprocess.run(["fsck.ext4", "-n", "-f", str(scratch)], capture_output=True, text=True, check=False)
        found["fsck_after_replay"] = again.returncode
        preen = subprocess.run(["e2fsck", "-p", "-f", str(scratch)], capture_output=True, text=True, check=False)
        found["boot_fsck"] = preen.returncode  # 0 clean, 1 repaired, 4 and up: left for a person
        found["boot_fsck_said"] = " / ".join(preen.stdout.strip().splitlines())[-300:]
    acknowledged = base64.b64decode(found.pop("acknowledged_bytes"))
    with mounted(scratch) as state:
        journal = state / "current.jsonl"
        data = journal.read_bytes() if journal.is_file() else b""
        _, unreadable = read_state_files(state)
        control = state / Path(CONTROL_FILE).name
        found["control_after_pull"] = numbered_lines(control.read_bytes()) if control.is_file() else 0
    kept = data.startswith(acknowledged)
    found["after_pull"] = len(data)
    found["kept_after_pull"] = len(acknowledged) if kept else sum(map(len, common_lines(data, acknowledged)))
    figures.lost += (not kept) + len(unreadable)
    if not kept:
        figures.notes.append(f"dropped writes: after the pull the disk holds {found['kept_after_pull']} of the"
                             f" {len(acknowledged)} acknowledged journal bytes")
    figures.notes += [f"dropped writes: {name} is not whole JSON after the pull" for name in unreadable]
    fsck_word = "clean" if not fsck.returncode else (
        f"NOT clean: {found['fsck_said']}; after the journal's replay {found['fsck_after_replay']}, the boot's"
        f" e2fsck -p {found['boot_fsck']} ({found['boot_fsck_said']})")
    say(f"dropped writes, after the pull: fsck.ext4 -n {fsck_word}; {found['kept_after_pull']} of the"
        f" {len(acknowledged)} acknowledged journal bytes on the disk{'' if kept else ' (LOST)'};"
        f" state files {'whole' if not unreadable else 'NOT whole'}; the control: {found['control_after_pull']} of its"
        f" {found['control_acknowledged']} fsynced lines")


# --- 4. pulled plugs --------------------------------------------------------------------------


def journal_actions(mirror: Path) -> int:
    """The actions in the running game's journal of a state directory (-1: no journal)."""
    journal = mirror / "current.jsonl"
    return journal.read_bytes().count(b"\n") - 1 if journal.is_file() else -1


PULL_SERIAL = "pullstate"  # the pulls' state disk in a boot that is not theirs (fstab mounts "state")


def pull_state_disk(work: Path) -> Path:
    state_img = work / "pull-state.img"
    make_ext4(state_img, STATE_DISK_MB, label="companion-state")
    return state_img


def pulled_plugs(cache: ImageCache, work: Path, game_id: str, pulls: int, seed: int, figures: Figures, *,
                 image: Path, final: Callable[[VM], None] | None = None, while_booting: float = 0.25,
                 first: VM | None = None) -> list[float]:
    """Boot, let the unit play, kill qemu at a random moment; check the disk; boot again. Returns
    each boot's boot-to-READY (seconds since the kernel started, systemd's clock). ``final`` runs in
    the last boot once the game has ended, its key script emptied (the unit checks, saving a boot).
    ``while_booting``: the share of pulls that land while the VM boots rather than in mid-game.
    ``image``: the root image (:func:`event_image`'s: the device in event mode). ``first``: a booted
    VM holding the disk (:func:`pull_state_disk`) as ``pullstate``, in which the first game is
    started by hand on it and the first pull lands in mid-game (a boot saved)."""
    rng = random.Random(seed)
    state_img = work / "pull-state.img"
    if first is None:
        pull_state_disk(work)
    root = overlay(image, work / "root-pull.qcow2")
    planned = planned_game(game_id)
    mirror = work / "pull-mirror"
    shutil.rmtree(mirror, ignore_errors=True)
    acknowledged = 0
    ready: list[float] = []
    data = b""
    histories: dict[str, list[bytes | None]] = {}  # each state file after each pull, old or new, never torn
    for pull in range(pulls + 1):
        script = plan_script(mirror, game_id, planned, resume=True, pace=0.05, settings_every=SETTINGS_EVERY)
        done = journal_actions(mirror)
        since = 0
        in_first = pull == 0 and first is not None
        if first is not None and in_first:
            vm = first
            vm.write_keys(script)
            vm.ok(f"mount -o defaults,noatime /dev/disk/by-id/virtio-{PULL_SERIAL} {STATE_DIR}")
            since = len(vm.acks)
            vm.ok(f"systemctl start {UNIT}")
        else:
            vm = VM(cache, work / f"vm-pull-{pull}", root, [(state_img, "state")])
            vm.write_keys(script)
        with contextlib.nullcontext(vm) if in_first else booted(vm):
            try:
                if pull < pulls:
                    if not in_first and (rng.random() < while_booting or done >= len(planned) - 1):  # while it boots
                        when = "while it booted"
                        time.sleep(rng.uniform(2.0, 20.0) * vm.slowdown())
                    else:  # mid-game: after a random number of acknowledgements, between two writes or in one
                        wanted = rng.randint(1, max((len(planned) - max(done, 0)) // 2, 1))
                        when = f"{wanted} acknowledgements into the {'log boot' if in_first else 'boot'}'s play"
                        wait_acks(vm, since, wanted, timeout=600, idle=STALL_S)
                        time.sleep(rng.uniform(0.0, 0.5))
                        restarts = restarts_this_boot(vm)  # the round trip shifts the pull a little
                        if restarts:
                            figures.notes.append(f"boot {pull + 1}: {restarts}")
                    acknowledged = max([acknowledged, *(size for _, size in vm.acks[since:])])
                    vm.pull()
                else:
                    vm.wait_agent()
                    ready.append(boot_to_ready(vm).ready_s)
                    wait_acks(vm, 0, len(planned) - done, timeout=60 + 0.5 * len(script.splitlines()), idle=STALL_S)
                    restarts = restarts_this_boot(vm)
                    if restarts:
                        figures.notes.append(f"final boot: {restarts}")
                    acknowledged = max([acknowledged, *(size for _, size in vm.acks)])
                    if final is not None:
                        vm.write_keys("wait 1\n")  # a restarted device plays nothing on the finished game
                        final(vm)
                    vm.poweroff()
            except Stalled as err:
                figures.stalled += 1
                acknowledged = max([acknowledged, *(size for _, size in vm.acks[since:])])
                if in_first:
                    vm.pull()
                figures.notes.append(f"boot {pull + 1} stalled: {err}")
                say(f"boot {pull + 1} stalled (pulled): {err}")
                when = "after it stalled"
        figures.pulls += pull < pulls
        scratch = work / "pull-scratch.img"
        run(["cp", "--sparse=always", str(state_img), str(scratch)])
        fsck = subprocess.run(["fsck.ext4", "-n", "-f", str(scratch)], capture_output=True, text=True, check=False)
        if fsck.returncode != 0:
            # what it found on the disk as the plug left it, and whether the journal's replay (which
            # any mount, and the boot's fsck, does first) leaves a clean file system
            found = " / ".join(line for line in fsck.stdout.splitlines() if line and not line.startswith("Pass"))[-600:]
            replay = subprocess.run(["e2fsck", "-E", "journal_only", "-y", str(scratch)], capture_output=True,
                                    text=True, check=False)
            again = subprocess.run(["fsck.ext4", "-n", "-f", str(scratch)], capture_output=True, text=True, check=False)
            figures.notes.append(f"boot {pull + 1}: fsck.ext4 -n said {fsck.returncode}: {found}; after the journal's"
                                 f" replay ({replay.returncode}) it says {again.returncode}")
            say(figures.notes[-1])
            figures.fsck_clean_after_replay += again.returncode == 0
        with mounted(scratch) as state:
            journal = state / "current.jsonl"
            data = journal.read_bytes() if journal.is_file() else b""
            shutil.rmtree(mirror, ignore_errors=True)
            shutil.copytree(state, mirror, symlinks=True, ignore=shutil.ignore_patterns("lost+found"))
        files, unreadable = read_state_files(mirror)
        for name, content in files.items():
            histories.setdefault(name, [None] * pull).append(content)
        stepped = [name for name, history in histories.items() if len(history) - 1 in torn_instants(history)]
        lost = len(data) < acknowledged or bool(unreadable) or bool(stepped)
        figures.lost_after_pulls += lost
        figures.notes += [f"pull {pull + 1}: {name} is not whole JSON" for name in unreadable]
        figures.notes += [f"pull {pull + 1}: {name} is gone or back to a version it had left" for name in stepped]
        lines = data.count(b"\n")
        if pull < pulls:
            say(f"pull {pull + 1}/{pulls} ({when}): {acknowledged} journal bytes acknowledged, {len(data)} on the disk"
                f" ({max(lines - 1, 0)} actions, {max(lines - 1, 0) - max(done, 0)} this boot), fsck"
                f" {'clean' if fsck.returncode == 0 else 'NOT clean'}, state files"
                f" {'whole' if not unreadable else 'NOT whole: ' + ', '.join(unreadable)}")
            figures.fsck_clean_after_pulls += fsck.returncode == 0
        else:
            say(f"final boot: the game ended with {lines - 1} actions of {len(planned)} planned")
    say("state files after each pull, each whole and never back to a version it had left: " + ", ".join(
        f"{name} {len({content for content in history if content is not None})} versions"
        for name, history in sorted(histories.items())))
    ended = check_state(mirror, Expected((), b"", (tuple(planned),)))
    if data.count(b"\n") - 1 != len(planned) or not ended.resumed:
        figures.lost_after_pulls += 1
        figures.notes.append(f"after the pulls the game did not end as planned: {ended.why_not_resumed}")
    return ready


def wait_for(condition: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout * VM.slowdown()
    while not condition():
        if time.monotonic() > deadline:
            raise BenchError("timed out waiting for the guest")
        time.sleep(0.5)


def boot_to_ready(vm: VM) -> startup.Startup:
    """The kernel's start to the unit's READY=1 in its spans, once the unit is active (only READY
    makes it so); ``ready_s`` is the whole."""
    wait_for(lambda: vm.sh(f"systemctl is-active {UNIT}")[0] == 0, 120)
    return startup.measure(vm)


# --- 5. the unit on a real boot ---------------------------------------------------------------


def unit_checks(cache: ImageCache, work: Path, game_id: str, *, watchdog: bool) -> dict[str, Any]:
    """A fresh boot of its own: the unit starts at boot, plays a little, and is checked."""
    state_img = work / "unit-state.img"
    make_ext4(state_img, STATE_DISK_MB, label="companion-state")
    vm = VM(cache, work / "vm-unit", overlay(cache.base, work / "root-unit.qcow2"), [(state_img, "state")])
    planned = planned_game(game_id)
    vm.write_keys(plan_script(Path("/nonexistent"), game_id, planned[:20], resume=False, pace=0.05))
    with booted(vm):
        agent_s = vm.wait_agent()
        spans = boot_to_ready(vm)
        found = {"agent_s": agent_s, "boot_to_ready_s": spans.ready_s, "boot": "fresh", "startup": spans,
                 "chain": startup.chain_to_unit(vm)}
        found.update(unit_checks_in(vm, watchdog=watchdog))
        vm.poweroff()
    return found


def unit_checks_in(vm: VM, *, watchdog: bool, kill: bool = True) -> dict[str, Any]:
    """In a booted VM whose unit is running: its user, its restarts after SIGSEGV and SIGKILL (and
    the watchdog's after SIGSTOP), its log in journald, ``systemd-analyze security``. Without
    ``kill`` only the crash (SIGSEGV) is restarted."""
    found: dict[str, Any] = {}
    found["systemd_analyze"] = vm.ok("systemd-analyze || true").strip().splitlines()[0]
    pid = vm.ok(f"systemctl show -p MainPID --value {UNIT}").strip()
    found["user"] = vm.ok(f"ps -o user= -p {pid}").strip()
    found["docs_user"] = "companion"
    for signal_name in ("SEGV",) + (("KILL",) if kill else ()) + (("STOP",) if watchdog else ()):
        before = vm.ok(f"systemctl show -p NRestarts --value {UNIT}").strip()
        old = vm.ok(f"systemctl show -p MainPID --value {UNIT}").strip()
        vm.ok(f"kill -{signal_name} {old}")
        started = time.monotonic()
        wait_for(lambda old=old: vm.ok(f"systemctl show -p MainPID --value {UNIT}").strip() not in ("0", old)
                 and vm.sh(f"systemctl is-active {UNIT}")[0] == 0, 120)
        after = vm.ok(f"systemctl show -p NRestarts --value {UNIT}").strip()
        found[f"restart_after_{signal_name}"] = {"restarts": f"{before}->{after}",
                                                "seconds": round(time.monotonic() - started, 1)}
    found["watchdog_log"] = vm.ok(f"journalctl -u {UNIT} -b --no-pager -o cat | grep -i watchdog | head -2 || true"
                                  ).strip()
    found["journald_lines"] = int(vm.ok(f"journalctl -u {UNIT} -b --no-pager -o cat | wc -l").strip())
    found["journald_sample"] = vm.ok(f"journalctl -u {UNIT} -b --no-pager -o cat | grep -m2 -E 'accepted|options'"
                                     " || true").strip()
    security = vm.ok(f"systemd-analyze security --no-pager {UNIT}.service || true")
    found["security"] = next((line.strip() for line in security.splitlines() if "Overall exposure" in line), "?")
    return found


# --- 6. the numeric keypad through the kernel's input layer ------------------------------------

UINPUT_TESTS = ["tests/hw/test_numpad.py::test_a_virtual_keypad_through_uinput",
                "tests/device/test_numpad_device.py::test_a_whole_game_through_the_kernels_input_layer"]
TEST_TOOLS = ["pytest>=8", "hypothesis>=6.100", "packaging"]  # what tests/conftest.py needs beyond the device
NUMPAD_GAME = "tezuma"  # the game the suite's whole-game keypad test plays too


NUMPAD_DROP_IN = f"""[Service]
ExecStart=
ExecStart=/opt/tabletop-companion/.venv/bin/companion run --mock --keys {SHARE_MOUNT}/{KEYS_FILE} --numpad auto \\
    --state-dir {STATE_DIR} --seed 4 --verbose
"""


def uinput_tests(cache: ImageCache, work: Path, game_id: str) -> dict[str, Any]:
    """The numeric keypad through the VM kernel's input layer (uinput is a module of Debian's kernel).

    1. The suite's tests that need /dev/uinput, run from the installed project (/opt) in the guest,
       on the device's virtualenv with pytest added (wheels this machine downloads once): a virtual keypad
       made with python-evdev types a whole game, read back by the device's reader.
    2. The shipped unit with ``--numpad auto`` (a runtime drop-in; its key script is empty) and a
       virtual keypad (bench/powercut/typist.py) typing ``game_id``'s planned game: the device must
       take the keypad, acknowledge every action, and journal exactly the plan.
    """
    wheels = cache.root / "test-wheels"
    if not (wheels / ".done").exists():
        shutil.rmtree(wheels, ignore_errors=True)
        run(["python3", "-m", "pip", "download", "--only-binary=:all:", "-d", str(wheels), *TEST_TOOLS], timeout=1800)
        (wheels / ".done").touch()
    state_img = work / "uinput-state.img"
    make_ext4(state_img, STATE_DISK_MB, label="companion-state")
    vm = VM(cache, work / "vm-uinput", overlay(cache.base, work / "root-uinput.qcow2"), [(state_img, "state")],
            target="powercut.target")
    shutil.copytree(wheels, vm.share / "wheels", dirs_exist_ok=True)
    planned = planned_game(game_id)
    (vm.share / "numpad.keys").write_text(numpad_script(game_id, planned), encoding="ascii")
    shutil.copy2(Path(__file__).resolve().parent / "powercut" / "typist.py", vm.share / "typist.py")
    vm.write_keys("wait 1\n")
    venv = "/opt/tabletop-companion/.venv"
    found: dict[str, Any] = {"game": game_id, "actions": len(planned)}
    with booted(vm):
        vm.wait_agent()
        vm.ok(f"modprobe uinput && test -c /dev/uinput && {venv}/bin/pip install -q --no-index"
              f" --find-links {SHARE_MOUNT}/wheels {' '.join(repr(tool) for tool in TEST_TOOLS)}", timeout=600)
        started = time.monotonic()
        code, out = vm.sh(f"cd /opt/tabletop-companion && PYTHONPATH=$PWD {venv}/bin/python -m pytest"
                          f" -p no:cacheprovider -q -rs {' '.join(UINPUT_TESTS)}", timeout=1800)
        tail = "\n".join(out.strip().splitlines()[-4:])
        found["tests"] = {"passed": code == 0 and "skipped" not in tail, "tail": tail,
                          "seconds": round(time.monotonic() - started)}
        verdict_word = "passed" if found["tests"]["passed"] else "did NOT pass"
        say(f"uinput: the suite's kernel-path tests in the VM {verdict_word} ({found['tests']['seconds']} s):"
            f" {' / '.join(tail.splitlines())}")
        unit_dir = f"/run/systemd/system/{UNIT}.service.d"
        vm.ok(f"mkdir -p {unit_dir} && cat > {unit_dir}/zz-numpad.conf <<'EOF'\n{NUMPAD_DROP_IN}EOF\n"
              f"systemctl daemon-reload && rm -f /run/powercut-go && (nohup python3 {SHARE_MOUNT}/typist.py"
              f" {SHARE_MOUNT}/numpad.keys /run/powercut-go > /run/typist.log 2>&1 &) && sleep 2"
              " && cat /run/typist.log")
        since = len(vm.acks)
        vm.ok(f"systemctl start {UNIT}", timeout=600)
        taken = ""
        with contextlib.suppress(BenchError):
            wait_for(lambda: vm.sh(f"journalctl -b -u {UNIT} -o cat | grep -q 'numeric keypad connected'")[0] == 0, 60)
            taken = vm.ok(f"journalctl -b -u {UNIT} -o cat | grep -m1 'numeric keypad connected'").strip()
        found["taken"] = taken or vm.ok(f"journalctl -b -u {UNIT} -o cat | grep -i -m3 'numeric keypad'"
                                        " || true").strip()
        if taken:
            started = time.monotonic()
            vm.ok("touch /run/powercut-go")
            try:
                wait_acks(vm, since, len(planned) + 1, timeout=120 + 2 * len(planned), idle=STALL_S)
            except Stalled as err:
                found["stalled"] = str(err)
            found["play_seconds"] = round(time.monotonic() - started)
        vm.ok(f"systemctl stop {UNIT}")
        found["typist"] = vm.ok("tail -2 /run/typist.log").strip()
        mirror = guest_state(vm, work / "uinput-mirror")
        vm.poweroff()
    journal = mirror / "current.jsonl"
    data = journal.read_bytes() if journal.is_file() else b""
    verdict = check_state(mirror, Expected((), data, (tuple(planned),)))
    found["journalled"] = max(data.count(b"\n") - 1, 0)
    found["as_planned"] = verdict.resumed and found["journalled"] == len(planned)
    timing = f" in {found['play_seconds']} s" if "play_seconds" in found else ""
    say(f"uinput: the unit with --numpad auto {'took' if taken else 'did NOT take'} the virtual keypad"
        f" ({found['taken']}); {found['journalled']} of {len(planned)} planned {game_id} actions journalled{timing},"
        f" {'exactly the plan' if found['as_planned'] else 'NOT the plan: ' + verdict.why_not_resumed}")
    return found


def check_host(accel: str, arch: str) -> None:
    VM.guest = GUESTS[arch]
    problem = kvm_problem() if VM.guest.machine == os.uname().machine else f"an {arch} guest needs CPU emulation here"
    if accel == "kvm" and problem is not None:
        print(f"powercut: {problem}; nothing was run (--accel tcg emulates the CPU instead, many times slower)")
        sys.exit(2)
    VM.accel = accel
    tools = {**TOOLS, VM.guest.qemu: VM.guest.qemu_package}
    missing = sorted({package for tool, package in tools.items() if shutil.which(tool) is None})
    foreign = foreign_problem(VM.guest)
    if foreign is not None:
        print(f"powercut: {foreign}; nothing was run")
        sys.exit(2)
    if missing or os.geteuid() != 0:
        print(f"powercut: needs root and {' '.join(missing) or 'nothing else'}"
              f" (sudo apt install {' '.join(missing)}); nothing was run")
        sys.exit(2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache/tabletop-companion/powercut")
    parser.add_argument("--quick", action="store_true", help="one game, fewer pulls, every 4th flush point")
    parser.add_argument("--games", help="game ids to play on the logged disk, comma-separated (default: all)")
    parser.add_argument("--pulls", type=int, help="power pulls (default 10, 1 with --quick)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--actions", type=int, help="play only each game's first N actions (default: whole games;"
                        " 60 with --quick under --accel tcg)")
    parser.add_argument("--accel", choices=("kvm", "tcg"),
                        help="tcg: emulate the CPU where /dev/kvm cannot boot Debian's kernel (many times slower);"
                        " default kvm, tcg for --arch arm64")
    parser.add_argument("--arch", choices=sorted(GUESTS), default="x86_64",
                        help="the guest's architecture: arm64 is the Pi's (Debian's arm64 kernel on an emulated"
                        " Cortex-A53, its own image under --cache's arm64/); its start-up figures are pessimistic")
    parser.add_argument("--phases", help="which parts to run, of log,flaky,pulls,unit,uinput (default: all;"
                        " --quick leaves uinput out; --arch arm64: unit)")
    parser.add_argument("--json", type=Path, help="also write every figure to this file")
    parser.add_argument("--no-event", action="store_true", help="the device without event mode (its cursor file)")
    args = parser.parse_args()
    accel = args.accel or ("kvm" if args.arch == "x86_64" else "tcg")
    check_host(accel, args.arch)
    figures = Figures()
    started = time.monotonic()
    cache = ImageCache(args.cache / VM.guest.cache_dir)
    with figures.timed("image"):
        built = build_base(cache)
    build = json.loads(cache.stamp.read_text()).get("build_seconds")
    say(f"image: {cache.base} ({'built now' if built else 'cached'}; the build took {build} s)")
    games = args.games.split(",") if args.games else (["zenjidou"] if args.quick else list(game_ids()))
    pulls = args.pulls if args.pulls is not None else (1 if args.quick else 10)
    global ACTIONS
    ACTIONS = args.actions if args.actions is not None else (40 if args.quick and accel == "tcg" else None)
    work = cache.root / "run"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    every = "unit" if args.arch == "arm64" else "log,flaky,pulls,unit,uinput"
    phases = set((args.phases or ("log,flaky,pulls,unit" if args.quick else every)).split(","))
    unit: dict[str, Any] = {}
    # --quick: the unit checks in the pulls' last boot (no boot of their own), without the watchdog's
    # wait, and the first pull in the log's boot, after the failing and dropped writes (two boots in all)
    in_final = args.quick and "unit" in phases and "pulls" in phases
    pull_in_log = args.quick and "log" in phases and "pulls" in phases and pulls > 0
    ready: list[float] = []
    # event mode for the log, the failing and dropped writes and the pulls: its cursor file is then a
    # state file like the others at every check (the unit's own checks and the keypad run without it)
    event = bool(phases & {"log", "flaky", "pulls"}) and not args.no_event
    with figures.timed("event mode layer"):
        image = event_image(cache, work) if event else cache.base

    def pulls_from(first: VM | None) -> None:
        with figures.timed("pulls and the final boot"):
            ready.extend(pulled_plugs(
                cache, work, games[0], pulls, args.seed, figures, image=image, first=first,
                final=(lambda vm: unit.update(unit_checks_in(vm, watchdog=False, kill=False))) if in_final else None,
                while_booting=0.0 if args.quick else 0.25))

    with ThreadPoolExecutor(max_workers=1) as pool:  # the log's checks beside the next boots
        checking: list[Future[None]] = []

        def check_log(played: list[LoggedGame]) -> None:
            with figures.timed("the log's checks (host)"):
                check_every_point(work, played, figures, stride=8 if args.quick else 1)

        def after_log(vm: VM, played: list[LoggedGame]) -> None:
            figures.seconds["log boot: booted and played"] = round(time.monotonic() - log_started, 1)
            checking.append(pool.submit(check_log, played))
            if "flaky" in phases:
                with figures.timed("failing writes"):
                    flaky_in(vm, work, games[0], figures)
                with figures.timed("dropped writes"):
                    dropped_in(vm, work, games[0], figures)
            if pull_in_log:
                pulls_from(vm)

        log_started = time.monotonic()
        if "log" in phases:
            with figures.timed("log boot, and what runs in it"):
                play_logged(cache, work, games, figures, image=image, event=event, after=after_log,
                            disks=((pull_state_disk(work), PULL_SERIAL),) if pull_in_log else ())
            dropped_after_pull(work, figures)
        elif "flaky" in phases:
            with figures.timed("failing and dropped writes"):
                flaky_writes(cache, work, games[0], figures, image)
        if "pulls" in phases and not pull_in_log:
            pulls_from(None)
        if in_final and unit:
            unit.update(boot_to_ready_s=ready[-1], boot="the last after the pulls")
        with figures.timed("uinput"):
            numpad = uinput_tests(cache, work, NUMPAD_GAME) if "uinput" in phases else {}
        if "unit" in phases and not in_final:
            with figures.timed("unit"):
                unit = unit_checks(cache, work, games[0], watchdog=True)
        for future in checking:
            future.result()
    if unit:
        watchdog = unit.get("restart_after_STOP")
        say(f"unit: boot-to-READY {unit['boot_to_ready_s']:.2f} s after the kernel started ({unit['boot']} boot;"
            f" {unit['systemd_analyze']}); after the pulls {', '.join(f'{s:.2f}' for s in ready)} s")
        if "startup" in unit:
            say(f"unit: {VM.guest.machine} ({' '.join(VM.guest.qemu_cmd(accel)[1:])}): {unit['startup'].line()}")
            say(f"unit: what its start waited for (systemd-analyze critical-chain): {' <- '.join(unit['chain'])}")
        say(f"unit: runs as {unit['user']} (the docs say {unit['docs_user']}); restarted after SIGSEGV"
            f" {unit['restart_after_SEGV']}, SIGKILL {unit.get('restart_after_KILL', '(not tried with --quick)')};"
            f" watchdog after SIGSTOP {watchdog if watchdog else '(not waited for with --quick)'}"
            f" ({unit['watchdog_log'].splitlines()[0] if unit['watchdog_log'] else 'no log'})")
        say(f"unit: {unit['journald_lines']} lines in journald this boot; systemd-analyze security: {unit['security']}")
    for note in figures.notes[:20]:
        say(f"  {note}")
    if args.json:
        args.json.write_text(json.dumps({"figures": figures.__dict__, "unit": unit, "ready_after_pulls": ready,
                                         "numpad": numpad, "build_seconds": build,
                                         "seconds": round(time.monotonic() - started)}, indent=1, default=str))
    say("seconds by phase (--quick overlaps some): " + ", ".join(f"{name} {value:.0f}"
                                                                 for name, value in figures.seconds.items()))
    say(f"run took {time.monotonic() - started:.0f} s")
    print(figures.summary(), flush=True)


if __name__ == "__main__":
    main()
