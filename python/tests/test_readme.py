"""Every ```python block of python/README.md runs, each in a fresh namespace.

The README's examples are the recipes users copy; a block that raises, or
whose assert fails, fails here under the heading it stands under.
"""

import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def blocks():
    text = README.read_text(encoding="utf-8")
    heading = "top"
    found = []
    for match in re.finditer(r"^(#+ [^\n]*)$|^```python\n(.*?)^```$", text, re.M | re.S):
        if match.group(1):
            heading = match.group(1).lstrip("# ").strip()
        else:
            line = text.count("\n", 0, match.start()) + 2
            found.append(pytest.param(match.group(2), line, id=f"{heading} (line {line})"))
    return found


@pytest.mark.parametrize(("code", "line"), blocks())
def test_block(code, line, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # Line numbers in a traceback point into README.md.
    compiled = compile("\n" * (line - 1) + code, str(README), "exec")
    exec(compiled, {"__name__": "__readme__"})
