"""3-D convolution and pooling (``tf.nn.conv3d``, ``conv3d_transpose``, ``max_pool3d``, ``avg_pool3d``).

TF's argument forms are normalised here (strides / dilations / ksize of length 1, 3 or 5, NCDHW by
transposition) and the C++ kernels in ``_core.ops`` do the work (im2col + GEMM), recorded for
GradientTape at the dispatch point. Errors follow TF 2.21's eager ops. Two deliberate extensions over
TF's CPU kernels, which a TPU has: dilations > 1 and the NCDHW layout (TF's CPU Conv3D rejects both).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tpustrategy import _core, errors
from tpustrategy.ops._args import Tensor, TensorLike, int_list

_ops = _core.ops
_PADDINGS = ("SAME", "VALID")


def _tensor(value: TensorLike, like: Tensor | None = None) -> Any:  # a Tensor, or a variable as is
    if isinstance(value, _core.tensor.Tensor) or hasattr(value, "_as_tensor"):
        return value
    return _core.tensor.convert_to_tensor(value, None if like is None else like.dtype)


def _channel_first(data_format: str | None) -> bool:
    if data_format is None or data_format == "NDHWC":
        return False
    if data_format == "NCDHW":
        return True
    raise ValueError(f"data_format must be 'NDHWC' or 'NCDHW', got {data_format!r}")


def _to_last(x: TensorLike, cf: bool) -> TensorLike:
    return _ops.transpose(x, [0, 2, 3, 4, 1]) if cf else x


def _from_last(y: Tensor, cf: bool) -> Tensor:
    return _ops.transpose(y, [0, 4, 1, 2, 3]) if cf else y


def _padding(padding: Any) -> str:
    if not isinstance(padding, str):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    if padding not in _PADDINGS:
        raise errors.InvalidArgumentError(
            None, None, f'Value for attr \'padding\' of "{padding}" is not in the list of allowed values: "SAME", '
            '"VALID"')
    return padding


def _attr5(value: Any, name: str, op: str, cf: bool, default: int = 1) -> list[int]:
    """The spatial part of a length-5 list attribute (conv3d's strides / dilations)."""
    if value is None:
        return [default] * 3
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"Expected list for '{name}' argument to '{op}' Op, not {value!r}.")
    values = int_list(value, name)
    if len(values) < 5:
        raise errors.InvalidArgumentError(
            None, None, f"Length for attr '{name}' of {len(values)} must be at least minimum 5")
    if len(values) != 5:
        raise errors.InvalidArgumentError(None, None, f"Sliding window {name} field must specify 5 dimensions")
    batch, depth = values[0], values[1] if cf else values[4]
    if batch != 1 or depth != 1:
        what = "dilations" if name == "dilations" else "strides"
        raise errors.InvalidArgumentError(
            None, None, f"Current implementation does not yet support {what} in the batch and depth dimensions.")
    return values[2:] if cf else values[1:4]


def _sequence3(value: Any, name: str, cf: bool) -> list[int]:
    """TF's _get_sequence for 3 spatial dimensions: an int or a list of length 1, 3 or 5."""
    values = int_list(value, name)
    if len(values) == 1:
        return values * 3
    if len(values) == 3:
        return values
    if len(values) == 5:
        batch, depth = values[0], values[1] if cf else values[4]
        if batch != 1:
            raise errors.UnimplementedError(None, None, "Pooling is not yet supported on the batch dimension.")
        if depth != 1:
            raise errors.UnimplementedError(None, None, "Pooling is not yet supported on the depth dimension.")
        return values[2:] if cf else values[1:4]
    raise ValueError(f"{name} should be of length 1, 3 or 5. Received: {name}={value} of length {len(values)}")


def conv3d(input: TensorLike, filters: TensorLike, strides: int | Sequence[int], padding: Any,  # noqa: A002
           data_format: str | None = "NDHWC", dilations: Any = None, name: str | None = None) -> Any:
    """3-D convolution of `input` [batch, depth, height, width, in] with `filters` [fd, fh, fw, in, out]
    (tf.nn.conv3d). `strides` (and `dilations`) are lists of 5 with 1 in the batch and channel places.

    Raises:
      TypeError: strides not a list; padding not a string.
      InvalidArgumentError: ranks other than 5, filter depth not the input's, mismatched dtypes, strides of
        the wrong length, non-positive or in the batch / channel places, an unknown padding string.
    """
    cf = _channel_first(data_format)
    stride = _attr5(strides, "strides", "conv3d", cf)
    dilation = _attr5(dilations, "dilations", "conv3d", cf)
    mode = _padding(padding)
    x = _tensor(input)
    y = _ops.conv3d(_to_last(x, cf), _tensor(filters, x), strides=stride, dilations=dilation, padding=mode)
    return _from_last(y, cf)


def conv3d_transpose(input: TensorLike, filters: TensorLike, output_shape: TensorLike,  # noqa: A002
                     strides: int | Sequence[int], padding: Any = "SAME", data_format: str | None = "NDHWC",
                     dilations: Any = None, name: str | None = None) -> Any:
    """The transpose (input gradient) of conv3d (tf.nn.conv3d_transpose): `filters` [fd, fh, fw, out, in] map
    `input` [batch, d, h, w, in] to `output_shape` [batch, od, oh, ow, out]. `strides` / `dilations`: an int
    or a list of 1, 3 or 5."""
    cf = _channel_first(data_format)
    stride = _sequence3(strides, "strides", cf)
    dilation = _sequence3(dilations if dilations is not None else 1, "dilations", cf)
    mode = _padding(padding)
    shape = int_list(output_shape, "output_shape")
    if len(shape) != 5:
        raise errors.InvalidArgumentError(None, None, "input tensor must have 5 dimensions")
    if cf:
        shape = [shape[0], shape[2], shape[3], shape[4], shape[1]]
    x = _tensor(input)
    y = _ops.conv3d_backprop_input(shape, _tensor(filters, x), _to_last(x, cf), strides=stride,
                                   dilations=dilation, padding=mode)
    return _from_last(y, cf)


def _pool3d(kernel: Callable[..., Tensor], input: TensorLike, ksize: Any, strides: Any, padding: Any,  # noqa: A002
            data_format: str | None, op: str) -> Tensor:
    cf = _channel_first(data_format)
    k = _sequence3(ksize, "ksize", cf)
    s = _sequence3(strides, "strides", cf)
    mode = _padding(padding)
    x = _tensor(input)
    if op == "MaxPool3D" and x.dtype.name == "float64":
        raise errors.InvalidArgumentError(
            None, None, "Value for attr 'T' of double is not in the list of allowed values: half, bfloat16, float")
    if any(v <= 0 for v in k):
        raise errors.InvalidArgumentError(None, None, "Sliding window ksize field must have non-negative dimensions")
    if any(v <= 0 for v in s):
        raise errors.InvalidArgumentError(None, None, f"Stride must be > 0, but got {min(s)}")
    return _from_last(kernel(_to_last(x, cf), ksize=k, strides=s, padding=mode), cf)


def max_pool3d(input: TensorLike, ksize: int | Sequence[int], strides: int | Sequence[int], padding: Any,  # noqa: A002
               data_format: str | None = "NDHWC", name: str | None = None) -> Any:
    """3-D max pooling (tf.nn.max_pool3d); padding never wins. Gradient (TF's MaxPool3DGrad): each window's
    gradient goes to every element equal to its maximum. float32 / float16 / bfloat16, as TF's op."""
    return _pool3d(_ops.max_pool3d, input, ksize, strides, padding, data_format, "MaxPool3D")


def avg_pool3d(input: TensorLike, ksize: int | Sequence[int], strides: int | Sequence[int], padding: Any,  # noqa: A002
               data_format: str | None = "NDHWC", name: str | None = None) -> Any:
    """3-D average pooling (tf.nn.avg_pool3d); padded positions are not counted (TF's SAME)."""
    return _pool3d(_ops.avg_pool3d, input, ksize, strides, padding, data_format, "AvgPool3D")
