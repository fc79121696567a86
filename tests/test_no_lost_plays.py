"""No command may lose a play the device acknowledged: export never replaces the record it reads
or a journal a device writes, concurrent card-fact writers are serialised, and the device removes
its own stale temporary files at start."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from companion.cli import main
from companion.journal import Journal

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("output", ["same", "hard link", "symbolic link"])
def test_export_refuses_to_write_over_the_record_it_reads(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, output: str) -> None:
    record = tmp_path / "current.jsonl"
    shutil.copy(EXAMPLES / "tezuma.jsonl", record)
    target = record
    if output == "hard link":
        target = tmp_path / "linked.jsonl"
        os.link(record, target)
    elif output == "symbolic link":
        target = tmp_path / "pointer.jsonl"
        target.symlink_to(record)
    inode = record.stat().st_ino
    code, out, err = run(capsys, "export", str(record), "-o", str(target))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "that is the record being exported" in err
    assert record.stat().st_ino == inode  # not replaced: a device appending to it keeps its plays


def test_export_refuses_a_journal_a_running_device_holds(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    journal_path = tmp_path / "current.jsonl"
    shutil.copy(EXAMPLES / "tezuma.jsonl", journal_path)
    with Journal.open(journal_path) as journal:  # what a running device holds
        code, out, err = run(capsys, "export", str(EXAMPLES / "tezuma-2015.jsonl"), "-o", str(journal_path))
        assert (code, out) == (2, "")
        assert err.count("\n") == 1 and "a running device is writing that journal" in err
        before = journal_path.read_bytes()
        journal.append({"type": "undo"})  # the device's next play lands in the file people see
        assert journal_path.read_bytes() == before + b'{"type":"undo"}\n'
    # once the device has stopped, exporting over the old file is the user's choice
    assert run(capsys, "export", str(EXAMPLES / "tezuma-2015.jsonl"), "-o", str(journal_path))[0] == 0


def _set_facts(facts: str, keys: list[str]) -> list[int]:
    """One writer process: ``companion cards set`` for each key, with its exit statuses."""
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return [main(["cards", "--facts", facts, "set", "zenjidou", key, "1"]) for key in keys]


def _device_remembers(state: str, keys: list[str]) -> None:
    """The device's side: what a table answered, kept for later games."""
    from companion.daemon.store import Store

    store = Store(Path(state))
    for key in keys:
        store.remember_fact("zenjidou", key, 1)


def test_concurrent_card_fact_writers_lose_nothing(tmp_path: Path) -> None:
    """Three `companion cards set` and the device writing at once: before the lock, a writer's
    read-modify-write put back an older copy and most updates vanished (26 of 39)."""
    import multiprocessing

    from companion import carddata

    keys = [f"card:{number}:{name}" for number in range(1, 17) for name in ("colour", "score", "rule")]
    facts = tmp_path / carddata.FACTS_FILE
    shares = [keys[index::4] for index in range(4)]
    context = multiprocessing.get_context("fork")
    with context.Pool(4) as pool:
        statuses = [pool.apply_async(_set_facts, (str(facts), share)) for share in shares[:3]]
        device = pool.apply_async(_device_remembers, (str(tmp_path), shares[3]))
        assert [status.get(timeout=120) for status in statuses] == [[0] * len(share) for share in shares[:3]]
        device.get(timeout=120)
    told = {key for game, key, _ in carddata.iter_facts(carddata.load_facts(facts))}
    assert told == set(keys)
    assert not list(tmp_path.glob(".card-facts.json.*.tmp"))


def test_the_device_removes_its_own_stale_temp_files_at_start(tmp_path: Path) -> None:
    """A kill during a settings write leaves ``.settings.json.<8 hex>.tmp``; 150 kills left 42."""
    from companion.daemon.store import Store

    ours = [".settings.json.0123abcd.tmp", ".current.jsonl.89abcdef.tmp", ".card-facts.json.00ff00ff.tmp"]
    theirs = [".settings.json.backup.tmp", "notes.tmp", "settings.json"]
    for name in ours + theirs:
        (tmp_path / name).write_text("{}", encoding="utf-8")
    Store(tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir() if not path.name.endswith(".lock")) == sorted(theirs)
