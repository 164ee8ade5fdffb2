"""``keras.layers.Conv1D`` and ``Conv2D`` (Keras 3): activation(conv(inputs, kernel) + bias), kernel shape
kernel_size + (input_channels / groups, filters), padding "valid" / "same" (Conv1D also "causal")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpustrategy import _core
from tpustrategy.keras.layers.conv_utils import (
    from_channels_last,
    nn_op,
    normalize_data_format,
    normalize_padding,
    normalize_tuple,
    to_channels_last,
)
from tpustrategy.keras.layers.dense import KernelLayer, _positive_int, set_kernel_options

if TYPE_CHECKING:
    from tpustrategy.keras.layers.conv3d_transpose import Conv3DTranspose
    from tpustrategy.ops._args import Tensor


def add_kernel_and_bias(layer: BaseConv | Conv3DTranspose, kernel_shape: tuple[int, ...]) -> None:
    """The conv layers' weights: `kernel` of `kernel_shape`, `bias` of (filters,) if use_bias; marks built."""
    layer.kernel = layer.add_weight(name="kernel", shape=kernel_shape, initializer=layer.kernel_initializer,
                                    regularizer=layer.kernel_regularizer, constraint=layer.kernel_constraint)
    layer.bias = layer.add_weight(name="bias", shape=(layer.filters,), initializer=layer.bias_initializer,
                                  regularizer=layer.bias_regularizer,
                                  constraint=layer.bias_constraint) if layer.use_bias else None
    layer.built = True


class BaseConv(KernelLayer):
    """What Conv1D, Conv2D and Conv3D share: ``activation(conv(inputs, kernel) + bias)``, run eagerly on the
    ``tf.nn`` convolution of their rank.

    Args:
      filters: the number of output channels (a positive int divisible by `groups`).
      kernel_size, strides, dilation_rate: an int for every spatial axis or a tuple with one per axis;
        strides and dilation rates above 1 cannot be combined.
      padding: "valid" or "same" (and "causal" for Conv1D), in any case.
      data_format: "channels_last" (default) or "channels_first"; a channels_first input is transposed
        around the channels_last convolution.
      groups: the number of channel groups; the input's channels must divide by it.
      activation, use_bias: the activation applied last (none by default) and whether a bias is added.
      *_initializer, *_regularizer, *_constraint: for the weights they name (callables or names).

    Raises:
      ValueError: an argument out of the ranges above, at construction; at build, an input whose channel
        dimension is unknown or not divisible by `groups`; at call, a non-floating input (cast it first).
    """

    rank = 2

    def __init__(self, filters: int, kernel_size: int | tuple[int, ...], strides: int | tuple[int, ...] = 1,
                 padding: str = "valid", data_format: str | None = None, dilation_rate: int | tuple[int, ...] = 1,
                 groups: int = 1, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.filters = _positive_int(filters, "filters")
        self.kernel_size = normalize_tuple(kernel_size, self.rank, "kernel_size")
        self.strides = normalize_tuple(strides, self.rank, "strides")
        self.dilation_rate = normalize_tuple(dilation_rate, self.rank, "dilation_rate")
        allowed = ("valid", "same", "causal") if self.rank == 1 else ("valid", "same")
        self.padding = normalize_padding(padding, allowed)
        self.data_format = normalize_data_format(data_format)
        self.groups = _positive_int(groups, "groups")
        if self.filters % self.groups:
            raise ValueError(f"The number of filters must be evenly divisible by the number of groups. Received: "
                             f"groups={groups}, filters={filters}.")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                             f"strides={self.strides} and dilation_rate={self.dilation_rate}")
        set_kernel_options(self, activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                           bias_regularizer, kernel_constraint, bias_constraint)

    def build(self, input_shape: Any) -> None:
        channel_axis = -1 if self.data_format == "channels_last" else 1
        channels = input_shape[channel_axis]
        if channels is None:
            raise ValueError(f"The channel dimension of the inputs should be defined. Received input_shape="
                             f"{tuple(input_shape)}")
        if channels % self.groups:
            raise ValueError(f"The number of input channels must be evenly divisible by the number of groups. "
                             f"Received groups={self.groups}, but the input has {channels} channels (full input "
                             f"shape is {tuple(input_shape)}).")
        add_kernel_and_bias(self, self.kernel_size + (channels // self.groups, self.filters))

    def _convolve(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def call(self, inputs: Any) -> Any:
        dtype = getattr(inputs, "dtype", None)
        if isinstance(dtype, _core.tensor.DType) and not dtype.is_floating and dtype != self.kernel.dtype:
            # Keras 3 converts the kernel to the input's dtype (no autocast of integer inputs), which TF refuses.
            raise ValueError(f"Exception encountered when calling {type(self).__name__}.call(). Incompatible type "
                             f"conversion requested to type {dtype.name} for `tf.Variable` of type "
                             f"{self.kernel.dtype.name} (Variable: {self.kernel.name}); cast the inputs first, e.g. "
                             f"tf.cast(images, tf.float32) / 255.0")
        x = to_channels_last(inputs, self.data_format, self.rank)
        outputs = self._convolve(x)
        if self.bias is not None:
            outputs = outputs + self.bias
        return from_channels_last(self.activation(outputs), self.data_format, self.rank)


class Conv2D(BaseConv):
    """2-D convolution over [batch, height, width, channels] (channels_last) on ``tf.nn.conv2d``; arguments as
    BaseConv's."""

    rank = 2

    def _convolve(self, x: Tensor) -> Tensor:
        return nn_op("conv2d")(x, self.kernel._as_tensor(), strides=list(self.strides), padding=self.padding.upper(),
                               dilations=list(self.dilation_rate))


class Conv1D(BaseConv):
    """1-D convolution over [batch, steps, channels] (channels_last) on ``tf.nn.conv1d``; arguments as
    BaseConv's, and padding "causal" left-pads so that an output step sees no later input step."""

    rank = 1

    def _convolve(self, x: Tensor) -> Tensor:
        padding = self.padding
        if padding == "causal":  # left-pad by (kernel - 1) * dilation, then a VALID convolution
            left = (self.kernel_size[0] - 1) * self.dilation_rate[0]
            x = _core.ops.pad(x, [0, 0, left, 0, 0, 0])
            padding = "valid"
        return nn_op("conv1d")(x, self.kernel._as_tensor(), stride=self.strides[0], padding=padding.upper(),
                               dilations=self.dilation_rate[0])


class Conv3D(BaseConv):
    """3-D convolution over [batch, depth, height, width, channels] (channels_last) on tf.nn.conv3d."""

    rank = 3

    def _convolve(self, x: Tensor) -> Tensor:
        return nn_op("conv3d")(x, self.kernel._as_tensor(), strides=[1, *self.strides, 1],
                               padding=self.padding.upper(), dilations=[1, *self.dilation_rate, 1])
