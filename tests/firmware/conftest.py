"""Make the Pico firmware's pure module importable as ``keypad_core``, as it is on the board.

firmware/ is a folder of files copied flat onto the Pico, not a package, and putting it on
sys.path would also expose its ``main.py`` as a top-level ``main``; so only keypad_core is
loaded, by path.
"""

import importlib.util
import sys
from pathlib import Path

FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "firmware"


def _load_keypad_core() -> None:
    spec = importlib.util.spec_from_file_location("keypad_core", FIRMWARE_DIR / "keypad_core.py")
    assert spec is not None and spec.loader is not None, "firmware/keypad_core.py is missing"
    module = importlib.util.module_from_spec(spec)
    sys.modules["keypad_core"] = module
    spec.loader.exec_module(module)


_load_keypad_core()
