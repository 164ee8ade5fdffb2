"""Executes every notebook in notebooks/ (stored without outputs) and fails on any error."""

from __future__ import annotations

import os
import pathlib
import re

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((pathlib.Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ holds no notebook"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path, tmp_path):
    notebook = nbformat.read(path, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), "stored with outputs"
    env_path = str(pathlib.Path(__file__).parent.parent / "python")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [env_path, os.environ.get("PYTHONPATH")]))
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_uses_public_apis_and_shipped_documents(path):
    notebook = nbformat.read(path, as_version=4)
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    private = re.findall(r"(?<!\w)_core\b|\b\w+\._core\b", code)  # not per_core / num_cores
    assert not private, f"notebooks teach the public API, not tpustrategy._core: {private}"
    text = "\n".join(cell.source for cell in notebook.cells)
    root = pathlib.Path(__file__).parent.parent
    cited_documents = re.findall(r"\b([\w/]+\.md)\b", text) + re.findall(r"\b(SEMANTICS|ARCHITECTURE)\b", text)
    for cited in cited_documents:
        name = cited if cited.endswith(".md") else f"{cited}.md"
        assert list(root.rglob(name)), f"{path.name} cites {cited}, which the project does not ship"
