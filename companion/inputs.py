"""What a person types or edits by hand: command lines and small files (config.toml, board files,
key scripts, facts to import). Every mistake in them is one :class:`~companion.errors.ConfigError`
line naming the command or the file.

It sits below both the run configuration (:mod:`companion.config`) and the hardware seam, which
both read such input, so neither imports the other's helpers.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
from pathlib import Path
from typing import Any, NoReturn

from companion.errors import QUOTED_CHARS, ConfigError, quoted
from companion.storage import TooLarge, read_bounded

MAX_FILE_BYTES = 256 * 1024
"""Config and board files are a few hundred bytes; anything this big is the wrong file."""

_LONG_QUOTED = rf"'([^']{{{QUOTED_CHARS + 1},}})'"  # compiled (and kept) by re at the first message
"""A value argparse quotes in its message (``invalid int value: '...'``) too long to repeat whole."""


def escape_unencodable_output() -> None:
    """Make stdout and stderr show a character their encoding lacks escaped (a Latin-1 locale,
    ``PYTHONIOENCODING=ascii``) instead of raising UnicodeEncodeError, which lost the rest of a replay."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


class CommandLineParser(argparse.ArgumentParser):
    """argparse with its mistakes as one line: a ConfigError naming the command and the option
    (the caller prints it and exits 2), instead of a usage block that may be luma's 21 lines.

    >>> parser = CommandLineParser(prog="companion run")
    >>> _ = parser.add_argument("--rotate", type=int, choices=range(4))
    >>> parser.parse_args(["--rotate", "7"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: run: argument --rotate: invalid choice: 7 (choose from 0, 1, 2, 3); see ...'
    """

    def error(self, message: str) -> NoReturn:
        command = self.prog.partition(" ")[2]
        message = re.sub(_LONG_QUOTED, lambda value: quoted(value[1]), message)
        raise ConfigError(f"{command + ': ' if command else ''}{message}; see '{self.prog} --help'")


def named_path(text: str) -> Path:
    """An option's path, refusing an empty one (``--state-dir ''``), which Path would silently take
    as the current directory; an argparse ``type``.

    >>> named_path("games"), named_path(".")
    (PosixPath('games'), PosixPath('.'))
    >>> named_path(" ")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: an empty name: give a directory (. for the current one)
    """
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty name: give a directory (. for the current one)")
    return Path(text)


def read_text_file(path: Path, what: str, *, limit: int = MAX_FILE_BYTES) -> str:
    """The text of a small hand-edited file, or a ConfigError saying what is wrong with it.

    >>> read_text_file(Path("/"), "config file")
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: /: cannot read config file: Is a directory
    """
    try:
        data = read_bounded(path, limit)
    except TooLarge:
        raise ConfigError(f"{path}: {what} is over {limit // 1024} KiB; is it the right file?") from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot read {what}: {err.strerror or err}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path}: {what} is not UTF-8 text (byte {err.start} is {data[err.start]:#04x})") from None


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """TOML to a table, with errors (nesting too deep included) that name ``where``.

    >>> parse_toml("a = " + "[" * 5000, "x.toml")
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: x.toml: nested too deeply to be a config file
    """
    import tomllib  # about 10 ms: the device starts without a config file to read

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{where}: not valid TOML: {err}") from None
    except ValueError as err:  # e.g. an integer longer than Python converts (4,300 digits)
        raise ConfigError(f"{where}: not a usable config file: {err}") from None
    except RecursionError:
        raise ConfigError(f"{where}: nested too deeply to be a config file") from None


def parse_address(text: str, option: str, default_host: str = "127.0.0.1") -> tuple[str, int]:
    """``[HOST:]PORT`` as a listening address; only the port: on ``default_host`` (loopback).

    >>> parse_address("8080", "--web"), parse_address("0.0.0.0:80", "--web"), parse_address("[::]:8080", "--web")
    (('127.0.0.1', 8080), ('0.0.0.0', 80), ('::', 8080))
    >>> parse_address("host:99999", "--web")
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: --web 'host:99999': give [HOST:]PORT, a port 1-65535 (e.g. 8080 or 0.0.0.0:8080)
    """
    host, colon, port = text.rpartition(":")
    host = host.strip("[]") if colon else default_host
    if not port.isdigit() or not 1 <= int(port) <= 65535 or (colon and not host):
        raise ConfigError(f"{option} {text!r}: give [HOST:]PORT, a port 1-65535 (e.g. 8080 or 0.0.0.0:8080)")
    return host, int(port)
