"""Pull the plug 200 times: kill -9 a mock device at random points of a scripted game.

Run: python bench/killtest.py [--kills 200] [--game tezuma]. Prints one line per kill and a
summary; fails loudly if a journal ever loses an accepted action or strays from the plan.
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
    args = parser.parse_args()
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        report = kill_test(args.kills, game_id=args.game, seed=args.seed, workdir=Path(tmp), finish_in_child=True)
    print(
        f"{report.kills} kills in {time.monotonic() - start:.0f} s: no accepted action lost, "
        f"{report.torn_lines} torn last lines dropped, every restart resumed at the exact action, "
        f"final game {report.final_actions} actions as planned"
    )


if __name__ == "__main__":
    main()
