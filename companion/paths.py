"""Where the device keeps its files: one state directory, resolved the way systemd and XDG expect."""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from pathlib import Path

from companion.errors import ConfigError

APP = "tabletop-companion"
DEVICE_STATE_DIR = Path("/var/lib") / APP
"""An installed device's state (the unit's ``StateDirectory=``): the PC tools act on it when present."""


def package_files(package: str) -> Path:
    """The folder of ``package``'s own files, its data beside its modules: what
    ``importlib.resources.files`` gives for a package installed as files, as pip installs this one,
    without the resource readers that loads (with a call per file, 3 million instructions of every
    start, a sixth of what it runs of its own).

    >>> (package_files("companion.data") / "i18n" / "en.json").is_file()
    True
    """
    module = importlib.import_module(package)
    if module.__file__ is None:
        raise TypeError(f"{package} is a namespace package: its files have no one folder")
    return Path(module.__file__).parent


def state_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """``$STATE_DIRECTORY`` (systemd's StateDirectory=), else ``$XDG_STATE_HOME/tabletop-companion``,
    else ``~/.local/state/tabletop-companion``.

    >>> state_dir({"STATE_DIRECTORY": "/var/lib/tabletop-companion"})
    PosixPath('/var/lib/tabletop-companion')
    >>> state_dir({"XDG_STATE_HOME": "/tmp/s"})
    PosixPath('/tmp/s/tabletop-companion')
    >>> state_dir({"XDG_STATE_HOME": "relative", "HOME": "/home/pi"})  # the XDG spec says: ignore it
    PosixPath('/home/pi/.local/state/tabletop-companion')
    """
    return _systemd_or_xdg(environ, "STATE_DIRECTORY", "XDG_STATE_HOME", ".local/state")


def cache_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """Where the device keeps what it can always rebuild: ``$CACHE_DIRECTORY`` (systemd's
    CacheDirectory=), else ``$XDG_CACHE_HOME/tabletop-companion``, else ``~/.cache/tabletop-companion``.

    >>> cache_dir({"CACHE_DIRECTORY": "/var/cache/tabletop-companion"})
    PosixPath('/var/cache/tabletop-companion')
    >>> cache_dir({"XDG_CACHE_HOME": "relative", "HOME": "/home/pi"})
    PosixPath('/home/pi/.cache/tabletop-companion')
    """
    return _systemd_or_xdg(environ, "CACHE_DIRECTORY", "XDG_CACHE_HOME", ".cache")


def _systemd_or_xdg(environ: Mapping[str, str], systemd: str, xdg_home: str, default_home: str) -> Path:
    """The directory systemd names in ``systemd``, else ours under the XDG base directory ``xdg_home``,
    else under ``~/<default_home>``."""
    if environ.get(systemd):
        # systemd may pass several directories separated by colons; ours is the first
        return Path(environ[systemd].split(":")[0])
    xdg = environ.get(xdg_home, "")
    if os.path.isabs(xdg):
        return Path(xdg) / APP
    return Path(environ.get("HOME", "~")).expanduser() / default_home / APP


def tools_state_dir(environ: Mapping[str, str] = os.environ, device: Path = DEVICE_STATE_DIR) -> Path:
    """The state the command-line tools act on: ``$STATE_DIRECTORY``, else the installed device's
    (so ``companion cards set`` over SSH changes what the service reads), else :func:`state_dir`.

    >>> tools_state_dir({"HOME": "/home/pi"}, device=Path("/nonexistent"))
    PosixPath('/home/pi/.local/state/tabletop-companion')
    >>> tools_state_dir({}, device=Path("/"))
    PosixPath('/')
    """
    if environ.get("STATE_DIRECTORY") or not device.is_dir():
        return state_dir(environ)
    return device


def check_output_file(path: Path, option: str) -> None:
    """Refuse, before any work is done, an output path that cannot become a file, or that is
    something other than a file (a pipe, a device) the write would replace.

    >>> check_output_file(Path("/"), "-o")
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: -o /: that is a directory; name a file in it
    """
    if path.is_dir():
        raise ConfigError(f"{option} {path}: that is a directory; name a file in it")
    if path.exists() and not path.is_file():
        # the new file is renamed into place: a pipe or device there would be replaced, not written to
        raise ConfigError(f"{option} {path}: not a regular file (a device or a pipe?); name a file")
    folder = path.parent
    if not folder.is_dir():
        problem = "is not a directory" if folder.exists() else "does not exist"
        raise ConfigError(f"{option} {path}: the folder {folder} {problem}")
    if not os.access(folder, os.W_OK):
        raise ConfigError(f"{option} {path}: the folder {folder} is not writable")
