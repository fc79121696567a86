"""Event mode's common ground: what the device and the organiser both speak (docs/event.md).

The broker's address and the topics (:mod:`.config`), the messages (:mod:`.wire`) and the line
stream that replays one game's lines as they arrive (:mod:`.stream`). The device's side is
:mod:`companion.uplink`, the organiser's :mod:`companion.organiser`; neither imports the other.
"""
