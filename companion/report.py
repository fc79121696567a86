"""A game's replay for people: the summary with its reasons said in a language, and as text.

:meth:`~companion.engine.tricks.TrickGame.summary` gives plain data whose reasons are phrase codes;
this is the one place that turns them into text for ``companion replay`` (text and ``--json``).
The common keys (docs/record-format.md) print the same for every game, with names and seats as
people say them (:class:`Wording`); a game's own keys print where its class says them (its report
rows: :meth:`~companion.engine.tricks.TrickGame.report_deal_rows` and the like) or its catalogue
labels a per-seat figure, and ``--json`` keeps all the data. No game's keys are named here.

>>> from companion.carddata import printed_cards
>>> from companion.games.irohanihohedo.rules import Irohanihohedo
>>> game = Irohanihohedo(Irohanihohedo.new_setup("ABC", cards=printed_cards("irohanihohedo")))
>>> for card in ["O7", "G3", "B2"]:
...     _ = game.push_text(card)
>>> trick = rendered_summary(game)["deals"][0]["tricks"][0]
>>> trick["reason"], trick["reason_codes"][0]["code"]
('P1: highest butterfly (2); trump marker moved to butterfly (P1 could not follow)', 'irohanihohedo.win')
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TextIO

from companion.engine.tricks import Phrase, ReportRows, Term, TrickGame
from companion.registry import plugin
from companion.text import Catalog, Formatter, printable


def rendered_summary(game: TrickGame[Any], lang: str = "en", catalog: Catalog | None = None) -> dict[str, Any]:
    """``game.summary()`` with every ``reason`` (and ``house``) as text in ``lang``; the codes stay
    beside them as ``reason_codes``."""
    summary = game.summary()
    formatter = Formatter.for_game(catalog or Catalog.load(), lang, game)

    def say(phrases: Sequence[Mapping[str, Any]]) -> str:
        return formatter.reason([Phrase.from_json(phrase) for phrase in phrases])

    for deal in summary["deals"]:
        for trick in deal["tricks"]:
            codes = trick["reason"]
            house = [phrase for phrase in codes if phrase["code"] == trick["house"]]
            trick.update(reason=say(codes), reason_codes=codes, house=say(house) if house else None)
    for revoke in summary["revokes"]:
        revoke.update(reason=say(revoke["reason"]), reason_codes=revoke["reason"])
    return summary


# The common deal keys (docs/record-format.md): not a game's own per-seat figures.
DEAL_KEYS = {"start", "tricks", "tricks_won", "scores"}


def plural(count: int, noun: str) -> str:
    """``count`` and its noun, which is plural unless the count is one.

    >>> plural(1, "trick"), plural(0, "trick"), plural(-1, "point")
    ('1 trick', '0 tricks', '-1 point')
    """
    return f"{count} {noun}{'' if abs(count) == 1 else 's'}"


def _no_names(term: Term, lang: str) -> str | None:
    return None


@dataclass(frozen=True)
class Wording:
    """How the plain replay names things: seats by the game's labels (P1 first), a game's terms
    (an ability's name, not its id) from its card data or the catalogue, the game's own summary keys
    by the report rows of its class (:class:`~companion.engine.tricks.ReportRows`), and its other
    per-seat figures where its catalogue fragment labels them (``<module>.report.<key>``, with ``{n}``).
    What nothing names stays out of the text; ``--json`` keeps all of it."""

    seat_label: Callable[[int], str] = lambda seat: f"P{seat + 1}"
    term_name: Callable[[Term, str], str | None] = _no_names
    catalog: Catalog | None = None
    lang: str = "en"
    module: str = ""  # the game's package name (its plugin record's module), which prefixes its catalogue keys
    rows: type[ReportRows] = ReportRows  # the game's class, whose report rows print its own keys
    words: str = ""  # the game's own wording of shared texts (TrickGame.wording: Zenjidou's rounds)

    @classmethod
    def for_game(cls, game: TrickGame[Any], catalog: Catalog | None = None, lang: str = "en") -> Wording:
        module = plugin(game.game_id).module
        return cls(game.seat_label, game.term_name, catalog or Catalog.load(), lang, module, type(game),
                   game.wording)

    def deal_title(self, number: int) -> str:
        """A deal's heading, in the game's words (``Round 2`` for Zenjidou); ``Deal 2`` without a catalogue."""
        if self.catalog is None:
            return f"Deal {number}"
        return self.catalog.text(self.lang, self.catalog.worded("report.deal", self.words), n=number)

    def term(self, kind: str, ident: str) -> str:
        """A term's name, e.g. ``term("ability", "baby-chicks")`` is "Baby Chicks"; else the id."""
        named = self.term_name(Term(kind, ident), self.lang)
        if named is not None:
            return named
        key = f"{kind}.{ident}"
        return self.catalog.text(self.lang, key) if self.catalog is not None and self.catalog.has(key) else ident

    def figure(self, key: str, value: object) -> str | None:
        """A game's own per-seat figure in words, if its catalogue fragment labels ``key``."""
        template = f"{self.module}.report.{key}"
        if self.catalog is None or not self.catalog.has(template) or not isinstance(value, int):
            return None
        return self.catalog.text(self.lang, template, n=value)


def write_text(summary: Mapping[str, Any], out: TextIO, *, seat_label: Callable[[int], str] | None = None,
               wording: Wording | None = None) -> None:
    """The replay as a person reads it: every trick, every deal's scores, the totals.

    ``wording`` (:meth:`Wording.for_game`) names seats and terms as the game does and prints its
    own keys; ``seat_label`` alone replaces just the seats' labels.
    """
    wording = wording or Wording()
    if seat_label is not None:
        wording = replace(wording, seat_label=seat_label)
    for line in TextReport(wording, summary["players"]).lines(summary):
        # seat names and card names come from the record: escape sequences in a hostile one would
        # drive the reader's terminal (clear it, set its title), so they print as "?"
        print("\n".join(printable(part, None) for part in line.split("\n")), file=out)


@dataclass(frozen=True)
class TextReport:
    """The lines of one replay summary: a deal's header, its game's own rows, tricks and scores."""

    wording: Wording
    names: Sequence[str]

    def lines(self, summary: Mapping[str, Any]) -> Iterator[str]:
        """The text one printed line at a time (a section's first line begins with its blank line)."""
        who = self.who
        yield f"{summary['game']}: {', '.join(who(s) for s in range(len(self.names)))}"
        for number, deal in enumerate(summary["deals"], start=1):
            yield from self.deal(number, deal)
        for revoke in summary["revokes"]:
            yield f"\nREVOKE: {revoke['reason']}"
        yield "\nTotals: " + ", ".join(f"{who(s)} {t}" for s, t in enumerate(summary["totals"]))
        winners = summary["winners"]
        if winners:
            yield "Winner" + ("s" if len(winners) > 1 else "") + ": " + ", ".join(who(s) for s in winners)
        if summary["pending"]:
            yield f"Waiting for: {summary['pending']['prompt']}"

    def who(self, seat: int) -> str:
        return f"{self.wording.seat_label(seat)} {self.names[seat] if seat < len(self.names) else ''}".rstrip()

    def deal(self, number: int, deal: Mapping[str, Any]) -> Iterator[str]:
        start = "not known yet" if deal["start"] is None else self.who(deal["start"])  # Zenjidou: bottom cards
        yield f"\n{self.wording.deal_title(number)} (start: {start})"
        rows = self.wording.rows.report_deal_rows(deal, self.wording)
        yield from (f"  {self.who(seat)}: {row}" for seat, row in rows)
        yield from (self.trick(number, trick) for number, trick in enumerate(deal["tricks"], start=1))
        if deal["scores"] is not None:
            yield from self.scores(deal)

    def trick(self, number: int, trick: Mapping[str, Any]) -> str:
        label, rows = self.wording.seat_label, self.wording.rows
        plays = "  ".join(f"{label(play['seat'])}:{play['card'] or '-'}{rows.report_play_mark(play, self.wording)}"
                          for play in trick["cards"])
        return f"  trick {number:2}: {plays}  -> {trick['reason']}"

    def scores(self, deal: Mapping[str, Any]) -> Iterator[str]:
        """Per seat: its tricks, the parts its game names, its catalogue-labelled figures, its score.

        A seat is one of the deal's scores, which need not be a player (2-player Zenjidou scores four
        hands), so a per-seat figure is a list as long as the scores, never one per player."""
        rows, count = self.wording.rows, len(deal["scores"])
        own = {key: value for key, value in deal.items() if key not in DEAL_KEYS and key not in rows.report_keys
               and isinstance(value, list) and len(value) == count}
        for seat, score in enumerate(deal["scores"]):
            parts = [plural(deal["tricks_won"][seat], "trick")] if seat < len(deal["tricks_won"]) else []
            parts += rows.report_score_parts(deal, seat)
            parts += filter(None, (self.wording.figure(key, values[seat]) for key, values in own.items()))
            yield f"  {self.who(seat)}: {', '.join(parts)} -> {score}"
