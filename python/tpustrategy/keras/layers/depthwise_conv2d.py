"""``keras.layers.DepthwiseConv2D`` (Keras 3): each input channel convolved with its own
``depth_multiplier`` filters; kernel shape kernel_size + (input_channels, depth_multiplier)."""

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
from tpustrategy.keras.layers.dense import KernelLayer, _positive_int, set_kernel_options


class DepthwiseConv2D(KernelLayer):
    """Depthwise 2-D convolution (``tf.nn.depthwise_conv2d``): each input channel convolved with its own
    `depth_multiplier` filters, giving channels * depth_multiplier outputs; then the bias and the activation.

    Args:
      kernel_size, strides, dilation_rate: an int for both spatial axes or a pair.
      padding: "valid" or "same".
      depth_multiplier: the number of filters per input channel (a positive int).
      data_format: "channels_last" (default) or "channels_first".
      depthwise_*, bias_*: the initializer, regularizer and constraint of the kernel and the bias.

    Raises:
      ValueError: an argument out of the ranges above.
    """

    def __init__(self, kernel_size: int | tuple[int, ...], strides: int | tuple[int, ...] = (1, 1),
                 padding: str = "valid", depth_multiplier: int = 1, data_format: str | None = None,
                 dilation_rate: int | tuple[int, ...] = (1, 1), activation: Any = None, use_bias: bool = True,
                 depthwise_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 depthwise_regularizer: Any = None, bias_regularizer: Any = None, activity_regularizer: Any = None,
                 depthwise_constraint: Any = None, bias_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.kernel_size = normalize_tuple(kernel_size, 2, "kernel_size")
        self.strides = normalize_tuple(strides, 2, "strides")
        self.dilation_rate = normalize_tuple(dilation_rate, 2, "dilation_rate")
        self.padding = normalize_padding(padding)
        self.data_format = normalize_data_format(data_format)
        self.depth_multiplier = _positive_int(depth_multiplier, "depth_multiplier")
        set_kernel_options(self, activation, use_bias, depthwise_initializer, bias_initializer, depthwise_regularizer,
                           bias_regularizer, depthwise_constraint, bias_constraint)
        self.depthwise_initializer, self.depthwise_regularizer = self.kernel_initializer, self.kernel_regularizer
        self.depthwise_constraint = self.kernel_constraint

    def build(self, input_shape: Any) -> None:
        channels = input_shape[-1 if self.data_format == "channels_last" else 1]
        self.kernel = self.add_weight(name="kernel", shape=self.kernel_size + (channels, self.depth_multiplier),
                                      initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
                                      constraint=self.depthwise_constraint)
        self.bias = self.add_weight(name="bias", shape=(channels * self.depth_multiplier,),
                                    initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = to_channels_last(inputs, self.data_format, 2)
        outputs = nn_op("depthwise_conv2d")(x, self.kernel._as_tensor(), strides=[1, *self.strides, 1],
                                            padding=self.padding.upper(), dilations=list(self.dilation_rate))
        if self.bias is not None:
            outputs = outputs + self.bias
        return from_channels_last(self.activation(outputs), self.data_format, 2)
