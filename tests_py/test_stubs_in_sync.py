"""The checked-in type stubs of the extension (tools/gen_stubs.sh) name everything the extension has."""

from __future__ import annotations

import ast
import pathlib
import types

import pytest

from tpustrategy import _core

STUBS = pathlib.Path(__file__).parent.parent / "python" / "tpustrategy" / "_core"


def stub_names(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, (ast.AnnAssign, ast.Assign)):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
    return names


def public(module) -> set[str]:
    return {n for n in dir(module) if not n.startswith("__")}


SUBMODULES = sorted(n for n in public(_core) if isinstance(getattr(_core, n), types.ModuleType))


def test_core_stub_names_every_submodule():
    missing = public(_core) - stub_names(STUBS / "__init__.pyi")
    assert not missing, f"run tools/gen_stubs.sh: the stub lacks {sorted(missing)}"


@pytest.mark.parametrize("name", SUBMODULES)
def test_submodule_stub_covers_the_extension(name):
    path = STUBS / f"{name}.pyi"
    assert path.is_file(), f"run tools/gen_stubs.sh: no stub for _core.{name}"
    missing = public(getattr(_core, name)) - stub_names(path)
    assert not missing, f"run tools/gen_stubs.sh: the stub of _core.{name} lacks {sorted(missing)}"


def test_tensor_stub_defines_the_class_the_facade_renames():
    # The facade sets Tensor.__module__ to "tpustrategy" (as TF users see it); a stub that imported Tensor back
    # from the facade would be a cycle that mypy takes for Any. tools/gen_stubs.sh writes the class itself.
    import tpustrategy as tf

    assert type(tf.constant(1.0)).__module__ == "tpustrategy"
    tree = ast.parse((STUBS / "tensor.pyi").read_text())
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    facade_imports = [node for node in tree.body if isinstance(node, ast.ImportFrom) and node.module == "tpustrategy"]
    assert "Tensor" in classes and not facade_imports, "run tools/gen_stubs.sh"
