"""tf.compat.v1.train optimizers (GradientDescent, Momentum with/without Nesterov, Adam): values after N steps
against numpy formulas of TF's kernels; under MirroredStrategy(4) and TPUStrategy (v3-8) inside ``strategy.run``
the replicas' gradients are SUMMED (TF's v1 optimizers sum, they never average), so the weights stay identical
on every replica and equal the single-device run on the whole batch; global step, slots and TF's errors."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy.compat.v1.train import training_util

v1 = tf.compat.v1.train
STEPS = 5
RNG = np.random.default_rng(7)
X = RNG.normal(size=(16, 3)).astype(np.float32)
Y = RNG.normal(size=(16, 1)).astype(np.float32)
W0 = np.array([[0.5], [-1.0], [0.25]], np.float32)


@pytest.fixture(autouse=True)
def fresh_global_step():
    """TF keeps the global step in the default graph; each test starts without one."""
    training_util._reset_global_step()
    yield
    training_util._reset_global_step()


def _numpy_run(kind, steps=STEPS):
    """TF's kernels (ApplyGradientDescent, ApplyMomentum, ApplyAdam) in numpy, float64, on the whole batch."""
    w, accum, m, v = W0.astype(np.float64), 0.0, 0.0, 0.0
    lr, mu, b1, b2, eps = 0.05, 0.9, 0.9, 0.999, 1e-8
    for t in range(1, steps + 1):
        g = X.T.astype(np.float64) @ (X.astype(np.float64) @ w - Y)
        if kind == "gd":
            w = w - lr * g
        elif kind in ("momentum", "nesterov"):
            accum = mu * accum + g
            w = w - lr * (g + mu * accum) if kind == "nesterov" else w - lr * accum
        else:
            m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
            w = w - lr * np.sqrt(1 - b2**t) / (1 - b1**t) * m / (np.sqrt(v) + eps)
    return w


def _make(kind):
    if kind == "gd":
        return v1.GradientDescentOptimizer(0.05)
    if kind == "momentum":
        return v1.MomentumOptimizer(0.05, 0.9)
    if kind == "nesterov":
        return v1.MomentumOptimizer(0.05, 0.9, use_nesterov=True)
    return v1.AdamOptimizer(0.05)


def _loss(w, x, y):
    return lambda: 0.5 * tf.reduce_sum(tf.square(tf.matmul(x, w) - y))


KINDS = ["gd", "momentum", "nesterov", "adam"]
SLOTS = {"gd": [], "momentum": ["momentum"], "nesterov": ["momentum"], "adam": ["m", "v"]}


@pytest.mark.parametrize("kind", KINDS)
def test_single_device_steps_match_numpy(kind):
    w = tf.Variable(W0)
    opt = _make(kind)
    step = v1.get_or_create_global_step()
    for _ in range(STEPS):
        assert opt.minimize(_loss(w, tf.constant(X), tf.constant(Y)), global_step=step) is None
    np.testing.assert_allclose(w.numpy(), _numpy_run(kind), rtol=2e-5, atol=1e-6)
    assert int(step.numpy()) == STEPS
    assert opt.get_slot_names() == SLOTS[kind]


def _strategies():
    return {"mirrored4": lambda: tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(4)]),
            "tpu_v3_8": lambda: tf.distribute.TPUStrategy()}


@pytest.mark.parametrize("strategy_name", list(_strategies()))
@pytest.mark.parametrize("kind", KINDS)
def test_replicas_sum_gradients_and_stay_identical(kind, strategy_name):
    strategy = _strategies()[strategy_name]()
    n = strategy.num_replicas_in_sync
    per = len(X) // n
    with strategy.scope():
        w = tf.Variable(W0)
        opt = _make(kind)
        step = v1.get_or_create_global_step()
    xs = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant(X[ctx.replica_id_in_sync_group * per:(ctx.replica_id_in_sync_group + 1) * per]))
    ys = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant(Y[ctx.replica_id_in_sync_group * per:(ctx.replica_id_in_sync_group + 1) * per]))

    def train_step(x, y):
        return opt.minimize(_loss(w, x, y), global_step=step)

    for _ in range(STEPS):
        strategy.run(train_step, args=(xs, ys))
    expected = _numpy_run(kind)  # the sum of the shards' gradients is the whole batch's gradient
    components = [c.numpy() for c in w.values]
    assert len(components) == n
    for component in components:
        np.testing.assert_array_equal(component, components[0])
    np.testing.assert_allclose(components[0], expected, rtol=2e-5, atol=1e-6)
    assert [int(c.numpy()) for c in step.values] == [STEPS] * n
    for name in SLOTS[kind]:
        slot = opt.get_slot(w, name)
        assert type(slot) is type(w) and type(w).__name__.endswith("MirroredVariable")
        assert len(slot.values) == n
        for component in slot.values:
            np.testing.assert_array_equal(component.numpy(), slot.values[0].numpy())


def test_distributed_run_equals_single_device_run():
    """MirroredStrategy(4) vs one device, same optimizer, same summed gradients (float32, both in the simulator)."""
    single = tf.Variable(W0)
    opt = v1.AdamOptimizer(0.05)
    for _ in range(STEPS):
        opt.minimize(_loss(single, tf.constant(X), tf.constant(Y)))
    strategy = _strategies()["mirrored4"]()
    with strategy.scope():
        w = tf.Variable(W0)
        opt = v1.AdamOptimizer(0.05)
    xs = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant(X[ctx.replica_id_in_sync_group * 4:(ctx.replica_id_in_sync_group + 1) * 4]))
    ys = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant(Y[ctx.replica_id_in_sync_group * 4:(ctx.replica_id_in_sync_group + 1) * 4]))
    for _ in range(STEPS):
        strategy.run(lambda x, y: opt.minimize(_loss(w, x, y)), args=(xs, ys))
    for component in w.values:
        np.testing.assert_allclose(component.numpy(), single.numpy(), rtol=1e-5, atol=1e-6)


def test_sum_not_mean_across_replicas():
    """TF 2.21 (checked): MomentumOptimizer(0.1, 0.9, nesterov) on loss sum(w*w) * (replica_id + 1), 4 replicas:
    the gradient is 2w * (1+2+3+4); w = [1, 2] becomes [-2.8, -5.6], then [6.22, 12.44]."""
    strategy = _strategies()["mirrored4"]()
    with strategy.scope():
        w = tf.Variable([1.0, 2.0])
        opt = v1.MomentumOptimizer(0.1, 0.9, use_nesterov=True)

    def step():
        scale = tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32) + 1.0
        opt.minimize(lambda: tf.reduce_sum(w * w) * scale)

    strategy.run(step)
    for component in w.values:
        np.testing.assert_allclose(component.numpy(), [-2.8, -5.6], rtol=1e-6)
    strategy.run(step)
    for component in w.values:
        np.testing.assert_allclose(component.numpy(), [6.22, 12.44], rtol=1e-6)
    accum = opt.get_slot(w, "momentum").values[3].numpy()
    np.testing.assert_allclose(accum, [-38.0, -76.0], rtol=1e-6)  # 0.9 * 20 + 20 * -2.8


def test_get_slot_in_replica_context_is_the_local_component():
    strategy = _strategies()["mirrored4"]()
    with strategy.scope():
        w = tf.Variable([1.0])
        opt = v1.MomentumOptimizer(0.1, 0.5)
    strategy.run(lambda: opt.minimize(lambda: tf.reduce_sum(w)))
    slot = opt.get_slot(w, "momentum")
    seen = []

    def check():
        ctx = tf.distribute.get_replica_context()
        local = opt.get_slot(w.values[int(ctx.replica_id_in_sync_group)], "momentum")
        seen.append(local is slot.values[int(ctx.replica_id_in_sync_group)])

    strategy.run(check)
    assert seen == [True] * 4


def test_adam_variables_names_and_beta_powers():
    w = tf.Variable([1.0, 2.0])
    b = tf.Variable(3.0)
    opt = v1.AdamOptimizer(0.1)
    opt.minimize(lambda: tf.reduce_sum(w * w) + b)
    # TF 2.21: slots named <var>/Adam made unique, non-slot beta powers, sorted by name.
    assert [v.name for v in opt.variables()] == ["Variable/Adam:0", "Variable/Adam_1:0", "Variable/Adam_2:0",
                                                  "Variable/Adam_3:0", "beta1_power:0", "beta2_power:0"]
    opt.minimize(lambda: tf.reduce_sum(w * w) + b)
    beta1_power, beta2_power = opt._get_beta_accumulators()
    np.testing.assert_allclose(beta1_power.numpy(), 0.9**3, rtol=1e-6)
    np.testing.assert_allclose(beta2_power.numpy(), 0.999**3, rtol=1e-6)
    assert opt.get_slot(w, "m").name == "Variable/Adam:0"
    assert opt.get_slot(w, "nope") is None
    assert opt.get_slot(tf.Variable(1.0), "m") is None


def test_compute_gradients_pairs_and_none_for_unused():
    w = tf.Variable([1.0, 2.0])
    b = tf.Variable(3.0)
    opt = v1.GradientDescentOptimizer(0.1)
    pairs = opt.compute_gradients(lambda: tf.reduce_sum(w * w), [w, b])
    assert [v is w or v is b for _, v in pairs] == [True, True]
    np.testing.assert_allclose(pairs[0][0].numpy(), [2.0, 4.0])
    assert pairs[1][0] is None
    default = opt.compute_gradients(lambda: tf.reduce_sum(w * b))  # var_list=None: the variables read
    assert [v for _, v in default] == [w, b]
    step = v1.get_or_create_global_step()
    assert opt.apply_gradients(pairs, global_step=step) is None  # the None gradient is skipped
    np.testing.assert_allclose(w.numpy(), [0.8, 1.6], rtol=1e-6)
    assert b.numpy() == 3.0
    assert int(step.numpy()) == 1


def test_callable_learning_rate():
    w = tf.Variable(1.0)
    rates = iter([0.5, 0.25])
    opt = v1.GradientDescentOptimizer(lambda: next(rates))
    opt.minimize(lambda: w * 2.0)
    opt.minimize(lambda: w * 2.0)
    np.testing.assert_allclose(w.numpy(), 1.0 - 1.0 - 0.5)


def test_global_step_lifecycle():
    assert v1.get_global_step() is None
    step = v1.get_or_create_global_step()
    assert step.name == "global_step:0" and step.dtype == tf.int64 and not step.trainable
    assert v1.get_global_step() is step and v1.get_or_create_global_step() is step
    with pytest.raises(ValueError, match="already exists"):
        v1.create_global_step()


def test_global_step_created_in_scope_is_mirrored():
    strategy = _strategies()["mirrored4"]()
    with strategy.scope():
        step = v1.get_or_create_global_step()
        w = tf.Variable(1.0)
        opt = v1.GradientDescentOptimizer(0.1)
    assert type(step).__name__ == "MirroredVariable"
    result = strategy.run(lambda: opt.minimize(lambda: w * 1.0, global_step=step))
    assert int(np.asarray(strategy.experimental_local_results(result)[0])) == 1
    assert [int(c.numpy()) for c in step.values] == [1, 1, 1, 1]


@pytest.mark.parametrize("call, error, match", [
    (lambda o, w: o.minimize(tf.constant(1.0)), RuntimeError, "should be a function when eager"),
    (lambda o, w: o.compute_gradients(lambda: w * 2.0, [w, 3.0]), ValueError, "Passed in object 3.0"),
    (lambda o, w: o.apply_gradients([]), ValueError, "No variables provided"),
    (lambda o, w: o.apply_gradients([(None, w)]), ValueError, "No gradients provided for any variable"),
    (lambda o, w: o.minimize(lambda: tf.constant(1.0), var_list=[w]), ValueError, "between variables"),
    (lambda o, w: o.apply_gradients([(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0]))]), NotImplementedError,
     "Trying to update a Tensor"),
    (lambda o, w: o.apply_gradients([(tf.constant([1.0]), 5.0)]), NotImplementedError, "unsupported type"),
    (lambda o, w: o.apply_gradients([(object(), w)]), TypeError, "Gradient must be convertible"),
    (lambda o, w: o.apply_gradients([(tf.constant([1.0, 2.0, 3.0]), w)]), tf.errors.InvalidArgumentError,
     "same shape"),
    (lambda o, w: o.apply_gradients([(tf.constant([1, 2]), w)]), tf.errors.InvalidArgumentError, "int32"),
], ids=["tensor-loss", "non-variable-in-var-list", "empty", "all-none", "no-gradient", "tensor-target",
        "float-target", "bad-gradient", "shape", "dtype"])
def test_errors_as_tf(call, error, match):
    w = tf.Variable([1.0, 2.0])
    opt = v1.MomentumOptimizer(0.1, 0.9)
    with pytest.raises(error, match=match):
        call(opt, w)
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])  # nothing half-applied
    assert opt.variables() == []


def test_constructor_errors():
    with pytest.raises(TypeError):
        v1.MomentumOptimizer(0.1)  # momentum is required, as TF
    with pytest.raises(ValueError, match="Must specify the optimizer name"):
        v1.GradientDescentOptimizer(0.1, name="")


def test_apply_gradients_in_cross_replica_context_is_an_error():
    strategy = _strategies()["mirrored4"]()
    with strategy.scope():
        w = tf.Variable(1.0)
        opt = v1.GradientDescentOptimizer(0.1)
        with pytest.raises(RuntimeError, match="cross-replica context"):
            opt.apply_gradients([(tf.constant(1.0), w)])
    assert [c.numpy() for c in w.values] == [1.0] * 4


def test_compat_v1_train_keeps_tf_train_names():
    assert v1.Checkpoint is tf.train.Checkpoint
    assert v1.CheckpointManager is tf.train.CheckpointManager
    assert {"AdamOptimizer", "GradientDescentOptimizer", "MomentumOptimizer"} <= set(v1.__all__)


def test_hyperparameters_pass_through_float32_as_in_tf():
    """TF converts a Python learning rate with convert_to_tensor (float32) and casts it to the variable's dtype."""
    w = tf.Variable(np.array([1.0]), dtype=tf.float64)
    v1.GradientDescentOptimizer(0.1).apply_gradients([(tf.constant([1.0], tf.float64), w)])
    assert w.numpy()[0] == 1.0 - float(np.float32(0.1))
    adam = v1.AdamOptimizer(0.1)
    adam.apply_gradients([(tf.constant([1.0], tf.float64), w)])
    assert [p.dtype for p in adam._get_beta_accumulators()] == [tf.float32, tf.float32]


@pytest.mark.parametrize("make, expected", [
    (lambda: v1.MomentumOptimizer(0.1, 0.9), [0.41, 0.41, 1.9, 1.9, 3.0, 3.0]),
    (lambda: v1.MomentumOptimizer(0.1, 0.9, use_nesterov=True), [-0.031, -0.031, 1.81, 1.81, 3.0, 3.0]),
    (lambda: v1.AdamOptimizer(0.1), [0.811563, 0.811563, 1.832994, 1.832994, 3.0, 3.0]),
    (lambda: v1.GradientDescentOptimizer(0.1), [0.5, 0.5, 1.9, 1.9, 3.0, 3.0]),
], ids=["momentum", "nesterov", "adam", "gd"])
def test_sparse_gradients_as_tf(make, expected):
    """IndexedSlices from gather, duplicate indices in the second step. TF 2.21's results (checked): sparse
    Momentum moves only the rows present (row 1 keeps its accumulator in step 2), Adam and GD as dense."""
    table = tf.Variable([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    opt = make()
    opt.minimize(lambda: tf.reduce_sum(tf.gather(table, [0, 1])))
    opt.minimize(lambda: tf.reduce_sum(tf.gather(table, [0, 0]) * 2.0))
    np.testing.assert_allclose(table.numpy().ravel(), expected, rtol=1e-5, atol=1e-6)


def test_global_step_graph_argument_must_be_none():
    with pytest.raises(TypeError, match="graph"):
        tf.compat.v1.train.create_global_step(1)
    with pytest.raises(TypeError, match="graph"):
        tf.compat.v1.train.get_or_create_global_step("g")
