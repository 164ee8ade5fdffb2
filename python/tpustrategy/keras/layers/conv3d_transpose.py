"""``keras.layers.Conv3DTranspose`` (Keras 3): the transpose of Conv3D (tf.nn.conv3d_transpose), kernel
shape kernel_size + (filters, input_channels); the output size follows Keras's
``compute_conv_transpose_output_length`` (``output_padding`` included)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from tpustrategy.keras.layers.conv import add_kernel_and_bias
from tpustrategy.keras.layers.conv_utils import (
    from_channels_last,
    nn_op,
    normalize_data_format,
    normalize_padding,
    normalize_tuple,
    to_channels_last,
)
from tpustrategy.keras.layers.dense import KernelLayer, _positive_int, set_kernel_options


def _output_length(size: int, kernel: int, padding: str, output_padding: int | None, stride: int,
                   dilation: int) -> int:
    kernel = kernel + (kernel - 1) * (dilation - 1)
    if output_padding is None:
        return size * stride + max(kernel - stride, 0) if padding == "valid" else size * stride
    pad = kernel // 2 if padding == "same" else 0
    return (size - 1) * stride + kernel - 2 * pad + output_padding


class Conv3DTranspose(KernelLayer):
    """Transposed 3-D convolution (``tf.nn.conv3d_transpose``) over [batch, depth, height, width, channels]
    (channels_last), then the bias and the activation.

    Args:
      filters: the number of output channels (a positive int).
      kernel_size, strides, dilation_rate: an int for all three spatial axes or a tuple of three.
      padding: "valid" or "same".
      output_padding: an amount (below the stride) added to the output's size along each spatial axis; None
        lets the size follow from the input size, stride, kernel and padding alone.
      data_format: "channels_last" (default) or "channels_first".
      activation, use_bias: the activation applied last (none by default) and whether a bias is added.
      *_initializer, *_regularizer, *_constraint: for the weights they name (callables or names).

    Raises:
      ValueError: an argument out of the ranges above, or (at build) an input whose channel dimension is
        unknown.
    """

    def __init__(self, filters: int, kernel_size: int | tuple[int, ...], strides: int | tuple[int, ...] = (1, 1, 1),
                 padding: str = "valid", data_format: str | None = None,
                 output_padding: int | tuple[int, ...] | None = None, dilation_rate: int | tuple[int, ...] = (1, 1, 1),
                 activation: Any = None, use_bias: bool = True, kernel_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None, bias_constraint: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.filters = _positive_int(filters, "filters")
        self.kernel_size = normalize_tuple(kernel_size, 3, "kernel_size")
        self.strides = normalize_tuple(strides, 3, "strides")
        self.dilation_rate = normalize_tuple(dilation_rate, 3, "dilation_rate")
        self.output_padding = None if output_padding is None else normalize_tuple(
            output_padding, 3, "output_padding", allow_zero=True)
        if self.output_padding is not None and any(
                p >= s for p, s in zip(self.output_padding, self.strides, strict=True)):
            raise ValueError(f"Strides must be greater than output padding. Received strides={self.strides}, "
                             f"output_padding={self.output_padding}.")
        self.padding = normalize_padding(padding)
        self.data_format = normalize_data_format(data_format)
        set_kernel_options(self, activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                           bias_regularizer, kernel_constraint, bias_constraint)

    def build(self, input_shape: Any) -> None:
        channels = input_shape[-1 if self.data_format == "channels_last" else 1]
        if channels is None:
            raise ValueError(f"The channel dimension of the inputs should be defined. Received input_shape="
                             f"{tuple(input_shape)}")
        add_kernel_and_bias(self, self.kernel_size + (self.filters, channels))

    def call(self, inputs: Any) -> Any:
        x = to_channels_last(inputs, self.data_format, 3)
        shape = cast(Sequence[int], x.shape)  # an eager tensor's shape is fully known
        spatial = [
            _output_length(shape[1 + i], self.kernel_size[i], self.padding,
                           None if self.output_padding is None else self.output_padding[i], self.strides[i],
                           self.dilation_rate[i]) for i in range(3)]
        outputs = nn_op("conv3d_transpose")(x, self.kernel._as_tensor(), [shape[0], *spatial, self.filters],
                                            strides=list(self.strides), padding=self.padding.upper(),
                                            dilations=list(self.dilation_rate))
        if self.bias is not None:
            outputs = outputs + self.bias
        return from_channels_last(self.activation(outputs), self.data_format, 3)
