"""``model.summary()``: Keras 3's table (drawn with the same box characters and column layout as the
``rich`` table Keras prints, without colours), then total / trainable / non-trainable / optimizer params.

Layout as Keras 3: 3 columns at 45 % / 80 % / 100 % of the line (default 88 characters, at most the
terminal width - 4) for chain-like models, 4 columns (with "Connected to") at 30 / 56 / 74 / 100 % of
108 characters otherwise; borders and one space of padding come out of the columns evenly.
"""

from __future__ import annotations

import math
import shutil
import textwrap
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from tpustrategy import nest
from tpustrategy.keras.layers.keras_tensor import KerasTensor

if TYPE_CHECKING:
    from tpustrategy.keras.layers.layer import Layer
    from tpustrategy.keras.models.model import Model
    from tpustrategy.keras.optimizers.optimizer import Optimizer


def readable_memory_size(size: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _bytes(weights: Iterable[Any]) -> int:
    unique = {id(w): w for w in weights}.values()
    total = 0
    for w in unique:
        total += math.prod(tuple(w.shape)) * _dtype_size(w.dtype)
    return total


def _dtype_size(dtype: Any) -> int:
    name = getattr(dtype, "name", str(dtype))
    return {"float64": 8, "int64": 8, "float16": 2, "bfloat16": 2, "int8": 1, "uint8": 1, "bool": 1}.get(name, 4)


def _count(weights: Iterable[Any]) -> int:
    return int(sum(math.prod(tuple(w.shape)) for w in {id(w): w for w in weights}.values()))


def _format_shape(shape: Any) -> str:
    if shape is None:
        return "?"
    if isinstance(shape, list) or (isinstance(shape, tuple) and shape and isinstance(shape[0], tuple)):
        return "[" + ", ".join(_format_shape(s) for s in shape) + "]"
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")" \
        if len(shape) == 1 else "(" + ", ".join(str(d) for d in shape) + ")"


def _column_widths(line_length: int, positions: Sequence[float]) -> list[int]:
    widths, current = [], 0
    for pos in positions:
        width = int(pos * line_length) - current
        if width < 4:
            raise ValueError("Insufficient console width to print summary.")
        widths.append(width)
        current += width
    # borders (n + 1) and padding (2 per column) come out of the columns, spread evenly (rounding as rich does)
    excess = sum(widths) - (line_length - (len(widths) + 1) - 2 * len(widths))
    remaining_ratio = len(widths)
    content = []
    for width in widths:
        take = round(excess / remaining_ratio)
        content.append(width - take)
        excess -= take
        remaining_ratio -= 1
    return content


def _rule(widths: Sequence[int], left: str, mid: str, right: str, fill: str) -> str:
    return left + mid.join(fill * (w + 2) for w in widths) + right


def _row(cells: Sequence[Any], widths: Sequence[int], aligns: Sequence[str], sep: str = "│") -> list[str]:
    wrapped = [textwrap.wrap(str(c), w, break_long_words=True, break_on_hyphens=False) or [""]
               for c, w in zip(cells, widths, strict=True)]
    height = max(len(w) for w in wrapped)
    lines = []
    for i in range(height):
        parts = []
        for lines_of_cell, width, align in zip(wrapped, widths, aligns, strict=True):
            text = lines_of_cell[i] if i < len(lines_of_cell) else ""
            parts.append(" " + (text.rjust(width) if align == "right" else text.ljust(width)) + " ")
        lines.append(sep + sep.join(parts) + sep)
    return lines


def _output_shape(layer: Layer) -> str:
    if layer._inbound_nodes:
        outputs = layer._inbound_nodes[-1].outputs
        shapes = [t.shape for t in nest.flatten(outputs) if isinstance(t, KerasTensor)]
        return _format_shape(shapes[0] if len(shapes) == 1 else shapes)
    return _format_shape(layer._output_shape_seen) if layer._output_shape_seen is not None else "?"


def _is_chain(model: Model) -> bool:
    graph = getattr(model, "_graph", None)
    if graph is None:
        return True
    if len(graph.flat_inputs) != 1 or len(graph.flat_outputs) != 1:
        return False
    previous = graph.flat_inputs[0]
    for node in graph.nodes:
        inputs = node.input_tensors
        if len(inputs) != 1 or inputs[0] is not previous or len(nest.flatten(node.outputs)) != 1:
            return False
        previous = nest.flatten(node.outputs)[0]
    return True


def _connections(layer: Layer, relevant: set[int]) -> str:
    out = []
    for node in layer._inbound_nodes:
        if id(node) not in relevant:
            continue
        for t in node.input_tensors:
            assert t._node is not None  # a tensor in the model's graph has the node that made it
            producer = t._node.layer
            out.append(f"{producer.name}[{producer._inbound_nodes.index(t._node)}][{getattr(t, '_output_index', 0)}]")
    return ", ".join(out) if out else "-"


def summary_lines(model: Model, line_length: int | None = None, positions: Sequence[float] | None = None) -> list[str]:
    chain = _is_chain(model)
    if chain:
        default, positions = 88, positions or [0.45, 0.80, 1.0]
        header, aligns = ["Layer (type)", "Output Shape", "Param #"], ["left", "left", "right"]
    else:
        default, positions = 108, positions or [0.3, 0.56, 0.74, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        aligns = ["left", "left", "right", "left"]
    line_length = line_length or min(default, shutil.get_terminal_size().columns - 4)
    widths = _column_widths(line_length, positions)
    relevant = {id(n) for n in model._graph.nodes} if model._graph is not None else set()
    if relevant:
        assert model._graph is not None  # relevant is empty without a graph
        relevant |= {id(t._node) for t in model._graph.flat_inputs}
    lines = [f'Model: "{model.name}"', _rule(widths, "┏", "┳", "┓", "━")]
    lines += _row(header, widths, aligns, sep="┃")
    lines.append(_rule(widths, "┡", "╇", "┩", "━"))
    rows = []
    for layer in model.layers:
        params = f"{layer.count_params():,}" if layer.built else "0 (unbuilt)"
        cells = [f"{layer.name} ({type(layer).__name__})", _output_shape(layer), params]
        if not chain:
            cells.append(_connections(layer, relevant))
        rows.append(_row(cells, widths, aligns))
    for i, row in enumerate(rows):
        if i:
            lines.append(_rule(widths, "├", "┼", "┤", "─"))
        lines += row
    lines.append(_rule(widths, "└", "┴", "┘", "─"))
    trainable, non_trainable = model.trainable_weights, model.non_trainable_weights
    optimizer = getattr(model, "optimizer", None)
    opt_vars = optimizer_variables(optimizer)
    total_count = _count(trainable) + _count(non_trainable) + (_count(opt_vars) + 1 if opt_vars else 0)
    total_bytes = _bytes(trainable) + _bytes(non_trainable) + (_bytes(opt_vars) + 4 if opt_vars else 0)
    lines.append(f" Total params: {total_count:,} ({readable_memory_size(total_bytes)})")
    lines.append(f" Trainable params: {_count(trainable):,} ({readable_memory_size(_bytes(trainable))})")
    lines.append(f" Non-trainable params: {_count(non_trainable):,} ({readable_memory_size(_bytes(non_trainable))})")
    if opt_vars:
        # Keras 3 also counts its float32 learning-rate variable: one parameter, 4 bytes.
        lines.append(f" Optimizer params: {_count(opt_vars) + 1:,} ({readable_memory_size(_bytes(opt_vars) + 4)})")
    return lines


def optimizer_variables(optimizer: Optimizer | None) -> list[Any]:
    """The optimizer's iteration counter and slots once it has applied a step (Keras: ``optimizer.built``)."""
    if optimizer is None or optimizer._iterations is None:
        return []
    out = [optimizer._iterations]
    for slots in optimizer._slots.values():
        out.extend(slots.values())
    return out


def print_summary(model: Model, line_length: int | None = None, positions: Sequence[float] | None = None,
                  print_fn: Callable[..., Any] | None = None) -> None:
    text = "\n".join(summary_lines(model, line_length, positions))
    (print_fn or print)(text)
