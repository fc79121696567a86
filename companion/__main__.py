"""``python -m companion`` and the ``companion`` script: the command line, safe from Ctrl-C from
its first moment.

Loading the command line takes a quarter of a second (Pillow, luma, gpiozero); a Ctrl-C then,
or at any moment of a command that has not taken SIGINT over itself (``run`` does, once it is
serving), ends the command quietly with exit status 130, the shell's convention for it. So this
module imports nothing heavy before it is ready to catch the interrupt.
"""

import os
import signal
import sys

EXIT_INTERRUPTED = 130  # 128 + SIGINT


def main() -> int:
    """Run the command line; a Ctrl-C anywhere is exit status 130 without a traceback."""
    try:
        from companion.cli import main as command_line

        status = command_line()
    except KeyboardInterrupt:
        status = EXIT_INTERRUPTED
    # From here only the interpreter's own shutdown runs (flushing, joining threads): a Ctrl-C
    # now has nothing left to spare, so it ends the process at once, quietly.
    signal.signal(signal.SIGINT, lambda _signum, _frame: os._exit(EXIT_INTERRUPTED))
    return status


if __name__ == "__main__":
    sys.exit(main())
