"""Zenjidou Torite's screens: card facts, the round's setup, trick entry with the effects in force.

* Card facts (four choices on one screen): colour, score mark, effect and resolution rule of a card
  whose print the device does not know yet. The row being asked is marked and starts on the value
  the table has told most often for it; LEFT/RIGHT step by one, UP/DOWN by two (every value of the
  four facts is then at most two presses away), OK enters it and the next row is asked on the same
  screen, the rows already told shown above. The card keypad types a value by its place (1 the first).
* Most decisions (the rest's top card, bottoms, the rule, a card as it is put down, a side, a lead,
  a quiz point) are one choice among what the engine allows. A card (:class:`CardScreen`) is picked
  from the unseen cards in rows by colour, as far as the table has told colours (the untold in rows
  of their own): LEFT/RIGHT through the cursor's colour, UP/DOWN to the next row, both wrapping,
  starting where the card that comes is fewest presses away as far as the table has seen (the
  engine's ``card_odds``, through :meth:`ListScreen.weight`: a follower in the lead colour, L's
  likeliest card under the cursor, ready for OK; a hand's own shown bottom card, surely held, as
  likely as any card the hand has left). Any other choice is a list, LEFT/RIGHT by one and UP/DOWN
  by 5. The card keypad types a card by its number (1-32 name it alone; a number no other unseen
  card begins with enters at once) and any other choice by its place in the list (the ``n/count`` of
  the hint row); after a card keypad key a card screen starts on the likeliest card a digit alone
  would not enter, ``#`` then entering it, and the letters A-D enter the next likeliest such cards,
  drawn beside their letters in the hint row (``A20 B25 C29 D31``).
  Above the list, the open trick and the effects its cards put in force so far; below it, what the
  round's rule asks of the player (who draws under L, a house ruling that applies).
* Hands are never typed in: each card is entered as it goes down. After the rule is chosen, H and I
  get a notice naming what each player does off the device (I: who passes to whom).
* Rule C: a 30-second countdown (the app's clock, through :meth:`deadline` / :meth:`tick`) before
  the guesses; OK ends it early.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from companion.engine.base import Answer
from companion.engine.tricks import Turn
from companion.games.zenjidou.rules import (
    COLOURS,
    FACT_NAMES,
    HOUSE_F_BOTTOM,
    HOUSE_G,
    HOUSE_TWO_HANDS,
    RESOLUTION_RULES,
    TRUMP,
    Bottom,
    Card,
    ChooseRule,
    Effect,
    Effects,
    Guesses,
    Lead,
    NoPoint,
    OutOfOrder,
    Play,
    Point,
    Rest,
    Side,
    Zenjidou,
)
from companion.keys import LETTERS, Key, KeyEvent
from companion.ui.canvas import ROWS, Canvas
from companion.ui.keypad import Typing, keys_to_type
from companion.ui.picker import ARROWS, Grid, likeliest_middle
from companion.ui.screens import Choice, Host, Notice, Screen, Scroll
from companion.ui.tricks import (
    AnswerScreen,
    DealScreen,
    ResultScreen,
    Snapshot,
    TrickScreenBase,
    TrickUI,
)

JUMP = 5  # UP/DOWN move this many entries in a list (see docs/screens.md: the step for 12-32 entries)
FACT_JUMP = 2  # UP/DOWN move this many values of a card fact: with LEFT/RIGHT, any of 9 is 2 presses away
ROW_CARDS = 6  # cards in one picker row: a colour with more takes two rows (the untold ones more)
UNTOLD = COLOURS  # the row group of the cards whose colour the table has not told yet
CELLS_X = 36  # where a picker row's cards begin (the colour's name before them)
CELL = 12  # pixel width of one card number in a picker row (two digits and a margin)
TOLD_AFTER_THE_RULE = "HI"  # rules with something every player does off the device before the first card


@dataclass(frozen=True)
class ZSnapshot(Snapshot):
    """The shared snapshot, and what Zenjidou's own notices compare: tricks with a result, whether
    the round's rule is chosen, and plays found out of order."""

    finished: int = 0
    ruled: bool = False
    broken: int = 0


class ZenjidouUI(TrickUI[Zenjidou]):
    game_type = Zenjidou

    def hand_label(self, hand: int) -> str:
        """A hand by its player; with 2 players a player's second hand has a prime (P1')."""
        return self.app.seat_label(self.game.player_of(hand)) + ("'" if hand >= self.game.players else "")

    def seat_name(self, seat: int) -> str:
        return f"{self.hand_label(seat)} {self.game.setup.players[self.game.player_of(seat)]}"

    def short_name(self, seat: int) -> str:
        return self.game.setup.players[self.game.player_of(seat)] + ("'" if seat >= self.game.players else "")

    def turn_text(self, turn: Turn[Any]) -> str:
        return f"{self.hand_label(turn.seat)[1:]}:{turn.cards[0]}"

    def trick_text(self, turns: Sequence[Turn[Any]]) -> str:
        """The cards of a trick so far, each after its hand: ``P1:5 P4:7``."""
        return " ".join(f"{self.hand_label(turn.seat)}:{turn.cards[0]}" for turn in turns)

    def refusal(self, error: Any) -> str:
        if self.app.lang != "en" and error.code and error.code.startswith("zenjidou."):
            return self.app.t(error.code, **error.params)
        return super().refusal(error)

    def colour(self, index: int) -> str:
        entry = self.game.setup.cards["colours"][index]
        return str(entry[self.app.lang])

    def effect_text(self, effect: Effect) -> str:
        if effect.kind == TRUMP:
            return self.app.t("zenjidou.effect.trump_of", colour=self.colour(effect.colour or 0))
        return self.app.t(f"zenjidou.effect.{effect.kind}")

    def effects_line(self, effects: Effects) -> str:
        """The effect summary after a card: what is in force, from which card."""
        return self.formatter.reason(self.game.effect_phrases(effects)) or self.app.t("zenjidou.effect.none")

    def option_text(self, action: Any) -> str:
        """One legal action as a list entry."""
        if isinstance(action, (Rest, Bottom, Play)):
            return str(action.card)
        if isinstance(action, ChooseRule):
            rule = action.rule
            text = self.app.t(f"zenjidou.rule.{rule.letter}")
            return f"{text}: {self.app.t(f'zenjidou.variant.{rule.variant}')}" if rule.variant else text
        if isinstance(action, Side):
            return self.app.t(f"zenjidou.side.{action.side}")
        if isinstance(action, Lead):
            if action.left:
                return self.app.t("zenjidou.lead.left", seat=self.hand_label(self.game.left_of(action.hand)))
            return self.app.t("zenjidou.lead.self", seat=self.hand_label(action.hand))
        if isinstance(action, Point):
            return self.app.t("zenjidou.point", seat=self.app.seat_label(action.player), card=action.card)
        if isinstance(action, NoPoint):
            return self.app.t("zenjidou.no_point")
        raise TypeError(f"{action!r} is not a Zenjidou choice")

    def describe(self, action: Any) -> str:
        if isinstance(action, Answer):
            return action.key
        if isinstance(action, Play):
            return f"{self.hand_label(action.hand)}: {action.card}"
        if isinstance(action, Guesses):
            return " ".join(self.app.seat_label(g) for g in action.guesses)
        return self.option_text(action)

    def deal_columns(self, deal: Any) -> list[tuple[str, list[int]]]:
        """Per player (with 2 players, both hands added up): tricks, the captured cards' marks, rule
        C's bonus (in a C round), the round's score."""
        per_player = self.game.per_player
        columns = [("deal.tricks", per_player(deal.tricks_won)), ("zenjidou.deal.marks", per_player(deal.marks or []))]
        if deal.guesses is not None:
            columns.append(("zenjidou.deal.bonus", per_player(deal.bonus or [])))
        return [*columns, ("deal.score", per_player(deal.scores or []))]

    def where(self) -> str:
        """The resume offer names the round's set-up before its first trick (never "trick 0")."""
        deal = self.game.state.deal
        return super().where() if deal.tricks else self.t("zenjidou.resume.setup", deal=deal.index + 1)

    def rule_note(self, hand: int) -> str:
        """What the round's rule asks of ``hand``'s player as they put a card down, or "": who draws it
        (L draw), or the house ruling that says which card (F from the bottom, G)."""
        deal = self.game.state.deal
        rule = deal.rule
        if rule is None:
            return ""
        if str(rule) == "L draw":
            return self.t("zenjidou.note.draw", seat=self.hand_label(self.game.left_of(hand)))
        if rule.letter == "G":
            return self.t(HOUSE_G)
        if rule.letter == "F" and deal.sides.get(hand) == "bottom":
            return self.t(HOUSE_F_BOTTOM)
        return ""

    def passes_text(self) -> str:
        """Rule I: who passes to whom, each hand to its right neighbour (the previous seat)."""
        return " ".join(f"{self.hand_label(h)}>{self.hand_label(self.game.right_of(h))}" for h in range(self.game.n))

    def snapshot(self) -> ZSnapshot:
        shared = super().snapshot()
        return ZSnapshot(shared.open_trick, shared.revokes, shared.scored, len(self.finished_tricks()),
                         self.game.state.deal.rule is not None, len(self.out_of_order()))

    def out_of_order(self) -> list[OutOfOrder]:
        return [broken for deal in self.game.state.deals for broken in deal.out_of_order]

    def finished_tricks(self) -> list[tuple[int, int]]:
        """(round, trick) of every trick with a result, in order."""
        return [(d, k) for d, deal in enumerate(self.game.state.deals)
                for k, trick in enumerate(deal.tricks) if trick.result is not None]

    def notices(self, before: object) -> list[Screen]:
        """The shared notices; tricks the device played itself in one go are announced together on one
        screen (one OK, not one per trick); a round's scores name a house ruling that decided its bonus."""
        if not isinstance(before, ZSnapshot):
            raise TypeError("notices() takes the snapshot taken before the action")
        shown = super().notices(before)
        played = self.finished_tricks()[before.finished:]
        if len(played) > 1:
            shown = [PlayedScreen(self.app, self, played), *(s for s in shown if not isinstance(s, ResultScreen))]
        rule = self.game.state.deal.rule
        if not before.ruled and rule is not None and rule.letter in TOLD_AFTER_THE_RULE:
            shown.append(RuleNotice(self.app, self, rule.letter))
        shown += [OrderScreen(self.app, self, broken) for broken in self.out_of_order()[before.broken:]]
        return shown

    def deal_screen(self, deal: int) -> Screen:
        return ZDealScreen(self.app, self, deal)

    @classmethod
    def start(cls, app: Host, game_id: str, names: Sequence[str], choices: Sequence[Choice]) -> None:
        cls.begin(app, game_id, names, {})


class ZScreen(TrickScreenBase):
    game: Zenjidou
    ui: ZenjidouUI

    def header(self, canvas: Canvas) -> None:
        deal = self.game.state.deal
        rule = deal.rule.letter if deal.rule else "-"
        key = "zenjidou.header" if deal.tricks else "zenjidou.header.setup"  # no trick 0: the round's set-up
        canvas.title(self.t(key, round=deal.index + 1, trick=len(deal.tricks), rule=rule))

    def trick_lines(self, canvas: Canvas, first: int, rows: int = 2) -> int:
        """The open trick's cards and the effects they put in force, or before its first card the
        last trick's result, in at most ``rows`` rows; returns the next free row."""
        deal = self.game.state.deal
        trick = deal.tricks[-1] if deal.tricks else None
        if trick is None or self.game.open_question() is not None:
            return first
        if not trick.turns:
            results = [t.result for t in deal.tricks if t.result is not None]
            if not results:
                return first
            canvas.lines(first, rows, self.t("trick.last", trick=len(results), reason=self.ui.reason(results[-1])))
            return first + rows
        canvas.text(first, self.ui.trick_text(trick.turns))
        canvas.lines(first + 1, rows - 1, self.ui.effects_line(self.game.effects_of(trick)))
        return first + rows


@ZenjidouUI.enters("rule", "side", "lead")
class ListScreen(ZScreen):
    """One choice among the actions the engine allows now, the cursor on the likeliest (:meth:`weight`)."""

    def __init__(self, app: Host, ui: ZenjidouUI) -> None:
        super().__init__(app, ui)
        decision = self.game.decision
        assert decision is not None
        self.decision = decision
        self.options = list(self.game.legal_actions)
        self.index = self.start()
        deal = self.game.state.deal
        last_card = decision.kind == "play" and len(deal.tricks[-1].turns) == self.game.n - 1
        if last_card and deal.how is not None and deal.how.quiz:
            arm_quiz(app, self.game)  # players buzz as the last card is turned, before it is entered

    def start(self) -> int:
        """Where the cursor starts: on the likeliest entry (:meth:`weight`)."""
        return likeliest_start(list(map(self.weight(), self.options)))

    def weight(self) -> Callable[[Any], float]:
        """How likely each offered action is to be the one entered: a card by the game's odds (the
        engine's ``card_odds``: the lead colour, L's order, the hand's own bottom card); every other
        choice alike (then the cursor stays on the first)."""
        seat = self.decision.actor
        if self.decision.kind != "play" or seat is None:
            return lambda action: 1.0
        odds = self.game.card_odds(seat, [action.card for action in self.options])
        return lambda action: odds[action.card]

    def move(self, index: int, key: Key) -> int | None:
        """The list index after an arrow from ``index`` (wrapping), or None for any other key."""
        step = {Key.RIGHT: 1, Key.LEFT: -1, Key.DOWN: JUMP, Key.UP: -JUMP}.get(key)
        return None if step is None else (index + step) % len(self.options)

    def on_key(self, event: KeyEvent) -> None:
        moved = self.move(self.index, event.key)
        if moved is not None:
            self.index, self._typing = moved, None
        elif event.key is Key.OK:
            self.app.push(self.options[self.index])
        elif event.key is Key.BACK:
            self.app.open_menu()

    def number_of(self, value: Any) -> int | None:
        """What the card keypad types: a card by its number (1-32 name it alone), any other choice by
        its place in the list, as the hint row counts it (``3/14``)."""
        if isinstance(value, (Rest, Bottom, Play)):
            return value.card
        return self.options.index(value) + 1 if value in self.options else None

    def typing(self) -> Typing | None:
        if self._typing is None or self._typing.grid.col != self.index:
            self._typing = Typing(self.typed_list())
        return self._typing

    def typed_list(self) -> Grid[Any]:
        """The choices as the card keypad types into them: one row, each by :meth:`number_of`, the
        cursor on the choice under the list's."""
        row = tuple((self.number_of(option) or 0, option) for option in self.options)
        return Grid((row,), (0,), 0, self.index)

    def typed(self, state: Typing) -> None:
        self._typing, self.index = state, state.grid.col

    def draw(self, canvas: Canvas) -> None:
        self.header(canvas)
        who = self.ui.seat_name(self.decision.actor) if self.decision.actor is not None else ""
        canvas.text(1, self.t(f"zenjidou.ask.{self.decision.kind}", seat=who))
        note = self.note()
        choice = ROWS - 3 if note else ROWS - 2  # without a note, the trick's lines take its row
        row = self.trick_lines(canvas, 2, choice - 2)
        self.draw_choice(canvas, max(row, choice))
        canvas.text(ROWS - 2, note)
        canvas.text(ROWS - 1, self.hint())

    def hint(self) -> str:
        return self.t("zenjidou.hint.list", n=self.index + 1, count=len(self.options))

    def draw_choice(self, canvas: Canvas, row: int) -> None:
        canvas.text(row, f"< {self.ui.option_text(self.options[self.index])} >", invert=True)

    def note(self) -> str:
        """The line under the list: the 2-player seating (a house ruling) while bottoms are shown at
        set-up; a side's house ruling on F's question; what the rule asks of a player putting down."""
        kind, seat = self.decision.kind, self.decision.actor
        if kind == "bottom" and self.game.players == 2:
            return self.t(HOUSE_TWO_HANDS)
        if kind == "side" and self.options[self.index] == Side(self.decision.seat, "bottom"):
            return self.t(HOUSE_F_BOTTOM)
        return self.ui.rule_note(seat) if kind == "play" and seat is not None else ""


@ZenjidouUI.enters("rest", "bottom", "play")
class CardScreen(ListScreen):
    """A card as it goes down or shows: the unseen cards in rows by colour as far as the table has
    told colours (the cards not told yet in rows of their own, marked ``?``), each by number, the
    likeliest colour first and the next likeliest one UP or DOWN from it. LEFT/RIGHT step through
    the cursor's colour, UP/DOWN go to the row above or below, every arrow wrapping; the cursor
    starts where the card that comes is fewest presses away (:meth:`weight`). The card keypad types
    a card by its number, as in the list; after a card keypad key the cursor starts instead where
    typing expects the fewest presses (:meth:`typing_start`, as in the trick games): on the likeliest
    card a digit alone would not enter, so that ``#`` alone enters it; and the letters A-D stand for
    the next likeliest such cards (:meth:`letter_cards`), drawn beside their letters in the hint row
    while the card keypad is in use: a letter names the whole entry, so it enters its card at once."""

    grid: Grid[Card]
    _letters: dict[Key, Card] | None = None
    _letters_drawn = False  # whether the glass shows the letters now: only then does a letter enter

    @property
    def index(self) -> int:
        """The place of the card under the cursor among the options (the list's index)."""
        return self.places[self.grid.value]

    @index.setter
    def index(self, index: int) -> None:
        self.grid = self.grid.at(self.options[index].card) or self.grid

    def start(self) -> int:
        """Rows by colour, the likeliest in the middle of the next likeliest (UP and DOWN wrap), and
        the cursor where the card that comes is fewest presses away."""
        self.places = {option.card: place for place, option in enumerate(self.options)}
        likely = self.weight()

        def weight(card: Card) -> float:
            return likely(self.options[self.places[card]])

        mass: dict[int, float] = {}
        for option in self.options:
            group = self.group_of(option)
            mass[group] = mass.get(group, 0.0) + likely(option)
        self.grid = self.card_grid(likeliest_middle(mass)).best_start(weight)
        if self.app.card_keypad:
            self.index = self.typing_start(self.typed_list(), likely).col
        return self.index

    def group_of(self, option: Any) -> int:
        """The row group of a card: its colour, or :data:`UNTOLD` while the table has not told it."""
        colour = self.game.fact(option.card, "colour")
        return UNTOLD if colour is None else colour

    def card_grid(self, order: Sequence[int]) -> Grid[Card]:
        """The offered cards in the groups of ``order``, each split into rows of at most :data:`ROW_CARDS`."""
        rows: list[list[tuple[int, Card]]] = []
        groups: list[int] = []
        for group in order:
            entries = sorted((option.card, option.card) for option in self.options if self.group_of(option) == group)
            count = -(-len(entries) // ROW_CARDS)
            for part in range(count):
                rows.append(entries[part * len(entries) // count:(part + 1) * len(entries) // count])
                groups.append(group)
        return Grid.of(rows, groups=groups)

    def move(self, index: int, key: Key) -> int | None:
        if key not in ARROWS:
            return None
        at = self.grid.at(self.options[index].card) or self.grid
        return self.places[at.moved(key).value]

    def draw_choice(self, canvas: Canvas, row: int) -> None:
        """The cursor's row: its colour (``?`` untold) and its cards, the one under the cursor lit."""
        grid = self.grid
        group = grid.groups[grid.row]
        canvas.text(row, "?" if group == UNTOLD else self.ui.colour(group), width=CELLS_X - 2)
        for offset, (number, _) in enumerate(grid.rows[grid.row]):
            canvas.cell(CELLS_X + offset * CELL, row, CELL, str(number), invert=offset == grid.col)

    def on_shown(self) -> None:
        """The letters are on the glass (a letter enters its card) once drawn while the card keypad is in use."""
        self._letters_drawn = self.app.card_keypad and bool(self.letter_cards())

    def hint(self) -> str:
        self.on_shown()
        letters = (self._letters or {}) if self._letters_drawn else {}
        if letters:
            shown = " ".join(f"{letter.name}{card}" for letter, card in letters.items())
            return self.t("zenjidou.hint.letters", letters=shown)
        return self.t("zenjidou.hint.cards", count=len(self.options))

    def letter_cards(self) -> dict[Key, Card]:
        """The cards the letters A-D enter, fixed for the screen once asked (so they stay put while a
        number is typed): of the cards other than the one under the cursor (``#`` enters that), the
        ones a letter saves the most presses on as far as the table knows, by :meth:`weight` times the
        presses typing would take beyond one (two digits, or a digit and ``#`` where another number
        begins with it); cards a digit alone enters get none. In number order, A the lowest."""
        if self._letters is None:
            likely, state, under = self.weight(), Typing(self.typed_list()), self.options[self.index]
            saving: dict[Card, float] = {}
            for option in self.options:
                keys = keys_to_type(state, option, self.number_of, typed_only=True)
                if option != under and keys is not None and len(keys) > 1:
                    saving[option.card] = likely(option) * (len(keys) - 1)
            best = sorted(saving, key=lambda card: (-saving[card], card))[:len(LETTERS)]
            self._letters = dict(zip(LETTERS, sorted(best), strict=False))
        return self._letters

    def on_keypad(self, event: KeyEvent) -> None:
        """A letter enters the card drawn beside it, or does nothing while the letters are not drawn
        (over a notice it only closed); any other key as on every card picker."""
        if event.key not in LETTERS or event.long:
            super().on_keypad(event)
            return
        card = self.letter_cards().get(event.key) if self._letters_drawn else None
        if card is not None:
            self.index = self.places[card]
            self.on_key(KeyEvent(Key.OK))


def list_keys(start: int, target: int, count: int, jump: int) -> list[KeyEvent]:
    """The fewest LEFT/RIGHT (one step) and UP/DOWN (``jump`` steps) presses from ``start`` to
    ``target`` in a wrapping list of ``count``."""
    best: list[KeyEvent] | None = None
    for jumps in range(-(count // jump) - 1, count // jump + 2):
        rest = (target - start - jumps * jump) % count
        for steps in (rest, rest - count):
            keys = [KeyEvent(Key.DOWN if jumps > 0 else Key.UP)] * abs(jumps)
            keys += [KeyEvent(Key.RIGHT if steps > 0 else Key.LEFT)] * abs(steps)
            if best is None or len(keys) < len(best):
                best = keys
    return best or []


@cache
def list_distance(offset: int, count: int, jump: int) -> int:
    """Presses from one entry to the one ``offset`` further in a wrapping list (cached: screens ask often)."""
    return len(list_keys(0, offset, count, jump))


def likeliest_start(weights: Sequence[float], *, candidates: int = 12) -> int:
    """The index where the expected arrow presses to the entry that comes are fewest, ``weights``
    saying how likely each is; the first entry on a tie (every entry alike, or a single one).

    >>> likeliest_start([1.0, 1.0, 1.0]), likeliest_start([1.0, 1.0, 9.0, 1.0, 1.0])
    (0, 2)
    """
    count = len(weights)
    starts = sorted(range(count), key=lambda index: (index != 0, -weights[index]))[:candidates + 1]
    best, best_cost = 0, None
    for start in starts:
        cost = sum(weight * list_distance((target - start) % count, count, JUMP)
                   for target, weight in enumerate(weights) if weight)
        if best_cost is None or cost < best_cost - 1e-9:
            best, best_cost = start, cost
    return best


def arm_quiz(app: Host, game: Zenjidou) -> None:
    """Make the buzzers listen for the open trick's quiz, unless they already do."""
    deal = game.state.deal
    token = (id(game), deal.index, len(deal.tricks))
    if app.buzzers is not None and app.buzzers.token != token:
        app.buzzers.arm(app.now(), set(deal.open_trick.out), token)


@ZenjidouUI.enters("quiz")
class QuizScreen(ListScreen):
    """Rule B: the buzzers say who pressed first (by edge time); that player picks the card they
    pointed at. A wrong card puts them out and the next press counts; presses too close to order
    are a tie, shown as such (OK: the table points again). Without buzzers, or when nobody is
    right, the list offers every point and "nobody (else) points"."""

    def __init__(self, app: Host, ui: ZenjidouUI) -> None:
        super().__init__(app, ui)
        deal = self.game.state.deal
        self.trick = deal.open_trick
        self.arbiter = app.buzzers
        self.pointer: int | None = None
        self.tie: tuple[int, ...] | None = None
        if self.arbiter is not None:
            arm_quiz(app, self.game)
            for player in self.trick.out:
                self.arbiter.rule_out(player)
            self.tick(app.now())

    def deadline(self) -> float | None:
        if self.arbiter is None or self.pointer is not None or self.tie is not None:
            return None
        return self.arbiter.deadline()

    def tick(self, now: float) -> None:
        verdict = self.arbiter.verdict(now) if self.arbiter is not None and self.pointer is None else None
        if verdict is None:
            return
        if verdict.kind == "tie":
            self.tie = verdict.seats
            return
        self.pointer = verdict.seats[0]
        self.options = [Point(self.pointer, turn.cards[0]) for turn in self.trick.turns]
        self.index, self._typing = 0, None

    def on_key(self, event: KeyEvent) -> None:
        self.tick(self.app.now())
        if self.tie is not None:
            if event.key is Key.OK and self.arbiter is not None:
                self.arbiter.repeat(self.app.now())
                self.tie = None
            elif event.key is Key.BACK:
                self.app.open_menu()
            return
        super().on_key(event)

    def progress(self, action: Any) -> int | None:
        """In a tie no key enters a point: OK only asks the table's buzzers again."""
        self.tick(self.app.now())
        return None if self.tie is not None else 0

    def draw(self, canvas: Canvas) -> None:
        self.tick(self.app.now())  # presses may have come while a notice covered this screen
        self.header(canvas)
        if self.tie is not None:
            seats = " ".join(self.app.seat_label(seat) for seat in self.tie)
            canvas.text(1, self.t("zenjidou.quiz.tie", seats=seats), invert=True)
            canvas.text(ROWS - 1, self.t("zenjidou.hint.tie"))
            return
        if self.pointer is not None:
            canvas.text(1, self.t("zenjidou.quiz.which", seat=self.ui.seat_name(self.pointer)))
        else:
            canvas.text(1, self.t("zenjidou.quiz.buzz" if self.arbiter is not None else "zenjidou.ask.quiz"))
        canvas.text(2, self.ui.trick_text(self.trick.turns))
        out = [self.app.seat_label(p) for p in self.trick.out]
        if out:
            canvas.text(3, self.t("zenjidou.quiz.out", seats=" ".join(out)))
        canvas.text(ROWS - 3, f"< {self.ui.option_text(self.options[self.index])} >", invert=True)
        canvas.text(ROWS - 1, self.t("zenjidou.hint.list", n=self.index + 1, count=len(self.options)))


@ZenjidouUI.enters("answer")
class FactsScreen(AnswerScreen, ZScreen):
    """A card's four facts on one screen; the row the engine asks is marked, starting on the value the
    table has told most often for it; LEFT/RIGHT step by one, UP/DOWN by two; OK enters it. The card
    keypad types a value by its place (``1`` the first; the hint row shows the place)."""

    def __init__(self, app: Host, ui: ZenjidouUI) -> None:
        super().__init__(app, ui)
        _, number, self.name = self.question.key.split(":")
        self.number = int(number)
        self.count = self.question.maximum + 1
        self.value = self.likeliest()

    def likeliest(self) -> int:
        """The value told most often for this fact on the other cards (a deck repeats its prints),
        the first on a tie: public information only. A table whose facts are uniformly random (the
        simulated one) makes every start as good as another."""
        told = Counter(self.game.fact(number, self.name) for number in self.game.numbers if number != self.number)
        return max(range(self.count), key=lambda value: (told[value], -value))

    def label(self, name: str, value: int) -> str:
        if name == "colour":
            return self.ui.colour(value)
        if name == "score":
            mark = self.game.marks[value]
            return f"{mark:+d}" if mark else self.t("zenjidou.score.none")
        if name == "effect":
            return self.ui.effect_text(Effect.from_index(value))
        return self.t(f"zenjidou.resolution.{RESOLUTION_RULES[value]}")

    def stepped(self, value: int, arrow: Key) -> int:
        """The value after an arrow, wrapping."""
        return (value + {Key.RIGHT: 1, Key.LEFT: -1, Key.DOWN: FACT_JUMP, Key.UP: -FACT_JUMP}[arrow]) % self.count

    def move(self, arrow: Key) -> None:
        self.value, self._typing = self.stepped(self.value, arrow), None

    def confirm(self) -> None:
        self.answer(self.value)

    def number_of(self, value: Any) -> int | None:
        """The card keypad types a fact's value by its place: 1 the first (every fact has at most 9)."""
        return value + 1 if isinstance(value, int) else None

    def typing(self) -> Typing | None:
        if self._typing is None or self._typing.grid.value != self.value:
            row = tuple((value + 1, value) for value in range(self.count))
            self._typing = Typing(Grid((row,), (0,), 0, self.value))
        return self._typing

    def typed(self, state: Typing) -> None:
        self._typing, self.value = state, state.grid.value

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.t("zenjidou.facts.title", card=self.number))
        for row, name in enumerate(FACT_NAMES, start=1):
            known = self.game.fact(self.number, name)
            asked = name == self.name
            value = self.value if asked else known
            canvas.text(row, self.t(f"zenjidou.facts.{name}"), width=40)
            text = self.label(name, value) if value is not None else "?"
            canvas.text(row, f"< {text} >" if asked else text, x=40, invert=asked)
        canvas.text(ROWS - 1, self.t("zenjidou.hint.facts", n=self.value + 1, count=self.count))


@ZenjidouUI.enters("guesses")
class GuessScreen(ZScreen):
    """Rule C: the 30-second countdown, then each player's guess of the top scorer."""

    def __init__(self, app: Host, ui: ZenjidouUI) -> None:
        super().__init__(app, ui)
        self.ends: float | None = None  # set when the screen is first shown: the countdown starts then
        self.counting = True
        self.guesses = [0] * self.game.players
        self.row = 0
        self.scroll = Scroll()  # six players outnumber the rows: the cursor's player stays in view

    def deadline(self) -> float | None:
        """The next whole second of the countdown, or its end."""
        if not self.counting or self.ends is None:
            return None
        left = self.ends - self.app.now()
        return self.ends - max(int(left - 1e-9), 0) if left > 0 else self.ends

    def tick(self, now: float) -> None:
        if self.counting and self.ends is not None and now >= self.ends:
            self.counting = False

    def seconds_left(self) -> int:
        total = float(self.game.setup.cards["guess_seconds"])
        left = self.ends - self.app.now() if self.ends is not None else total
        return max(0, int(left) + (1 if left > int(left) else 0))

    def on_key(self, event: KeyEvent) -> None:
        if self.counting:
            if event.key is Key.OK:
                self.counting = False
            elif event.key is Key.BACK:
                self.app.open_menu()
            return
        players = self.game.players
        if event.key is Key.RIGHT:
            self.guesses[self.row] = (self.guesses[self.row] + 1) % players
        elif event.key is Key.LEFT:
            self.guesses[self.row] = (self.guesses[self.row] - 1) % players
        elif event.key is Key.DOWN:
            self.row = (self.row + 1) % players
        elif event.key is Key.UP:
            self.row = (self.row - 1) % players
        elif event.key is Key.OK:
            self.app.push(Guesses(tuple(self.guesses)))
        elif event.key is Key.BACK:
            self.app.open_menu()

    def progress(self, action: Any) -> int | None:
        """The players whose guess already is ``action``'s: the key planner sets them one at a time
        (the guesses of six players are 6**6 states, too many to search at once)."""
        if not isinstance(action, Guesses):
            return None
        return sum(mine == wanted for mine, wanted in zip(self.guesses, action.guesses, strict=True))

    def draw(self, canvas: Canvas) -> None:
        self.header(canvas)
        if self.counting:
            total = float(self.game.setup.cards["guess_seconds"])
            if self.ends is None:
                self.ends = self.app.now() + total
            canvas.text(1, self.t("zenjidou.guess.think"))
            seconds = self.seconds_left()
            canvas.text(3, self.t("zenjidou.guess.seconds", seconds=seconds))
            canvas.gauge(0, 5, 128, max(0.0, (self.ends - self.app.now()) / total))
            canvas.text(ROWS - 1, self.t("zenjidou.hint.countdown"))
            return
        canvas.text(1, self.t("zenjidou.guess.enter"))
        for row, player in enumerate(self.scroll.window(self.game.players, ROWS - 3, keep=self.row), start=2):
            mark = ">" if player == self.row else " "
            named = self.app.seat_label(self.guesses[player])
            canvas.text(row, f"{mark}{self.app.seat_label(player)} -> {named}")
        self.scroll.hint(canvas, ROWS - 1, self.t("zenjidou.hint.guess"))



class OrderScreen(Notice):
    """A play out of the rule's order, proved by a card known to be in the hand (L lowest and closest:
    a later card or round 1's shown bottom; D, E, J, F from the top: round 1's shown bottom, the top
    card): the device names it, the table decides."""

    def __init__(self, app: Host, ui: ZenjidouUI, broken: OutOfOrder) -> None:
        super().__init__(app)
        self.ui, self.broken = ui, broken

    def draw(self, canvas: Canvas) -> None:
        rule = self.ui.game.state.deals[self.broken.deal].rule
        assert rule is not None  # cards go down only once the rule is chosen
        canvas.title(self.app.t("zenjidou.out_of_order.title", rule=rule.letter))
        canvas.lines(1, 5, self.ui.formatter.phrase(self.ui.game.order_phrase(self.broken)))
        canvas.text(ROWS - 1, self.app.t("revoke.hint"))


class RuleNotice(Notice):
    """What every player does off the device once the rule is chosen: H's move of the top card, I's
    pass to the right neighbour (named seat by seat) with the received card put at the bottom."""

    def __init__(self, app: Host, ui: ZenjidouUI, letter: str) -> None:
        super().__init__(app)
        self.ui, self.letter = ui, letter

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.app.t(f"zenjidou.rule.{self.letter}"))
        text = self.app.t(f"zenjidou.how.{self.letter}", passes=self.ui.passes_text())
        canvas.lines(1, ROWS - 2, text)
        canvas.text(ROWS - 1, self.app.t("zenjidou.hint.done"))


class PlayedScreen(ResultScreen):
    """Tricks completed by one entry (round 1's bottom cards play themselves under A and B): one page
    each, LEFT/RIGHT to leaf through them, OK when the table has played its cards."""

    def __init__(self, app: Host, ui: ZenjidouUI, tricks: Sequence[tuple[int, int]]) -> None:
        super().__init__(app, ui, *tricks[0])
        self.pages = list(tricks)
        self.page = 0

    def on_key(self, event: KeyEvent) -> None:
        step = {Key.RIGHT: 1, Key.DOWN: 1, Key.LEFT: -1, Key.UP: -1}.get(event.key)
        if step is None:
            super().on_key(event)
            return
        self.page = (self.page + step) % len(self.pages)
        self.deal, self.index = self.pages[self.page]
        self.trick = self.ui.game.state.deals[self.deal].tricks[self.index]


class ZDealScreen(DealScreen):
    """A round's scores, one row per player (with 2 players each row adds up the player's two hands,
    so each player's total shows, as in the ranking); a house ruling that decided rule C's bonus is
    named on the last row."""

    ui: ZenjidouUI

    def totals(self) -> list[int]:
        return self.ui.game.per_player(super().totals())

    def draw(self, canvas: Canvas) -> None:
        super().draw(canvas)
        deal = self.ui.game.state.deals[self.index]
        if deal.house and not self.chart:
            canvas.fill(0, ROWS - 1, 128, value=0)  # in place of the hint
            canvas.text(ROWS - 1, " ".join(self.t(code) for code in deal.house), invert=True)
