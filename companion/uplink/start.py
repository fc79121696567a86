"""Event mode on the device: start publishing when config.toml has an ``[event]`` section.

paho-mqtt is imported only here, and only when the section is there: a device outside an event
needs neither the package nor any network connection.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from companion.errors import ConfigError
from companion.event.config import event_config

if TYPE_CHECKING:
    from companion.uplink.publisher import LinkStatus, Publisher


class JournalledStore(Protocol):
    """What event mode needs of the daemon's store (:class:`companion.daemon.store.Store`): where its
    journals are, and a list of listeners it tells after each line is on disk. The daemon starts
    event mode, so event mode does not import the daemon."""

    root: Path
    on_journalled: list[Callable[[], None]]


def start_event_mode(config: Mapping[str, Any], store: JournalledStore, *,
                     on_status: Callable[[LinkStatus], None] = lambda status: None,
                     on_seating: Callable[[list[str]], None] = lambda names: None) -> Publisher | None:
    """A started :class:`~.publisher.Publisher` told of every journalled line, or None (no network).

    ``on_status`` hears each change of the link's mark, and ``on_seating`` the names the event seats
    at this table, from the publisher's thread (see :class:`~.publisher.LinkStatus`); the device
    posts both to its event loop.
    """
    event = event_config(config)
    if event is None:
        return None
    from companion.uplink.publisher import Publisher

    try:
        from companion.event.mqtt import paho_link
    except ImportError:
        raise ConfigError(
            "config.toml has an [event] section but paho-mqtt is not installed: pip install 'tabletop-companion[event]'"
        ) from None
    publisher = Publisher(event, store.root, transport=paho_link, on_status=on_status, on_seating=on_seating)
    store.on_journalled.append(publisher.wake)
    return publisher.start()
