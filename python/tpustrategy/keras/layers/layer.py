"""``tf.keras.layers.Layer`` (Keras 3): a ``tf.Module`` that builds its weights on the first call.

What Keras 3 does and this keeps:
* ``build(input_shape)`` runs once, on the first call (or a symbolic call on KerasTensors), with the
  input's shape; weights come from ``add_weight`` in creation order.
* ``weights`` are the layer's own variables (trainable, then non-trainable) followed by its sub-layers'
  (in assignment order); ``trainable=False`` moves all of them to ``non_trainable_weights``.
* ``losses``: the ``add_loss`` values of the last call plus the weight regularizers, recomputed on read;
  the outermost call clears the previous call's values.
* ``training`` given to the outer call reaches nested layers that were not given it.
* Floating inputs are cast to the layer's compute dtype, as Keras' input autocasting.
* Dtype policies (keras/dtype_policies.py): weights are created in the policy's variable dtype; under a mixed
  policy (``mixed_float16``) float weights read inside the call come back in the compute dtype, as Keras 3's
  autocast scope (a layer with ``autocast=False`` or another compute dtype inside changes the scope).
Under a strategy the layer remembers the strategy current at construction and builds its weights in
that strategy's scope, so a model created in ``strategy.scope()`` gets the strategy's (mirrored) variables.
Per-call state (``add_loss`` values) is kept per greenlet, so the replicas of ``strategy.run`` — which
run as cooperative greenlets — never see each other's values.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import math
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, cast

import greenlet
import numpy as np

from tpustrategy import _core, nest
from tpustrategy.distribute import distribution_strategy_context as ds_context
from tpustrategy.keras import backend, constraints, dtype_policies, initializers, masking, regularizers
from tpustrategy.keras._tensors import as_dtype, shape_of, tensor
from tpustrategy.keras.layers.keras_tensor import KerasTensor, Node
from tpustrategy.keras.naming import snake_case
from tpustrategy.module import Module
from tpustrategy.variables import Variable, VariableAggregation, autocast_dtype, autocast_reads

if TYPE_CHECKING:
    from tpustrategy.ops._args import Tensor

# (training flag of the outermost call, nesting depth); contextvars are per greenlet.
_CALL_CONTEXT: contextvars.ContextVar[tuple[bool | None, int] | None] = contextvars.ContextVar(
    "keras_call_context", default=None)
# The names of the layers being called or built, outermost first: Keras 3's name scope, which gives a
# variable its path ("sequential/dense/kernel" when a Sequential builds its Dense; "dense/kernel" alone).
_NAME_SCOPE: contextvars.ContextVar[tuple[tuple[str, int], ...]] = contextvars.ContextVar(
    "keras_name_scope", default=())


@contextlib.contextmanager
def name_scope(name: str, caller: object = None) -> Iterator[None]:
    """Enters `name` (once: a layer already at the top of the scope, its build calling itself, adds nothing)."""
    scope = _NAME_SCOPE.get()
    if caller is not None and scope and scope[-1][1] == id(caller):
        yield
        return
    token = _NAME_SCOPE.set(scope + ((name, id(caller)),))
    try:
        yield
    finally:
        _NAME_SCOPE.reset(token)

_AGGREGATIONS = {"none": VariableAggregation.NONE, "sum": VariableAggregation.SUM,
                 "mean": VariableAggregation.MEAN, "only_first_replica": VariableAggregation.ONLY_FIRST_REPLICA}


def in_call_context() -> bool:
    return _CALL_CONTEXT.get() is not None


class Layer(Module):
    """Base layer: subclasses define ``build(input_shape)`` (optional) and ``call(inputs, ...)``.

    Args:
      activity_regularizer: a regularizer (or its name) applied to the outputs of each call; its value
        divided by the batch size is added to ``losses``.
      trainable: whether the layer's weights are trained.
      dtype: a dtype policy or its name ("mixed_float16", "float32"...); default: the global policy.
      autocast: whether floating inputs are cast to the compute dtype and, under a mixed policy, float
        weights read in it.
      name: the layer's name; default: the class name in snake_case made unique (``dense``, ``dense_1``…).
      **kwargs: only ``input_shape`` / ``input_dim`` and ``batch_size`` (recorded for a Sequential's first
        layer) and ``input_dtype`` (ignored).

    Raises:
      ValueError: an unrecognized keyword argument.
      TypeError: `name` is not a string.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Layer:
        # The constructor's arguments, for get_config (Keras 3 records them the same way).
        instance = super().__new__(cls)
        try:
            bound = inspect.signature(cls.__init__).bind(instance, *args, **kwargs)
            captured = {}
            for key, value in list(bound.arguments.items())[1:]:
                kind = inspect.signature(cls.__init__).parameters[key].kind
                if kind is inspect.Parameter.VAR_KEYWORD:
                    captured.update(value)
                elif kind is not inspect.Parameter.VAR_POSITIONAL:
                    captured[key] = value
        except TypeError:
            captured = None  # __init__ will raise its own error
        object.__setattr__(instance, "_init_args", captured)
        return instance

    def __init__(self, *, activity_regularizer: Any = None, trainable: bool = True, dtype: Any = None,
                 autocast: bool = True, name: str | None = None, **kwargs: Any) -> None:
        input_shape = kwargs.pop("input_shape", None)
        input_dim = kwargs.pop("input_dim", None)
        batch_size = kwargs.pop("batch_size", None)
        kwargs.pop("input_dtype", None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to {type(self).__name__}: {kwargs}")
        if name is None:
            name = backend.unique_name(snake_case(type(self).__name__))
        elif not isinstance(name, str):
            raise TypeError(f"Argument `name` must be a string. Received: name={name!r}")
        object.__setattr__(self, "_tracking_ready", False)
        super().__init__(name=name if re.match(r"^[A-Za-z_]\w*$", name) else None)
        self._name = name
        self.built = False
        self._trainable = bool(trainable)
        self._set_dtype_policy(dtype_policies.get(dtype))
        self.autocast = autocast
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self._trainable_variables: list[Variable] = []
        self._non_trainable_variables: list[Variable] = []
        self._regularized: list[tuple[Callable[..., Any], Variable]] = []
        self._layers: list[Layer] = []
        self._losses_by_greenlet: dict[greenlet.greenlet, list[Tensor]] = {}
        self._inbound_nodes: list[Node] = []
        self._build_shapes: Any = None
        self._output_shape_seen: Any = None
        self._distribute_strategy = ds_context.get_strategy() if ds_context.has_strategy() else None
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        self._batch_input_shape = ((batch_size,) + tuple(input_shape)) if input_shape is not None else None
        call_params = inspect.signature(self.call).parameters
        self._call_has_training_arg = "training" in call_params
        self._call_has_mask_arg = "mask" in call_params
        self._tracking_ready = True

    # ---- attribute tracking (sub-layers in assignment order) ----
    def __setattr__(self, key: str, value: Any) -> None:
        if getattr(self, "_tracking_ready", False) and not key.startswith("_"):
            for leaf in nest.flatten(value) if isinstance(value, list | tuple | dict) else [value]:
                if isinstance(leaf, Layer) and leaf is not self and all(leaf is not x for x in self._layers):
                    self._layers.append(leaf)
        super().__setattr__(key, value)

    # ---- properties ----
    @property
    def name(self) -> str:
        """The layer's name (unique per class unless given)."""
        return self._name

    @property
    def dtype(self) -> str:
        """The variable dtype (Keras 3)."""
        return self._dtype.name

    @property
    def compute_dtype(self) -> str:
        """The dtype the layer computes in (the policy's compute dtype); floating inputs are cast to it."""
        return self._compute_dtype.name

    @property
    def variable_dtype(self) -> str:
        """The dtype of the layer's weights (the policy's variable dtype, as ``dtype``)."""
        return self._dtype.name

    @property
    def dtype_policy(self) -> dtype_policies.DTypePolicy:
        """The layer's dtype policy; assigning a policy or its name changes both dtypes (not existing weights)."""
        return self._dtype_policy

    @dtype_policy.setter
    def dtype_policy(self, value: Any) -> None:
        self._set_dtype_policy(dtype_policies.get(value))

    def _set_dtype_policy(self, policy: dtype_policies.DTypePolicy) -> None:
        self._dtype_policy = policy
        self._dtype = as_dtype(policy.variable_dtype)
        self._compute_dtype = as_dtype(policy.compute_dtype)

    @property
    def trainable(self) -> bool:
        """Whether the layer's weights are trained; assigning it sets every sub-layer's flag too."""
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._trainable = bool(value)
        for layer in self._layers:
            layer.trainable = value

    @property
    def layers(self) -> list[Layer]:
        """The sub-layers assigned to this layer's attributes, in assignment order (a new list)."""
        return list(self._layers)

    @property
    def distribute_strategy(self) -> Any:
        """The strategy current when the layer was constructed, else the one current now (or the default)."""
        return self._distribute_strategy or ds_context.get_strategy()

    def _own_weights(self) -> list[Variable]:
        return self._trainable_variables + self._non_trainable_variables

    @property
    def weights(self) -> list[Variable]:
        """Own weights (trainable, then non-trainable), then each sub-layer's, without duplicates."""
        return _unique(self._own_weights() + [w for layer in self._layers for w in layer.weights])

    @property
    def trainable_weights(self) -> list[Variable]:
        """The trainable weights, own then sub-layers' (each once); empty when ``trainable`` is False."""
        if not self.trainable:
            return []
        return _unique(self._trainable_variables + [w for layer in self._layers for w in layer.trainable_weights])

    @property
    def non_trainable_weights(self) -> list[Variable]:
        """The ``weights`` not in ``trainable_weights``: all of them when ``trainable`` is False."""
        if not self.trainable:
            return self.weights
        trainable = {id(v) for v in self.trainable_weights}
        return [v for v in self.weights if id(v) not in trainable]

    # Keras 3's lists where tf.Module gives tuples
    trainable_variables = trainable_weights  # type: ignore[assignment]
    non_trainable_variables = non_trainable_weights  # type: ignore[assignment]

    @property
    def variables(self) -> list[Variable]:  # type: ignore[override]
        """The same list as ``weights`` (Keras 3)."""
        return self.weights

    # ---- weights ----
    def add_weight(self, shape: Any = None, initializer: Any = None, dtype: Any = None, trainable: bool = True,
                   autocast: bool = True, regularizer: Any = None, constraint: Any = None, aggregation: str = "none",
                   overwrite_with_gradient: bool = False, name: str | None = None) -> Variable:
        """Creates a variable owned by this layer (Keras 3's ``add_weight``) and returns it."""
        shape = () if shape is None else tuple(int(d) if d is not None else -1 for d in shape)
        if any(d < 0 for d in shape):
            raise ValueError(f"Can't create a weight with an undefined dimension: shape={shape} in layer {self.name!r}")
        dtype = as_dtype(dtype) if dtype is not None else self._dtype
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        initializer = initializers.get(initializer)
        if aggregation not in _AGGREGATIONS:
            raise ValueError(f"Invalid value for argument `aggregation`. Expected one of {sorted(_AGGREGATIONS)}. "
                             f"Received: aggregation={aggregation!r}")
        weight_name = name or f"variable_{len(self._own_weights())}"
        with self._variable_scope():
            variable = Variable(lambda: initializer(shape, dtype), trainable=bool(trainable), name=weight_name,
                                dtype=dtype, aggregation=_AGGREGATIONS[aggregation])
        scope = _NAME_SCOPE.get()
        if not scope or scope[-1][1] != id(self):  # build() called directly, outside the layer's own scope
            scope += ((self.name, id(self)),)
        _set_keras_name(variable, weight_name, "/".join([name for name, _ in scope] + [weight_name]))
        if not autocast:
            _disable_autocast(variable)
        (self._trainable_variables if trainable else self._non_trainable_variables).append(variable)
        variable.constraint = constraints.get(constraint)  # applied by the optimizer after each update
        regularizer = regularizers.get(regularizer)
        if regularizer is not None:
            self._regularized.append((regularizer, variable))
        return variable

    def _variable_scope(self) -> contextlib.AbstractContextManager[Any]:
        strategy = self._distribute_strategy
        if strategy is None or ds_context.get_strategy() is strategy:
            return contextlib.nullcontext()
        return strategy.scope()

    def get_weights(self) -> list[np.ndarray]:
        """The values of ``weights`` as numpy arrays (copies), in the same order."""
        return [np.array(v.numpy()) for v in self.weights]

    def set_weights(self, weights: Any) -> None:
        """Assigns numpy values to ``weights`` in order; checks every count and shape before assigning any."""
        mine = self.weights
        weights = list(weights)
        if len(weights) != len(mine):
            raise ValueError(f"You called `set_weights(weights)` on layer '{self.name}' with a weight list of length "
                             f"{len(weights)}, but the layer was expecting {len(mine)} weights.")
        arrays = []
        for variable, value in zip(mine, weights, strict=True):
            expected = tuple(variable.shape)
            value = np.asarray(value)
            if tuple(value.shape) != expected:
                raise ValueError(f"Layer {self.name} weight shape {expected} is not compatible with provided weight "
                                 f"shape {tuple(value.shape)}.")
            arrays.append(value)
        for variable, value in zip(mine, arrays, strict=True):
            with self._variable_scope():
                variable.assign(value.astype(np.dtype(variable.dtype.name)))

    def count_params(self) -> int:
        """The number of scalars in ``weights``.

        Raises:
          ValueError: the layer is not built yet.
        """
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on layer '{self.name}', but the layer isn't built. "
                             "You can build it manually via: `layer.build(input_shape)`.")
        # a weight's shape is fully defined
        return int(sum(math.prod(cast("tuple[int, ...]", tuple(v.shape))) for v in self.weights))

    # ---- losses ----
    def add_loss(self, loss: Any) -> None:
        """Adds a loss tensor (or a list of them) to this call's losses (``layer.losses``)."""
        values = self._losses_by_greenlet.setdefault(greenlet.getcurrent(), [])
        for value in nest.flatten(loss):
            values.append(tensor(value))

    def add_metric(self, *args: Any, **kwargs: Any) -> None:
        """Removed in Keras 3 (TF 2.21 raises the same error)."""
        raise NotImplementedError("Layer `add_metric()` method is deprecated. Add your metric in "
                                  "`Model.compile(metrics=[...])`, or create metric trackers in init() or build() "
                                  "when subclassing the layer or model, then call `metric.update_state()` whenever "
                                  "necessary.")

    def _clear_losses(self) -> None:
        self._losses_by_greenlet.pop(greenlet.getcurrent(), None)
        for layer in self._layers:
            layer._clear_losses()

    @property
    def losses(self) -> list[Tensor]:
        """This call's ``add_loss`` values and the weight regularization terms, this layer's then sub-layers'."""
        out = list(self._losses_by_greenlet.get(greenlet.getcurrent(), []))
        out += [regularizer(variable) for regularizer, variable in self._regularized]
        for layer in self._layers:
            out += layer.losses
        return out

    # ---- building and calling ----
    def build(self, input_shape: Any) -> None:
        """Creates the layer's weights (``add_weight``) for inputs of `input_shape`; the base creates none.

        Called once, by the first call (with the input's shape, or a nest of shapes for a nest of inputs),
        inside the layer's name scope and the strategy scope it was constructed in. An override sets
        ``self.built = True`` or leaves it to the caller.

        Args:
          input_shape: a tuple of ints (None for dimensions a symbolic input leaves unknown), or a nest of them.
        """
        self.built = True

    def _maybe_build(self, input_shapes: Any) -> None:
        if self.built:
            return
        with self._variable_scope():
            self.build(input_shapes)
        self.built = True
        self._build_shapes = input_shapes

    def call(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """The layer's computation on tensors, run eagerly by ``__call__``; the base returns `inputs` unchanged.

        An override that names a ``training`` or ``mask`` parameter receives the call's training flag (or the
        enclosing call's) and the inputs' mask; one that does not never sees them.

        Returns:
          The output tensor or nest of tensors.
        """
        return inputs

    supports_masking = False  # Keras 3: a layer that passes its input's mask on to its output

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The output's mask: the input's when ``supports_masking``, else none (Keras 3)."""
        return mask if self.supports_masking else None

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The output shape for ``input_shape`` (found by a symbolic call)."""
        outputs = self(nest.map_structure(lambda s: KerasTensor(s), input_shape)
                       if _is_shape_nest(input_shape) else KerasTensor(input_shape))
        return nest.map_structure(lambda t: t.shape, outputs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Calls the layer: builds it on first use, then runs ``call`` eagerly on the inputs.

        numpy arrays, lists and Python numbers become tensors, and floating inputs are cast to
        ``compute_dtype`` (unless ``autocast=False``). ``training`` given here reaches nested layers that were
        not given it. The output carries the mask from ``compute_mask``, and an activity regularizer adds its
        value divided by the batch size to ``losses``. Called on KerasTensors, the layer instead infers the
        output shapes from stand-in zeros and returns KerasTensors, recording the call for a functional Model.

        Raises:
          ValueError: no positional input was given.
        """
        flat = nest.flatten((args, kwargs))
        if any(isinstance(x, KerasTensor) for x in flat):
            return self._symbolic_call(args, kwargs)
        if not args:
            raise ValueError(f"Layer {self.name!r} was called without inputs.")
        args = (self._convert_inputs(args[0]),) + tuple(args[1:])
        context = _CALL_CONTEXT.get()
        if context is None:
            self._clear_losses()
        training = kwargs.get("training")
        if training is None and context is not None:
            training = context[0]
        if self._call_has_training_arg:
            if training is not None:
                kwargs["training"] = training
        else:
            kwargs.pop("training", None)
        explicit_mask = kwargs.get("mask")
        previous_mask = explicit_mask if explicit_mask is not None else masking.input_masks(args[0])
        if self._call_has_mask_arg:
            if previous_mask is not None:
                kwargs["mask"] = previous_mask
        else:
            kwargs.pop("mask", None)
        with name_scope(self.name, self):
            self._maybe_build(_shapes(args[0]))
            token = _CALL_CONTEXT.set((training, (context[1] + 1) if context else 1))
            try:
                with self._autocast_scope():
                    outputs = self.call(*args, **kwargs)
            finally:
                _CALL_CONTEXT.reset(token)
        masking.attach(outputs, self.compute_mask(args[0], previous_mask))
        if self._output_shape_seen is None:
            self._output_shape_seen = _shapes(outputs)
        if self.activity_regularizer is not None:
            for output in nest.flatten(outputs):
                self.add_loss(self.activity_regularizer(output) / _core.tensor.constant(
                    float(max(1, shape_of(output)[0] if shape_of(output) else 1)), _core.tensor.float32))
        return outputs

    def _autocast_scope(self) -> contextlib.AbstractContextManager[None]:
        """Keras 3's rule: inside a scope, a layer with ``autocast=False`` (or a non-float compute dtype) turns
        variable casting off and one with another compute dtype switches it; outside any scope, a layer whose
        compute and variable dtypes differ opens one."""
        current, compute = autocast_dtype(), self._compute_dtype
        if current is not None:
            if not self.autocast or not compute.is_floating:
                return autocast_reads(None)
            return autocast_reads(compute) if current != compute else contextlib.nullcontext()
        if compute != self._dtype:
            return autocast_reads(compute)
        return contextlib.nullcontext()

    def _convert_inputs(self, inputs: Any) -> Any:
        dtype = self._compute_dtype

        def convert(x: Any) -> Any:
            if getattr(x, "_spmd_partitioned", False) and not (self.autocast and x.dtype.is_floating and
                                                                x.dtype != dtype):
                return x  # SPMD: a partitioned input stays partitioned (its ops run shard by shard)
            if isinstance(x, np.ndarray | float | int | list) or (hasattr(x, "_as_tensor") and
                                                                   not isinstance(x, _core.tensor.Tensor)):
                if isinstance(x, list):
                    x = np.asarray(x)
                if isinstance(x, np.ndarray) and x.dtype.kind == "f" and self.autocast:
                    x = x.astype(np.dtype(dtype.name)) if dtype.name != "bfloat16" else x
                x = tensor(x)
            if isinstance(x, _core.tensor.Tensor) and self.autocast and x.dtype.is_floating and x.dtype != dtype:
                x = _core.ops.cast(x, dtype)
            return x

        return nest.map_structure(convert, inputs)

    def _symbolic_call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """A call on KerasTensors: runs the layer on small concrete stand-ins to infer output shapes
        (twice, with 1 and 2 in each unknown dimension; dimensions that change are unknown), records a Node."""
        inputs = args[0] if args else None
        if not self.built:
            with name_scope(self.name, self):
                self._maybe_build(nest.map_structure(lambda x: x.shape if isinstance(x, KerasTensor) else shape_of(x),
                                                     inputs))
        flat_in = [x for x in nest.flatten((args, kwargs)) if isinstance(x, KerasTensor)]
        has_unknown = any(d is None for x in flat_in for d in x.shape)
        runs = []
        for fill in ((1, 2) if has_unknown else (1,)):
            c_args, c_kwargs = nest.map_structure(lambda x, f=fill: x._placeholder(f) if isinstance(x, KerasTensor)
                                                  else x, (args, kwargs))
            if self._call_has_training_arg:
                c_kwargs.setdefault("training", False)
            token = _CALL_CONTEXT.set((False, 1))
            try:
                with self._variable_scope():
                    runs.append(Layer.__call__(self, *c_args, **c_kwargs))  # opens the layer's name scope
            finally:
                _CALL_CONTEXT.reset(token)
            self._clear_losses()
        node = Node(self, args, kwargs)

        def to_keras_tensor(*outs: Any) -> KerasTensor:
            shapes = [shape_of(o) for o in outs]
            shape = tuple(d if all(s[i] == d for s in shapes) else None for i, d in enumerate(shapes[0]))
            return KerasTensor(shape, tensor(outs[0]).dtype.name)

        outputs = nest.map_structure(to_keras_tensor, *runs)
        node.set_outputs(outputs)
        self._inbound_nodes.append(node)
        self._output_shape_seen = nest.map_structure(lambda t: t.shape, outputs)
        return outputs

    @property
    def input(self) -> Any:
        """The KerasTensor inputs of the layer's first symbolic call, flattened: one on its own, else a list (an
        InputLayer's is an empty list, as in Keras 3).

        Raises:
          AttributeError: the layer was never called on KerasTensors.
        """
        return self._first_call_tensors("input")

    @property
    def output(self) -> Any:
        """The KerasTensor outputs of the layer's first symbolic call, flattened as ``input``.

        Raises:
          AttributeError: the layer was never called on KerasTensors.
        """
        return self._first_call_tensors("output")

    def _first_call_tensors(self, what: str) -> Any:
        if not self._inbound_nodes:
            raise AttributeError(f"The layer {self.name} has never been called and thus has no defined {what}.")
        node = self._inbound_nodes[0]
        tensors = node.input_tensors if what == "input" else nest.flatten(node.outputs)
        return tensors[0] if len(tensors) == 1 else tensors

    # ---- checkpoints ----
    def _trackable_children(self) -> list[tuple[str, Any]]:
        """What tf.train.Checkpoint sees: Keras 3's names (see checkpoint_children.py)."""
        from tpustrategy.keras.layers.checkpoint_children import checkpoint_children

        return checkpoint_children(self)

    # ---- config ----
    def get_config(self) -> dict[str, Any]:
        """Keras 3's config: name, trainable, the dtype policy, then the constructor's arguments (a built-in
        layer's current values; a custom layer's arguments as given, which must be plain values or
        serializable objects — otherwise the subclass must define ``get_config``, as in Keras)."""
        from tpustrategy.keras.layers.layer_config import layer_config

        return layer_config(self)

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Layer:
        """A new layer constructed from a ``get_config()`` dict (its keys as constructor arguments).

        Raises:
          ValueError: a built-in layer's config holds a key its constructor does not take, with a value other
            than a neutral one (None, False).
        """
        from tpustrategy.keras.config_kwargs import constructor_kwargs

        return cls(**constructor_kwargs(cls, config))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


def _set_keras_name(variable: Variable, name: str, path: str) -> None:
    """Keras 3's names: ``variable.name`` is the weight's own name ("kernel"), ``path`` the scoped one."""
    component = getattr(variable, "_primary", variable)  # a distributed variable reads its name from it
    with contextlib.suppress(AttributeError, TypeError):
        component._name = name
        variable.path = path


def _disable_autocast(variable: Variable) -> None:
    """``add_weight(autocast=False)``: the variable (and each component of a distributed one) always reads as
    its own dtype."""
    parts = [variable, getattr(variable, "_v", None), *getattr(variable, "_values", ())]
    for part in parts:
        if part is not None:
            with contextlib.suppress(AttributeError):
                part._autocast = False


def _unique(variables: list[Variable]) -> list[Variable]:
    """`variables` in order, each object once."""
    seen, out = set(), []
    for v in variables:
        if id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out


def _is_shape_nest(value: Any) -> bool:
    return isinstance(value, list | tuple) and bool(value) and all(isinstance(v, list | tuple) for v in value)


def _shapes(inputs: Any) -> Any:
    return nest.map_structure(shape_of, inputs)


__all__ = ["Layer", "in_call_context"]
