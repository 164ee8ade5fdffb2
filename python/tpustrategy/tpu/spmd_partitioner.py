"""SPMD partitioned execution inside ``TPUStrategy.run`` (issue 13; C++ in cpp/tpustrategy/spmd/).

On a TPUStrategy built with ``experimental_spmd_xla_partitioning=True`` and a device assignment of L > 1 logical
cores per replica, an op whose operand is a ShardedTensor (from ``experimental_split_to_logical_devices`` /
``experimental_replicate_to_logical_devices``, or the result of another partitioned op) runs once per logical core
on that core's shard, with the collectives XLA's SPMD partitioner inserts, and returns a ShardedTensor carrying
the sharding XLA's forward propagation gives. Un-annotated operands (tensors, variables) count as replicated,
as XLA treats them. Annotating an intermediate reshards it.

Gradients: every partitioned op records itself on the replica's C++ gradient tapes (cpp/tpustrategy/spmd/
sharded_tape.h), where a ShardedTensor stands as a proxy tensor, and its gradient runs partitioned too
(partitioned_grad_registry.cc: matmul, elementwise, reductions, reshape, transpose, concat, slice, softmax, sparse
cross-entropy, conv2d's and depthwise_conv2d's input and filter, gather's table, reshards). So ``GradientTape``
works over programs that mix sharded and plain tensors as over plain ones: one C++ backward pass, the collectives
it inserts recorded in the step's plan. The partitioned gradients are recorded partitioned ops themselves, so
nested tapes, Hessian-vector products, ``jacobian`` and ``batch_jacobian`` work on split programs too.

Every step's partitioned ops and inserted collectives are kept per replica: ``tpustrategy.experimental.spmd_plan()``.
"""

from __future__ import annotations

import html
import types
from collections.abc import Iterable, Sequence
from typing import Any, cast

from tpustrategy import _core, errors
from tpustrategy.eager import backprop
from tpustrategy.ops import _spmd_hook
from tpustrategy.tpu import spmd_options
from tpustrategy.tpu.sharded_tensor import ShardedTensor
from tpustrategy.tpu.spmd_step_recording import recorded

_spmd = recorded(_core.spmd)  # partitioned calls are recorded per logical core while a step is recorded
_REPLICATED = _core.spmd.Sharding.replicated()

# Per replica (its tuple of logical core names): the C++ context of the current step.
_steps: dict[tuple[str, ...], _Step] = {}
_last_plan: SpmdPlan | None = None


class _Step:
    """One replica's partitioner state for the running step."""

    def __init__(self, devices: Iterable[_core.devices.Device]) -> None:
        self.devices = list(devices)
        self.ctx: _core.spmd.SpmdContext = _spmd.SpmdContext(self.devices)
        spmd_options.configure(self.ctx)


def activate() -> None:
    """Routes ops on partitioned ShardedTensors here (called by an SPMD TPUStrategy with L > 1)."""
    _spmd_hook.partitioner = _this_module()
    _spmd_hook.active = True


def _this_module() -> types.ModuleType:
    import sys

    return sys.modules[__name__]


def begin_step() -> None:
    """Starts a new step: forgets the previous step's ops (its plan stays readable through spmd_plan())."""
    _steps.clear()


def end_step() -> None:
    """Keeps the step's records as the plan spmd_plan() returns."""
    global _last_plan
    if _steps:
        _last_plan = SpmdPlan([(key, step.ctx.take_record()) for key, step in _steps.items()])


def _step_for(devices: Sequence[_core.devices.Device]) -> _Step:
    key = tuple(d.name for d in devices)
    step = _steps.get(key)
    if step is None:
        step = _steps[key] = _Step(devices)
    return step


def wrap(impl: Any) -> ShardedTensor:
    return ShardedTensor(impl, spmd=True)


# ---- operands ----
def _devices_of(values: Iterable[Any]) -> list[_core.devices.Device]:
    for v in values:
        if getattr(v, "_spmd_partitioned", False):
            devices: list[_core.devices.Device] = v.logical_devices
            return devices
    raise ValueError("a partitioned op needs a partitioned ShardedTensor operand")


def _operand(step: _Step, value: Any) -> ShardedTensor:
    """`value` as a partitioned ShardedTensor on the step's cores (tensors and variables are replicated). A variable's
    replicated copies are read in place, as a read of the variable (tapes watch it); a tensor is laid out by a
    recorded op, so its gradient goes on through the tape to whatever computed it."""
    if getattr(value, "_spmd_partitioned", False):
        return cast(ShardedTensor, value)  # only a ShardedTensor has the flag
    component = value._get() if hasattr(value, "_get") and hasattr(value, "_values") else value
    copies = getattr(component, "_copies", None)
    if copies is not None and [d.name for d in copies.logical_devices] == [d.name for d in step.devices]:
        out = wrap(_core.spmd.new_value(copies))
        if backprop._active[0]:
            backprop._variable_accessed(component, _core.spmd.tape_tensor(step.ctx, out._impl))
        return out
    if isinstance(value, ShardedTensor):  # annotated outside SPMD: its global value
        value = value._as_tensor()
    return wrap(_core.spmd.shard_recorded(step.ctx, _core.tensor.convert_to_tensor(value), _REPLICATED))


def tape_tensor(value: Any) -> _core.tensor.Tensor:
    """The tensor standing for partitioned `value` on gradient tapes (what GradientTape watches and differentiates)."""
    return _core.spmd.tape_tensor(_step_for(value.logical_devices).ctx, value._impl)


def seed_for(target: Any, grad: Any) -> _core.tensor.Tensor:
    """``output_gradients`` entry `grad` of partitioned `target` as the tape's seed, laid out like the target."""
    if getattr(grad, "_spmd_partitioned", False):
        return tape_tensor(grad)
    tensor = grad._as_tensor() if isinstance(grad, ShardedTensor) else _core.tensor.convert_to_tensor(grad)
    if tuple(tensor.shape) != tuple(target._shape_tuple):
        raise errors.InvalidArgumentError(
            None, None, f"output_gradients has shape {list(tensor.shape)} but the target has shape "
            f"{list(target._shape_tuple)}")
    if tensor.dtype != target.dtype:
        tensor = _core.ops.cast(tensor, target.dtype)
    impl = _core.spmd.ShardedTensor.shard(tensor, target.sharding, target.logical_devices)
    return _core.spmd.tape_tensor(_step_for(target.logical_devices).ctx, impl)


def from_tape_tensor(tensor: _core.tensor.Tensor) -> ShardedTensor | None:
    """A gradient the tape computed for a partitioned value, as a partitioned ShardedTensor (else None)."""
    impl = _core.spmd.from_tape_tensor(tensor)
    return None if impl is None else wrap(impl)


def _operands(*values: Any) -> tuple[_Step, list[ShardedTensor]]:
    step = _step_for(_devices_of(values))
    return step, [_operand(step, v) for v in values]


# ---- partitioned ops (called by the op facade through _spmd_hook) ----
def unary(name: str, x: Any) -> ShardedTensor:
    step, (a,) = _operands(x)
    return wrap(_spmd.unary(step.ctx, name, a._impl))


def binary(name: str, x: Any, y: Any) -> ShardedTensor:
    step, (a, b) = _operands(x, y)
    if b.dtype != a.dtype and not getattr(y, "_spmd_partitioned", False):
        b = _operand(step, _core.ops.cast(b._as_tensor(), a.dtype))
    elif a.dtype != b.dtype and not getattr(x, "_spmd_partitioned", False):
        a = _operand(step, _core.ops.cast(a._as_tensor(), b.dtype))
    return wrap(_spmd.binary(step.ctx, name, a._impl, b._impl))


def reduce(kind: str, x: Any, axis: Any, keepdims: bool) -> ShardedTensor:
    step, (a,) = _operands(x)
    rank = len(a._shape_tuple)
    axes = (
        list(range(rank))
        if axis is None
        else [int(v) % rank for v in (axis if isinstance(axis, (list, tuple)) else [axis])]
    )
    return wrap(_spmd.reduce(step.ctx, kind, a._impl, axes, keepdims=bool(keepdims)))


def matmul(x: Any, y: Any, transpose_a: bool = False, transpose_b: bool = False) -> ShardedTensor:
    step, (a, b) = _operands(x, y)
    if transpose_a:
        a = transpose(a, _swap_last(len(a._shape_tuple)))
    if transpose_b:
        b = transpose(b, _swap_last(len(b._shape_tuple)))
    return wrap(_spmd.matmul(step.ctx, a._impl, b._impl))


def _swap_last(rank: int) -> list[int]:
    perm = list(range(rank))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return perm


def transpose(x: Any, perm: Any = None) -> ShardedTensor:
    step, (a,) = _operands(x)
    rank = len(a._shape_tuple)
    perm = list(range(rank))[::-1] if not perm else [int(p) for p in perm]
    return wrap(_spmd.transpose(step.ctx, a._impl, perm))


def reshape(x: Any, shape: Any) -> ShardedTensor:
    step, (a,) = _operands(x)
    shape = [int(s) for s in shape]
    if -1 in shape:
        known = 1
        for s in shape:
            known *= s if s != -1 else 1
        total = 1
        for s in a._shape_tuple:
            total *= s
        shape[shape.index(-1)] = total // known if known else 0
    return wrap(_spmd.reshape(step.ctx, a._impl, shape))


def concat(values: Any, axis: Any) -> ShardedTensor:
    step, parts = _operands(*values)
    return wrap(_spmd.concat(step.ctx, [p._impl for p in parts], int(axis)))


def softmax(logits: Any, axis: Any = -1) -> ShardedTensor:
    step, (a,) = _operands(logits)
    return wrap(_spmd.softmax(step.ctx, a._impl, int(axis)))


def sparse_softmax_cross_entropy_with_logits(labels: Any, logits: Any) -> ShardedTensor:
    step, (lg, lb) = _operands(logits, labels)
    return wrap(_spmd.sparse_softmax_cross_entropy(step.ctx, lg._impl, lb._impl))


def gather(params: Any, indices: Any) -> ShardedTensor:
    step, (table, ids) = _operands(params, indices)
    return wrap(_spmd.gather(step.ctx, table._impl, ids._impl))


def conv2d(x: Any, filters: Any, padding: str = "SAME", strides: Any = (1, 1), dilations: Any = (1, 1),
           channels_first: bool = False, explicit_paddings: Any = None, depthwise: bool = False) -> ShardedTensor:
    """NHWC (or NCHW through two local transposes, which keep the collectives the same) partitioned conv2d, or
    depthwise_conv2d; ``explicit_paddings`` (top, bottom, left, right) for padding "EXPLICIT"."""
    step, (a, f) = _operands(x, filters)
    if channels_first:
        a = transpose(a, [0, 2, 3, 1])
    window = {
        "strides": [int(v) for v in strides],
        "dilations": [int(v) for v in dilations],
        "explicit_paddings": [int(v) for v in (explicit_paddings or (0, 0, 0, 0))],
    }
    forward = _spmd.depthwise_conv2d if depthwise else _spmd.conv2d
    y = wrap(forward(step.ctx, a._impl, f._impl, padding, **window))
    return transpose(y, [0, 3, 1, 2]) if channels_first else y


def slice(x: Any, begin: Any, size: Any) -> ShardedTensor:  # noqa: A001 - tf.slice
    step, (a,) = _operands(x)
    begin = [int(v) for v in begin]
    return wrap(_spmd.slice(step.ctx, a._impl, begin, [int(v) for v in size]))


def reshard(x: Any, sharding: _core.spmd.Sharding, devices: Sequence[_core.devices.Device],
            why: str = "annotation") -> ShardedTensor:
    """An annotation on a partitioned intermediate or a variable (read as its replicated copies): XLA's reshard
    to `sharding` (recorded, and differentiable)."""
    step = _step_for(devices)
    a = _operand(step, x)
    return wrap(_spmd.reshard(step.ctx, a._impl, sharding, why=why))


# ---- the per-step record ----
class SpmdPlan:
    """What the last SPMD step ran on each logical core: per replica, the partitioned ops (shard shapes, FLOPs,
    bytes) and the collectives the partitioner inserted (kind, device groups, bytes, the rule that inserted
    them). ``str()`` prints it like a post-partitioning HLO listing; Jupyter shows a table.

    Attributes:
      records: one ``_core.spmd.SpmdRecord`` per replica (``entries``, ``num_cores``, ``to_text()``).
      replicas: the logical core names of each replica, in the same order.
    """

    def __init__(self, records: Sequence[tuple[tuple[str, ...], _core.spmd.SpmdRecord]]) -> None:
        self.replicas = [key for key, _ in records]
        self.records = [record for _, record in records]

    @property
    def entries(self) -> list[_core.spmd.SpmdEntry]:
        """Replica 0's entries (all replicas run the same partitioned program)."""
        return self.records[0].entries if self.records else []

    def collectives(self, replica: int = 0) -> list[_core.spmd.SpmdEntry]:
        """The collectives the partitioner inserted for `replica` (IndexError if there is no such replica)."""
        return [e for e in self.records[replica].entries if e.kind == "collective"]

    def ops(self, replica: int = 0) -> list[_core.spmd.SpmdEntry]:
        """The partitioned ops `replica` ran (IndexError if there is no such replica)."""
        return [e for e in self.records[replica].entries if e.kind == "op"]

    def __str__(self) -> str:
        if not self.records:
            return "SpmdPlan: no partitioned ops"
        return f"SpmdPlan of replica 0 ({len(self.records)} replicas):\n" + self.records[0].to_text()

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        if not self.records:
            return "<p>SpmdPlan: no partitioned ops</p>"
        rows = []
        for i, e in enumerate(self.entries):
            shapes = sorted({str(list(s)) for s in e.shard_shapes if s is not None})
            where = ", ".join("{" + ",".join(map(str, g)) + "}" for g in e.groups) or (
                ", ".join(f"{s}&rarr;{t}" for s, t in e.pairs) if e.pairs else ""
            )
            style = (
                ' style="background:#fde2cf"'
                if e.kind == "collective"
                else (' style="background:#fff3b0"' if e.kind == "note" else "")
            )
            rows.append(
                f"<tr{style}><td>{i}</td><td>{html.escape(e.kind)}</td><td><b>{html.escape(e.name)}</b></td>"
                f"<td>{html.escape(' | '.join(shapes))}</td><td>{html.escape(e.sharding)}</td><td>{where}</td>"
                f"<td>{max(e.flops, default=0)}</td><td>{max(e.bytes, default=0)}</td>"
                f"<td>{html.escape(e.rule)}</td></tr>"
            )
        head = (
            "<tr><th>#</th><th>kind</th><th>name</th><th>shard shape per core</th><th>sharding</th>"
            "<th>groups / pairs</th><th>FLOPs/core</th><th>bytes/core</th><th>rule</th></tr>"
        )
        return (
            f"<div><b>SPMD plan, replica 0 of {len(self.records)}, {self.records[0].num_cores} logical cores</b>"
            f"</div><table>{head}{''.join(rows)}</table>"
        )


def spmd_plan() -> SpmdPlan | None:
    """The plan of the last ``strategy.run`` step that partitioned ops (None before any)."""
    if _steps and _last_plan is None:
        end_step()
    return _last_plan
