"""The scoreboard fuzzed through a real broker: mutated journal lines, statuses and raw messages.

As tests/fuzz does for files (and with its mutators), each example takes a real record
(docs/examples), damages it, and table 66 publishes it line by line, with line numbers sometimes
changed, a mutated status, and sometimes raw damaged bytes. After every example the scoreboard
must still answer its page within its bounds; at the end the honest tables' games must equal
their ``companion replay``. Deterministic under the CI hypothesis profile (a seeded rng, no timing).
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.event.wire import journal_message
from companion.record import decode_line
from tests.event.conftest import assert_board_equals_replays
from tests.event.test_event_hostile import Arena
from tests.event.test_event_hostile import arena as arena  # the fixture, found by its name
from tests.fuzz.mutation import mutate_bytes, mutate_json, mutate_record, record_seeds

EXAMPLES = 25  # each publishes one damaged record (up to ~250 messages): a few seconds in all


@pytest.fixture(autouse=True)
def _quiet_logs() -> Iterator[None]:
    """Every refusal is logged; thousands of them would only slow the run."""
    logging.disable(logging.CRITICAL)
    yield
    logging.disable(logging.NOTSET)


def fuzz_once(arena: Arena, rng: random.Random, example: int) -> None:
    """Publish one damaged record, a damaged status and some damaged raw messages as table 66."""
    hostile = arena.hostile
    record = mutate_record(rng.choice(record_seeds()), rng)
    game = f"fz{example}"
    status: dict[str, object] = {"online": True, "game": game, "games": {game: 0}}
    last = None
    for number, raw in enumerate(record.split(b"\n"), start=1):
        try:
            data = decode_line(raw)
        except Exception:  # a line the mutation broke: sent as raw bytes, as a broken device would
            last = hostile.send("journal", raw)
            continue
        if rng.random() < 0.05:
            number = rng.choice([0, -1, number + 1, number * 1000, 2**40])
        if rng.random() < 0.1:
            payload = mutate_bytes(journal_message(game, number, data, sent=0.0), rng)
            last = hostile.send("journal", payload)
        else:
            last = hostile.send("journal", journal_message(game, max(1, number), data, sent=0.0))
        status["games"] = {game: number}
    mutated = mutate_json(json.loads(json.dumps(status)), rng)
    last = hostile.send("status", json.dumps(mutated).encode() if rng.random() < 0.9 else mutate_bytes(b"{}", rng))
    hostile.flush(last)
    arena.heard_all()
    arena.step(1.0, 1)
    arena.assert_standing_up()


def test_a_fuzzed_table_never_stops_the_scoreboard(arena: Arena) -> None:
    arena.play_honest(15)
    counter = iter(range(10**6))

    @settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(rng=st.randoms(use_true_random=False))
    def check(rng: random.Random) -> None:
        fuzz_once(arena, rng, next(counter))

    check()
    arena.play_honest()
    arena.assert_standing_up()
    assert_board_equals_replays(arena.board, arena.honest)
    assert arena.scoreboard.resent["66"] <= EXAMPLES + 1  # one step of the clock per example
