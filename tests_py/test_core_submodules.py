"""The extension is one submodule per domain (STYLE.md, boost-histogram's src/module.cpp): nothing is
bound on the flat ``_core`` namespace, and each submodule is importable by its dotted name."""

from __future__ import annotations

import importlib
import pathlib
import pickle
import types

import pytest

from tpustrategy import _core

BINDINGS = pathlib.Path(__file__).parent.parent / "cpp" / "bindings"

# Each _core.<domain> is filled by cpp/bindings/bind_<domain>.cc.
DOMAINS = ("tensor", "ops", "autodiff", "devices", "slice", "topology", "collectives", "data", "example",
           "summary", "checkpoint", "spmd", "runtime", "sim", "mpi")


def flat_names() -> set[str]:
    return {n for n in dir(_core) if not n.startswith("__")}


def test_core_holds_only_the_domain_submodules():
    stray = {n for n in flat_names() if not isinstance(getattr(_core, n), types.ModuleType)}
    assert not stray, (f"{sorted(stray)} bound on the flat _core namespace: bind them on their domain's "
                       "submodule (module.cc hands each init_<domain> its _core.<domain>)")
    assert flat_names() == set(DOMAINS)


@pytest.mark.parametrize("domain", DOMAINS)
def test_each_domain_is_a_named_importable_submodule(domain):
    module = getattr(_core, domain)
    assert module.__name__ == f"tpustrategy._core.{domain}"
    assert importlib.import_module(f"tpustrategy._core.{domain}") is module
    assert (BINDINGS / f"bind_{domain}.cc").is_file()
    assert [n for n in dir(module) if not n.startswith("__")], f"_core.{domain} is empty"


def test_classes_of_submodules_pickle_by_their_module():
    dtype = _core.tensor.float32
    assert type(dtype).__module__ == "tpustrategy._core.tensor"
    assert pickle.loads(pickle.dumps(dtype)) == dtype
    sharding = _core.spmd.Sharding.maximal(2)
    assert pickle.loads(pickle.dumps(sharding)) == sharding
