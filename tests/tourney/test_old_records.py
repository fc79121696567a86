"""Records written while the device asked the predictions before the plays (by suit, or naming
each prediction's card) read, replay and export byte for byte as they did then.

The expected outputs in ``data/`` were written by ``companion replay`` (text and ``--json``) before
the device moved the predictions to the reveal; ``companion export`` gave back each record unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.cli import main

DATA = Path(__file__).resolve().parent / "data"
OLD_RECORDS = ["suit-predictions-first", "card-predictions"]


@pytest.mark.parametrize("name", OLD_RECORDS)
@pytest.mark.parametrize(("argv", "suffix"), [([], "replay.txt"), (["--json"], "replay.json")])
def test_an_old_record_replays_as_it_did(capsys: pytest.CaptureFixture[str], name: str, argv: list[str],
                                         suffix: str) -> None:
    assert main(["replay", *argv, str(DATA / f"{name}.jsonl")]) == 0
    assert capsys.readouterr().out == (DATA / f"{name}.{suffix}").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", OLD_RECORDS)
def test_an_old_record_exports_unchanged(capsys: pytest.CaptureFixture[str], name: str) -> None:
    assert main(["export", str(DATA / f"{name}.jsonl")]) == 0
    assert capsys.readouterr().out == (DATA / f"{name}.jsonl").read_text(encoding="utf-8")
