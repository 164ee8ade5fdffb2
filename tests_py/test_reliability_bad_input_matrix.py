"""The bad-input matrix (issue 10): every public callable of the facade × wrong types, None, NaN,
negatives, huge values and garbage strings.

The callables are enumerated from the modules' ``__all__`` (public names where a module has none),
walking every public submodule of ``tpustrategy``, so a new API is covered the day it lands. Each call
must raise a typed error (TypeError, ValueError, a ``tpustrategy.errors`` class, or the lookup /
arithmetic / NotImplemented / Runtime errors Python and TF use for those mistakes) or return; it
must not raise AttributeError, SystemError, AssertionError or NameError, crash the interpreter or
hang, and it must leave the global state as it found it: the visible devices, the HBM in use on every
device, the active slice and the current strategy. It runs in a child process, so a crash fails this
test instead of killing pytest; every call has a time limit.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import tpustrategy

MATRIX = textwrap.dedent(
    r"""
    import gc, inspect, json, math, signal, sys, time, types, warnings
    import numpy as np
    import tpustrategy as tf
    from tpustrategy import _core

    warnings.simplefilter("ignore")
    import logging
    logging.disable(logging.CRITICAL)

    BAD = [
        1, -1, 0, 2**63, -(2**70), 1e300, float("nan"), float("inf"), -0.5, True, None,
        "garbage", "", "\0", b"\xff\xfe", [], [None], [1, "a"], {"k": object()}, object(), 1 + 2j,
        np.array(["s"]), np.float64("nan"), ("x", 1),
    ]
    # What a mistaken argument may raise: the typed errors TF raises for such mistakes.
    ALLOWED = (TypeError, ValueError, tf.errors.OpError, LookupError, ArithmeticError, NotImplementedError,
               RuntimeError, StopIteration)
    # Callables whose AttributeError is TF's own answer to that mistake (measured in TF 2.21): a complex image or
    # dtype given to convert_image_dtype ("... must be either floating point or integer").
    TF_ATTRIBUTE_ERRORS = {"tpustrategy.image.convert_image_dtype"}
    # Names that are not API calls taking user arguments, or whose purpose is to change global state.
    SKIP = {
        "tpustrategy.print",  # prints its arguments (fine, just noisy)
        "tpustrategy.profiler.experimental.start",  # starts the process-wide profiler (any path is a logdir)
        "tpustrategy.profiler.experimental.stop",  # writes the trace under the logdir given to start
        # create the process-wide global step (None, their default, is a correct call); tested on their own
        "tpustrategy.compat.v1.train.create_global_step",
        "tpustrategy.compat.v1.train.get_or_create_global_step",
    }

    def public_names(module):
        names = getattr(module, "__all__", None)
        if names is None:
            names = [n for n in dir(module) if not n.startswith("_")]
        return names

    def enumerate_callables():
        seen_modules, seen_ids, out = set(), set(), []
        stack = [("tpustrategy", tf)]
        while stack:
            path, module = stack.pop()
            if id(module) in seen_modules:
                continue
            seen_modules.add(id(module))
            for name in sorted(public_names(module)):
                obj = getattr(module, name, None)
                full = f"{path}.{name}"
                if isinstance(obj, types.ModuleType):
                    if obj.__name__.startswith("tpustrategy"):
                        stack.append((full, obj))
                    continue
                if not callable(obj) or id(obj) in seen_ids or full in SKIP:
                    continue
                if inspect.isclass(obj) and issubclass(obj, BaseException):
                    continue  # exception classes accept any message
                seen_ids.add(id(obj))
                out.append((full, obj))
        return out

    def instance_methods():
        # The public methods of the objects programs hold: strategies, a dataset, a variable, a topology.
        strategy = tf.distribute.TPUStrategy()
        objects = {
            "TPUStrategy()": strategy,
            "TPUStrategy().extended": strategy.extended,
            "MirroredStrategy()": tf.distribute.MirroredStrategy(["CPU:0"]),
            "Dataset.range(4)": tf.data.Dataset.range(4),
            "Variable(1.0)": tf.Variable(1.0),
            "Topology": tf.tpu.experimental.initialize_tpu_system(),
        }
        out = []
        for label, obj in objects.items():
            for name in sorted(dir(obj)):
                if name.startswith("_"):
                    continue
                try:
                    member = getattr(obj, name)
                except Exception:
                    continue
                if callable(member) and not inspect.isclass(member):
                    out.append((f"{label}.{name}", member))
        return out

    def state():
        logical = tuple(d.name for d in tf.config.list_logical_devices())
        physical = tuple(tf.config.list_physical_devices())
        hbm = tuple(d.memory_info()["current"] for d in _core.devices.list_devices(""))
        return (_core.slice.active_slice().name, logical, physical, hbm, tf.distribute.has_strategy(),
                type(tf.distribute.get_strategy()).__name__)

    class Hang(Exception):
        pass

    def on_alarm(signum, frame):
        raise Hang()

    signal.signal(signal.SIGALRM, on_alarm)
    callables = enumerate_callables()
    callables += instance_methods()
    baseline = state()
    failures, calls, start = [], 0, time.perf_counter()
    import random
    rng = random.Random(10)

    def argument_lists():
        for arity in (1, 2):  # every bad value alone and doubled
            for bad in BAD:
                yield [bad] * arity
        for _ in range(40):  # mixtures of up to four, seeded
            yield [rng.choice(BAD) for _ in range(rng.randint(1, 4))]

    for full, fn in callables:
        for args in argument_lists():
            signal.setitimer(signal.ITIMER_REAL, 5.0)
            try:
                result = fn(*args)
                del result
                outcome = None
            except ALLOWED:
                outcome = None
            except AttributeError as e:
                outcome = None if full in TF_ATTRIBUTE_ERRORS else f"AttributeError: {str(e)[:200]}"
            except Hang:
                outcome = "hang (> 5 s)"
            except BaseException as e:  # noqa: BLE001 - the point of the matrix
                outcome = f"{type(e).__name__}: {str(e)[:200]}"
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            calls += 1
            if outcome is None:
                now = state()
                if now != baseline:
                    gc.collect()
                    now = state()
                if now != baseline:
                    outcome = f"changed global state: {baseline} -> {now}"
                    _core.slice.activate_slice(baseline[0])
                    _core.devices.set_current_device(None)
                    tf.distribute.experimental_set_strategy(None)
                    baseline = state()
            if outcome is not None:
                failures.append({"callable": full, "args": repr(args)[:120], "outcome": outcome})
    print(json.dumps({"callables": len(callables), "calls": calls, "seconds": round(time.perf_counter() - start, 1),
                      "failures": failures}))
    """
)


def test_every_public_callable_rejects_bad_input_with_a_typed_error_and_unchanged_state(tmp_path):
    # In a scratch directory: writers given a garbage relative path legitimately create that file.
    package_root = str(pathlib.Path(tpustrategy.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")])))
    out = subprocess.run(
        [sys.executable, "-c", MATRIX], capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env
    )
    assert out.returncode == 0, f"the matrix crashed (exit {out.returncode}):\n{out.stderr[-4000:]}"
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["callables"] > 150, report["callables"]  # the enumeration found the facade
    failures = report["failures"]
    by_callable = {}
    for f in failures:
        by_callable.setdefault(f["callable"], []).append(f)
    summary = "\n".join(
        f"{name}: {fs[0]['args']} -> {fs[0]['outcome']} ({len(fs)} cases)" for name, fs in by_callable.items()
    )
    assert not failures, f"{len(failures)} bad calls in {len(by_callable)} callables:\n{summary}"
