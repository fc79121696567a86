"""The device: keys wake an event loop; the UI decides; the journal stores every accepted action
(fsync) before the screen shows it; the display is sent only what changed.

The same :class:`Device` runs on a Pi and in mock mode: only the pin factory and the display's bus
differ (``companion run`` builds them from its options: :mod:`companion.daemon.run`). Nothing here
polls: the loop sleeps until a key event or the UI's next deadline (dim, blank, the end of a flash)
or the systemd watchdog's next beat.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from companion.daemon.loop import EventLoop, Timer, stop_on_signals
from companion.daemon.sdnotify import Notifier, watchdog_interval
from companion.daemon.startheap import START
from companion.daemon.store import Store
from companion.hw.display import Display
from companion.keys import KeyEvent
from companion.settings import Settings
from companion.ui.app import App

if TYPE_CHECKING:
    from companion.hw.buzzers import BuzzerArbiter
    from companion.text import Catalog
    from companion.uplink.publisher import LinkStatus

DIM_CONTRAST = 1  # the lowest visible contrast: readable up close, far from burn-in


class ScriptDone:
    """Posted by a finished key script when the device should stop once idle (demos, tests)."""


class Call:
    """Posted to run ``callback`` on the loop thread: a signal handler's follow-up work."""

    def __init__(self, callback: Callable[[], object]) -> None:
        self.callback = callback


class Buzzed:
    """Posted by a quiz buzzer press: the screen waiting for it may now have a deadline."""


class LinkChanged:
    """Posted by event mode's publisher thread: the link's mark for the screen's corner changed."""

    def __init__(self, mark: str) -> None:
        self.mark = mark


class SeatingChanged:
    """Posted by event mode's publisher thread: the names the event seats at this table."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)


class Device:
    """The running device: the loop, the UI app, the display and the store, wired together."""

    def __init__(
        self,
        store: Store,
        display: Display,
        *,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        notifier: Notifier | None = None,
        settings_override: Mapping[str, Any] | None = None,
        buzzers: BuzzerArbiter | None = None,
        page_url: str | None = None,
        catalog: Catalog | None = None,
    ) -> None:
        self.store = store
        self.display = display
        self.notifier = notifier or Notifier(None)
        self.loop: EventLoop[Any] = EventLoop(self._on_event, clock=clock)
        recovered = store.recover()  # logs what it found
        self.settings = store.load_settings()
        if settings_override:  # config.toml or the command line: applied at every start
            self.settings = Settings.from_json({**self.settings.to_json(), **settings_override})
        self.app = App(
            clock=clock,
            rng=rng or random.Random(),
            settings=self.settings,
            on_new_game=store.start,
            resume_offer=recovered.game,
            on_resume=store.resume,
            on_fact=store.remember_fact,
            on_settings=self._save_settings,
            table_facts=store.table_facts,
            player_names=store.roster_names,
            page_url=page_url,
            buzzers=buzzers,
            catalog=catalog,
        )
        self.startup_messages = recovered.messages + store.notices
        self._show_notices(recovered.messages)
        self.on_settings: list[Callable[[], None]] = []  # told after the menu changed a setting
        self._shown_version = -1
        self._shown_state = ""
        self._timer: Timer | None = None
        self.frames = 0

    def start(self) -> None:
        """Draw the first frame and arm the timers; after this the device answers keys."""
        self._show()
        self._schedule()
        interval = watchdog_interval()
        if interval:
            self.loop.call_every(interval, self.notifier.watchdog)

    def post(self, event: KeyEvent) -> None:
        """Hand a key event to the loop; safe from button and serial threads."""
        self.loop.post(event)

    def buzzed(self) -> None:
        """A quiz buzzer was pressed (its press is already with the arbiter); safe from any thread."""
        self.loop.post(Buzzed())

    def say(self, text: str) -> None:
        """Put a sentence from outside the UI (a keypad plugged in or out) on the screen; safe from any thread."""
        self.loop.post(Call(lambda: self._show_message(text)))

    def _show_message(self, text: str) -> None:
        self.app.show_message(text)
        self._show()
        self._schedule()

    def link_changed(self, status: LinkStatus) -> None:
        """Event mode's link status changed; safe from the publisher's thread (the loop draws it)."""
        self.loop.post(LinkChanged(status.mark))

    def seating_changed(self, names: Sequence[str]) -> None:
        """The event seats ``names`` at this table (none: no list); safe from the publisher's thread."""
        self.loop.post(SeatingChanged(names))

    def run(self) -> None:
        """Serve until stopped (SIGTERM, SIGINT or a finished script)."""
        with stop_on_signals(self.loop):
            START.done()  # the start's objects frozen, the collector back on for play
            # Ready only now: a SIGTERM from here on stops the loop cleanly instead of killing us.
            self.notifier.ready("showing the first screen")
            self.loop.run()
        self.notifier.stopping("saving and stopping")

    def close(self) -> None:
        self.store.close()

    # --- the loop's side -------------------------------------------------------------------

    def _on_event(self, event: object) -> None:
        if isinstance(event, ScriptDone):
            self.loop.stop()
            return
        if isinstance(event, Call):
            event.callback()
            return
        if isinstance(event, KeyEvent):
            self.app.handle(event)
            self._show_notices()
            self._show()
            self._schedule()
        elif isinstance(event, Buzzed):
            self.app.tick()
            self._show()
            self._schedule()
        elif isinstance(event, LinkChanged):
            self.app.show_status_mark(event.mark)
            self._show()  # a dim display shows the mark too; a blank one shows it when woken
        elif isinstance(event, SeatingChanged):
            self.app.offer_seated_names(event.names)
            self._show()

    def _on_timer(self) -> None:
        self._timer = None
        self.app.tick()
        self._show()
        self._schedule()

    def _schedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deadline = self.app.next_deadline()
        if deadline is not None:
            self._timer = self.loop.call_at(deadline, self._on_timer)

    def _show(self) -> None:
        state = self.app.display_state
        if state != self._shown_state:
            if state == "off":
                self.display.hide()
            else:
                self.display.contrast(self.settings.contrast if state == "on" else DIM_CONTRAST)
                if self._shown_state in ("", "off"):
                    self.display.show()
            self._shown_state = state
        if self.app.version != self._shown_version and state != "off":
            self.display.display(self.app.render())
            self._shown_version = self.app.version
            self.frames += 1

    def _show_notices(self, first: Sequence[str] = ()) -> None:
        """Put what went wrong outside the UI (storage, start-up recovery) on the screen."""
        notices = [*first, *self.store.take_notices()]
        if notices:  # after the key's own refusal, if it had one
            self.app.show_message("; ".join(filter(None, [self.app.message, *notices])))

    def _save_settings(self, settings: Settings) -> None:
        self.settings = settings
        self._shown_state = ""  # contrast may have changed: apply it on the next show, saved or not
        self.store.save_settings(settings)
        for listener in self.on_settings:
            listener()
