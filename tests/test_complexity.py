"""No function in companion/ is more tangled than cyclomatic complexity 20 (radon's measure): past
that a function has more paths than a reader can hold or a test can cover one by one, and is split."""

from pathlib import Path

from radon.complexity import cc_visit

LIMIT = 20
PACKAGE = Path(__file__).resolve().parents[1] / "companion"
# Being split on other branches now; emptied when those land (each is named as radon names it).
KNOWN = {
    "companion/carddata.py: _check",
    "companion/daemon/app.py: cmd_run",
}


def tangled() -> dict[str, int]:
    """Every function or method of the package above the limit (``path: Class.name``) and its complexity."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for block in cc_visit(path.read_text(encoding="utf-8")):
            if block.complexity > LIMIT:
                found[f"{path.relative_to(PACKAGE.parent).as_posix()}: {block.fullname}"] = block.complexity
    return found


def test_no_function_above_the_limit() -> None:
    new = {name: complexity for name, complexity in tangled().items() if name not in KNOWN}
    assert not new, f"above cyclomatic complexity {LIMIT}, split them: " + "; ".join(
        f"{name} ({complexity})" for name, complexity in sorted(new.items()))


def test_the_known_list_holds_only_functions_still_above_it() -> None:
    """A known entry that was split (or renamed) goes from the list, so the list cannot hide a new one."""
    gone = KNOWN - set(tangled())
    assert not gone, f"no longer above {LIMIT}, take them off KNOWN: {sorted(gone)}"
