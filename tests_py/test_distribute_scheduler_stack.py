"""How much C stack a parked replica leaves for greenlet to copy (issue #11: flat per-replica cost).

greenlet copies a switched-out greenlet's C stack, from its start to the switch, to the heap and back at every
switch. At 2048 replicas those copies no longer fit the cache, so their size is a per-replica cost: the calls under
a replica's switch (park_all_reduce, finish_job) are plain CPython functions, not pybind11's dispatcher, and a
replica function without arguments is called without the * / ** call that nests a C frame of the interpreter.
"""

from __future__ import annotations

import greenlet
import numpy as np
import pytest
from distribute_helpers import EIGHT_REPLICA_STRATEGIES

import tpustrategy as tf
from tpustrategy import _core
from tpustrategy.distribute import scheduler

# What a parked replica kept before (pybind11's dispatcher, fn(*args, **kwargs) frames): 4.1-4.5 KiB with CPython
# 3.11; 2.4-2.5 KiB while park_all_reduce's arguments and temporaries stayed in its frame under the switch and the
# switch went through greenlet's switch method (now 1.7-1.8 KiB). A greenlet that switches from plain Python code
# keeps ~1.4 KiB.
PARKED_STACK_BUDGET = 2 * 1024


def parked_stack_bytes(strategy) -> list[int]:
    """The C stack bytes the other replicas keep while the last replica of a step runs (they are parked)."""
    n = strategy.num_replicas_in_sync
    payload = tf.constant(np.ones(4, np.float32))
    seen: list[int] = []
    step_workers: list[greenlet.greenlet] = []

    def step():
        ctx = tf.distribute.get_replica_context()
        if ctx.replica_id_in_sync_group == 0:
            step_workers.clear()
        step_workers.append(greenlet.getcurrent())  # the replicas run in order: the others are parked by now
        if ctx.replica_id_in_sync_group == n - 1:
            seen.extend(g._stack_saved for g in step_workers[:-1] if g._stack_saved > 0)
        return ctx.all_reduce("sum", payload)

    strategy.run(step)
    strategy.run(step)  # pooled workers
    return seen


@pytest.mark.parametrize("name", sorted(EIGHT_REPLICA_STRATEGIES))
def test_a_parked_replica_keeps_little_c_stack(name):
    strategy = EIGHT_REPLICA_STRATEGIES[name]()
    sizes = parked_stack_bytes(strategy)
    assert len(sizes) == 2 * (strategy.num_replicas_in_sync - 1)  # the parked replicas of both steps
    assert max(sizes) <= PARKED_STACK_BUDGET, f"parked replicas keep {sorted(set(sizes))} bytes of C stack"


def test_park_all_reduce_and_finish_job_check_their_arguments():
    rendezvous = _core.runtime.ReplicaRendezvous(2)
    with pytest.raises(TypeError, match=r"park_all_reduce\(\) takes 6 positional arguments but 2 were given"):
        rendezvous.park_all_reduce(0, "SUM")
    with pytest.raises(TypeError, match="tensor must be a Tensor, got list"):
        rendezvous.park_all_reduce(0, "SUM", [1.0], None, None, None)
    with pytest.raises(TypeError, match="op must be a str, got int"):
        rendezvous.park_all_reduce(0, 1, tf.constant(1.0), None, None, None)
    with pytest.raises(TypeError, match=r"finish_job\(\) takes 3 positional arguments but 1 were given"):
        _core.runtime.finish_job(0)
    with pytest.raises(TypeError):
        _core.runtime.finish_job("first", scheduler._DONE, greenlet.getcurrent())


def test_a_driver_greenlet_that_overrides_switch_is_switched_through_it():
    """The scheduler switches through greenlet's C API only for plain greenlets: a subclass's switch() is called."""

    class Driver(greenlet.greenlet):
        switches = 0

        def switch(self, *args, **kwargs):
            Driver.switches += 1
            return super().switch(*args, **kwargs)

    strategy = EIGHT_REPLICA_STRATEGIES["mirrored8"]()
    payload = tf.constant([1.0])

    def step():
        return tf.distribute.get_replica_context().all_reduce("sum", payload)

    out = Driver(lambda: strategy.experimental_local_results(strategy.run(step))).switch()
    assert [float(np.asarray(t)[0]) for t in out] == [8.0] * 8
    assert Driver.switches > 1  # the call above, then the replicas' switches back to the driver
