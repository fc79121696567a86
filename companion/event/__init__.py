"""Event mode: many tables on one MQTT broker, and the organiser's live scoreboard (docs/event.md).

On the device, :mod:`.device` starts a :class:`~.publisher.Publisher` when config.toml has an
``[event]`` section (:mod:`.config`); the journal is its outbox (:mod:`.outbox`). The scoreboard
(:mod:`.scoreboard`, :mod:`.board`, :mod:`.web`) replays every table's lines with the engine
(:mod:`.stream`). The messages are described in :mod:`.wire`.
"""
