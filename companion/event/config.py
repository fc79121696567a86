"""The ``[event]`` section of config.toml: which broker, which event, which table, whose password.

Event mode is off unless the section is there; without it the device opens no network connection
at all. The section is read from the already-parsed TOML mapping, so whoever loads config.toml
decides where the file lives.

>>> config = event_config({"event": {"broker": "mqtts://broker.club:8883", "ca_file": "/etc/ca.pem",
...     "event": "autumn-cup", "table": "3", "username": "table-3", "password_file": "/etc/pw"}})
>>> config.host, config.port, config.tls, config.journal_topic
('broker.club', 8883, True, 'companion/autumn-cup/tables/3/journal')
>>> event_config({"board": "adafruit-oled-bonnet"}) is None
True
>>> event_config({"event": {"broker": "http://x", "event": "e", "table": "1"}})
Traceback (most recent call last):
...
companion.errors.ConfigError: [event] broker must be mqtt://HOST[:PORT] or mqtts://HOST[:PORT], not 'http://x'
"""

from __future__ import annotations

import re
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from companion.errors import ConfigError
from companion.storage import reason

DEFAULT_PREFIX = "companion"
DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}
# an id is one MQTT topic level that cannot widen a subscription or an ACL pattern
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
# How a mistake names the setting it is about: the device's config.toml, or the scoreboard's options
CONFIG_NAMES = {key: f"[event] {key}" for key in
                ("broker", "ca_file", "event", "table", "username", "password_file", "prefix")}
OPTION_NAMES = {"broker": "--broker", "ca_file": "--ca-file", "event": "--event", "username": "--username",
                "password_file": "--password-file", "prefix": "--prefix"}


def check_id(what: str, value: object, names: Mapping[str, str] = CONFIG_NAMES) -> str:
    """A table, event or prefix id: letters, digits, ``_.-``; never ``/``, ``+`` or ``#``.

    >>> check_id("table", "12")
    '12'
    >>> check_id("table", "a/b")
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: [event] table must be 1-64 letters, digits, '_', '.' or '-' (not 'a/b')
    """
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not _ID.match(value):
        raise ConfigError(f"{names[what]} must be 1-64 letters, digits, '_', '.' or '-' (not {value!r})")
    return value


@dataclass(frozen=True)
class Topics:
    """Where one event's messages go: ``<prefix>/<event>/tables/<table>/{journal,status,resend}``."""

    prefix: str
    event: str

    def table(self, table: str, kind: str) -> str:
        return f"{self.prefix}/{self.event}/tables/{table}/{kind}"

    def every_table(self, kind: str) -> str:
        return f"{self.prefix}/{self.event}/tables/+/{kind}"

    def table_of(self, topic: str) -> tuple[str, str] | None:
        """``(table, kind)`` of a topic of this event, else None.

        >>> Topics("companion", "cup").table_of("companion/cup/tables/7/journal")
        ('7', 'journal')
        """
        parts = topic.split("/")
        if len(parts) != 5 or parts[:3] != [self.prefix, self.event, "tables"]:
            return None
        return parts[3], parts[4]


@dataclass(frozen=True)
class Broker:
    """How to reach the broker: host, port, TLS, account."""

    host: str
    port: int
    tls: bool = False
    ca_file: Path | None = None
    username: str | None = None
    password_file: Path | None = None

    def password(self) -> str | None:
        """The password file's first line, read when connecting (so it can be rotated)."""
        if self.password_file is None:
            return None
        try:
            return self.password_file.read_text(encoding="utf-8").splitlines()[0].strip()
        except (OSError, IndexError) as err:
            raise ConfigError(f"cannot read the broker password from {self.password_file}: {err}") from None

    def check_ca_file(self, names: Mapping[str, str] = CONFIG_NAMES) -> None:
        """Load the CA certificate now: a wrong file is said at start, in one line, not raised by
        the MQTT client's TLS set-up (an ssl.SSLError traceback) once the device or scoreboard runs."""
        if self.ca_file is None:
            return
        if not self.ca_file.is_file():  # a device such as /dev/zero would be read for ever
            problem = "no such file" if not self.ca_file.exists() else "not a regular file"
            raise ConfigError(f"{names['ca_file']} {self.ca_file}: {problem}")
        try:
            ssl.create_default_context().load_verify_locations(cafile=str(self.ca_file))
        except OSError as err:  # ssl.SSLError is one: no PEM certificate in it
            raise ConfigError(f"{names['ca_file']} {self.ca_file}: not a CA certificate (PEM) this host can load"
                              f" ({reason(err)})") from None


def parse_broker(
    url: object, *, ca_file: object = None, username: object = None, password_file: object = None,
    names: Mapping[str, str] = CONFIG_NAMES,
) -> Broker:
    """``mqtt://host[:port]`` or ``mqtts://host[:port]`` plus the account, checked; a mistake names
    the setting as ``names`` words it (the config file's keys, or the scoreboard's options).

    >>> parse_broker("localhost", names=OPTION_NAMES)
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: --broker must be mqtt://HOST[:PORT] or mqtts://HOST[:PORT], not 'localhost'
    """
    try:
        parts = urlsplit(url) if isinstance(url, str) else None
    except ValueError:  # e.g. "mqtt://[::1": an unclosed IPv6 bracket
        parts = None
    if parts is None or parts.scheme not in DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        raise ConfigError(f"{names['broker']} must be mqtt://HOST[:PORT] or mqtts://HOST[:PORT], not {url!r}")
    try:
        port = parts.port or DEFAULT_PORTS[parts.scheme]
    except ValueError:
        raise ConfigError(f"{names['broker']} has a bad port: {url!r}") from None
    for name, value in (("ca_file", ca_file), ("username", username), ("password_file", password_file)):
        if value is not None and not (isinstance(value, str) and value):
            raise ConfigError(f"{names[name]} must be a non-empty string")
    if ca_file is not None and parts.scheme != "mqtts":
        raise ConfigError(f"{names['ca_file']} is only used with an mqtts:// broker")
    if password_file is not None and username is None:
        raise ConfigError(f"{names['password_file']} needs a username ({names['username']})")
    return Broker(
        parts.hostname,
        port,
        tls=parts.scheme == "mqtts",
        ca_file=Path(ca_file) if isinstance(ca_file, str) else None,
        username=username if isinstance(username, str) else None,
        password_file=Path(password_file) if isinstance(password_file, str) else None,
    )


@dataclass(frozen=True)
class EventConfig:
    """A device's event settings (the ``[event]`` section, checked)."""

    broker: Broker
    event: str
    table: str
    prefix: str = DEFAULT_PREFIX

    @property
    def host(self) -> str:
        return self.broker.host

    @property
    def port(self) -> int:
        return self.broker.port

    @property
    def tls(self) -> bool:
        return self.broker.tls

    @property
    def topics(self) -> Topics:
        return Topics(self.prefix, self.event)

    @property
    def journal_topic(self) -> str:
        return self.topics.table(self.table, "journal")


KNOWN_KEYS = {"broker", "ca_file", "event", "table", "username", "password_file", "prefix"}


def event_config(config: Mapping[str, Any]) -> EventConfig | None:
    """The checked ``[event]`` section of a parsed config.toml, or None when event mode is off."""
    section = config.get("event")
    if section is None:
        return None
    if not isinstance(section, Mapping):
        raise ConfigError("[event] must be a table of settings")
    unknown = sorted(set(section) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(f"[event] has unknown settings {', '.join(unknown)} (known: {', '.join(sorted(KNOWN_KEYS))})")
    for required in ("broker", "event", "table"):
        if required not in section:
            raise ConfigError(f"[event] needs {required!r}")
    broker = parse_broker(
        section["broker"],
        ca_file=section.get("ca_file"),
        username=section.get("username"),
        password_file=section.get("password_file"),
    )
    return EventConfig(
        broker,
        check_id("event", section["event"]),
        check_id("table", section["table"]),
        check_id("prefix", section.get("prefix", DEFAULT_PREFIX)),
    )
