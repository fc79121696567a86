"""What the device runs in event mode: its journal published to the event's broker (docs/event.md).

:mod:`.start` starts a :class:`~.publisher.Publisher` when config.toml has an ``[event]`` section;
the journal is its outbox (:mod:`.outbox`). It speaks :mod:`companion.event` and never imports the
organiser's side.
"""
