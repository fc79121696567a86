"""No function in companion/ is more tangled than cyclomatic complexity 20 (radon's measure): past
that a function has more paths than a reader can hold or a test can cover one by one, and is split."""

from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Function

LIMIT = 20
PACKAGE = Path(__file__).resolve().parents[1] / "companion"


def tangled(source: str) -> dict[str, int]:
    """Every function or method of ``source`` above the limit (``Class.name``) and its complexity."""
    return {block.fullname: block.complexity for block in cc_visit(source)
            if isinstance(block, Function) and block.complexity > LIMIT}


def test_no_function_above_the_limit() -> None:
    found = {
        f"{path.relative_to(PACKAGE.parent).as_posix()}: {name}": complexity
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, complexity in tangled(path.read_text(encoding="utf-8")).items()
    }
    assert not found, f"above cyclomatic complexity {LIMIT}, split them: " + "; ".join(
        f"{name} ({complexity})" for name, complexity in sorted(found.items()))


def test_the_measure_sees_a_method_with_too_many_branches() -> None:
    branches = "".join(f"        if x == {n}:\n            return {n}\n" for n in range(LIMIT))
    source = f"class Game:\n    def check(self, x):\n{branches}        return -1\n"
    assert tangled(source) == {"Game.check": LIMIT + 1}
    assert tangled(source.replace("        if x == 0:\n            return 0\n", "")) == {}
