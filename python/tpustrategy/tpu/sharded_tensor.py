"""The result of a logical-device annotation (SEMANTICS.md §4): a tensor that carries its sharding and whose
shards live on the replica's logical cores, each charged to that core's HBM.

For users it behaves like the tensor it was made from: ``shape``, ``dtype``, ``numpy()``, ``np.asarray``,
operators and every op (the C++ conversion calls ``_as_tensor()``, which assembles the global value), so results
are the same with or without the annotation — only memory per core differs. ``sharding``, ``shards`` and
``layout()`` expose the placement; ``repr`` and ``_repr_html_`` draw it.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from tpustrategy import _core
from tpustrategy._pictures import palette, sharding_picture, slice_svg
from tpustrategy.framework.tensor_shape import TensorShape


class ShardedTensor:
    """A replica's tensor laid out over its logical cores by a ``_core.spmd.Sharding``.

    Args:
      impl: the ``_core.spmd.ShardedTensor`` holding the shards.
    """

    __array_priority__ = 100  # numpy defers binary operators to us

    def __init__(self, impl: _core.spmd.ShardedTensor, spmd: bool = False) -> None:
        self._impl = impl
        # In SPMD mode ops on this tensor run partitioned (tpu/spmd_partitioner.py) instead of assembling it.
        self._spmd_partitioned = bool(spmd)

    @classmethod
    def shard(cls, tensor: Any, sharding: _core.spmd.Sharding, logical_devices: Iterable[_core.devices.Device],
              spmd: bool = False) -> ShardedTensor:
        """Lays `tensor` (anything tensor-convertible, including another ShardedTensor) out on `logical_devices`."""
        if isinstance(tensor, ShardedTensor):
            tensor = tensor._as_tensor()
        impl = _core.spmd.ShardedTensor.shard(_core.tensor.convert_to_tensor(tensor), sharding, list(logical_devices))
        return cls(impl, spmd=spmd)

    # ---- tensor-like surface ----
    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._impl._shape_tuple)

    @property
    def _shape_tuple(self) -> tuple[int, ...]:
        return self._impl._shape_tuple

    @property
    def dtype(self) -> _core.tensor.DType:
        return self._impl.dtype

    @property
    def ndim(self) -> int:
        return len(self._impl._shape_tuple)

    @property
    def device(self) -> str:
        """The first logical core holding data (TF reports the annotated op's device)."""
        device: str = next(s.device for s in self._impl.shards if s is not None)
        return device

    def _as_tensor(self) -> _core.tensor.Tensor:
        """The global value, assembled from the shards on the current device."""
        return self._impl.assemble()

    def numpy(self) -> Any:
        return self._as_tensor().numpy()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray[Any, Any]:
        array = np.asarray(self._as_tensor())
        return array.astype(dtype) if dtype is not None else array

    def __len__(self) -> int:
        return len(self._as_tensor())

    def __iter__(self) -> Iterator[Any]:
        return iter(self._as_tensor())

    def __getitem__(self, index: Any) -> _core.tensor.Tensor:
        return self._as_tensor()[index]

    def __bool__(self) -> bool:
        return bool(self._as_tensor())

    def __float__(self) -> float:
        return float(self._as_tensor())

    def __int__(self) -> int:
        return int(self._as_tensor())

    def __index__(self) -> int:
        index: int = self._as_tensor().__index__()
        return index

    __hash__ = None  # type: ignore[assignment]  # like tf.Tensor: unhashable

    # ---- placement ----
    @property
    def sharding(self) -> _core.spmd.Sharding:
        return self._impl.sharding

    @property
    def shards(self) -> list[_core.tensor.Tensor | None]:
        """Logical core k's shard (a Tensor on that core), None where the sharding places nothing."""
        return self._impl.shards

    @property
    def logical_devices(self) -> list[_core.devices.Device]:
        """The replica's logical cores (``_core.devices.Device``), logical core k at index k."""
        return self._impl.logical_devices

    @property
    def bytes_per_device(self) -> list[int]:
        return self._impl.bytes_per_device

    def layout(self) -> list[dict[str, Any]]:
        """One entry per logical core: its physical core, chip, host, tile index, element range and bytes."""
        sharding, shape = self.sharding, self._shape_tuple
        rows = []
        for k, (device, shard) in enumerate(zip(self.logical_devices, self.shards, strict=True)):
            holds = shard is not None
            x, y, z, core = device.coordinates
            rows.append(
                {
                    "logical_device": k,
                    "device": device.name,
                    "ordinal": device.index,
                    "host": device.task,
                    "chip": (x, y, z),
                    "core_on_chip": core,
                    "tile_index": sharding.tile_index_for_device(k) if holds and sharding.is_tiled else None,
                    "offset": sharding.tile_offset_for_device(shape, k) if holds else None,
                    "limit": sharding.tile_limit_for_device(shape, k) if holds else None,
                    "bytes": shard.nbytes if shard is not None else 0,
                }
            )
        return rows

    # ---- reprs ----
    def __repr__(self) -> str:
        shape_text = "(" + ", ".join(str(d) for d in self._shape_tuple) + ("," if self.ndim == 1 else "") + ")"
        lines = [f"<ShardedTensor: shape={shape_text}, dtype={self.dtype.name}, sharding={self.sharding}>"]
        for row in self.layout():
            where = f"TPU:{row['ordinal']} chip {_coords(row['chip'])} core {row['core_on_chip']} host {row['host']}"
            what = f"{_range_text(row)} ({_format_bytes(row['bytes'])})" if row["offset"] is not None else "-"
            lines.append(f"  logical {row['logical_device']} -> {where}: {what}")
        return "\n".join(lines)

    def __str__(self) -> str:
        """The repr, then the tiles as rows of the tensor (as ``visualize_array_sharding`` prints them)."""
        return f"{self!r}\n{sharding_picture.geometric_text(self)}"

    def _repr_html_(self) -> str:
        """The geometric view (tiles to scale, labelled with their logical cores) beside the per-core table."""
        return (
            '<div style="display:flex;gap:16px;align-items:flex-start">'
            f"<div>{sharding_picture.geometric_html(self)}</div><div>{_layout_html(self)}</div></div>"
        )


# Operators follow the assembled tensor, so annotated values compute exactly as unannotated ones; in SPMD mode
# they run partitioned (same values, shard by shard, with the collectives XLA inserts).
_PARTITIONED = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide", "pow": "pow"}


def _forward(name: str) -> Callable[..., Any]:
    op = name.strip("_")
    reflected = op.startswith("r") and op[1:] in _PARTITIONED | {"matmul": 0}
    base = op[1:] if reflected else op

    def method(self: ShardedTensor, *args: Any) -> Any:
        if self._spmd_partitioned and (base in _PARTITIONED or base in ("matmul", "neg")):
            from tpustrategy.ops import _spmd_hook

            partitioner = _spmd_hook.partitioner
            if base == "neg":
                return partitioner.unary("negative", self)
            a, b = (args[0], self) if reflected else (self, args[0])
            if base == "matmul":
                return partitioner.matmul(a, b)
            return partitioner.binary(_PARTITIONED[base], a, b)
        return getattr(self._as_tensor(), name)(*args)

    method.__name__ = name
    return method


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor"):
    setattr(ShardedTensor, f"__{_name}__", _forward(f"__{_name}__"))
    setattr(ShardedTensor, f"__r{_name}__", _forward(f"__r{_name}__"))
for _name in ("neg", "pos", "abs", "invert", "lt", "le", "gt", "ge", "eq", "ne"):
    setattr(ShardedTensor, f"__{_name}__", _forward(f"__{_name}__"))


def _coords(values: Iterable[object]) -> str:
    return "(" + ",".join(str(v) for v in values) + ")"


def _range_text(row: dict[str, Any]) -> str:
    return "[" + ", ".join(f"{lo}:{hi}" for lo, hi in zip(row["offset"], row["limit"], strict=True)) + "]"


def _format_bytes(count: int) -> str:
    if count < 1024:
        return f"{count} B"
    return f"{count / 1024:.1f} KiB" if count < 1 << 20 else f"{count / 2**20:.1f} MiB"


_TABLE_STYLE = (
    "<style>.tps-mesh td{border:1px solid #999;padding:2px 4px;vertical-align:top;font:11px monospace}"
    ".tps-mesh .tps-core{margin:1px 0;padding:0 3px;border-radius:3px}</style>"
)


def _chip_colour(index: int) -> str:
    """A light colour per chip (golden-angle hue steps keep neighbouring chips apart)."""
    return f"hsl({(index * 137.508) % 360:.0f}, 70%, 82%)"


def _cell_html(row: dict[str, Any]) -> str:
    title = f"logical {row['logical_device']} on {row['device']}"
    body = (
        f"<b>logical {row['logical_device']}</b> &rarr; TPU:{row['ordinal']}<br>"
        f"chip {_coords(row['chip'])} core {row['core_on_chip']}<br>host {row['host']}"
    )
    if row["offset"] is not None:
        body += f"<br>{html.escape(_range_text(row))}<br>{_format_bytes(row['bytes'])}"
    # One colour per chip, so the two cores of a chip (and the tiles they share a chip's HBM for) stand out.
    x, y, z = row["chip"]
    background = _chip_colour(x + 7 * y + 31 * z) if row["offset"] is not None else palette.UNUSED
    return f'<div class="tps-core" style="background:{background}" title="{html.escape(title)}">{body}</div>'


def _layout_html(tensor: ShardedTensor) -> str:
    """Tiled: the tile grid as a table (rows: leading split dims, columns: the last split dim), each cell listing
    the logical cores holding that tile; replicated / maximal: one row with every logical core."""
    sharding = tensor.sharding
    rows = tensor.layout()
    header = (
        f"ShardedTensor shape {list(tensor._shape_tuple)} {tensor.dtype.name}, sharding {sharding}, "
        f"per-core bytes {tensor.bytes_per_device}"
    )
    parts = [slice_svg.STYLE + _TABLE_STYLE, f"<div><b>{html.escape(header)}</b></div>", '<table class="tps-mesh">']
    if not sharding.is_tiled or sharding.tiled_rank == 0:
        parts.append("<tr>" + "".join(f"<td>{_cell_html(r)}</td>" for r in rows) + "</tr>")
        return "".join(parts) + "</table>"
    grid = sharding.tile_assignment_dims[: sharding.tiled_rank]
    split_dims = [d for d, size in enumerate(grid) if size > 1] or [len(grid) - 1]
    column_dim, row_dims = split_dims[-1], split_dims[:-1]
    by_tile: dict[tuple[int, ...], list[dict[str, Any]]] = {}
    for r in rows:
        if r["tile_index"] is not None:
            by_tile.setdefault(tuple(r["tile_index"]), []).append(r)
    row_keys = sorted({tuple(index[d] for d in row_dims) for index in by_tile})
    columns = "".join(f"<th>dim {column_dim}: tile {c}</th>" for c in range(grid[column_dim]))
    parts.append(f"<tr><th></th>{columns}</tr>")
    for key in row_keys:
        label = ", ".join(f"dim {d}: tile {i}" for d, i in zip(row_dims, key, strict=True)) or "tiles"
        cells = []
        for c in range(grid[column_dim]):
            holders = [
                r
                for index, rs in by_tile.items()
                for r in rs
                if index[column_dim] == c and tuple(index[d] for d in row_dims) == key
            ]
            cells.append("<td>" + "".join(_cell_html(r) for r in holders) + "</td>")
        parts.append(f"<tr><th>{html.escape(label)}</th>{''.join(cells)}</tr>")
    return "".join(parts) + "</table>"
