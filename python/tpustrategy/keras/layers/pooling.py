"""``keras.layers.MaxPooling2D`` and ``AveragePooling2D`` (Keras 3): windows of ``pool_size`` moved by
``strides`` (default: ``pool_size``), padding "valid" / "same" (padded positions never count)."""

from __future__ import annotations

from typing import Any

from tpustrategy.keras.layers.conv_utils import (
    from_channels_last,
    nn_op,
    normalize_data_format,
    normalize_padding,
    normalize_tuple,
    to_channels_last,
)
from tpustrategy.keras.layers.layer import Layer


class _Pooling2D(Layer):
    _op = ""
    rank = 2  # spatial dimensions (pooling3d.py's layers set 3)

    def __init__(self, pool_size: int | tuple[int, ...] = (2, 2), strides: int | tuple[int, ...] | None = None,
                 padding: str = "valid", data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pool_size = normalize_tuple(pool_size, self.rank, "pool_size")
        self.strides = normalize_tuple(strides if strides is not None else self.pool_size, self.rank, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = normalize_data_format(data_format)

    def call(self, inputs: Any) -> Any:
        x = to_channels_last(inputs, self.data_format, self.rank)
        out = nn_op(self._op)(x, ksize=list(self.pool_size), strides=list(self.strides), padding=self.padding.upper())
        return from_channels_last(out, self.data_format, self.rank)


class MaxPooling2D(_Pooling2D):
    """The maximum of each window of a 4-D input (``tf.nn.max_pool2d``).

    Args:
      pool_size: the window, an int for both spatial axes or a pair.
      strides: the step between windows, like `pool_size` (default: `pool_size`).
      padding: "valid" or "same".
      data_format: "channels_last" (default) or "channels_first".

    Raises:
      ValueError: an argument outside the values above.
    """

    _op = "max_pool2d"


class AveragePooling2D(_Pooling2D):
    """The mean of each window of a 4-D input (``tf.nn.avg_pool2d``); arguments as MaxPooling2D's."""

    _op = "avg_pool2d"


MaxPool2D, AvgPool2D = MaxPooling2D, AveragePooling2D
