"""The systemd unit: the directives the daemon relies on are there, and systemd accepts the file."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "tabletop-companion.service"
EXEC_START = "/opt/tabletop-companion/.venv/bin/companion run"
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
needs_systemd_analyze = pytest.mark.skipif(
    SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed (Debian package: systemd)"
)

Unit = dict[str, dict[str, list[str]]]


def parse_unit(text: str) -> Unit:
    """Sections of key -> every value given, in order (keys such as DeviceAllow= repeat).

    >>> parse_unit("[A]\\n# c\\nK=1 \\\\\\n  2\\nK=3\\n")
    {'A': {'K': ['1 2', '3']}}
    """
    unit: Unit = {}
    section: dict[str, list[str]] = {}
    for line in text.replace("\\\n", "").splitlines():
        line = " ".join(line.split())
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = unit.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        section.setdefault(key.strip(), []).append(value.strip())
    return unit


@pytest.fixture(scope="module")
def service() -> dict[str, list[str]]:
    return parse_unit(UNIT.read_text(encoding="utf-8"))["Service"]


def one(service: dict[str, list[str]], key: str) -> str:
    values = service.get(key, [])
    assert len(values) == 1, f"{key}= should be set exactly once, found {values}"
    return values[0]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("Type", "notify"),
        ("NotifyAccess", "main"),
        ("WatchdogSec", "30"),
        ("Restart", "on-failure"),
        ("RestartPreventExitStatus", "2"),  # a config error: companion run exits 2 (tests/device/test_run_options.py)
        ("ExecStart", EXEC_START),
        ("User", "companion"),
        ("StateDirectory", "tabletop-companion"),
        ("CacheDirectory", "tabletop-companion"),  # companion.paths.cache_dir: $CACHE_DIRECTORY
        ("RuntimeDirectory", "tabletop-companion"),
        ("ProtectSystem", "strict"),
        ("ProtectHome", "yes"),
        ("PrivateTmp", "yes"),
        ("NoNewPrivileges", "yes"),
        ("RestrictAddressFamilies", "AF_UNIX"),
        ("DevicePolicy", "closed"),
    ],
)
def test_required_directive(service: dict[str, list[str]], key: str, value: str) -> None:
    assert one(service, key) == value


def test_restart_delay_is_set(service: dict[str, list[str]]) -> None:
    assert float(one(service, "RestartSec")) > 0


def test_device_groups_open_the_hardware(service: dict[str, list[str]]) -> None:
    assert set(one(service, "SupplementaryGroups").split()) == {"gpio", "i2c", "spi", "dialout", "input"}
    allowed = set(service["DeviceAllow"])
    for group in ("gpiochip", "i2c", "spi", "ttyACM", "ttyAMA", "ttyS", "ttyUSB"):
        assert f"char-{group} rw" in allowed
    assert "char-input rw" in allowed  # the numeric keypad: python-evdev lists only what it may write


def test_lgpio_is_the_pin_library_and_has_a_writable_directory(service: dict[str, list[str]]) -> None:
    """lgpio makes FIFOs in $LG_WD; under ProtectSystem=strict only the runtime dir is writable."""
    assert "LG_WD=%t/tabletop-companion" in service["Environment"]
    assert "GPIOZERO_PIN_FACTORY=lgpio" in service["Environment"]


@pytest.mark.parametrize(
    "absent",
    ["DynamicUser", "PrivateDevices", "PrivateUsers", "MemoryDenyWriteExecute", "ProcSubset"],
)
def test_settings_that_would_break_the_hardware_are_absent(
    service: dict[str, list[str]], absent: str
) -> None:
    assert absent not in service


@pytest.fixture
def verifiable_unit(tmp_path: Path) -> Path:
    """A copy whose ExecStart names a binary that exists here; verify insists on that."""
    true = shutil.which("true")
    assert true is not None
    text = UNIT.read_text(encoding="utf-8")
    assert f"ExecStart={EXEC_START}\n" in text
    copy = tmp_path / UNIT.name
    copy.write_text(text.replace(f"ExecStart={EXEC_START}", f"ExecStart={true} run"), encoding="utf-8")
    return copy


def _analyze(*args: str) -> subprocess.CompletedProcess[str]:
    assert SYSTEMD_ANALYZE is not None
    return subprocess.run(
        [SYSTEMD_ANALYZE, *args], capture_output=True, text=True, timeout=60, check=False
    )


def _verify_complaints(unit_file: Path) -> list[str]:
    """verify exits 0 even for unknown keys and bad values, so its warnings count too."""
    result = _analyze("verify", "--man=no", str(unit_file))
    complaints = [line for line in result.stderr.splitlines() if UNIT.name in line]
    if result.returncode != 0:
        complaints.append(f"exit status {result.returncode}: {result.stderr}")
    return complaints


@needs_systemd_analyze
def test_systemd_analyze_verify_accepts_the_unit(verifiable_unit: Path) -> None:
    assert _verify_complaints(verifiable_unit) == []


@needs_systemd_analyze
def test_verify_catches_mistakes_so_the_check_above_means_something(tmp_path: Path) -> None:
    broken = tmp_path / UNIT.name
    text = UNIT.read_text(encoding="utf-8").replace("DevicePolicy=closed", "DevicePolicy=shut")
    broken.write_text(text.replace(f"ExecStart={EXEC_START}", "ExecStart=/bin/true"), encoding="utf-8")
    (complaint,) = _verify_complaints(broken)
    assert "device policy" in complaint


@needs_systemd_analyze
def test_exposure_score_stays_low(verifiable_unit: Path) -> None:
    """systemd's own hardening score (0 safest, 10 worst); catches a sandbox quietly removed."""
    result = _analyze("security", "--offline=yes", "--no-pager", str(verifiable_unit))
    if "--offline" in result.stderr and "unrecognized" in result.stderr:
        pytest.skip("this systemd-analyze has no --offline (needs systemd 250 or later)")
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", result.stdout)
    assert match, result.stdout + result.stderr
    assert float(match.group(1)) <= 1.5


PI_SETUP = UNIT.parents[1] / "docs" / "pi-setup.md"


def test_pi_setup_guide_matches_the_unit(service: dict[str, list[str]]) -> None:
    """The guide creates what the unit expects: the same binary, groups and modules."""
    guide = PI_SETUP.read_text(encoding="utf-8")
    assert EXEC_START.split()[0] in guide
    groups = re.search(r"--groups (\S+) companion", guide)
    assert groups and set(groups.group(1).split(",")) == set(one(service, "SupplementaryGroups").split())
    unit = parse_unit(UNIT.read_text(encoding="utf-8"))["Unit"]
    modules = {name.removeprefix("modprobe@").removesuffix(".service") for name in unit["Wants"][0].split()}
    for module in modules:
        assert f"`{module}`" in guide
    assert "sudo cp /opt/tabletop-companion/systemd/tabletop-companion.service /etc/systemd/system/" in guide
