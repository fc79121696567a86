"""Every config.toml key with odd values: what ``run --check`` accepts must start, what it refuses it
refuses in one line, and the start refuses the same way (never a traceback on the first frame,
which under systemd is a restart loop on a Pi nobody can see)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.config import all_settings
from companion.daemon.run import main_run

ODD_VALUES = (0, -1, 3, 7, 100000, 1.5, "a string", True)


def toml_value(value: object) -> str:
    """``value`` as TOML writes it (JSON's spelling of these values is TOML's)."""
    return json.dumps(value)


def run(tmp_path: Path, config: Path, *options: str) -> int:
    return main_run(["--config-toml", str(config), "--mock", "--state-dir", str(tmp_path / "state"), *options])


@pytest.mark.parametrize("key", sorted(all_settings()))
def test_every_value_check_accepts_starts_and_every_other_is_refused_in_one_line(
        key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "none.keys"
    script.write_text("wait 0.1\n", encoding="utf-8")
    for value in ODD_VALUES:
        config = tmp_path / "config.toml"
        config.write_text(f"{key} = {toml_value(value)}\n", encoding="utf-8")
        checked = run(tmp_path, config, "--check")
        said = capsys.readouterr().err.strip().splitlines()
        started = run(tmp_path, config, "--keys", str(script), "--exit-when-done")
        err = capsys.readouterr().err
        case = f"{key} = {toml_value(value)}"
        if checked == 0:
            assert said and "all is right" in said[-1], case
            assert started == 0, f"{case}: --check said all is right, the start failed: {err}"
        else:
            assert checked == 2 and len(said) == 1 and "Traceback" not in said[0], (case, said)
            assert started in (0, 2) and "Traceback" not in err, (case, err)
            if started == 2:  # the start refuses it as --check did
                assert err.strip().splitlines() == said, case
