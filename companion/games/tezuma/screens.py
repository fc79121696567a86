"""Screens for both Tezuma editions: draft, trick entry, results, revokes, questions, deal scores.

The trick screen is one row per seat. The seat whose turn it is has the card picker in its row: the
suit, then the ranks 1-9 and T in fixed places, a dot where a card is no longer offered. The picker
offers only cards the table has not seen this deal. It starts where the card to come is fewest
presses away, as far as the table has seen (the shared ``likely_start`` by the engine's
``card_odds``): in the lead suit, on its lowest or highest unseen card (its trump, while one is
unseen, counts as the lowest), never in a suit the seat is known to be void in. LEFT/RIGHT step
along the suit's ranks and wrap round (LEFT from the first is the last); UP/DOWN jump between the
lower and upper half of a suit (a dotted line marks the split) and on to the next suit: the suits
come likeliest first, the next likeliest one UP or DOWN away, so a seat that does not follow, or a
lead, finds the likely other suits nearest.

OK plays the card. Holding OK (a long press) plays it with the seat's ability; AUX arms the
ability instead, showing its uses left, and then OK plays with it. Paper Egg and Five-Color Sand
need no card; Fire Breathing takes the first card with the ability and the second with OK (the
engine's ``fire_partners`` are offered).

Each confirmed card changes two rows of the screen (the seat that played, the seat that plays
next), each arrow press one row: with a page-diffing display writer that is a quarter of a frame
or less per press (docs/screens.md has the figures).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from companion.carddata import printed_cards
from companion.engine.base import Answer, Question
from companion.engine.tricks import Deal
from companion.errors import IllegalAction, IllegalPlay
from companion.games.tezuma.rules import (
    ABILITY,
    CARDLESS,
    FIRE,
    PENALTY,
    SCORING,
    Card,
    DealState,
    Draft,
    Play,
    TezumaGame,
    Trick,
)
from companion.keys import Key, KeyEvent
from companion.ui.canvas import ROWS, Canvas
from companion.ui.picker import ARROWS, Grid, Number, likeliest_middle
from companion.ui.screens import Choice, Host, ListScreen
from companion.ui.tricks import CARD_X, PANEL_ROWS, AnswerScreen, TrickScreenBase, TrickUI, seat_row

if TYPE_CHECKING:
    from companion.session import Session

TRUMP_SLOT = 10  # ranks sit in slots 1-9, the trump after them
ONE_ROW = 3  # a suit offering more cards than this is split into two rows for UP/DOWN
CELL = 8  # pixel width of one rank in the picker row
CELLS_X = 46
PANEL_ROW = 5  # the last trick's reason, under the seat rows


def slot(card: Card) -> int:
    return TRUMP_SLOT if card.is_trump else card.rank


def scoring_label(cards: Mapping[str, Any], lang: str, card_id: str) -> str:
    """A scoring card as the table knows it: the data's English label, else kind name and id."""
    scoring = cards["scoring"]
    return str(scoring["label"].format(id=card_id) if lang == "en" else f"{scoring[lang]}{card_id}")


def laid_out(game: TezumaGame, deal: DealState, kind: str) -> list[str]:
    """The cards of ``kind`` on the table for this deal's draft."""
    if kind == PENALTY:
        return list(game.suits)
    return list(deal.layout["scoring" if kind == SCORING else "abilities"])


class Names:
    """How Tezuma's cards, abilities and draft kinds read in the language on screen (seats, reasons
    and revokes are the shared :class:`~companion.ui.tricks.TrickUI`'s)."""

    def __init__(self, app: Host, game: TezumaGame) -> None:
        self.app = app
        self.game = game

    @property
    def lang(self) -> str:
        return self.app.lang

    def t(self, key: str, **fields: object) -> str:
        return self.app.t(key, **fields)

    def suit(self, code: str) -> str:
        return str(self.game.suits[code][self.lang])

    def suit_mark(self, code: str) -> str:
        """One character: the letter in English, the first character of the name in Japanese."""
        return code if self.lang == "en" else self.suit(code)[0]

    def rank(self, rank: int) -> str:
        return self.t("card.trump") if rank == 0 else str(rank)

    def card(self, card: Card) -> str:
        return self.suit_mark(card.suit) + self.rank(card.rank)

    def cards(self, cards: Sequence[Card]) -> str:
        return "+".join(self.card(c) for c in cards)

    def turn(self, seat: int, cards: Sequence[Card], ability: str | None) -> str:
        """One seat's part of a trick in a few characters: ``2:U8*`` (``*``: with an ability)."""
        return f"{seat + 1}:{self.cards(cards) or '-'}{'*' if ability else ''}"

    def ability(self, ability: str) -> str:
        return str(self.game.abilities[ability][self.lang])

    def kind(self, kind: str) -> str:
        if kind == ABILITY:
            return self.t("kind.ability")
        return str(self.game.cards["penalty" if kind == PENALTY else "scoring"][self.lang])

    def scoring(self, card_id: str) -> str:
        return scoring_label(self.game.cards, self.lang, card_id)

    def draft_card(self, kind: str, card: str) -> str:
        if kind == PENALTY:
            return self.suit(card)
        return self.scoring(card) if kind == SCORING else self.ability(card)

    def play(self, play: Play) -> str:
        parts = [self.cards(play.cards)] if play.cards else []
        if play.ability:
            parts.append(self.ability(play.ability))
        return " ".join(parts)

    def question(self, question: Question) -> str:
        """The engine's question about a lost score-card fact, in the language on screen."""
        _, card_id, tricks = question.key.split(":")
        deal = self.game.state.deal
        holders = [self.app.seat_label(s) for s in range(self.game.n) if deal.picks[s].get(SCORING) == card_id]
        return self.t("question.points", card=self.scoring(card_id), seats=", ".join(holders), tricks=tricks)


class TezumaUI(TrickUI[TezumaGame]):
    """Tezuma's draft, trick entry and score-card questions; the notices, history, deal table and
    ranking are the shared trick-game screens, with Tezuma's deal columns and ability marks."""

    game_type = TezumaGame
    deal_name_margin = 12

    def __init__(self, app: Host, session: Session) -> None:
        super().__init__(app, session)
        self.names = Names(app, self.game)

    def localized(self, params: Mapping[str, object]) -> dict[str, object]:
        names = {"ability": self.names.ability, "suit": self.names.suit}
        return {key: names[key](str(value)) if key in names else value for key, value in params.items()}

    def card_text(self, card: Any) -> str:
        return self.names.card(card)

    def plays_text(self, trick: Any) -> str:
        """Each seat's cards in play order, ``*`` after a seat that used its ability: ``1:B7 2:U8*``."""
        return " ".join(self.names.turn(seat, cards, ability) for seat, cards, ability in trick.plays())

    def deal_columns(self, deal: Deal[Any]) -> list[tuple[str, list[int]]]:
        """Tricks, the score card's points, the penalty cards, the deal's score (the total follows)."""
        if not isinstance(deal, DealState) or deal.points is None or deal.penalties is None:
            raise ValueError("Tezuma's deal table needs a scored Tezuma deal")
        return [("deal.tricks", list(deal.tricks_won)), ("deal.points", deal.points),
                ("deal.penalty", [-penalty for penalty in deal.penalties]), ("deal.score", list(deal.scores or []))]

    def deal_column_edges(self, count: int) -> list[int]:
        return [56, 72, 90, 110, 127]

    def describe(self, action: Any) -> str:
        names = self.names
        if isinstance(action, Draft):
            return self.app.t("undo.draft", seat=self.seat_name(action.seat), kind=names.kind(action.kind),
                              card=names.draft_card(action.kind, action.card))
        if isinstance(action, Play):
            return self.app.t("undo.play", seat=self.seat_name(action.seat), play=names.play(action))
        assert isinstance(action, Answer)
        _, card_id, tricks = action.key.split(":")
        return self.app.t("undo.answer", value=action.value, card=names.scoring(card_id), tricks=tricks)

    def where(self) -> str:
        deal = self.game.state.deal
        if deal.in_draft:
            return self.app.t("resume.draft", deal=deal.index + 1)
        return super().where()

    # --- setup -------------------------------------------------------------------------------

    @classmethod
    def start(cls, app: Host, game_id: str, names: Sequence[str], choices: Sequence[Choice]) -> None:
        values = {choice.key: choice.value for choice in choices}
        options: dict[str, Any] = {key: values.get(key) == "yes" for key in ("beginner", "redraw_each_deal")}
        if values["cards"] == "choose":
            app.open(LayoutScreen(app, game_id, names, options))
            return
        cards = printed_cards(game_id)
        if values["cards"] == "random" and "recommended" in cards:
            # this edition lays out the book's sets unless told otherwise: draw them here instead
            options.update(random_layout(cards, len(names), app))
        cls.begin(app, game_id, names, options)


def random_layout(cards: Mapping[str, Any], players: int, app: Host) -> dict[str, list[str]]:
    """Scoring cards and abilities drawn with the app's random source (the required card kept)."""
    wanted = cards["laid_out"]
    required = wanted.get("required_scoring", {}).get(str(players))
    eligible = [c["id"] for c in cards["scoring"]["cards"] if players in c["players"] and c["id"] != required]
    count = wanted["scoring"][str(players)] - (1 if required else 0)
    scoring = sorted(app.rng.sample(eligible, count) + ([required] if required else []))
    abilities = app.rng.sample([a["id"] for a in cards["abilities"]], wanted["abilities"][str(players)])
    return {"scoring": scoring, "abilities": abilities}


class LayoutScreen(ListScreen):
    """Choose the laid-out scoring cards and abilities on the device; OK toggles, the last row starts."""

    def __init__(self, app: Host, game_id: str, names: Sequence[str], variants: Mapping[str, bool]) -> None:
        self.cards = cards = printed_cards(game_id)
        self.game_id, self.names, self.variants = game_id, list(names), dict(variants)
        beginner = self.beginner = bool(variants.get("beginner"))
        n = len(names)
        self.options = [(SCORING, c["id"], scoring_label(cards, app.lang, c["id"]))
                        for c in cards["scoring"]["cards"] if n in c["players"]]
        if not beginner:
            self.options += [(ABILITY, a["id"], a[app.lang]) for a in cards["abilities"]]
        self.wanted = {SCORING: cards["laid_out"]["scoring"][str(n)], ABILITY: cards["laid_out"]["abilities"][str(n)]}
        self.chosen: list[tuple[str, str]] = []
        super().__init__(app, "", [])
        self._relabel()

    def _relabel(self) -> None:
        counts = {kind: sum(1 for k, _ in self.chosen if k == kind) for kind in self.wanted}
        self.title = self.t("layout.title", scoring=f"{counts[SCORING]}/{self.wanted[SCORING]}",
                            abilities=f"{counts[ABILITY]}/{0 if self.beginner else self.wanted[ABILITY]}")
        marks = ["[x] " if (kind, card) in self.chosen else "[ ] " for kind, card, _ in self.options]
        self.items = [
            *(mark + label for mark, (_, _, label) in zip(marks, self.options, strict=True)), self.t("setup.start")
        ]

    def pick(self, index: int) -> None:
        if index == len(self.options):
            chosen = {kind: [card for k, card in self.chosen if k == kind] for kind in self.wanted}
            for kind, cards in chosen.items():
                # checked here: the engine reads an empty choice as "the book's sets"
                wanted = 0 if kind == ABILITY and self.beginner else self.wanted[kind]
                if len(cards) != wanted:
                    name = self.t("kind.ability") if kind == ABILITY else self.cards["scoring"][self.app.lang]
                    raise IllegalAction(self.t("layout.count", wanted=wanted, kind=name, chosen=len(cards)))
            TezumaUI.begin(self.app, self.game_id, self.names,
                  {**self.variants, "scoring": chosen[SCORING], "abilities": chosen[ABILITY]})
            return
        kind, card, _ = self.options[index]
        if (kind, card) in self.chosen:
            self.chosen.remove((kind, card))
        else:
            self.chosen.append((kind, card))
        self._relabel()


class TezumaScreen(TrickScreenBase):
    """A screen with the game's names at hand."""

    game: TezumaGame
    ui: TezumaUI

    def __init__(self, app: Host, ui: TezumaUI) -> None:
        super().__init__(app, ui)
        self.names = ui.names


@TezumaUI.enters("play")
class TrickScreen(TezumaScreen):
    """Enter one seat's play: the card picker in that seat's row; see the module docstring."""

    def __init__(self, app: Host, ui: TezumaUI) -> None:
        super().__init__(app, ui)
        self.deal = self.game.state.deal
        self.trick: Trick = self.deal.tricks[-1]
        self.seat = self.acting_seat()
        self.held = self.deal.picks[self.seat].get(ABILITY)
        self.armed = False
        self.first: Card | None = None  # Fire Breathing's first card, once taken
        self.grid = self.card_grid()

    # --- the picker ----------------------------------------------------------------------

    def card_grid(self, first: Card | None = None) -> Grid[Card]:
        """The cards offered, one suit a group; with ``first``, Fire Breathing's possible partners.

        A suit with more than :data:`ONE_ROW` cards offered is two rows, its lower and upper half,
        so UP/DOWN reach the middle of a suit in one press on the way to the next suit. The suits come
        likeliest first, the next likeliest one UP or DOWN away (:func:`likeliest_middle`).
        """
        offered = self.game.unplayed_cards() if first is None else self.game.fire_partners(first)
        grid = suit_rows(self.game.suits, offered, range(len(self.game.suits)))
        if first is not None:
            return grid.nearest(grid.groups[0], first.rank)
        mass = grid.group_mass(self.likelihood(self.seat, grid))
        return self.likely_start(self.seat, suit_rows(self.game.suits, offered, likeliest_middle(mass)))

    # --- keys ----------------------------------------------------------------------------

    def on_key(self, event: KeyEvent) -> None:
        key = event.key
        if key in ARROWS:
            self.grid = self.grid.moved(key)
        elif key is Key.AUX:
            self._toggle_ability()
        elif key is Key.OK:
            self._confirm(with_ability=event.long or self.armed)
        elif key is Key.BACK:
            if self.first is not None:
                self.first, self.grid = None, self.card_grid()
            elif self.armed:
                self.armed = False
            else:
                self.app.open_menu()

    def _confirm(self, *, with_ability: bool) -> None:
        card = self.grid.value
        if self.first is not None:
            play = Play(self.seat, (self.first, card), FIRE)
        elif not with_ability:
            play = Play(self.seat, (card,))
        else:
            ability = self._ability()
            if ability == FIRE:
                self._take_first(card)
                return
            play = Play(self.seat, () if ability in CARDLESS else (card,), ability)
        self.app.push(play)

    def _ability(self) -> str:
        if self.held is None:
            raise IllegalPlay(self.t("trick.no_ability", seat=self.app.seat_label(self.seat)))
        return self.held

    def _take_first(self, card: Card) -> None:
        """Fire Breathing: keep ``card`` and offer its partners, once the engine agrees a pair can follow."""
        partners = self.game.fire_partners(card)
        # an impossible pair makes the engine name the real obstacle (uses, hand, trump, no partner)
        self.game.check(Play(self.seat, (card, partners[0] if partners and not card.is_trump else card), FIRE))
        self.first, self.armed = card, True
        self.grid = self.card_grid(first=card)

    def _toggle_ability(self) -> None:
        if self.first is not None:
            self.first, self.armed, self.grid = None, False, self.card_grid()
        elif self.armed:
            self.armed = False
        else:
            ability = self._ability()
            if not any(play.ability == ability for play in self.game.legal_actions):
                cards = () if ability in CARDLESS else (self.grid.value,) * (2 if ability == FIRE else 1)
                self.game.check(Play(self.seat, cards, ability))  # raises the engine's reason
            self.armed = True

    def progress(self, action: Any) -> int | None:
        """A Fire Breathing pair begun must be the pair ``action`` begins with."""
        begun = self.first is None or (isinstance(action, Play) and action.ability == FIRE
                                       and action.cards[0] == self.first)
        return 0 if begun else None

    # --- drawing -------------------------------------------------------------------------

    def draw(self, canvas: Canvas) -> None:
        self._header(canvas)
        for seat in range(self.game.n):
            self._seat_row(canvas, 1 + seat, seat)
        finished = [trick for trick in self.deal.tricks if trick.result is not None]
        if finished:
            # The ignore below: a finished trick has its result
            panel = self.t("trick.last", trick=len(finished), reason=self.ui.reason(finished[-1].result))  # type: ignore[arg-type]
        else:
            panel = self.t("trick.leads", seat=self.ui.seat_name(self.trick.lead))
        canvas.lines(PANEL_ROW, PANEL_ROWS, panel)

    def _header(self, canvas: Canvas) -> None:
        if self.first is not None:
            canvas.title(self.t("trick.fire", ability=self.names.ability(FIRE), card=self.names.card(self.first)))
        elif self.armed and self.held is not None:
            canvas.title(self.t("trick.armed", ability=self.names.ability(self.held), uses=self.deal.uses[self.seat]))
        else:
            canvas.text(0, self.t("trick.header", deal=self.deal.index + 1, deals=self.game.n))

    def _seat_row(self, canvas: Canvas, row: int, seat: int) -> None:
        active = seat == self.seat
        seat_row(canvas, self.app, self.game.setup.players, row, seat, active=active)
        if active:
            self._picker(canvas, row)
        else:
            canvas.text(row, self._played(seat), x=CARD_X)

    def _played(self, seat: int) -> str:
        """What ``seat`` has put down this trick, or its card of the last trick in parentheses."""
        turns = [turn for turn in self.trick.turns if turn.seat == seat]
        if turns:
            cards = [card for turn in turns for card in turn.cards]
            ability = self.trick.ability_of(seat)
            shown = self.names.cards(cards) or "-"
            return f"{shown} {self.names.ability(ability)}" if ability else shown
        if len(self.deal.tricks) > 1:
            before = [c for turn in self.deal.tricks[-2].turns if turn.seat == seat for c in turn.cards]
            return f"({self.names.cards(before)})" if before else ""
        return ""

    def _picker(self, canvas: Canvas, row: int) -> None:
        if self.armed and self.held in CARDLESS:
            canvas.text(row, self.t("trick.no_card"), x=CARD_X)
            return
        grid = self.grid
        canvas.text(row, self.names.suit_mark(grid.value.suit), x=CARD_X)
        halves = [[s for s, _ in entries] for entries, group in zip(grid.rows, grid.groups, strict=False)
                  if group == grid.groups[grid.row]]
        offered = {s for half in halves for s in half}
        for cell in range(1, TRUMP_SLOT + 1):
            x = CELLS_X + (cell - 1) * CELL
            if cell in offered:
                label = self.names.rank(0 if cell == TRUMP_SLOT else cell)
                canvas.cell(x, row, CELL, label, invert=cell == grid.slot)
            else:
                canvas.dot(x + CELL // 2 - 1, row)
        if len(halves) > 1:  # where UP/DOWN jump: between the suit's lower and upper half
            canvas.divider(CELLS_X + halves[0][-1] * CELL, row)


def suit_rows(suits: Iterable[str], offered: Iterable[Card], order: Iterable[int]) -> Grid[Card]:
    """The ``offered`` cards of the suits of ``order`` (indexes into ``suits``, which are also the
    rows' groups), each in slot order, two rows (its halves) when it has more than :data:`ONE_ROW`."""
    offered, suits = list(offered), list(suits)
    rows: list[list[tuple[int, Card]]] = []
    groups: list[int] = []
    for group in order:
        entries = sorted((slot(c), c) for c in offered if c.suit == suits[group])
        half = (len(entries) + 1) // 2 if len(entries) > ONE_ROW else len(entries)
        rows += [entries[:half], entries[half:]]
        groups += [group, group]
    return Grid.of(rows, groups=groups)


@TezumaUI.enters("draft")
class DraftScreen(TezumaScreen):
    """One seat takes a laid-out card: UP/DOWN choose the kind, LEFT/RIGHT the card, OK takes it."""

    def __init__(self, app: Host, ui: TezumaUI) -> None:
        super().__init__(app, ui)
        self.deal = self.game.state.deal
        self.seat = self.acting_seat()
        taken = {kind: {picks.get(kind) for picks in self.deal.picks} for kind in self.game.kinds}
        mine = self.deal.picks[self.seat]
        kinds = [kind for kind in self.game.kinds if kind not in mine]
        grid: Grid[tuple[str, str]] = Grid.of(
            ([(index, (kind, card)) for index, card in enumerate(laid_out(self.game, self.deal, kind))
              if card not in taken[kind]] for kind in kinds),
            groups=[self.game.kinds.index(kind) for kind in kinds],  # the card keypad's A, B, C: a kind's row
        )
        self.grid = self._near_last_pick(grid)

    def number_of(self, value: Any) -> int | None:
        """The card keypad types a laid-out card by its place in its row, 1 on the left."""
        kind, card = value
        return laid_out(self.game, self.deal, kind).index(card) + 1

    def _near_last_pick(self, grid: Grid[tuple[str, str]]) -> Grid[tuple[str, str]]:
        """Start where the last pick was taken, so the cursor (and the screen) barely moves."""
        last = self.game.actions[-1] if self.game.actions else None
        if not isinstance(last, Draft):
            return grid
        kinds = [row[0][1][0] for row in grid.rows]  # one row (and group) per kind still to take
        group = grid.groups[kinds.index(last.kind)] if last.kind in kinds else grid.groups[0]
        return grid.nearest(group, laid_out(self.game, self.deal, last.kind).index(last.card))

    def on_key(self, event: KeyEvent) -> None:
        if event.key in ARROWS:
            self.grid = self.grid.moved(event.key)
        elif event.key is Key.OK:
            kind, card = self.grid.value
            self.app.push(Draft(self.seat, kind, card))
        elif event.key is Key.BACK:
            self.app.open_menu()

    def draw(self, canvas: Canvas) -> None:
        """The laid-out cards still on the table, one kind a row, and every seat's picks below, the
        seat to pick marked: taking a card changes a few rows, not the whole screen. When the title
        would push a seat off the panel (4 players), the kinds' labels say which screen this is."""
        names = self.names
        first = 1 if 1 + len(self.game.kinds) + self.game.n <= canvas.rows else 0
        if first:
            canvas.title(self.t("draft.title", deal=self.deal.index + 1))
        taken = {kind: {picks.get(kind) for picks in self.deal.picks} for kind in self.game.kinds}
        cursor_kind, cursor_card = self.grid.value
        for row, kind in enumerate(self.game.kinds, start=first):
            canvas.text(row, names.kind(kind), x=4, width=44)
            offered = [card for card in laid_out(self.game, self.deal, kind) if card not in taken[kind]]
            if kind == ABILITY:
                shown = cursor_card if kind == cursor_kind else offered[0]
                canvas.text(row, names.ability(shown), x=48, invert=kind == cursor_kind)
                continue
            for position, card in enumerate(offered):
                label = names.suit_mark(card) if kind == PENALTY else card
                canvas.cell(48 + position * 10, row, 10, label, invert=(kind, card) == (cursor_kind, cursor_card))
        for seat in range(self.game.n):
            row = first + len(self.game.kinds) + seat
            picks = self.deal.picks[seat]
            picked = [names.suit_mark(picks[PENALTY]) if PENALTY in picks else "-", picks.get(SCORING, "-")]
            if ABILITY in self.game.kinds:
                picked.append(names.ability(picks[ABILITY]) if ABILITY in picks else "-")
            if seat == self.seat:
                canvas.text(row, ">")
            canvas.text(row, f"{self.ui.seat_name(seat)}: {' '.join(picked)}", x=4)


@TezumaUI.enters("answer")
class QuestionScreen(AnswerScreen):
    """A score-card fact the print lost: UP/DOWN +-1, RIGHT/LEFT +-5, OK answers (and is remembered)."""

    ui: TezumaUI

    def __init__(self, app: Host, ui: TezumaUI) -> None:
        super().__init__(app, ui)
        self.number = Number(self.question.suggestion, self.question.minimum, self.question.maximum)

    def move(self, arrow: Key) -> None:
        self.number = self.number.moved(arrow)

    def confirm(self) -> None:
        self.answer(self.number.value)

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.t("question.title"))
        canvas.lines(1, 3, self.ui.names.question(self.question))
        canvas.text(5, f"< {self.number.value} >", x=48)
        canvas.text(ROWS - 1, self.t("hint.number"))
