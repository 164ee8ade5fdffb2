"""The case registry and the strategies a case asks for.

A case is `fn(tf)` (tensor ops, datasets) or `fn(tf, strategy)` (distribution), where `tf` is the module under
test and `strategy(n)` builds an n-replica strategy. TensorFlow always gets MirroredStrategy over n logical CPUs
(TPUStrategy needs a TPU); tpustrategy runs distributed cases once per kind: its MirroredStrategy over the same
logical CPUs, and its TPUStrategy on n simulated cores, wherever the two share TF MirroredStrategy's semantics.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

NUM_LOGICAL_CPUS = 8
MIRRORED, TPU = "mirrored", "tpu"


@dataclass(frozen=True)
class Case:
    name: str
    fn: Callable
    kind: str | None  # None: a case without a strategy
    # TF's CPU collectives fail on some dtypes, and after one failure every later collective in the process
    # is aborted: such cases run last.
    breaks_tf_collectives: bool = False


CASES: list[Case] = []


def case(kinds=(MIRRORED, TPU), breaks_tf_collectives: bool = False):
    """Registers fn once per strategy kind (or once, when fn takes no strategy)."""

    def register(fn):
        if len(inspect.signature(fn).parameters) == 1:
            CASES.append(Case(fn.__name__, fn, None))
        else:
            CASES.extend(Case(f"{fn.__name__}[{kind}]", fn, kind, breaks_tf_collectives) for kind in kinds)
        return fn

    return register


def ordered_cases() -> list[Case]:
    return sorted(CASES, key=lambda c: c.breaks_tf_collectives)


def make_logical_cpus(tf) -> None:
    """Splits the host CPU into NUM_LOGICAL_CPUS logical devices (must run before the first strategy)."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * NUM_LOGICAL_CPUS)


def strategy_factory(tf, kind: str) -> Callable:
    """n -> a fresh n-replica strategy of `kind` (TF has no TPU here, so it always gets MirroredStrategy)."""
    if kind == TPU and tf.__name__ == "tpustrategy":
        return lambda n: _tpu_strategy(tf, n)
    return lambda n: tf.distribute.MirroredStrategy([f"CPU:{i}" for i in range(n)])


_tpu_system: dict = {}  # initialised once: re-initialising the TPU system logs a warning


def _tpu_strategy(tf, n: int):
    if not _tpu_system:
        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="")
        _tpu_system.update(resolver=resolver, topology=tf.tpu.experimental.initialize_tpu_system(resolver))
    resolver, topology = _tpu_system["resolver"], _tpu_system["topology"]
    assignment = tf.tpu.experimental.DeviceAssignment.build(topology, num_replicas=n)
    return tf.distribute.TPUStrategy(resolver, experimental_device_assignment=assignment)
