"""A game's replay for people: the summary with its reasons said in a language, and as text.

:meth:`~companion.engine.tricks.TrickGame.summary` gives plain data whose reasons are phrase codes;
this is the one place that turns them into text for ``companion replay`` (text and ``--json``).
The common keys (docs/record-format.md) print the same for every game; a game's own keys print
when present (Tezuma's picks, points and penalties).

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

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TextIO

from companion.engine.tricks import Phrase, TrickGame
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


def write_text(summary: Mapping[str, Any], out: TextIO, *,
               seat_label: Callable[[int], str] = lambda seat: f"P{seat + 1}") -> None:
    """The replay as a person reads it: every trick, every deal's scores, the totals.

    ``seat_label`` is the game's own (a device-played seat or a second hand has its own name);
    a game's own keys of the schema print after the common ones, as JSON.
    """
    names = summary["players"]

    def who(seat: int) -> str:
        return f"{seat_label(seat)} {names[seat] if seat < len(names) else ''}".rstrip()

    def extras(entry: Mapping[str, Any], common: set[str]) -> str:
        return "".join(f"  {key} {json.dumps(value, ensure_ascii=False)}" for key, value in entry.items()
                       if key not in common)

    print(f"{summary['game']}: {', '.join(who(s) for s in range(len(names)))}", file=out)
    for d, deal in enumerate(summary["deals"], start=1):
        print(f"\nDeal {d} (start: {who(deal['start'])})", file=out)
        for seat, picks in enumerate(deal.get("picks", [])):
            if picks:
                print(f"  {who(seat)}: " + ", ".join(f"{k} {v}" for k, v in picks.items()), file=out)
        for t, trick in enumerate(deal["tricks"], start=1):
            plays = "  ".join(
                f"{seat_label(p['seat'])}:{p['card'] or '-'}" + (f"[{p['ability']}]" if p.get("ability") else "")
                for p in trick["cards"]
            )
            print(f"  trick {t:2}: {plays}  -> {trick['reason']}{extras(trick, TRICK_KEYS)}", file=out)
        if deal["scores"] is not None:
            for seat, score in enumerate(deal["scores"]):
                parts = [plural(deal["tricks_won"][seat], "trick")] if seat < len(deal["tricks_won"]) else []
                if "points" in deal:
                    parts.append(plural(deal["points"][seat], "point"))
                    if deal["penalties"][seat]:
                        parts.append(f"penalty {deal['penalties'][seat]}")
                print(f"  {who(seat)}: {', '.join(parts)} -> {score}", file=out)
            more = extras(deal, DEAL_KEYS)
            if more:
                print(f" {more}", file=out)
    for revoke in summary["revokes"]:
        print(f"\nREVOKE: {revoke['reason']}", file=out)
    print("\nTotals: " + ", ".join(f"{who(s)} {t}" for s, t in enumerate(summary["totals"])), file=out)
    if summary["winners"]:
        winners = summary["winners"]
        print("Winner" + ("s" if len(winners) > 1 else "") + ": " + ", ".join(who(s) for s in winners), file=out)
    if summary["pending"]:
        print(f"Waiting for: {summary['pending']['prompt']}", file=out)
