"""Jupyter pictures of ``tf.distribute`` objects: a strategy (replicas → cores → hosts), a PerReplica / Mirrored
value (one row per replica: device and a value summary), and a distributed dataset (the per-replica batch sizes
of its next steps, read from a fresh host-side pass over the input: the user's iterators are not touched and
nothing is placed on a replica's device)."""

from __future__ import annotations

import html
from typing import Any

import numpy as np

from tpustrategy import _core
from tpustrategy._pictures import palette, slice_svg

_MAX_ROWS = 64
_PREVIEW_STEPS = 3


def _device_cell(name: str) -> str:
    """``TPU:3 · host 0 · chip (1,0,0) core 1`` for a simulated device name."""
    try:
        device = _core.devices.find_device(name)
    except (ValueError, RuntimeError):
        return html.escape(name)
    short = f"{device.device_type}:{device.index}"
    where = f"host {device.task}"
    if device.device_type == "TPU":
        x, y, z, core = device.coordinates
        where += f", chip ({x},{y},{z}) core {core}"
    return f'<span title="{html.escape(device.name)}">{short}</span> <small>({where})</small>'


def _table(header: list[str], rows: list[list[str]], colours: list[str] | None = None) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = []
    for i, row in enumerate(rows):
        style = f' style="background:{colours[i]}"' if colours else ""
        body.append(f"<tr{style}>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>")
    return f'<table class="tps-table"><tr>{head}</tr>{"".join(body)}</table>'


def strategy_html(strategy: Any) -> str:
    """Replicas → the cores each runs on → their hosts, with one colour per replica."""
    extended = strategy.extended
    n = strategy.num_replicas_in_sync
    local = list(extended._local_replica_ids()) if hasattr(extended, "_local_replica_ids") else list(range(n))
    colours = palette.distinct_colours(len(local))
    rows: list[list[str]] = []
    hosts: set[int] = set()
    for replica in local[:_MAX_ROWS]:
        names = extended._devices_of_replica(replica)
        tasks = set()
        for name in names:
            try:
                tasks.add(_core.devices.find_device(name).task)
            except (ValueError, RuntimeError):
                pass
        hosts |= tasks
        cores = "<br>".join(f"logical {k}: {_device_cell(name)}" if len(names) > 1 else _device_cell(name)
                            for k, name in enumerate(names))
        rows.append([str(replica), cores, ", ".join(str(t) for t in sorted(tasks))])
    for replica in local[_MAX_ROWS:]:
        hosts |= {_core.devices.find_device(name).task for name in extended._devices_of_replica(replica)}
    title = (
        f"{type(strategy).__name__}: {n} replica(s) in sync"
        + (f", {len(local)} local" if len(local) != n else "")
        + f", {len(hosts)} host(s)"
    )
    more = f"<div>... {len(local) - _MAX_ROWS} more replicas</div>" if len(local) > _MAX_ROWS else ""
    legend = slice_svg.legend([], 0, "row colour: one per replica; cores: the device each logical core runs on")
    return (
        f'{slice_svg.STYLE}<div class="tps-pic tps-strategy"><b>{html.escape(title)}</b>{legend}'
        f"{_table(['replica', 'cores', 'host(s)'], rows, colours[: len(rows)])}{more}</div>"
    )


def _summary(value: Any) -> str:
    """``float32[4, 2] = [[0. 1.] ...]`` for tensors; type names for anything else; nests leaf by leaf."""
    from tpustrategy import nest  # lazy: nest imports the framework, which this module does not need to load

    leaves = nest.flatten(value)
    if len(leaves) != 1 or leaves[0] is not value:
        return "<br>".join(_summary(leaf) for leaf in leaves[:8]) + ("<br>..." if len(leaves) > 8 else "")
    read = getattr(value, "read_value", None)
    if callable(read) and not hasattr(value, "numpy"):
        value = read()
    try:
        array = np.asarray(value)
    except Exception:  # noqa: BLE001 - anything without an array view is summarised by its type
        return html.escape(type(value).__name__)
    if array.dtype == object:
        return html.escape(f"{type(value).__name__}")
    dtype = getattr(getattr(value, "dtype", None), "name", str(array.dtype))
    text = np.array2string(array, threshold=6, edgeitems=2, max_line_width=60, precision=4)
    return html.escape(f"{dtype}{list(array.shape)} = {text}")


def _device_of(value: Any) -> str:
    from tpustrategy import nest  # lazy: see _summary

    for leaf in nest.flatten(value):
        device = getattr(leaf, "device", None)
        if isinstance(device, str) and device:
            return _device_cell(device)
    return "-"


def values_html(values: Any) -> str:
    """One row per replica: the device of its component and a summary of the value."""
    components = values.values
    colours = palette.distinct_colours(len(components))
    rows = [[str(i), _device_of(v), _summary(v)] for i, v in enumerate(components[:_MAX_ROWS])]
    more = f"<div>... {len(components) - _MAX_ROWS} more replicas</div>" if len(components) > _MAX_ROWS else ""
    title = f"{type(values).__name__}: {len(components)} component(s), one per replica"
    return (
        f'{slice_svg.STYLE}<div class="tps-pic tps-values"><b>{html.escape(title)}</b>'
        f"{_table(['replica', 'device', 'value'], rows, colours[: len(rows)])}{more}</div>"
    )


def _rows_of(element: Any) -> int | None:
    from tpustrategy.data import _structure  # lazy: the data package is not needed to draw anything else

    for leaf in _structure.flatten(element):
        shape = _structure.leaf_shape(leaf)
        return int(shape[0]) if shape else None
    return None


def preview_batch_sizes(dataset: Any, steps: int = _PREVIEW_STEPS) -> list[list[int | None]]:
    """Per step (at most ``steps``), the batch size each replica would get (None: exhausted / unbatched).

    Runs a fresh host-side pass over each input worker's pipeline (the same cut rules as iteration, without
    placing anything on a device); iterators the user holds are unaffected.
    """
    from tpustrategy.framework import device_scope  # lazy: see _rows_of

    workers = dataset._workers
    table: list[list[int | None]] = [[None] * workers.num_replicas for _ in range(steps)]
    for worker, pipeline in enumerate(dataset._pipelines):
        replica_ids = workers.replica_ids[worker]
        with device_scope.device_scope(pipeline.host_device):
            if hasattr(pipeline, "_ranges"):  # one global batch per step, cut into slices
                iterator = pipeline.dataset._iterate()
                for step in range(steps):
                    element = next(iterator, None)
                    if element is None:
                        break
                    rows = _rows_of(element)
                    counts = pipeline._ranges(rows)[1] if rows is not None else [None] * len(replica_ids)
                    for k, replica in enumerate(replica_ids):
                        table[step][replica] = counts[k]
            else:  # replicas take turns on the host's stream(s)
                per_replica = getattr(pipeline, "_per_replica", False)
                iterators = [d._iterate() for d in pipeline.datasets]
                for step in range(steps):
                    for k, replica in enumerate(replica_ids):
                        element = next(iterators[k if per_replica else 0], None)
                        table[step][replica] = _rows_of(element) if element is not None else None
    return table


def dataset_html(dataset: Any) -> str:
    """The element spec, then a table of the next steps' per-replica batch sizes."""
    n = dataset._workers.num_replicas
    try:
        sizes = preview_batch_sizes(dataset)
        note = (f"batch sizes of the first {len(sizes)} steps of a fresh iteration (host-side preview: "
                "iterators you hold are not advanced); '-' = this replica's input is exhausted")
    except Exception as error:  # noqa: BLE001 - a preview must never break the repr
        sizes, note = [], f"no preview: {type(error).__name__}: {error}"
    shown = min(n, _MAX_ROWS)
    header = ["step"] + [f"replica {r}" for r in range(shown)] + (["..."] if n > shown else [])
    rows = [[str(i)] + ["-" if s is None else str(s) for s in step[:shown]] + (["..."] if n > shown else [])
            for i, step in enumerate(sizes)]
    title = f"{type(dataset).__name__}: {n} replica(s), {dataset._workers.num_workers} input worker(s)"
    spec = html.escape(str(dataset._replica_spec))
    return (
        f'{slice_svg.STYLE}<div class="tps-pic tps-dataset"><b>{html.escape(title)}</b>'
        f"<div><small>per-replica element: {spec}</small></div>{_table(header, rows)}"
        f"{slice_svg.legend([], 0, note)}</div>"
    )
