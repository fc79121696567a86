"""Pull the plug 200 times: kill -9 a mock device at random points of a scripted game.

Run: python bench/killtest.py [--kills 200] [--game tezuma] [--from-first-action]. Prints one line
per kill and a summary; fails loudly if a journal ever loses an accepted action or strays from the
plan. Each kill comes 0.5-4 s after the child starts, where most land in Python's start-up; with
--from-first-action, 0.5-4 s after the child's first accepted action, so every kill lands in play.
The summary counts the kills after which the journal held no new action.
See tests/device/killing.py for what is checked.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.device.killing import kill_test


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--game", default="tezuma")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--from-first-action", action="store_true",
                        help="time each kill from the child's first accepted action, not from its start")
    args = parser.parse_args()
    timed_from = "the first accepted action" if args.from_first_action else "the child's start"
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        report = kill_test(args.kills, game_id=args.game, seed=args.seed, workdir=Path(tmp), finish_in_child=True,
                           from_first_action=args.from_first_action)
    print(
        f"{report.kills} kills in {time.monotonic() - start:.0f} s: no accepted action lost, "
        f"{report.torn_lines} torn last lines dropped, every restart resumed at the exact action, "
        f"final game {report.final_actions} actions as planned; {report.before_first_action} kills"
        f" came before the round's first new action (kills timed from {timed_from})"
    )


if __name__ == "__main__":
    main()
