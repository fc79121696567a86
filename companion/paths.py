"""Where the device keeps its files: one state directory, resolved the way systemd and XDG expect."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

APP = "tabletop-companion"


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
    if environ.get("STATE_DIRECTORY"):
        # systemd may pass several directories separated by colons; ours is the first
        return Path(environ["STATE_DIRECTORY"].split(":")[0])
    xdg = environ.get("XDG_STATE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg) / APP
    return Path(environ.get("HOME", "~")).expanduser() / ".local" / "state" / APP
