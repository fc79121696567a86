"""kill -9 at random points: nothing accepted is lost and the game carries on to the planned end.

A handful of kill points here; ``python bench/killtest.py --kills 200`` (or ``pytest -m slow``) runs many.
"""

import pytest

from tests.device.killing import kill_test


def test_a_few_random_kills_lose_nothing(tmp_path):
    report = kill_test(3, workdir=tmp_path, seed=2, max_delay=3.0, log=lambda _: None)
    assert report.kills == 3 and report.final_actions > 200


def test_kills_timed_from_the_first_accepted_action_all_land_in_play(tmp_path):
    """Timed from the child's start, most kills landed in Python's start-up and tested nothing."""
    report = kill_test(3, workdir=tmp_path, seed=5, max_delay=2.0, from_first_action=True, log=lambda _: None)
    assert report.kills == 3 and report.before_first_action == 0


@pytest.mark.slow
def test_two_hundred_random_kills_lose_nothing(tmp_path):
    report = kill_test(200, workdir=tmp_path, seed=3, log=lambda _: None)
    assert report.kills == 200
