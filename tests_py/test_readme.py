"""The README's Python examples run and print what their comments say."""

from __future__ import annotations

import contextlib
import io
import pathlib
import re

README = pathlib.Path(__file__).parent.parent / "README.md"


def test_readme_python_examples_run_and_match_their_comments():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks
    namespace: dict = {}  # later blocks continue the first one, as a reader would in one session
    for code in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(README), "exec"), namespace)
        printed = out.getvalue()
        if "# 56.0, then 184.0" in code:
            assert "tf.Tensor(56.0, shape=(), dtype=float32)" in printed
            assert "tf.Tensor(184.0, shape=(), dtype=float32)" in printed
