"""Fuzzing every reader of untrusted bytes: a clear refusal or success, nothing else.

Records (``replay``, ``export`` and the device's start-up), card-fact files and the keypad's line
parser get mutated real inputs (tests/fuzz/mutation.py). A fixed budget runs in CI; ``-m slow``
runs forty times as many. bench/faults.py counts the same outcomes over a longer seeded run.
"""

from __future__ import annotations

import logging
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.daemon.store import Store
from companion.record import GameBuilder, read_bytes
from tests.fuzz.mutation import READERS, mutate_record, record_seeds

CI_BUDGET = {"replay/export": 60, "device start": 40, "card facts": 60, "keypad lines": 300}
SLOW_FACTOR = 40


def _fuzz(reader: str, rng: random.Random) -> None:
    make, run = READERS[reader]
    data = make(rng)
    outcome = run(data)  # anything but a clear refusal or success escapes and fails the test
    assert outcome in ("ok", "refused"), outcome


@pytest.fixture(autouse=True)
def _quiet_logs():
    """The device logs every refusal; thousands of them would only slow the run."""
    logging.disable(logging.CRITICAL)
    yield
    logging.disable(logging.NOTSET)


@pytest.mark.parametrize("reader", sorted(CI_BUDGET))
def test_fuzzed_input_is_refused_clearly_or_read(reader: str) -> None:
    @settings(max_examples=CI_BUDGET[reader], suppress_health_check=[HealthCheck.too_slow])
    @given(rng=st.randoms(use_true_random=False))
    def check(rng: random.Random) -> None:
        _fuzz(reader, rng)

    check()


@pytest.mark.slow
@pytest.mark.parametrize("reader", sorted(CI_BUDGET))
def test_fuzzed_input_is_refused_clearly_or_read_long_run(reader: str) -> None:
    @settings(max_examples=CI_BUDGET[reader] * SLOW_FACTOR, suppress_health_check=[HealthCheck.too_slow])
    @given(rng=st.randoms(use_true_random=False))
    def check(rng: random.Random) -> None:
        _fuzz(reader, rng)

    check()


def test_the_mutations_reach_the_card_data_and_the_rules_not_only_the_json_parser() -> None:
    """A fuzzer whose inputs all failed to parse would prove nothing about the rules' readers."""
    rng = random.Random(3)
    failures = []
    for _ in range(150):
        failure = read_bytes(mutate_record(rng.choice(record_seeds()), rng), GameBuilder()).failure
        failures.append(str(failure))
    assert any("card data:" in f for f in failures)  # the shape check refused a header
    assert any("illegal action" in f for f in failures)  # an action reached the rules
    assert any(f == "None" for f in failures)  # and some mutations were harmless


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(rng=st.randoms(use_true_random=False))
def test_the_device_and_replay_read_every_mutated_record_alike(rng: random.Random, tmp_path_factory) -> None:
    """One reader: what ``replay`` adjudicates is exactly what the device resumes (or neither)."""
    data = mutate_record(rng.choice(record_seeds()), rng)
    replayed = read_bytes(data, GameBuilder())
    state = tmp_path_factory.mktemp("state")
    (state / "current.jsonl").write_bytes(data)
    store = Store(state)
    found = store.recover()
    store.close()
    if replayed.game is None:
        assert found.game is None and found.messages
    else:
        assert found.game is not None and list(found.game.actions) == list(replayed.game.actions)
        assert (replayed.failure is None) == (found.messages == [])
