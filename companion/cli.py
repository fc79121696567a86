"""``companion``: the command line of the device and of the PC tools around it."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from companion import carddata
from companion.registry import game_class, game_ids
from companion.engine.record import GameBuilder, export_lines, read_record
from companion.errors import CompanionError
from companion.paths import state_dir
from companion.report import rendered_summary, write_text


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["run"]:
        # the device takes luma's display options too, so it parses its own command line
        from companion.daemon.app import main_run

        return main_run(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except CompanionError as err:
        print(f"companion: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    commands.add_parser("run", help="run the device (--mock for simulated hardware; run --help for options)")

    games = commands.add_parser("games", help="list the playable game ids")
    games.set_defaults(handler=cmd_games)

    replay = commands.add_parser("replay", help="adjudicate a game record and print every trick and score")
    replay.add_argument("record", type=Path, help="a record or journal (JSON Lines); - for standard input")
    replay.add_argument("--json", action="store_true", help="print the summary as JSON (docs/record-format.md)")
    replay.set_defaults(handler=cmd_replay)

    export = commands.add_parser("export", help="write a journal as a clean record (undos folded away)")
    export.add_argument("record", type=Path)
    export.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    export.set_defaults(handler=cmd_export)

    cards = commands.add_parser("cards", help="card facts the table supplied for cards whose print was lost")
    cards.add_argument("--facts", type=Path, help=f"the facts file (default: STATE/{carddata.FACTS_FILE})")
    verbs = cards.add_subparsers(dest="verb", required=True, metavar="VERB")
    verbs.add_parser("list", help="list printed gaps and what the table told").set_defaults(handler=cmd_cards_list)
    set_ = verbs.add_parser("set", help="set or correct one fact, e.g. set tezuma-2015 points:3:5 8")
    set_.add_argument("game")
    set_.add_argument("key")
    set_.add_argument("value", type=int)
    set_.set_defaults(handler=cmd_cards_set)
    delete = verbs.add_parser("delete", help="forget one fact")
    delete.add_argument("game")
    delete.add_argument("key")
    delete.set_defaults(handler=cmd_cards_delete)
    exp = verbs.add_parser("export", help="print the facts file as JSON")
    exp.set_defaults(handler=cmd_cards_export)
    imp = verbs.add_parser("import", help="merge facts from a JSON file (later values win, changes are listed)")
    imp.add_argument("file", type=Path)
    imp.set_defaults(handler=cmd_cards_import)
    return parser


def cmd_games(args: argparse.Namespace) -> int:
    for game_id in game_ids():
        cls = game_class(game_id)
        print(f"{game_id:14} {cls.title} ({cls.min_players}-{cls.max_players} players)")
    return 0


def _read_lines(path: Path) -> list[str]:
    if str(path) == "-":
        return sys.stdin.read().splitlines()
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as err:
        raise CompanionError(f"cannot read {path}: {err.strerror}") from None


def cmd_replay(args: argparse.Namespace) -> int:
    builder = read_record(_read_lines(args.record), GameBuilder())
    game = builder.game
    summary = rendered_summary(game) if game is not None else None
    if args.json:
        if summary is not None:
            print(json.dumps(summary, ensure_ascii=False, indent=1))
    elif summary is not None:
        write_text(summary, sys.stdout)
    if builder.failure is not None:
        print(f"companion: {args.record}: {builder.failure}", file=sys.stderr)
        return 1
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    builder = read_record(_read_lines(args.record), GameBuilder())
    if builder.failure is not None or builder.game is None:
        raise CompanionError(f"{args.record}: {builder.failure}")
    text = "\n".join(export_lines(builder.game)) + "\n"
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _facts_path(args: argparse.Namespace) -> Path:
    return args.facts or state_dir() / carddata.FACTS_FILE


def cmd_cards_list(args: argparse.Namespace) -> int:
    facts = carddata.load_facts(_facts_path(args))
    for game_id in game_ids():
        for gap in carddata.printed_gaps(game_id):
            print(f"{game_id} {gap}: not printed in the rules text")
    for game, key, value in carddata.iter_facts(facts):
        print(f"{game} {key} = {value} (told by a table)")
    return 0


def cmd_cards_set(args: argparse.Namespace) -> int:
    path = _facts_path(args)
    facts = carddata.load_facts(path)
    carddata.check_fact_key(args.game, args.key)
    carddata.set_fact(facts, args.game, args.key, args.value)
    carddata.save_facts(path, facts)
    print(f"{args.game} {args.key} = {args.value}")
    return 0


def cmd_cards_delete(args: argparse.Namespace) -> int:
    path = _facts_path(args)
    facts = carddata.load_facts(path)
    if not carddata.delete_fact(facts, args.game, args.key):
        raise CompanionError(f"no fact {args.game} {args.key}")
    carddata.save_facts(path, facts)
    return 0


def cmd_cards_export(args: argparse.Namespace) -> int:
    print(json.dumps(carddata.load_facts(_facts_path(args)), ensure_ascii=False, indent=1))
    return 0


def cmd_cards_import(args: argparse.Namespace) -> int:
    path = _facts_path(args)
    facts = carddata.load_facts(path)
    other = carddata.load_facts(args.file)
    for game, key, _ in carddata.iter_facts(other):
        carddata.check_fact_key(game, key)
    for change in carddata.merge_facts(facts, other):
        print(f"changed: {change}")
    carddata.save_facts(path, facts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
