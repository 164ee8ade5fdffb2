"""Convolutions and pooling (``tf.nn.conv2d``, ``conv1d``, ``depthwise_conv2d``, ``conv2d_transpose``,
``convolution``, ``max_pool2d`` / ``avg_pool2d`` / ``max_pool`` / ``avg_pool`` / ``*_pool1d``).

TF's argument forms are normalised here (strides / dilations / ksize of length 1, N or N+2, padding
strings or explicit lists, NCHW by transposition) and the C++ kernels in ``_core.ops`` do the work
(im2col + GEMM for conv2d), recorded for GradientTape at the dispatch point. Errors follow TF 2.21:
ValueError for malformed static arguments, InvalidArgumentError / UnimplementedError for values
the kernels reject.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tpustrategy import _core, errors
from tpustrategy.ops import _spmd_hook
from tpustrategy.ops._args import Tensor, TensorLike, int_list

_ops = _core.ops


def _tensor(value: TensorLike, like: Tensor | None = None) -> Any:
    """A Tensor (a variable as is); a non-tensor takes `like`'s dtype (TF converts a second operand to the
    first's dtype)."""
    if isinstance(value, _core.tensor.Tensor) or hasattr(value, "_as_tensor"):
        return value
    return _core.tensor.convert_to_tensor(value, None if like is None else like.dtype)


def _sequence(value: Any, n: int, name: str, channel_first: bool = False) -> list[int]:
    """TF's _get_sequence: an int or a list of length 1, n or n + 2 -> the n spatial values."""
    if value is None:
        return [1] * n
    values = int_list(value, name)
    if len(values) == n + 2:
        batch, channel = values[0], values[1] if channel_first else values[-1]
        if batch != 1 or channel != 1:
            what = "Pooling" if name == "ksize" else "Current implementation"
            if name == "ksize":
                raise errors.UnimplementedError(None, None, f"{what} is not yet supported on the batch dimension.")
            raise errors.UnimplementedError(
                None, None, f"{what} does not yet support {name} in the batch and depth dimensions.")
        return values[2:] if channel_first else values[1:-1]
    if len(values) == 1:
        return values * n
    if len(values) != n:
        raise ValueError(f"{name} should be of length 1, {n} or {n + 2}. Received: {name}={value} of length "
                         f"{len(values)}")
    return values


def _padding(padding: Any, n: int, channel_first: bool = False) -> tuple[str, list[int]]:
    """('SAME' | 'VALID' | 'EXPLICIT', [before, after] per spatial dimension flattened)."""
    if isinstance(padding, str):
        return padding, [0] * (2 * n)
    if isinstance(padding, (list, tuple)) or hasattr(padding, "numpy"):
        pairs = [int_list(p, "padding") for p in (padding.numpy() if hasattr(padding, "numpy") else padding)]
        if len(pairs) != n + 2:
            raise ValueError(f"When padding is a list, it must be of size {n + 2}. Received: padding={padding} of "
                             f"size {len(pairs)}")
        if any(len(p) != 2 for p in pairs):
            raise ValueError(f"padding must be a list of [before, after] pairs, got {padding}")
        outer = [pairs[0], pairs[1]] if channel_first else [pairs[0], pairs[-1]]
        spatial = pairs[2:] if channel_first else pairs[1:-1]
        if any(v != 0 for p in outer for v in p):
            raise errors.InvalidArgumentError(
                None, None, "Nonzero explicit padding in the batch or depth dimensions is not supported")
        return "EXPLICIT", [v for p in spatial for v in p]
    raise TypeError(f"padding must be 'SAME', 'VALID' or a list of pairs, got {padding!r}")


def _channel_first(data_format: str | None, n: int) -> bool:
    last = {1: "NWC", 2: "NHWC"}[n]
    first = {1: "NCW", 2: "NCHW"}[n]
    if data_format is None or data_format == last:
        return False
    if data_format == first:
        return True
    raise ValueError(f"data_format must be {last!r} or {first!r}, got {data_format!r}")


def _to_last(x: TensorLike, channel_first: bool) -> TensorLike:
    return _ops.transpose(x, [0, 2, 3, 1]) if channel_first else x


def _from_last(y: Tensor, channel_first: bool) -> Tensor:
    return _ops.transpose(y, [0, 3, 1, 2]) if channel_first else y


def conv2d(input: TensorLike, filters: TensorLike, strides: int | Sequence[int], padding: Any,  # noqa: A002
           data_format: str | None = "NHWC", dilations: Any = None, name: str | None = None) -> Any:
    """2-D convolution of `input` [batch, height, width, in] with `filters` [fh, fw, in / groups, out]
    (tf.nn.conv2d). `padding`: "SAME", "VALID" or [[0, 0], [top, bottom], [left, right], [0, 0]].
    Computed as im2col + GEMM; the gradient (input and filter) is recorded for GradientTape.

    Raises:
      ValueError: strides / dilations / padding lists of the wrong length.
      InvalidArgumentError: ranks other than 4, input depth not a multiple of the filter's, mismatched
        dtypes, non-positive strides, negative explicit paddings, an unknown padding string.
      UnimplementedError: strides or dilations in the batch / depth dimensions.
    """
    cf = _channel_first(data_format, 2)
    stride = _sequence(strides, 2, "strides", cf)
    dilation = _sequence(dilations, 2, "dilations", cf)
    mode, pads = _padding(padding, 2, cf)
    if _spmd_hook.active and _spmd_hook.sharded(input, filters):
        # SPMD: spatially split inputs exchange halos (collective-permutes), sized by the window and the padding.
        return _spmd_hook.partitioner.conv2d(input, filters, mode, stride, dilation, channels_first=cf,
                                             explicit_paddings=pads)
    x = _tensor(input)
    y = _ops.conv2d(_to_last(x, cf), _tensor(filters, x), strides=stride, dilations=dilation,
                    padding=mode, explicit_paddings=pads)
    return _from_last(y, cf)


def conv1d(input: TensorLike, filters: TensorLike, stride: int | Sequence[int], padding: Any,  # noqa: A002
           data_format: str | None = "NWC", dilations: Any = None, name: str | None = None) -> Any:
    """1-D convolution of `input` [batch, width, in] with `filters` [fw, in, out] (tf.nn.conv1d): conv2d over
    a height-1 image, as TF computes it."""
    cf = _channel_first(data_format, 1)
    stride_w = _sequence(stride, 1, "stride", cf)
    dilation_w = _sequence(dilations, 1, "dilations", cf)
    if not isinstance(padding, str):
        mode, pads = _padding(padding, 1, cf)
        padding = [[0, 0], [0, 0], pads[0:2], [0, 0]] if mode == "EXPLICIT" else mode
    x = _tensor(input)
    x = _ops.expand_dims(x, -2 if cf else -3)
    f = _ops.expand_dims(_tensor(filters, x), 0)
    y = conv2d(x, f, [1] + stride_w, padding, "NCHW" if cf else "NHWC", [1] + dilation_w)
    return _ops.squeeze(y, [-2 if cf else -3])


def depthwise_conv2d(input: TensorLike, filter: TensorLike, strides: int | Sequence[int], padding: Any,  # noqa: A002
                     data_format: str | None = None, dilations: Any = None, name: str | None = None) -> Any:
    """Depthwise 2-D convolution (tf.nn.depthwise_conv2d): `filter` [fh, fw, in, multiplier] gives
    [batch, oh, ow, in * multiplier]. `strides` is a list of 4 with equal row and column strides.

    Raises:
      TypeError: `strides` is not a list.
      InvalidArgumentError: unequal row / column strides, mismatched depths, or as conv2d.
    """
    if not isinstance(strides, (list, tuple)):
        raise TypeError(f"Expected list for 'strides' argument to 'depthwise_conv2d_native' Op, not {strides!r}.")
    cf = _channel_first(data_format, 2)
    stride = _sequence(strides, 2, "strides", cf)
    if stride[0] != stride[1]:
        raise errors.InvalidArgumentError(
            None, None, "Current implementation only supports equal length strides in the row and column dimensions.")
    dilation = _sequence(dilations, 2, "dilations", cf)
    mode, pads = _padding(padding, 2, cf)
    if _spmd_hook.active and _spmd_hook.sharded(input, filter):
        # SPMD: spatial tiles exchange halos as conv2d's; channel tiles convolve locally.
        return _spmd_hook.partitioner.conv2d(input, filter, mode, stride, dilation, channels_first=cf,
                                             explicit_paddings=pads, depthwise=True)
    x = _tensor(input)
    y = _ops.depthwise_conv2d(_to_last(x, cf), _tensor(filter, x), strides=stride, dilations=dilation,
                              padding=mode, explicit_paddings=pads)
    return _from_last(y, cf)


def conv2d_transpose(input: TensorLike, filters: TensorLike, output_shape: TensorLike,  # noqa: A002
                     strides: int | Sequence[int], padding: Any = "SAME", data_format: str | None = "NHWC",
                     dilations: Any = None, name: str | None = None) -> Any:
    """The transpose (gradient) of conv2d (tf.nn.conv2d_transpose): `filters` [fh, fw, out, in] map `input`
    [batch, h, w, in] to `output_shape` [batch, oh, ow, out]."""
    cf = _channel_first(data_format, 2)
    stride = _sequence(strides, 2, "strides", cf)
    dilation = _sequence(dilations, 2, "dilations", cf)
    mode, pads = _padding(padding, 2, cf)
    shape = int_list(output_shape, "output_shape")
    if len(shape) != 4:
        raise ValueError(f"output_shape must have 4 elements, got {shape}")
    if cf:
        shape = [shape[0], shape[2], shape[3], shape[1]]
    x = _tensor(input)
    y = _ops.conv2d_backprop_input(shape, _tensor(filters, x), _to_last(x, cf), strides=stride,
                                   dilations=dilation, padding=mode, explicit_paddings=pads)
    return _from_last(y, cf)


def convolution(input: TensorLike, filters: TensorLike, strides: int | Sequence[int] | None = None,  # noqa: A002
                padding: Any = "VALID", data_format: str | None = None, dilations: Any = None,
                name: str | None = None) -> Any:
    """tf.nn.convolution for 1-D, 2-D and 3-D inputs (rank 3, 4 or 5)."""
    rank = _tensor(input).ndim
    if rank == 3:
        return conv1d(input, filters, strides if strides is not None else 1, padding, data_format or "NWC",
                      dilations)
    if rank == 4:
        return conv2d(input, filters, strides if strides is not None else 1, padding, data_format or "NHWC",
                      dilations)
    if rank == 5:
        from tpustrategy.ops import nn_conv3d_ops

        cf = data_format == "NCDHW"
        s = _sequence(strides, 3, "strides", cf)
        d = _sequence(dilations, 3, "dilations", cf)
        full: Callable[[list[int]], list[int]] = (lambda v: [1, 1, *v]) if cf else (lambda v: [1, *v, 1])
        return nn_conv3d_ops.conv3d(input, filters, full(s), padding, data_format or "NDHWC", full(d))
    raise ValueError(f"`input.shape.rank` must be 3, 4 or 5 for tf.nn.convolution, got rank {rank}")


def _pool2d(kernel: Callable[..., Tensor], input: TensorLike, ksize: Any, strides: Any, padding: Any,  # noqa: A002
            data_format: str | None, allow_explicit: bool) -> Tensor:
    cf = _channel_first(data_format, 2)
    k = _sequence(ksize, 2, "ksize", cf)
    s = _sequence(strides, 2, "strides", cf)
    if not allow_explicit and not isinstance(padding, str):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    mode, pads = _padding(padding, 2, cf)
    if mode == "EXPLICIT" and any(p > k[i // 2] for i, p in enumerate(pads)):
        raise errors.InvalidArgumentError(
            None, None, f"explicit paddings {pads} cannot be greater than the sliding window size {k}")
    y = kernel(_to_last(_tensor(input), cf), ksize=k, strides=s, padding=mode, explicit_paddings=pads)
    return _from_last(y, cf)


def max_pool2d(input: TensorLike, ksize: int | Sequence[int], strides: int | Sequence[int], padding: Any,  # noqa: A002
               data_format: str | None = "NHWC", name: str | None = None) -> Any:
    """2-D max pooling (tf.nn.max_pool2d); padding (SAME or explicit) never wins. Gradient: to the first
    maximum of each window."""
    return _pool2d(_ops.max_pool2d, input, ksize, strides, padding, data_format, True)


def avg_pool2d(input: TensorLike, ksize: int | Sequence[int], strides: int | Sequence[int], padding: Any,  # noqa: A002
               data_format: str | None = "NHWC", name: str | None = None) -> Any:
    """2-D average pooling (tf.nn.avg_pool2d); padded positions are not counted (TF's SAME)."""
    return _pool2d(_ops.avg_pool2d, input, ksize, strides, padding, data_format, False)


def _pool1d(pool2d: Callable[..., Any], input: TensorLike, ksize: Any, strides: Any, padding: Any,  # noqa: A002
            data_format: str | None) -> Tensor:
    cf = _channel_first(data_format or "NWC", 1)
    k = [1] + _sequence(ksize, 1, "ksize", cf)
    s = [1] + _sequence(strides, 1, "strides", cf)
    if not isinstance(padding, str):
        mode, pads = _padding(padding, 1, cf)
        padding = [[0, 0], [0, 0], pads[0:2], [0, 0]]
    x = _ops.expand_dims(_tensor(input), -2 if cf else -3)
    y = pool2d(x, k, s, padding, "NCHW" if cf else "NHWC")
    return _ops.squeeze(y, [-2 if cf else -3])


def max_pool1d(input: TensorLike, ksize: int | Sequence[int], strides: int | Sequence[int], padding: Any,  # noqa: A002
               data_format: str | None = "NWC", name: str | None = None) -> Any:
    """1-D max pooling over [batch, width, channels] (tf.nn.max_pool1d)."""
    return _pool1d(max_pool2d, input, ksize, strides, padding, data_format)


def avg_pool1d(input: TensorLike, ksize: int | Sequence[int], strides: int | Sequence[int], padding: Any,  # noqa: A002
               data_format: str | None = "NWC", name: str | None = None) -> Any:
    """1-D average pooling over [batch, width, channels] (tf.nn.avg_pool1d)."""
    return _pool1d(avg_pool2d, input, ksize, strides, padding, data_format)


def _pool_nd(pool1d: Callable[..., Any], pool2d: Callable[..., Any], input: TensorLike, ksize: Any,  # noqa: A002
             strides: Any, padding: Any, data_format: str | None, name: str) -> Any:
    rank = _tensor(input).ndim
    if rank == 3:
        return pool1d(input, ksize, strides, padding, data_format or "NWC")
    if rank == 4:
        return pool2d(input, ksize, strides, padding, data_format or "NHWC")
    if rank == 5:
        from tpustrategy.ops import nn_conv3d_ops

        pool3d = nn_conv3d_ops.max_pool3d if pool2d is max_pool2d else nn_conv3d_ops.avg_pool3d
        return pool3d(input, ksize, strides, padding, data_format or "NDHWC")
    raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={_tensor(input)._shape_tuple} "
                     f"of rank {rank}")


def max_pool(input: TensorLike, ksize: int | Sequence[int], strides: int | Sequence[int], padding: Any,  # noqa: A002
             data_format: str | None = None, name: str | None = None) -> Any:
    """Max pooling dispatched on the input's rank (tf.nn.max_pool): 3 -> 1-D, 4 -> 2-D, 5 -> 3-D."""
    return _pool_nd(max_pool1d, max_pool2d, input, ksize, strides, padding, data_format, "tf.nn.max_pool")


def avg_pool(input: TensorLike, ksize: int | Sequence[int], strides: int | Sequence[int], padding: Any,  # noqa: A002
             data_format: str | None = None, name: str | None = None) -> Any:
    """Average pooling dispatched on the input's rank (tf.nn.avg_pool): 3 -> 1-D, 4 -> 2-D, 5 -> 3-D."""
    return _pool_nd(avg_pool1d, avg_pool2d, input, ksize, strides, padding, data_format, "tf.nn.avg_pool")
