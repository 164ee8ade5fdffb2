"""What the conv and pooling layers share: argument normalisation and the ``tf.nn`` op lookup.

The kernels are ``tf.nn.conv1d`` / ``conv2d`` / ``depthwise_conv2d`` / ``max_pool2d`` / ``avg_pool2d`` (C++);
a build without them raises NotImplementedError naming the missing op when the layer is called.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tpustrategy import _core

if TYPE_CHECKING:
    from tpustrategy.ops._args import Tensor


def nn_op(name: str) -> Callable[..., Tensor]:
    from tpustrategy import nn

    op: Callable[..., Tensor] | None = getattr(nn, name, None)
    if op is None:
        raise NotImplementedError(f"tf.nn.{name} is not built in this tpustrategy build; the Keras layer needs it")
    return op


def normalize_tuple(value: int | Sequence[int], n: int, name: str, allow_zero: bool = False) -> tuple[int, ...]:
    values = (value,) * n if isinstance(value, int) else tuple(value)
    if len(values) != n or not all(isinstance(v, int) for v in values) or any(
            v < 0 or (v == 0 and not allow_zero) for v in values):
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. Received {name}={value}")
    return values


def normalize_padding(padding: str, allowed: Sequence[str] = ("valid", "same")) -> str:
    padding = padding.lower() if isinstance(padding, str) else padding
    if padding not in allowed:
        raise ValueError(f"The `padding` argument must be a list/tuple or one of {list(allowed)}. Received: "
                         f"padding={padding}")
    return padding


def normalize_data_format(data_format: str | None) -> str:
    data_format = "channels_last" if data_format is None else data_format
    if not isinstance(data_format, str) or data_format.lower() not in ("channels_last", "channels_first"):
        raise ValueError(f"The `data_format` argument must be one of {{'channels_first', 'channels_last'}}. Received: "
                         f"data_format={data_format}")
    return data_format.lower()


def to_channels_last(x: Tensor, data_format: str, rank: int) -> Tensor:
    if data_format == "channels_last":
        return x
    return _core.ops.transpose(x, [0] + list(range(2, rank + 2)) + [1])


def from_channels_last(x: Tensor, data_format: str, rank: int) -> Tensor:
    if data_format == "channels_last":
        return x
    return _core.ops.transpose(x, [0, rank + 1] + list(range(1, rank + 1)))
