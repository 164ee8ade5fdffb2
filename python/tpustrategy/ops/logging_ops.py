"""``tf.print``: TF's text for tensors (numpy-like brackets, ``summarize`` elements at each end of every
axis with ``...`` between, floats with the fewest of 6 / 9 (float32) or 15 / 17 (float64) significant
digits that round-trip, bools as 1 / 0), Python values inside structures as ``repr``, ``sep`` / ``end``, and
``output_stream`` (sys.stdout, sys.stderr -- the default --, a "file://path" to append to, or a logging
function such as ``logging.info``).

Inside ``strategy.run`` each replica prints when it runs; replicas run in replica order between
synchronisation points, so the lines of one step come out replica 0 first, then 1, ... (deterministic,
unlike TF's concurrent replicas).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from tpustrategy import _core


def _is_tensor(value: Any) -> bool:
    return isinstance(value, _core.tensor.Tensor) or (hasattr(value, "_as_tensor") and hasattr(value, "dtype"))


def _float_text(v: np.floating[Any], single: bool) -> str:
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    short, full, kind = (6, 9, np.float32) if single else (15, 17, np.float64)
    text = f"{v:.{short}g}"
    if kind(text) == kind(v):
        return text
    return f"{v:.{full}g}"


def _scalar_text(v: Any, kind: str) -> str:  # v: a numpy scalar (numpy types a[()] as an array)
    if kind == "b":
        return "1" if v else "0"
    if kind == "f":
        return _float_text(v, v.dtype != np.float64)
    return str(v)


def _array_text(a: np.ndarray, summarize: int, depth: int = 0) -> str:
    if a.ndim == 0:
        return _scalar_text(a[()], a.dtype.kind)
    n = a.shape[0]
    cut = 0 <= summarize and 2 * summarize < n
    head = range(summarize) if cut else range(n)
    tail = range(n - summarize, n) if cut else range(0)
    if a.ndim == 1:
        parts = [_scalar_text(a[i], a.dtype.kind) for i in head]
        if cut:
            parts += ["..."] + [_scalar_text(a[i], a.dtype.kind) for i in tail]
        return "[" + " ".join(parts) + "]"
    sep = "\n" * (a.ndim - 1) + " " * (depth + 1)
    parts = [_array_text(a[i], summarize, depth + 1) for i in head]
    if cut:
        parts += ["..."] + [_array_text(a[i], summarize, depth + 1) for i in tail]
    return "[" + sep.join(parts) + "]"


def _tensor_text(value: Any, summarize: int) -> str:
    t = value._as_tensor() if not isinstance(value, _core.tensor.Tensor) else value
    a = np.asarray(t)
    if a.dtype.kind == "f" and a.dtype.itemsize < 4 or a.dtype.name == "bfloat16":
        a = a.astype(np.float32)  # half types print through float, as TF
    return _array_text(a, summarize)


def _text(value: Any, summarize: int, top: bool) -> str:
    if _is_tensor(value):
        return _tensor_text(value, summarize)
    if isinstance(value, str):
        return value if top else repr(value)
    if isinstance(value, dict):
        items = ", ".join(f"{k!r}: {_text(v, summarize, False)}" for k, v in value.items())
        return "{" + items + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_text(v, summarize, False) for v in value) + "]"
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        inner = [_text(v, summarize, False) for v in value]
        return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"
    return repr(value)


def print_v2(*inputs: Any, **kwargs: Any) -> None:
    """Prints `inputs` (tensors, Python values, nested structures) as TF's tf.print does.

    Keyword args: output_stream (default sys.stderr), summarize (3; -1 or None: everything), sep (" "),
    end ("\\n"), name (ignored).

    Raises:
      ValueError: an unknown keyword or output_stream.
    """
    output_stream = kwargs.pop("output_stream", sys.stderr)
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", "\n")
    kwargs.pop("name", None)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {sorted(kwargs)}")
    summarize = -1 if summarize is None else int(summarize)
    text = sep.join(_text(v, summarize, True) for v in inputs)
    if output_stream is sys.stdout or output_stream is sys.stderr or hasattr(output_stream, "write"):
        output_stream.write(text + end)
        if hasattr(output_stream, "flush"):
            output_stream.flush()
    elif isinstance(output_stream, str) and output_stream.startswith("file://"):
        with open(output_stream[len("file://"):], "a", encoding="utf-8") as f:
            f.write(text + end)
    elif callable(output_stream):
        output_stream(text + end.rstrip("\n") if end.endswith("\n") else text + end)
    else:
        raise ValueError(f"Unsupported output stream, logging level, or file.{output_stream}. Supported "
                         "streams are sys.stdout, sys.stderr, tf.logging.info, tf.logging.warning, "
                         "tf.logging.error, or a file path prefixed with 'file://'.")
