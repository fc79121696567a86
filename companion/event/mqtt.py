"""The product's :class:`~.link.Link`: paho-mqtt's client speaking MQTT 5 (so a publish the broker
refuses comes back with a reason code instead of vanishing), over TLS when the broker is mqtts://.

paho-mqtt is imported only with this module: the device imports it only when config.toml has an
``[event]`` section (:mod:`companion.uplink.start`).
"""

from __future__ import annotations

import contextlib
import ssl
from collections.abc import Sequence
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from companion.event.config import Broker
from companion.event.link import Listener, Message, Reason, Session

NEVER_EXPIRES = 0xFFFFFFFF  # MQTT 5 session expiry: the broker keeps the session (and its queue) for ever


def reason_of(code: Any) -> Reason:
    """paho's reason code (or, for some callbacks, a bare number) as a :class:`~.link.Reason`."""
    return Reason(int(getattr(code, "value", code or 0)), str(code))


class PahoLink:
    """One paho-mqtt client and its network thread."""

    def __init__(self, broker: Broker, session: Session, listener: Listener) -> None:
        self.broker = broker
        self.session = session
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=session.client_id, protocol=mqtt.MQTTv5)
        if broker.username is not None:
            client.username_pw_set(broker.username, broker.password())
        if broker.tls:
            client.tls_set(ca_certs=str(broker.ca_file) if broker.ca_file else None, cert_reqs=ssl.CERT_REQUIRED)
        if session.will is not None:
            will = session.will
            client.will_set(will.topic, will.payload, qos=will.qos, retain=will.retain)
        client.max_inflight_messages_set(session.max_inflight)
        client.reconnect_delay_set(*session.reconnect_delays)
        client.on_connect = lambda _c, _u, flags, reason, _p: listener.link_connected(
            reason_of(reason), bool(getattr(flags, "session_present", False)))
        client.on_disconnect = lambda _c, _u, _f, reason, _p: listener.link_lost(str(reason))
        client.on_connect_fail = lambda _c, _u: listener.link_lost("cannot connect: no broker there, or TLS failed")
        client.on_publish = lambda _c, _u, mid, reason, _p: listener.link_acked(mid, reason_of(reason))
        client.on_message = lambda _c, _u, message: listener.link_message(message.topic, bytes(message.payload))
        self.client = client

    def start(self) -> None:
        properties = None
        if self.session.persistent:
            properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]  # paho has no hints here
            properties.SessionExpiryInterval = NEVER_EXPIRES  # the broker queues what comes while we are away
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=self.session.keepalive,
                                  clean_start=not self.session.persistent, properties=properties)
        self.client.loop_start()

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def publish(self, message: Message, wait: float | None = None) -> int | None:
        info = self.client.publish(message.topic, message.payload, qos=message.qos, retain=message.retain)
        if info.rc != mqtt.MQTT_ERR_SUCCESS:
            return None
        if wait is not None:
            # The connection may go meanwhile: then it did not go out, and the caller learns no more.
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(wait)
        return info.mid

    def subscribe(self, topics: Sequence[tuple[str, int]]) -> None:
        self.client.subscribe(list(topics))


def paho_link(broker: Broker, session: Session, listener: Listener) -> PahoLink:
    """The :data:`~.link.Transport` of the product."""
    return PahoLink(broker, session, listener)
