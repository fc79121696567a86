"""``python -m companion`` and the ``companion`` script: the command line, safe from Ctrl-C from
its first moment.

Loading the command line takes a quarter of a second (Pillow, luma, gpiozero). A Ctrl-C then, or
at any moment of a command that has not taken SIGINT over itself, ends the process at once with
exit status 130 (the shell's convention) and no traceback: nothing has been half-done that a
Ctrl-C could spoil (files are replaced whole; an interrupted replacement leaves only a temp file,
which the next writer removes). ``run`` takes SIGINT back as KeyboardInterrupt while it reads its
options, then stops its loop cleanly (a Ctrl-C or SIGTERM while the display opens stops it as soon
as it has started, and one during its shutdown changes nothing); ``scoreboard`` stops its own way.

So nothing is imported here before the handler but ``signal`` (a millisecond; ``os`` and ``sys``
are loaded with the interpreter), and a Ctrl-C while it loads is caught as KeyboardInterrupt.
"""

import os
import sys

EXIT_INTERRUPTED = 130  # 128 + SIGINT


def exit_interrupted(_signum: int, _frame: object) -> None:
    """SIGINT before a command takes it over: leave at once, quietly (no traceback, no cleanup
    that a second Ctrl-C could interrupt in turn)."""
    os._exit(EXIT_INTERRUPTED)


def main() -> int:
    """Run the command line; a Ctrl-C anywhere is exit status 130 without a traceback."""
    try:
        import signal

        signal.signal(signal.SIGINT, exit_interrupted)
        if sys.argv[1:2] == ["run"]:
            from companion.daemon.startheap import START

            START.pause()  # no collector passes over the heap the start builds (startheap says why)
            try:
                # the device's own command, the one its start waits for, without the other commands'
                # module (companion.cli and what it imports, a millisecond and more of every start)
                from companion.daemon.run import main_run
                from companion.inputs import escape_unencodable_output

                escape_unencodable_output()
                return main_run(sys.argv[2:], own_process=True)
            finally:
                START.done()  # a start that stopped before READY collects again too
        from companion.cli import main as command_line

        return command_line(own_process=True)
    except KeyboardInterrupt:  # raised where a command took SIGINT back (run, while it starts)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
