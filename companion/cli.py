"""``companion``: the command line of the device and of the PC tools around it."""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from companion import __version__, carddata
from companion.errors import CompanionError, ConfigError, quoted
from companion.inputs import CommandLineParser, escape_unencodable_output, read_text_file
from companion.journal import held_by_a_writer
from companion.paths import check_output_file, tools_state_dir
from companion.registry import game_class, game_ids
from companion.roster import MAX_NAME_CELLS, ROSTER_FILE, Roster
from companion.storage import atomic_replace, read_file, reason
from companion.text import printable

if TYPE_CHECKING:  # the record codec loads for the commands that read a record, not for `run`
    from companion.record import GameBuilder

Result = TypeVar("Result")

RECORD_LIMIT = 64 << 20  # a whole evening's journal is a few hundred kilobytes
MAX_IMPORT_BYTES = 4 * 1024 * 1024  # every fact of every game is a few KiB

# Exit statuses, the same for every command (shown in --help):
EXIT_OK = 0
EXIT_BAD_RECORD = 1  # a record read but damaged or against the rules; replay prints what it could first
EXIT_USAGE = 2  # a mistake in the command or its files; nothing was changed
EXIT_STATUS_HELP = """\
exit status: 0 done; 1 the record is damaged or breaks the rules (replay prints the part before
it); 2 a mistake in the command, its options or its files (one line says which), nothing changed;
130 interrupted by Ctrl-C, nothing half-written.
"""


def main(argv: Sequence[str] | None = None, *, own_process: bool = False) -> int:
    """The command line; ``own_process`` when it is the whole process (``python -m companion``),
    which exits once the command returns."""
    argv = list(sys.argv[1:] if argv is None else argv)
    escape_unencodable_output()
    if argv[:1] == ["run"]:
        # the device takes luma's display options too, so it parses its own command line
        from companion.daemon.run import main_run

        return main_run(argv[1:], own_process=own_process)
    try:
        args = parse_command_line(argv)
        return int(args.handler(args) or EXIT_OK)
    except CompanionError as err:
        print(f"companion: {err}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK


def parse_command_line(argv: Sequence[str]) -> argparse.Namespace:
    """The command and its options; a mistake is a ConfigError naming the option and the command."""
    if argv and argv[0].startswith("-") and argv[0].split("=")[0] not in ("-h", "--help", "--version"):
        raise ConfigError(f"unknown option {quoted(argv[0])}: a command comes first, its options after it;"
                          " see 'companion --help'")
    args, unknown = build_parser().parse_known_args(argv)
    if unknown:
        command = " ".join(filter(None, (args.command, getattr(args, "verb", None))))
        what = "option" if unknown[0].startswith("-") else "argument"
        raise ConfigError(f"{command}: unknown {what} {quoted(unknown[0])}; see 'companion {command} --help'")
    return args


def build_parser() -> argparse.ArgumentParser:
    parser = CommandLineParser(prog="companion", description=__doc__, epilog=EXIT_STATUS_HELP,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    commands.add_parser("run", help="run the device (--mock for simulated hardware; run --help for options)")

    games = commands.add_parser("games", help="list the playable game ids")
    games.set_defaults(handler=cmd_games)

    replay = commands.add_parser("replay", help="adjudicate a game record and print every trick and score",
                                 epilog=EXIT_STATUS_HELP)
    replay.add_argument("record", type=Path, help="a record or journal (JSON Lines); - for standard input")
    replay.add_argument("--json", action="store_true", help="print the summary as JSON (docs/record-format.md)")
    replay.set_defaults(handler=cmd_replay)

    export = commands.add_parser("export", help="write a journal as a clean record (undos folded away)",
                                 epilog=EXIT_STATUS_HELP)
    export.add_argument("record", type=Path)
    export.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    export.set_defaults(handler=cmd_export)

    cards = commands.add_parser(
        "cards",
        help="card facts the table supplied for cards whose print was lost",
        epilog="The facts file used is named on standard error. "
        "Exit status: 0 done; 2 refused (one line says why), nothing changed.",
    )
    cards.add_argument(
        "--facts",
        type=Path,
        help=f"the facts file (default: STATE/{carddata.FACTS_FILE}, where STATE is "
        "$STATE_DIRECTORY, else the installed device's /var/lib/tabletop-companion, "
        "else ~/.local/state/tabletop-companion)",
    )
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
    imp = verbs.add_parser(
        "import",
        help="merge facts from a file written by 'cards export' (its values win; each added or changed fact is listed)",
    )
    imp.add_argument("file", type=Path)
    imp.set_defaults(handler=cmd_cards_import)

    players = commands.add_parser(
        "players",
        help="the roster: the players' own names, offered first by the device's setup form",
        epilog="The roster file used is named on standard error. "
        "Exit status: 0 done; 2 refused (one line says why), nothing changed.",
    )
    players.add_argument(
        "--state-dir", type=Path, metavar="DIR",
        help=f"the state directory whose {ROSTER_FILE} to use (default: $STATE_DIRECTORY, else the installed "
        "device's /var/lib/tabletop-companion, else ~/.local/state/tabletop-companion)",
    )
    who = players.add_subparsers(dest="verb", required=True, metavar="VERB")
    who.add_parser("list", help="every name, most recently used first").set_defaults(handler=cmd_players_list)
    add = who.add_parser("add", help=f"add a name (any script, at most {MAX_NAME_CELLS} half-width or "
                         f"{MAX_NAME_CELLS // 2} full-width characters)")
    add.add_argument("name")
    add.set_defaults(handler=cmd_players_add)
    remove = who.add_parser("remove", help="remove a name")
    remove.add_argument("name")
    remove.set_defaults(handler=cmd_players_remove)

    from companion.organiser.command import add_scoreboard_command  # the organiser's side: not for `run`

    add_scoreboard_command(commands)
    return parser


def _roster(args: argparse.Namespace) -> Roster:
    """The roster to act on, named on stderr: on a Pi, the device's own unless told otherwise."""
    roster = Roster(args.state_dir or tools_state_dir())
    print(f"companion: roster file {roster.path}", file=sys.stderr)
    return roster


def _change_roster(args: argparse.Namespace, change: Callable[[Roster], Result]) -> Result:
    roster = _roster(args)
    try:
        return change(roster)
    except OSError as err:  # StorageError names the file and the reason; the rest say the reason
        raise CompanionError(_storage_problem(err, "write", roster.path)) from None


def cmd_players_list(args: argparse.Namespace) -> int:
    for name in _change_roster(args, Roster.names):
        print(printable(name))
    return EXIT_OK


def cmd_players_add(args: argparse.Namespace) -> int:
    print(f"added: {printable(_change_roster(args, lambda roster: roster.add(args.name)))}")
    return EXIT_OK


def cmd_players_remove(args: argparse.Namespace) -> int:
    print(f"removed: {printable(_change_roster(args, lambda roster: roster.remove(args.name)))}")
    return EXIT_OK


def cmd_games(args: argparse.Namespace) -> int:
    for game_id in game_ids():
        cls = game_class(game_id)
        print(f"{game_id:14} {cls.title} ({cls.min_players}-{cls.max_players} players)")
    return 0


def _read_record(path: Path) -> GameBuilder:
    """A record or journal read exactly as the device reads its journal (one reader)."""
    if str(path) == "-":
        data = sys.stdin.buffer.read(RECORD_LIMIT + 1)
        if len(data) > RECORD_LIMIT:
            raise CompanionError(f"standard input holds more than {RECORD_LIMIT} bytes: not a record")
    else:
        try:
            data = read_file(path, RECORD_LIMIT)  # StorageError (a CompanionError) names other problems
        except FileNotFoundError:
            raise CompanionError(f"cannot read {path}: no such file") from None
    from companion.record import GameBuilder, read_bytes

    builder: GameBuilder = read_bytes(data, GameBuilder(defers=True))
    return builder


def cmd_replay(args: argparse.Namespace) -> int:
    # The replay's layer and text are loaded here, not with the command line: `run` starts without them.
    from companion.engine.tricks import TrickGame
    from companion.report import Wording, rendered_summary, write_text

    builder = _read_record(args.record)
    game = builder.game
    summary = rendered_summary(game) if isinstance(game, TrickGame) else None  # every registered game is one
    if args.json:
        if summary is not None:
            print(json.dumps(summary, ensure_ascii=False, indent=1))
    elif isinstance(game, TrickGame) and summary is not None:
        write_text(summary, sys.stdout, wording=Wording.for_game(game))
    if builder.failure is not None:
        print(f"companion: {args.record}: {builder.failure}", file=sys.stderr)
        return EXIT_BAD_RECORD
    return EXIT_OK



def check_not_overwriting(output: Path, record: Path) -> None:
    """Refuse an ``-o`` that is the record itself, or a journal a running device writes: the new
    file would be renamed into its place while the device went on appending to the old one, so
    every play acknowledged after that would be lost."""
    if not output.exists():
        return
    if str(record) != "-" and record.exists() and os.path.samefile(output, record):
        raise ConfigError(f"-o {output}: that is the record being exported; write to another file")
    if held_by_a_writer(output):
        raise ConfigError(f"-o {output}: a running device is writing that journal; write to another file")


def cmd_export(args: argparse.Namespace) -> int:
    if args.output:
        check_output_file(args.output, "-o")
        check_not_overwriting(args.output, args.record)
    builder = _read_record(args.record)
    if builder.failure is not None or builder.game is None:
        print(f"companion: {args.record}: {builder.failure or 'no game in it'}", file=sys.stderr)
        return EXIT_BAD_RECORD
    from companion.record import export_lines

    text = "\n".join(export_lines(builder.game)) + "\n"
    if args.output:
        try:
            atomic_replace(args.output, text.encode("utf-8"))
        except OSError as err:
            raise CompanionError(f"-o {args.output}: cannot write it: {err.strerror}") from None
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _facts_path(args: argparse.Namespace) -> Path:
    """The facts file to act on, named on stderr: on a Pi, the device's own unless told otherwise."""
    path: Path = args.facts or tools_state_dir() / carddata.FACTS_FILE
    print(f"companion: card facts file {path}", file=sys.stderr)
    return path


def _load_facts(path: Path) -> dict[str, Any]:
    try:
        return carddata.load_facts(path)
    except OSError as err:  # StorageError (a directory, no permission...) names the file and the reason
        raise CompanionError(_storage_problem(err, "read", path)) from None


def _update_facts(path: Path, change: Callable[[dict[str, Any]], Result]) -> Result:
    """``change`` the facts file under its lock, so concurrent writers (the device too) all last."""
    try:
        return carddata.update_facts(path, change)
    except OSError as err:
        raise CompanionError(_storage_problem(err, "write", path)) from None


def _storage_problem(err: OSError, verb: str, path: Path) -> str:
    """What went wrong, in one phrase (a StorageError's own text names the file and the reason),
    with the way out when it is a permission the service's user has."""
    text = str(err) if isinstance(err, CompanionError) else f"cannot {verb} {path}: {reason(err)}"
    causes = [err, err.__cause__]
    if any(isinstance(cause, OSError) and cause.errno in (errno.EACCES, errno.EPERM) for cause in causes):
        text += _SERVICE_USER_HINT
    return text


_SERVICE_USER_HINT = " (on the device, run it as the service's user: sudo -u companion ...)"


def cmd_cards_list(args: argparse.Namespace) -> int:
    facts = _load_facts(_facts_path(args))
    for game_id in game_ids():
        for gap in carddata.printed_gaps(game_id):
            print(f"{game_id} {gap}: not printed in the rules text")
    for game, key, value in carddata.iter_facts(facts):
        print(f"{game} {key} = {value} (told by a table)")
    for game_id in game_ids():
        for note in carddata.fact_notes(game_id, facts):
            print(f"{game_id} {note}")
    return EXIT_OK


def cmd_cards_set(args: argparse.Namespace) -> int:
    carddata.check_fact(args.game, args.key, args.value)

    def set_and_note(facts: dict[str, Any]) -> list[str]:
        carddata.set_fact(facts, args.game, args.key, args.value)
        return carddata.fact_notes(args.game, facts)  # e.g. a set of numbers still partial

    notes = _update_facts(_facts_path(args), set_and_note)
    print(f"{args.game} {args.key} = {args.value}")
    for note in notes:
        print(f"{args.game} {note}")
    return EXIT_OK


def cmd_cards_delete(args: argparse.Namespace) -> int:
    def delete(facts: dict[str, Any]) -> int | None:
        old = carddata.get_fact(facts, args.game, args.key)
        if not carddata.delete_fact(facts, args.game, args.key):
            raise CompanionError(f"no fact {args.game} {quoted(args.key)} to delete")
        return old

    old = _update_facts(_facts_path(args), delete)
    print(f"deleted: {args.game} {args.key} (was {old})")
    return EXIT_OK


def cmd_cards_export(args: argparse.Namespace) -> int:
    print(json.dumps(_load_facts(_facts_path(args)), ensure_ascii=False, indent=1))
    return EXIT_OK


def read_facts_to_import(path: Path) -> dict[str, Any]:
    """A file written by ``cards export``, checked whole before anything is merged."""
    text = read_text_file(path, "facts file to import", limit=MAX_IMPORT_BYTES)
    try:
        other: dict[str, Any] = json.loads(text)  # validate_facts below refuses a non-object
    except json.JSONDecodeError as err:
        lines = (
            "; it has several lines: a game record? import takes what 'cards export' writes"
            if err.msg == "Extra data"
            else ""
        )
        raise ConfigError(
            f"{path}: not a card-facts file: not valid JSON ({err.msg}, line {err.lineno}){lines}"
        ) from None
    except ValueError as err:  # e.g. an integer longer than Python converts (4,300 digits)
        raise ConfigError(f"{path}: not a card-facts file: {err}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not a card-facts file: nested too deeply") from None
    carddata.validate_facts(other, str(path))
    for game, key, value in carddata.iter_facts(other):
        carddata.check_fact(game, key, value)
    return other


def cmd_cards_import(args: argparse.Namespace) -> int:
    other = read_facts_to_import(args.file)

    def merge(facts: dict[str, Any]) -> dict[tuple[str, str], int]:
        before = {(game, key): value for game, key, value in carddata.iter_facts(facts)}
        carddata.merge_facts(facts, other)
        return before

    before = _update_facts(_facts_path(args), merge)
    unchanged = 0
    for game, key, value in carddata.iter_facts(other):
        old = before.get((game, key))
        if old is None:
            print(f"added: {game} {key} = {value}")
        elif old != value:
            print(f"changed: {game} {key}: {old} -> {value}")
        else:
            unchanged += 1
    if unchanged:
        print(f"unchanged: {unchanged} fact{'s' if unchanged != 1 else ''}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
