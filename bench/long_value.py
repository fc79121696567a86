"""Start-up on a journal that carries a 5,000-character value: how long the device takes to show its
first screen, and how long the notice it shows is.

Run: python bench/long_value.py [--length 5000]. Each case writes a Tezuma journal whose 6th line
(or header) holds the long value, then times a virtual device's start (recovery, the notice's
wrapping, the first frame). Before linear wrapping and short quoting this froze for minutes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.daemon.virtual import VirtualDevice
from companion.record import export_lines
from companion.sim import random_game

CASES = ("card", "kind", "type", "name")


def journal(case: str, length: int) -> list[str]:
    """Twelve lines of a Tezuma game with a ``length``-character value put where ``case`` says."""
    lines = export_lines(random_game("tezuma", 3, random.Random(1)))[:12]
    long = "Z" * length
    if case == "name":
        header = json.loads(lines[0])
        header["players"][0] = long
        lines[0] = json.dumps(header)
    elif case == "type":
        lines[5] = json.dumps({"type": long})
    else:
        lines[5] = json.dumps({**json.loads(lines[5]), case: long})
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--length", type=int, default=5000)
    args = parser.parse_args()
    for case in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            state = Path(tmp)
            (state / "current.jsonl").write_text("\n".join(journal(case, args.length)) + "\n", encoding="utf-8")
            start = time.perf_counter()
            device = VirtualDevice(state)
            seconds = time.perf_counter() - start
            notice = len("; ".join(device.device.startup_messages))
            device.close()
        print(f"{case:5} value of {args.length} characters: first screen after {seconds:.3f} s,"
              f" notice {notice} characters")


if __name__ == "__main__":
    main()
