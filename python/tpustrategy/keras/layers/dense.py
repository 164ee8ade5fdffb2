"""``keras.layers.Dense``: activation(inputs @ kernel + bias) over the last axis of any-rank inputs."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tpustrategy import _core
from tpustrategy.keras import activations, constraints, initializers, regularizers
from tpustrategy.keras._tensors import shape_of
from tpustrategy.keras.layers.layer import Layer

if TYPE_CHECKING:
    from tpustrategy.ops._args import Tensor
    from tpustrategy.variables import Variable

    class KernelLayer(Layer):
        """The attributes set_kernel_options gives Dense and the convolutions, and their `kernel` and `bias`
        weights; declared for the type checker only (at run time these layers derive from Layer itself)."""

        activation: Callable[..., Any]
        use_bias: bool
        kernel_initializer: Callable[..., Any] | None
        bias_initializer: Callable[..., Any] | None
        kernel_regularizer: Callable[..., Any] | None
        bias_regularizer: Callable[..., Any] | None
        kernel_constraint: Callable[..., Any] | None
        bias_constraint: Callable[..., Any] | None
        kernel: Variable
        bias: Variable | None
else:
    KernelLayer = Layer


def set_kernel_options(layer: KernelLayer, activation: Any, use_bias: bool, kernel_initializer: Any,
                       bias_initializer: Any, kernel_regularizer: Any, bias_regularizer: Any,
                       kernel_constraint: Any = None, bias_constraint: Any = None) -> None:
    """The options Dense and the conv layers share, resolved from names as Keras does."""
    layer.activation = activations.get(activation)
    layer.use_bias = bool(use_bias)
    layer.kernel_initializer = initializers.get(kernel_initializer)
    layer.bias_initializer = initializers.get(bias_initializer)
    layer.kernel_regularizer = regularizers.get(kernel_regularizer)
    layer.bias_regularizer = regularizers.get(bias_regularizer)
    layer.kernel_constraint = constraints.get(kernel_constraint)
    layer.bias_constraint = constraints.get(bias_constraint)


def _positive_int(value: int, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"Received an invalid value for `{name}`, expected a positive integer. Received: "
                         f"{name}={value}")
    return value


class Dense(KernelLayer):
    """A densely-connected layer (Keras 3 arguments; LoRA and quantization are not built)."""

    supports_masking = True

    def __init__(self, units: int, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = _positive_int(units, "units")
        set_kernel_options(self, activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                           bias_regularizer, kernel_constraint, bias_constraint)

    def build(self, input_shape: Any) -> None:
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(f"The last dimension of the inputs to a Dense layer should be defined. Found None. "
                             f"Full input shape received: {tuple(input_shape)}")
        self.kernel = self.add_weight(name="kernel", shape=(input_dim, self.units),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self.add_weight(name="bias", shape=(self.units,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True

    def call(self, inputs: Any, training: bool | None = None) -> Any:
        inputs, kernel, bias = _promoted(inputs, self.kernel, self.bias)
        shape = shape_of(inputs)
        if len(shape) > 2:
            flat = _core.ops.reshape(inputs, [-1, shape[-1]])
            outputs = _core.ops.reshape(_core.ops.matmul(flat, kernel), list(shape[:-1]) + [self.units])
        else:
            outputs = _core.ops.matmul(inputs, kernel)
        if bias is not None:
            outputs = outputs + bias
        return self.activation(outputs)


def _promoted(inputs: Any, kernel: Variable,
              bias: Variable | None) -> tuple[Any, Variable | Tensor, Variable | Tensor | None]:
    """Keras 3's matmul promotes its operands to their common dtype: integer and bool inputs (uint8 images) become
    the kernel's dtype, a complex input makes kernel and bias complex. (Floating inputs were autocast already.)"""
    dtype = getattr(inputs, "dtype", None)
    if not isinstance(dtype, _core.tensor.DType) or dtype == kernel.dtype or dtype.is_floating:
        return inputs, kernel, bias
    if dtype.is_complex:
        cast = _core.ops.cast
        return inputs, cast(kernel, dtype), None if bias is None else cast(bias, dtype)
    return _core.ops.cast(inputs, kernel.dtype), kernel, bias
