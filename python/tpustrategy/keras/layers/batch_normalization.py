"""``keras.layers.BatchNormalization`` (Keras 3), including ``synchronized=True``.

Training (``training=True`` and the layer trainable): the batch's moments normalise, and the moving
statistics move toward them: moving = moving * momentum + batch * (1 - momentum). Inference: the moving
statistics normalise. With ``synchronized=True`` inside ``strategy.run`` the moments are those of the
global batch: per-replica sums of x, x^2 and counts are all-reduced (SUM) across replicas, as Keras' TF
backend does; otherwise each replica uses its own batch. The moving statistics are created with
aggregation NONE (Keras' default), so under a strategy each replica's update writes its own component,
exactly as TF's MirroredVariable does in replica context (they stay equal when synchronized).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpustrategy import _core
from tpustrategy.distribute import distribution_strategy_context as ds_context
from tpustrategy.distribute.reduce_util import ReduceOp
from tpustrategy.keras import constraints, initializers, regularizers
from tpustrategy.keras._tensors import scalar, shape_of
from tpustrategy.keras.layers.layer import Layer
from tpustrategy.keras.layers.normalization_utils import batch_normalization, moments, normalize_axes

if TYPE_CHECKING:
    from tpustrategy.ops._args import Tensor
    from tpustrategy.variables import Variable


class BatchNormalization(Layer):
    """Normalizes the input over every axis but `axis`, with the batch's moments in training (when trainable)
    and the moving statistics otherwise (see the module docstring); computes in float32, returns the input's dtype.

    Args:
      axis: the feature axis, which keeps its own gamma, beta and moving statistics.
      momentum: the weight of the old moving statistics in each training update.
      epsilon: added to the variance before its square root.
      center, scale: whether to create and apply beta (an offset) and gamma (a factor).
      synchronized: inside ``strategy.run``, use the moments of the global batch (all-reduced) in training.
      *_initializer, *_regularizer, *_constraint: for the weights they name (callables or names).

    Raises:
      ValueError: at build, `axis` out of range for the input or the input's size along it unknown.
    """

    supports_masking = True

    _keras_unbuilt_defaults = {"renorm_momentum": 0.99}  # renorm is not built; Keras writes its options

    def __init__(self, axis: int = -1, momentum: float = 0.99, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, beta_initializer: Any = "zeros", gamma_initializer: Any = "ones",
                 moving_mean_initializer: Any = "zeros", moving_variance_initializer: Any = "ones",
                 beta_regularizer: Any = None, gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, synchronized: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = int(axis)
        self.momentum, self.epsilon = float(momentum), float(epsilon)
        self.center, self.scale = bool(center), bool(scale)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.synchronized = bool(synchronized)

    def build(self, input_shape: Any) -> None:
        rank = len(input_shape)
        (self._axis,) = normalize_axes(self.axis, rank, self.name)
        dim = input_shape[self._axis]
        if dim is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined dimension but the layer received "
                             f"an input with shape {tuple(input_shape)}.")
        shape = (dim,)
        self.gamma = self.add_weight(autocast=False, shape=shape, name="gamma", initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint) if self.scale else None
        self.beta = self.add_weight(autocast=False, shape=shape, name="beta", initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint) if self.center else None
        self.moving_mean = self.add_weight(autocast=False, shape=shape, name="moving_mean",
                                           initializer=self.moving_mean_initializer, trainable=False)
        self.moving_variance = self.add_weight(autocast=False, shape=shape, name="moving_variance",
                                               initializer=self.moving_variance_initializer, trainable=False)
        self._reduction_axes = [i for i in range(rank) if i != self._axis]
        self.built = True

    def _param(self, variable: Variable | None, rank: int) -> Tensor | None:
        if variable is None:
            return None
        value = _core.ops.cast(variable._as_tensor() if hasattr(variable, "_as_tensor") else variable,
                               _core.tensor.float32)
        shape = [1] * rank
        shape[self._axis] = -1
        return _core.ops.reshape(value, shape)

    def _moments(self, x: Tensor) -> tuple[Tensor, Tensor]:
        replica = ds_context.get_replica_context() if self.synchronized else None
        if replica is None or ds_context.in_cross_replica_context() or replica.num_replicas_in_sync == 1:
            return moments(x, self._reduction_axes)
        local_sum = _core.ops.reduce_sum(x, self._reduction_axes, keepdims=True)
        local_sq = _core.ops.reduce_sum(_core.ops.square(x), self._reduction_axes, keepdims=True)
        count = 1
        for axis in self._reduction_axes:
            count *= shape_of(x)[axis]
        local_count = _core.ops.fill(shape_of(local_sum), _core.tensor.constant(float(count), x.dtype))
        total = replica.all_reduce(ReduceOp.SUM, local_sum)
        total_sq = replica.all_reduce(ReduceOp.SUM, local_sq)
        total_count = replica.all_reduce(ReduceOp.SUM, local_count)
        zero = _core.ops.zeros([], x.dtype)
        mean = _core.ops.where(total_count == zero, zero, total / total_count)
        sq_mean = _core.ops.where(total_count == zero, zero, total_sq / total_count)
        return mean, _core.ops.maximum(sq_mean - _core.ops.square(mean), zero)

    def call(self, inputs: Any, training: bool | None = None, mask: Any = None) -> Any:
        x = inputs if inputs.dtype == _core.tensor.float32 else _core.ops.cast(inputs, _core.tensor.float32)
        rank = len(shape_of(x))
        gamma, beta = self._param(self.gamma, rank), self._param(self.beta, rank)
        mean: Tensor | None  # _param's type; the moving statistics always exist
        variance: Tensor | None
        if training and self.trainable:
            mean, variance = self._moments(x)
            flat_mean = _core.ops.reshape(mean, [-1])
            flat_var = _core.ops.reshape(variance, [-1])
            momentum = scalar(self.momentum, _core.tensor.float32)
            rest = scalar(1.0 - self.momentum, _core.tensor.float32)
            self.moving_mean.assign(self.moving_mean._as_tensor() * momentum +
                                    _core.ops.stop_gradient(flat_mean) * rest)
            self.moving_variance.assign(self.moving_variance._as_tensor() * momentum +
                                        _core.ops.stop_gradient(flat_var) * rest)
        else:
            mean, variance = self._param(self.moving_mean, rank), self._param(self.moving_variance, rank)
        outputs = batch_normalization(x, mean, variance, beta, gamma, self.epsilon)
        return outputs if outputs.dtype == inputs.dtype else _core.ops.cast(outputs, inputs.dtype)
