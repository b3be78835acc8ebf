"""The README's Python example runs (with small search budgets substituted)."""
import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_example_runs():
    code = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)[0]
    code = re.sub(r"Limit\([^)]*\)", "Limit(iterations=200)", code)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    assert "Player 0" in out.getvalue()
