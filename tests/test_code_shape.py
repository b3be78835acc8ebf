"""The Python layer stays readable (issue #9): no function longer than ~80 lines unless a comment on its first
lines says why ("# long: <reason>"), and no source line wider than 120 columns (the package, its Cython files,
the tests and bench/)."""
import ast
from pathlib import Path

import barcelona_ai

MAX_LINES = 80
MAX_COLUMNS = 120


def long_functions():
    for path in sorted(Path(barcelona_ai.__file__).parent.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = node.end_lineno - node.lineno + 1
                head = "\n".join(lines[node.lineno - 1:node.lineno + 3])
                if size > MAX_LINES and "# long:" not in head:
                    yield f"{path.name}:{node.lineno} {node.name} ({size} lines)"


def test_no_long_functions_without_a_reason():
    assert list(long_functions()) == []


def test_the_check_sees_functions():
    sizes = []
    for path in Path(barcelona_ai.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        sizes += [n.end_lineno - n.lineno + 1 for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    assert len(sizes) > 300 and max(sizes) > 20


def source_files():
    package = Path(barcelona_ai.__file__).parent
    root = Path(__file__).resolve().parent.parent
    for pattern in ("*.py", "*.pyx", "*.pxd"):
        yield from sorted(package.glob(pattern))
    yield from sorted(root.joinpath("tests").glob("*.py"))
    yield from sorted(root.joinpath("bench").glob("*.py"))


def wide_lines():
    for path in source_files():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if len(line) > MAX_COLUMNS:
                yield f"{path.name}:{n} ({len(line)} columns)"


def test_no_line_wider_than_120_columns():
    assert list(wide_lines()) == []


def test_the_width_check_reads_every_kind_of_source():
    files = list(source_files())
    names = {p.suffix for p in files} | {p.parent.name for p in files}
    assert {".py", ".pyx", ".pxd", "tests", "bench"} <= names and len(files) > 80
