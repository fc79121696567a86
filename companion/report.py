"""A game's replay for people: the summary with its reasons said in a language, and as text.

:meth:`~companion.engine.tricks.TrickGame.summary` gives plain data whose reasons are phrase codes;
this is the one place that turns them into text for ``companion replay`` (text and ``--json``).
The common keys (docs/record-format.md) print the same for every game, with names and seats as
people say them (:class:`Wording`); a game's own keys print where they have words (Tezuma's picks,
points and penalties; per-seat figures its catalogue labels), and ``--json`` keeps all the data.

>>> from companion.carddata import printed_cards
>>> from companion.games.irohanihohedo import Irohanihohedo
>>> game = Irohanihohedo(Irohanihohedo.new_setup("ABC", cards=printed_cards("irohanihohedo")))
>>> for card in ["O7", "G3", "B2"]:
...     _ = game.push_text(card)
>>> trick = rendered_summary(game)["deals"][0]["tricks"][0]
>>> trick["reason"], trick["reason_codes"][0]["code"]
('P1: highest butterfly (2); trump marker moved to butterfly (P1 could not follow)', 'irohanihohedo.win')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TextIO

from companion.engine.tricks import Phrase, Term, TrickGame
from companion.text import Catalog, Formatter


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


TRICK_KEYS = {"lead", "winner", "next_lead", "reason", "reason_codes", "house", "cards"}
DEAL_KEYS = {"start", "tricks", "tricks_won", "scores", "picks", "points", "penalties"}


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
    (an ability's name, not its id) from its card data or the catalogue, and the game's own
    per-seat figures where its catalogue fragment labels them (``<module>.report.<key>``, with ``{n}``).
    What nothing names stays out of the text; ``--json`` keeps all of it."""

    seat_label: Callable[[int], str] = lambda seat: f"P{seat + 1}"
    term_name: Callable[[Term, str], str | None] = _no_names
    catalog: Catalog | None = None
    lang: str = "en"
    module: str = ""  # the game's module, which prefixes its catalogue keys

    @classmethod
    def for_game(cls, game: TrickGame[Any], catalog: Catalog | None = None, lang: str = "en") -> Wording:
        module = type(game).__module__.rpartition(".")[2]
        return cls(game.seat_label, game.term_name, catalog or Catalog.load(), lang, module)

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

    ``wording`` (:meth:`Wording.for_game`) names seats and terms as the game does; ``seat_label``
    alone replaces just the seats' labels.
    """
    wording = wording or Wording()
    if seat_label is not None:
        wording = replace(wording, seat_label=seat_label)
    label = wording.seat_label
    names = summary["players"]
    seats = range(len(names))

    def who(seat: int) -> str:
        return f"{label(seat)} {names[seat] if seat < len(names) else ''}".rstrip()

    print(f"{summary['game']}: {', '.join(who(s) for s in seats)}", file=out)
    for d, deal in enumerate(summary["deals"], start=1):
        print(f"\nDeal {d} (start: {who(deal['start'])})", file=out)
        for seat, picks in enumerate(deal.get("picks", [])):
            if picks:
                print(f"  {who(seat)}: " + ", ".join(f"{k} {wording.term(k, v)}" for k, v in picks.items()), file=out)
        for t, trick in enumerate(deal["tricks"], start=1):
            plays = "  ".join(
                f"{label(p['seat'])}:{p['card'] or '-'}"
                + (f"[{wording.term('ability', p['ability'])}]" if p.get("ability") else "")
                for p in trick["cards"]
            )
            print(f"  trick {t:2}: {plays}  -> {trick['reason']}", file=out)
        if deal["scores"] is not None:
            own = {key: value for key, value in deal.items()
                   if key not in DEAL_KEYS and isinstance(value, list) and len(value) == len(names)}
            for seat, score in enumerate(deal["scores"]):
                parts = [plural(deal["tricks_won"][seat], "trick")] if seat < len(deal["tricks_won"]) else []
                if "points" in deal:
                    parts.append(plural(deal["points"][seat], "point"))
                    if deal["penalties"][seat]:
                        parts.append(f"penalty {deal['penalties'][seat]}")
                parts += filter(None, (wording.figure(key, values[seat]) for key, values in own.items()))
                print(f"  {who(seat)}: {', '.join(parts)} -> {score}", file=out)
    for revoke in summary["revokes"]:
        print(f"\nREVOKE: {revoke['reason']}", file=out)
    print("\nTotals: " + ", ".join(f"{who(s)} {t}" for s, t in enumerate(summary["totals"])), file=out)
    if summary["winners"]:
        winners = summary["winners"]
        print("Winner" + ("s" if len(winners) > 1 else "") + ": " + ", ".join(who(s) for s in winners), file=out)
    if summary["pending"]:
        print(f"Waiting for: {summary['pending']['prompt']}", file=out)
