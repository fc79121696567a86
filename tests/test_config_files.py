"""config.toml and board files, mutated at random: each load ends in a clear ConfigError or success.

A fixed budget runs with the suite; ``pytest -m slow`` runs a longer one.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.config import load_config
from companion.errors import ConfigError
from companion.hw.boards import load_board_file

ROOT = Path(__file__).resolve().parents[1]
SEEDS = {
    ".toml": [(ROOT / "docs" / "config.example.toml").read_bytes().replace(b"# ", b""),
              (ROOT / "hardware" / "custom-board.example.toml").read_bytes()],
    ".json": [(ROOT / "companion" / "data" / "boards" / "waveshare-oled-1.3-hat.json").read_bytes()],
}


@st.composite
def mutated(draw: st.DrawFn, suffix: str) -> bytes:
    """A real file with a few bytes flipped, cut, inserted or repeated."""
    data = bytearray(draw(st.sampled_from(SEEDS[suffix])))
    for _ in range(draw(st.integers(1, 6))):
        where = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["flip", "cut", "insert", "repeat"]))
        if kind == "flip" and where < len(data):
            data[where] ^= 1 << draw(st.integers(0, 7))
        elif kind == "cut":
            del data[where:where + draw(st.integers(1, 40))]
        elif kind == "insert":
            data[where:where] = draw(st.sampled_from([b"[", b"{", b"\xff", b"\x00", b'"', b"=", b"\n", b"[[a]]\n",
                                                      b"1e999", b"9" * 5000, b"[" * 2000]))
        else:
            data[where:where] = data[where:where + 20] * draw(st.integers(2, 50))
    return bytes(data)


def loads_cleanly(load: object, path: Path, data: bytes) -> None:
    path.write_bytes(data)
    try:
        load(path)  # type: ignore[operator]
    except ConfigError as err:
        assert str(err).startswith(str(path)), err  # it names the file
        assert "\n" not in str(err)  # one line


def fuzz_settings(examples: int) -> settings:
    return settings(max_examples=examples, suppress_health_check=[HealthCheck.function_scoped_fixture])


@fuzz_settings(150)
@given(data=mutated(".toml"))
def test_mutated_config_toml_is_refused_or_read(tmp_path: Path, data: bytes) -> None:
    loads_cleanly(load_config, tmp_path / "config.toml", data)


@fuzz_settings(150)
@given(data=mutated(".toml"))
def test_mutated_toml_board_files_are_refused_or_read(tmp_path: Path, data: bytes) -> None:
    loads_cleanly(load_board_file, tmp_path / "board.toml", data)


@fuzz_settings(150)
@given(data=mutated(".json"))
def test_mutated_json_board_files_are_refused_or_read(tmp_path: Path, data: bytes) -> None:
    loads_cleanly(load_board_file, tmp_path / "board.json", data)


@pytest.mark.slow
@fuzz_settings(5000)
@given(suffix=st.sampled_from([".toml", ".json"]), data=st.data())
def test_long_fuzz_of_config_and_board_files(tmp_path: Path, suffix: str, data: st.DataObject) -> None:
    content = data.draw(mutated(suffix))
    loads_cleanly(load_board_file, tmp_path / f"board{suffix}", content)
    if suffix == ".toml":
        loads_cleanly(load_config, tmp_path / "config.toml", content)


@pytest.mark.parametrize("name", ["config.toml", "board.toml"])
def test_a_pipe_where_a_file_belongs_is_refused_without_waiting_for_a_writer(tmp_path: Path, name: str) -> None:
    pipe = tmp_path / name
    os.mkfifo(pipe)
    with pytest.raises(ConfigError, match="not a regular file"):
        load_config(pipe) if name == "config.toml" else load_board_file(pipe)
