"""Mutation fuzzing of every reader of untrusted bytes: records and journals, card-fact files, the
keypad's line parser. Shared by tests/fuzz (hypothesis drives the ``random.Random``) and
bench/faults.py (a seeded loop that counts outcomes).

Each ``run_*`` target feeds one input to the product the way a user or a failing SD card would
and returns "ok" or "refused" (a clear message); anything else escapes as an exception.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion import cli
from companion.daemon.store import Store
from companion.hw.keys import Key, KeyEvent
from companion.hw.serial_keypad import KeypadLineParser, Problem
from companion.ui.app import App

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def record_seeds() -> list[bytes]:
    """Real records to mutate: the shipped examples (both games, with undo lines and answers)."""
    return [path.read_bytes() for path in sorted(EXAMPLES.glob("*.jsonl"))]


# --- values and mutations ---------------------------------------------------------------------


def nasty_value(rng: random.Random) -> Any:
    """A JSON-ish value of the kind that breaks code expecting another type."""
    choice = rng.randrange(16)
    if choice == 0:
        return None
    if choice == 1:
        return rng.choice([True, False])
    if choice == 2:
        return rng.choice([0, -1, 1, 2, 3, 4, 9, 12, 255, 2**31, -(2**63), 10**40])
    if choice == 3:
        return rng.choice([0.5, -0.0, 1e308, float("nan"), float("inf")])
    if choice == 4:
        return rng.choice(["", "B", "T", "B7", "{id}", "{0}", "{id.x}", "x\u2028y", "\x00\x1b[2J", "蝶", "points:1:3"])
    if choice == 5:
        return []
    if choice == 6:
        return {}
    if choice == 7:
        return [nasty_value(rng) for _ in range(rng.randrange(1, 4))]
    if choice == 8:
        return {rng.choice(["id", "code", "points", "3", "4", "en", "uses"]): nasty_value(rng)}
    if choice == 9:
        return ["B7", "B7"]
    if choice == 10:
        return {"3": rng.randrange(-2, 20), "4": rng.randrange(-2, 20)}
    if choice == 11:
        return rng.randrange(-3, 40)
    if choice == 12:
        return "x" * rng.randrange(0, 300)
    if choice == 13:
        return [[[[[]]]]]
    if choice == 14:
        return list(range(rng.randrange(0, 12)))
    return rng.choice(
        ["sword-walking", "paper-egg", "penalty", "scoring", "ability", "play", "draft", "answer", "undo"]
    )


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(node, dict):
        for key, child in node.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            found += _paths(child, (*prefix, index))
    return found


def mutate_json(value: Any, rng: random.Random) -> Any:
    """Change one place of a decoded JSON value: replace it, delete it, or add a neighbour."""
    paths = _paths(value)
    path = rng.choice(paths)
    if not path:
        return nasty_value(rng) if rng.random() < 0.3 else value
    parent = value
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    action = rng.randrange(4)
    if action == 0 and isinstance(parent, dict):
        del parent[last]
    elif action == 0 and isinstance(parent, list):
        parent.pop(last)
    elif action == 1 and isinstance(parent, dict):
        parent[rng.choice(["extra", "type", "seat", "cards", "ability", "kind", "card", "key", "value"])] = nasty_value(
            rng
        )
    elif action == 1 and isinstance(parent, list):
        parent.insert(last, nasty_value(rng) if rng.random() < 0.5 else json.loads(json.dumps(parent[last])))
    else:
        parent[last] = nasty_value(rng)
    return value


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """Damage of the kind storage and editors cause: flipped bits, lost or doubled spans, junk."""
    if not data:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 20)))
    action = rng.randrange(8)
    at = rng.randrange(len(data))
    if action == 0:
        return data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1 :]
    if action == 1:
        return data[:at] + data[at + rng.randrange(1, 64) :]
    if action == 2:
        junk = rng.choice(
            [b"\x00" * 64, b"\xff\xfe", b"[" * 5000, b"\n\n", b"\r", "\u2028".encode(), b"NaN", b"9" * 5000]
        )
        return data[:at] + junk + data[at:]
    if action == 3:
        return data[:at]
    if action == 4:
        lines = data.split(b"\n")
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines)
    if action == 5:
        lines = data.split(b"\n")
        i = rng.randrange(len(lines))
        lines.insert(i, lines[rng.randrange(len(lines))])
        return b"\n".join(lines)
    if action == 6:
        return data[:at] + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8))) + data[at:]
    return data.rstrip(b"\n")


def mutate_record(data: bytes, rng: random.Random) -> bytes:
    """One to three mutations of a record: mostly of its decoded lines (the header above all)."""
    for _ in range(rng.randrange(1, 4)):
        if rng.random() < 0.75:
            lines = data.split(b"\n")
            index = 0 if rng.random() < 0.6 else rng.randrange(len(lines))
            try:
                decoded = json.loads(lines[index])
            except (ValueError, RecursionError):  # an earlier mutation may have nested it past the stack
                data = mutate_bytes(data, rng)
                continue
            lines[index] = json.dumps(mutate_json(decoded, rng), ensure_ascii=rng.random() < 0.5).encode()
            data = b"\n".join(lines)
        else:
            data = mutate_bytes(data, rng)
    return data


def facts_seed(rng: random.Random) -> bytes:
    """A plausible card-facts file (sometimes a mutated one, sometimes junk)."""
    facts: dict[str, Any] = {}
    for _ in range(rng.randrange(0, 4)):
        game = rng.choice(["tezuma-2015", "tezuma", "chess"])
        card = rng.choice(["1", "2", "3", "A", "Z"])
        facts.setdefault(game, {}).setdefault("points", {}).setdefault(card, {})[str(rng.randrange(0, 14))] = (
            rng.randrange(0, 20)
        )
    if rng.random() < 0.6:
        facts = mutate_json(facts, rng)
    text = json.dumps(facts, ensure_ascii=False).encode("utf-8")
    return mutate_bytes(text, rng) if rng.random() < 0.3 else text


# --- targets ------------------------------------------------------------------------------


def run_cli(*argv: str) -> str:
    """``companion ARGV`` with its output swallowed: "ok" for exit 0, "refused" for a message."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    if code == 0:
        return "ok"
    if not err.getvalue().startswith("companion: "):
        raise AssertionError(f"exit {code} without a message: {err.getvalue()!r}")
    return "refused"


def run_replay(data: bytes) -> str:
    """``companion replay`` (text and --json) and ``companion export`` of a record's bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        record = Path(tmp) / "game.jsonl"
        record.write_bytes(data)
        outcomes = {run_cli("replay", str(record)), run_cli("replay", "--json", str(record))}
        outcomes.add(run_cli("export", str(record), "-o", str(Path(tmp) / "clean.jsonl")))
    return "ok" if outcomes == {"ok"} else "refused"


def run_device_start(data: bytes) -> str:
    """The device starting on a state directory whose journal holds ``data``: recovery, the resume
    offer, resuming and drawing. "refused" when anything was set aside (with a message)."""
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp), wall=lambda: "2026-11-25T12:00:00+00:00")
        (Path(tmp) / "current.jsonl").write_bytes(data)
        found = store.recover()
        if any("could not resume the game (" in message for message in found.messages):
            raise AssertionError(f"recovery hit an unforeseen error: {found.messages}")
        app = App(clock=lambda: 0.0, rng=random.Random(0), resume_offer=found.game, on_resume=store.resume,
                  on_new_game=store.start)
        if found.game is not None:
            app.handle(KeyEvent(Key.OK))
            app.render()
        store.close()
        return "refused" if found.messages else "ok"


def run_facts(data: bytes) -> str:
    """``companion cards list`` on a facts file holding ``data``, and ``cards import`` of it;
    then the device's own use of it (the facts a new game embeds, remembering an answer)."""
    with tempfile.TemporaryDirectory() as tmp:
        facts = Path(tmp) / "card-facts.json"
        facts.write_bytes(data)
        outcomes = {run_cli("cards", "--facts", str(facts), "list"),
                    run_cli("cards", "--facts", str(Path(tmp) / "other.json"), "import", str(facts))}
        store = Store(Path(tmp))
        for game_id in ("tezuma-2015", "tezuma"):
            store.table_facts(game_id)
        try:
            store.remember_fact("tezuma-2015", "points:2:5", 7)
        except OSError:  # StorageError: the screen shows it; nothing else may come out
            outcomes.add("refused")
        outcomes.add("refused" if store.take_notices() else "ok")
    return "ok" if outcomes == {"ok"} else "refused"


def run_keypad(data: bytes) -> str:
    """The keypad's line parser on arbitrary bytes, fed in arbitrary pieces."""
    parser = KeypadLineParser()
    results = []
    for start in range(0, len(data), 7):
        results += parser.feed(data[start : start + 7])
    results += parser.reset()
    if not all(isinstance(r, (KeyEvent, Problem)) for r in results):
        raise AssertionError(f"the parser returned something else: {results!r}")
    return "refused" if any(isinstance(r, Problem) for r in results) else "ok"


READERS: dict[str, tuple[Callable[[random.Random], bytes], Callable[[bytes], str]]] = {
    "replay/export": (lambda rng: mutate_record(rng.choice(record_seeds()), rng), run_replay),
    "device start": (lambda rng: mutate_record(rng.choice(record_seeds()), rng), run_device_start),
    "card facts": (facts_seed, run_facts),
    "keypad lines": (lambda rng: bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300))), run_keypad),
}
