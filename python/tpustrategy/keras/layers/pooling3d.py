"""``keras.layers.MaxPooling3D`` / ``AveragePooling3D`` (windows of ``pool_size`` moved by ``strides``,
default ``pool_size``; "valid" / "same") and ``GlobalMaxPooling3D`` / ``GlobalAveragePooling3D`` (the max or
mean over the three spatial axes, ``keepdims`` keeps them as 1), as Keras 3."""

from __future__ import annotations

from typing import Any

from tpustrategy import _core
from tpustrategy.keras.layers.conv_utils import normalize_data_format
from tpustrategy.keras.layers.layer import Layer
from tpustrategy.keras.layers.pooling import _Pooling2D


class _Pooling3D(_Pooling2D):
    rank = 3

    def __init__(self, pool_size: int | tuple[int, ...] = (2, 2, 2), strides: int | tuple[int, ...] | None = None,
                 padding: str = "valid", data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class MaxPooling3D(_Pooling3D):
    """The maximum of each window of a 5-D input (``tf.nn.max_pool3d``); arguments as MaxPooling2D's, with
    three spatial axes (default window 2 x 2 x 2)."""

    _op = "max_pool3d"


class AveragePooling3D(_Pooling3D):
    """The mean of each window of a 5-D input (``tf.nn.avg_pool3d``); arguments as MaxPooling3D's."""

    _op = "avg_pool3d"


class _GlobalPooling3D(Layer):
    _reduce = ""

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format)
        self.keepdims = bool(keepdims)

    def call(self, inputs: Any) -> Any:
        axes = [1, 2, 3] if self.data_format == "channels_last" else [2, 3, 4]
        return getattr(_core.ops, self._reduce)(inputs, axes, keepdims=self.keepdims)


class GlobalAveragePooling3D(_GlobalPooling3D):
    """Averages a 5-D input over its three spatial axes.

    Args:
      data_format: "channels_last" (default; [batch, depth, height, width, channels]) or "channels_first".
      keepdims: keep the spatial axes, with size 1.

    Raises:
      ValueError: `data_format` is neither of the two.
    """

    _reduce = "reduce_mean"


class GlobalMaxPooling3D(_GlobalPooling3D):
    """The maximum of a 5-D input over its three spatial axes; arguments as GlobalAveragePooling3D's."""

    _reduce = "reduce_max"


MaxPool3D, AvgPool3D = MaxPooling3D, AveragePooling3D
GlobalAvgPool3D, GlobalMaxPool3D = GlobalAveragePooling3D, GlobalMaxPooling3D
