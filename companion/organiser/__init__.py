"""What the organiser runs in event mode: ``companion scoreboard`` (docs/event.md).

:mod:`.scoreboard` hears every table through the broker and feeds a :class:`~.board.Board`, which
replays each game with the engine (:mod:`companion.event.stream`), checks the player names
(:mod:`.names`) and keeps its games across a restart (:mod:`.state`); :mod:`.web` serves the page,
:mod:`.command` is the command line. It speaks :mod:`companion.event` and never imports the device's side.
"""
