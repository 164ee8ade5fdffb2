"""tf.train.Checkpoint / CheckpointManager / the reader functions, in TF's on-disk format.

The TF-written checkpoints in tests_py/data/tf_checkpoints (made by make_tf_checkpoints.py with TF 2.21
and Keras 3) prove reading without TF; tools/crosscheck_tf.py proves the other direction with TF.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil

import numpy as np
import pytest

import tpustrategy as tf

DATA = pathlib.Path(__file__).parent / "data" / "tf_checkpoints"
EXPECTED = json.loads((DATA / "expected.json").read_text())


class Net(tf.Module):
    """The same structure as make_tf_checkpoints.Net."""

    def __init__(self, scale=1.0):
        super().__init__()
        self.v = tf.Variable(np.array([1.0, 2.0, 3.0], np.float32) * scale)
        self.w = tf.Variable(np.arange(6, dtype=np.int32).reshape(2, 3) * int(scale))
        self.l = [tf.Variable(5.0 * scale)]
        self.d = {"a": tf.Variable(2.0 * scale, trainable=False)}


def _copy(name, tmp_path):
    shutil.copytree(DATA / name, tmp_path / name)
    return str(tmp_path / name)


def test_save_writes_tf_keys_and_state_file(tmp_path):
    ckpt = tf.train.Checkpoint(model=Net())
    path = ckpt.save(str(tmp_path / "ckpt"))
    assert path == str(tmp_path / "ckpt-1")
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-1.data-00000-of-00001", "ckpt-1.index"]
    assert (tmp_path / "checkpoint").read_text() == ('model_checkpoint_path: "ckpt-1"\n'
                                                     'all_model_checkpoint_paths: "ckpt-1"\n')
    # The same structure saved by TF has exactly these keys, shapes (and the object graph).
    tf_listing = tf.train.list_variables(str(DATA / "module" / "ckpt-1"))
    assert tf.train.list_variables(str(tmp_path)) == tf_listing
    assert ckpt.save(str(tmp_path / "ckpt")) == str(tmp_path / "ckpt-2")
    assert int(ckpt.save_counter.numpy()) == 2
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ckpt-2")
    assert int(tf.train.load_variable(str(tmp_path), "save_counter/.ATTRIBUTES/VARIABLE_VALUE")) == 2


def test_round_trip_restores_values_and_status(tmp_path):
    net = Net()
    path = tf.train.Checkpoint(model=net).save(str(tmp_path / "ckpt"))
    other = Net(scale=0.0)
    status = tf.train.Checkpoint(model=other).restore(path)
    status.assert_consumed().assert_existing_objects_matched().assert_nontrivial_match()
    np.testing.assert_array_equal(other.v.numpy(), [1, 2, 3])
    np.testing.assert_array_equal(other.w.numpy(), np.arange(6).reshape(2, 3))
    assert other.w.dtype == tf.int32 and float(other.l[0].numpy()) == 5.0 and float(other.d["a"].numpy()) == 2.0


def test_tf_written_module_checkpoint_restores(tmp_path):
    directory = _copy("module", tmp_path)
    net = Net(scale=0.0)
    ckpt = tf.train.Checkpoint(model=net)
    ckpt.restore(tf.train.latest_checkpoint(directory)).assert_consumed()
    expected = EXPECTED["module"]
    np.testing.assert_array_equal(net.v.numpy(), expected["model/v/.ATTRIBUTES/VARIABLE_VALUE"])
    np.testing.assert_array_equal(net.w.numpy(), expected["model/w/.ATTRIBUTES/VARIABLE_VALUE"])
    assert float(net.l[0].numpy()) == expected["model/l/0/.ATTRIBUTES/VARIABLE_VALUE"]
    assert float(net.d["a"].numpy()) == expected["model/d/a/.ATTRIBUTES/VARIABLE_VALUE"]
    assert int(ckpt.save_counter.numpy()) == expected["save_counter/.ATTRIBUTES/VARIABLE_VALUE"]
    assert ckpt.save(os.path.join(directory, "ckpt")).endswith("ckpt-2")  # numbering continues, as TF


def test_reader_functions_on_tf_written_checkpoint():
    path = str(DATA / "dense" / "ckpt-1")
    expected = EXPECTED["dense"]
    names = [name for name, _ in tf.train.list_variables(path)]
    assert names == sorted(list(expected) + ["_CHECKPOINTABLE_OBJECT_GRAPH"])
    reader = tf.train.load_checkpoint(str(DATA / "dense"))
    for key, value in expected.items():
        np.testing.assert_array_equal(reader.get_tensor(key), np.asarray(value, reader.get_tensor(key).dtype))
    assert reader.get_variable_to_dtype_map()["optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE"] == tf.int64
    assert reader.get_variable_to_shape_map()["optimizer/_variables/2/.ATTRIBUTES/VARIABLE_VALUE"] == [3, 2]
    assert isinstance(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"), bytes)
    np.testing.assert_array_equal(tf.train.load_variable(path, "optimizer/_trainable_variables/1/.ATTRIBUTES/"
                                                               "VARIABLE_VALUE:0"),
                                  np.float32(expected["optimizer/_trainable_variables/1/.ATTRIBUTES/VARIABLE_VALUE"]))
    with pytest.raises(tf.errors.NotFoundError, match="Key nope not found"):
        reader.get_tensor("nope")


class KerasLikeDense(tf.Module):
    """Keras 3's attribute names for a Dense layer inside a Sequential (model._functional._operations[1])."""

    def __init__(self):
        super().__init__()
        self._kernel = tf.Variable(np.zeros((3, 2), np.float32))
        self.bias = tf.Variable(np.zeros(2, np.float32))


class KerasLikeSequential(tf.Module):
    def __init__(self):
        super().__init__()
        functional = tf.Module(name="functional")
        functional._operations = [tf.Module(name="input_layer"), KerasLikeDense()]
        self._functional = functional


def test_tf_written_keras_dense_and_adam_restore_with_deferred_slots(tmp_path):
    expected = {k.split("/.ATTRIBUTES")[0]: np.asarray(v, np.float32) for k, v in EXPECTED["dense"].items()}
    model = KerasLikeSequential()
    dense = model._functional._operations[1]
    optimizer = tf.keras.optimizers.Adam(0.5)
    status = tf.train.Checkpoint(model=model, optimizer=optimizer).restore(str(DATA / "dense" / "ckpt-1"))
    np.testing.assert_array_equal(dense._kernel.numpy(), expected["optimizer/_trainable_variables/0"])
    np.testing.assert_array_equal(dense.bias.numpy(), expected["optimizer/_trainable_variables/1"])
    assert int(optimizer.iterations.numpy()) == 1 and optimizer.learning_rate == pytest.approx(0.1)
    with pytest.raises(AssertionError, match="Unresolved object in checkpoint"):
        status.assert_consumed()  # the slots do not exist before the first step
    status.assert_existing_objects_matched()
    # The first step creates the slots, which take the checkpoint's values before they are used:
    # with zero gradients, Adam's step 2 gives m = b1 m0, v = b2 v0, w -= lr_t m / (sqrt(v) + eps).
    kernel0 = dense._kernel.numpy().copy()
    optimizer.apply_gradients([(tf.zeros((3, 2)), dense._kernel), (tf.zeros((2,)), dense.bias)])
    status.assert_consumed()
    m = 0.9 * expected["optimizer/_variables/2"]
    v = 0.999 * expected["optimizer/_variables/3"]
    np.testing.assert_allclose(optimizer._slot(dense._kernel, "momentum").numpy(), m, rtol=1e-6)
    np.testing.assert_allclose(optimizer._slot(dense._kernel, "velocity").numpy(), v, rtol=1e-6)
    lr_t = 0.1 * np.sqrt(1 - 0.999**2) / (1 - 0.9**2)
    np.testing.assert_allclose(dense._kernel.numpy(), kernel0 - lr_t * m / (np.sqrt(v) + 1e-7), rtol=0,
                               atol=2e-6)  # float32 arithmetic


def test_optimizer_keys_follow_keras3(tmp_path):
    model = KerasLikeSequential()
    dense = model._functional._operations[1]
    optimizer = tf.keras.optimizers.Adam(0.1)
    optimizer.apply_gradients([(tf.ones((3, 2)), dense._kernel), (tf.ones((2,)), dense.bias)])
    path = tf.train.Checkpoint(model=model, optimizer=optimizer).save(str(tmp_path / "ckpt"))
    ours = dict(tf.train.list_variables(path))
    assert ours["optimizer/_variables/2/.ATTRIBUTES/VARIABLE_VALUE"] == [3, 2]  # kernel momentum, as Keras 3
    assert ours["optimizer/_variables/5/.ATTRIBUTES/VARIABLE_VALUE"] == [2]  # bias velocity
    # Breadth first, the model's variables are first reached through the optimizer: the same keys as TF's file.
    assert set(ours) == set(EXPECTED["dense"]) | {"_CHECKPOINTABLE_OBJECT_GRAPH"}
    fresh_model, fresh_opt = KerasLikeSequential(), tf.keras.optimizers.Adam(0.5)
    tf.train.Checkpoint(model=fresh_model, optimizer=fresh_opt).restore(path)
    fresh_dense = fresh_model._functional._operations[1]
    fresh_opt.apply_gradients([(tf.zeros((3, 2)), fresh_dense._kernel), (tf.zeros((2,)), fresh_dense.bias)])
    np.testing.assert_allclose(fresh_opt._slot(fresh_dense._kernel, "momentum").numpy(),
                               0.9 * optimizer._slot(dense._kernel, "momentum").numpy(), rtol=1e-6)


def test_deferred_restoration_of_a_lazily_created_variable(tmp_path):
    path = tf.train.Checkpoint(model=Net()).save(str(tmp_path / "ckpt"))

    class Lazy(tf.Module):
        def build(self):
            self.v = tf.Variable(np.zeros(3, np.float32))

    lazy = Lazy()
    status = tf.train.Checkpoint(model=lazy).restore(path).expect_partial()
    status.assert_existing_objects_matched()
    lazy.build()
    np.testing.assert_array_equal(lazy.v.numpy(), [1, 2, 3])
    with pytest.raises(AssertionError, match="Unresolved object"):
        status.assert_consumed()  # w, l and d never appear


def test_status_assertions(tmp_path):
    path = tf.train.Checkpoint(model=Net()).save(str(tmp_path / "ckpt"))
    bigger = Net()
    bigger.extra = tf.Variable(1.0)
    status = tf.train.Checkpoint(model=bigger).restore(path)
    with pytest.raises(AssertionError, match="not bound to checkpointed values.*extra"):
        status.assert_existing_objects_matched()
    status.assert_nontrivial_match()
    unrelated = tf.train.Checkpoint(other=tf.Variable(1.0)).restore(path)
    with pytest.raises(AssertionError, match="Nothing except the root object matched"):
        unrelated.assert_nontrivial_match()
    none_status = tf.train.Checkpoint(model=Net()).restore(None)
    assert none_status.expect_partial() is none_status
    with pytest.raises(AssertionError, match="No checkpoint specified"):
        none_status.assert_consumed()


def test_write_read_and_directory_restore(tmp_path):
    net = Net(scale=3.0)
    ckpt = tf.train.Checkpoint(model=net)
    assert ckpt.write(str(tmp_path / "sub" / "exact")) == str(tmp_path / "sub" / "exact")
    assert not (tmp_path / "sub" / "checkpoint").exists()  # write() keeps no state file, as TF
    net.v.assign([0.0, 0.0, 0.0])
    ckpt.read(str(tmp_path / "sub" / "exact")).assert_consumed()
    np.testing.assert_array_equal(net.v.numpy(), [3, 6, 9])
    ckpt.save(str(tmp_path / "d" / "ckpt"))
    net.v.assign([0.0, 0.0, 0.0])
    with pytest.raises(tf.errors.DataLossError, match="Is a directory"):  # as TF 2.21
        ckpt.restore(str(tmp_path / "d"))
    ckpt.restore(tf.train.latest_checkpoint(str(tmp_path / "d")))
    np.testing.assert_array_equal(net.v.numpy(), [3, 6, 9])


def test_bad_checkpoints_raise_typed_errors_and_change_nothing(tmp_path):
    with pytest.raises(ValueError, match="trackable"):
        tf.train.Checkpoint(model=3)
    with pytest.raises(tf.errors.NotFoundError):
        tf.train.Checkpoint(model=Net()).restore(str(tmp_path / "missing-1"))
    with pytest.raises(tf.errors.NotFoundError):
        tf.train.load_checkpoint(str(tmp_path / "missing-1"))
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file"):
        tf.train.load_checkpoint(str(tmp_path))
    path = tf.train.Checkpoint(model=Net()).save(str(tmp_path / "ckpt"))
    # A shape that does not fit: nothing assigned (v is checked after w would have been).
    wrong = Net(scale=0.0)
    wrong.w = tf.Variable(np.zeros((3, 2), np.int32))
    with pytest.raises(ValueError, match=r"incompatible tensor with shape \(2, 3\).*\(3, 2\) and name Variable:0"):
        tf.train.Checkpoint(model=wrong).restore(path)
    np.testing.assert_array_equal(wrong.v.numpy(), [0, 0, 0])
    wrong_dtype = Net(scale=0.0)
    wrong_dtype.v = tf.Variable(np.zeros(3, np.float64))
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected dtype double does not equal original dtype "
                                                             "float"):
        tf.train.Checkpoint(model=wrong_dtype).restore(path)
    # Corrupt data bytes: DataLossError and no variable changed.
    data = tmp_path / "ckpt-1.data-00000-of-00001"
    raw = bytearray(data.read_bytes())
    raw[5] ^= 0xFF
    data.write_bytes(bytes(raw))
    fresh = Net(scale=0.0)
    with pytest.raises(tf.errors.DataLossError, match="Checksum does not match"):
        tf.train.Checkpoint(model=fresh).restore(path)
    assert not fresh.v.numpy().any() and not fresh.w.numpy().any()
    index = tmp_path / "ckpt-1.index"
    index.write_bytes(index.read_bytes()[:-3])
    with pytest.raises(tf.errors.DataLossError):
        tf.train.Checkpoint(model=fresh).restore(path)


def _replicated_strategies():
    return {
        "mirrored4": lambda: tf.distribute.MirroredStrategy([f"/gpu:{i}" for i in range(4)]),
        "mirrored2": lambda: tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"]),
        "tpu8": lambda: tf.distribute.TPUStrategy(tf.distribute.cluster_resolver.TPUClusterResolver(tpu="")),
        "none": lambda: None,
    }


@pytest.mark.parametrize("save_under,restore_under", [("mirrored4", "mirrored2"), ("mirrored4", "none"),
                                                      ("none", "tpu8"), ("tpu8", "mirrored4")])
def test_distributed_variables_restore_across_strategies(tmp_path, save_under, restore_under):
    def make(strategy_name, fill):
        factory = _replicated_strategies()[strategy_name]
        strategy = factory()
        scope = strategy.scope() if strategy is not None else _null()
        with scope:
            net = tf.Module()
            net.w = tf.Variable(np.full((2, 2), fill, np.float32))
            net.total = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                                    aggregation=tf.VariableAggregation.SUM)
        return strategy, net

    strategy, net = make(save_under, 1.5)
    components = getattr(net.total, "values", (net.total,))
    for i, component in enumerate(components):
        component.assign(float(i + 1))  # per-replica partial sums
    total = sum(range(1, len(components) + 1))
    path = tf.train.Checkpoint(net=net).save(str(tmp_path / "ckpt"))
    assert float(tf.train.load_variable(path, "net/total/.ATTRIBUTES/VARIABLE_VALUE")) == total  # the aggregate
    _, restored = make(restore_under, 0.0)
    tf.train.Checkpoint(net=restored).restore(path).assert_consumed()
    for component in getattr(restored.w, "values", (restored.w,)):
        np.testing.assert_array_equal(component.numpy(), np.full((2, 2), 1.5))
    parts = [float(c.numpy()) for c in getattr(restored.total, "values", (restored.total,))]
    assert sum(parts) == pytest.approx(total) and len(set(parts)) == 1  # value / replicas on each component


class _null:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def test_checkpoint_manager(tmp_path):
    net = Net()
    ckpt = tf.train.Checkpoint(model=net)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.checkpoints == []
    paths = [manager.save() for _ in range(3)]
    assert paths == [str(tmp_path / f"ckpt-{i}") for i in (1, 2, 3)]
    assert manager.checkpoints == paths[1:] and manager.latest_checkpoint == paths[2]
    assert not (tmp_path / "ckpt-1.index").exists() and not (tmp_path / "ckpt-1.data-00000-of-00001").exists()
    state = (tmp_path / "checkpoint").read_text().splitlines()
    assert state[:3] == ['model_checkpoint_path: "ckpt-3"', 'all_model_checkpoint_paths: "ckpt-2"',
                         'all_model_checkpoint_paths: "ckpt-3"']
    assert sum(line.startswith("all_model_checkpoint_timestamps: ") for line in state) == 2
    assert manager.save(checkpoint_number=100) == str(tmp_path / "ckpt-100")
    # A new manager picks up the directory's state; restore_or_initialize restores the latest.
    net.v.assign([0.0, 0.0, 0.0])
    again = tf.train.CheckpointManager(tf.train.Checkpoint(model=net), str(tmp_path), max_to_keep=2)
    assert again.checkpoints == [str(tmp_path / "ckpt-3"), str(tmp_path / "ckpt-100")]
    assert again.restore_or_initialize() == str(tmp_path / "ckpt-100")
    np.testing.assert_array_equal(net.v.numpy(), [1, 2, 3])
    called = []
    empty = tf.train.CheckpointManager(tf.train.Checkpoint(model=Net()), str(tmp_path / "new"), max_to_keep=None,
                                       init_fn=lambda: called.append(1))
    assert empty.restore_or_initialize() is None and called == [1]
    with pytest.raises(ValueError, match="positive integer"):
        tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=0)


def test_checkpoint_manager_interval(tmp_path):
    step = tf.Variable(0, dtype=tf.int64)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(step=step), str(tmp_path), max_to_keep=None,
                                         step_counter=step, checkpoint_interval=10)
    saved = []
    for i in range(25):
        step.assign(i)
        saved.append(manager.save() is not None)
    assert [i for i, s in enumerate(saved) if s] == [0, 10, 20]


def test_state_file_parsing(tmp_path):
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "/abs/path/ckpt-7"\n'
                                         'all_model_checkpoint_paths: "/abs/path/ckpt-7"\n')
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == "/abs/path/ckpt-7"
    assert tf.train.latest_checkpoint(str(tmp_path)) is None  # the files are missing
    (tmp_path / "checkpoint").write_text("garbage {{{")
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None


def test_checkpoint_with_root(tmp_path):
    net, extra = Net(), tf.Variable(9.0)
    path = tf.train.Checkpoint(root=net, extra=extra).save(str(tmp_path / "ckpt"))
    names = [name for name, _ in tf.train.list_variables(path)]
    assert "v/.ATTRIBUTES/VARIABLE_VALUE" in names and "extra/.ATTRIBUTES/VARIABLE_VALUE" in names
    fresh, fresh_extra = Net(scale=0.0), tf.Variable(0.0)
    tf.train.Checkpoint(root=fresh, extra=fresh_extra).restore(path).assert_consumed()
    assert float(fresh_extra.numpy()) == 9.0 and float(fresh.l[0].numpy()) == 5.0


def test_keep_checkpoint_every_n_hours_preserves_old_checkpoints(tmp_path):
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), str(tmp_path), max_to_keep=1,
                                         keep_checkpoint_every_n_hours=1e-12)
    paths = [manager.save() for _ in range(3)]
    assert manager.checkpoints == paths[-1:]  # out of the managed set ...
    assert all(os.path.exists(p + ".index") for p in paths)  # ... but kept on disk, one per (tiny) period


def test_failed_restore_defers_nothing(tmp_path):
    path = tf.train.Checkpoint(model=Net()).save(str(tmp_path / "ckpt"))

    class Partial(tf.Module):
        pass

    partial = Partial()
    partial.v = tf.Variable(np.zeros(4, np.float32))  # the wrong shape: the restore fails
    with pytest.raises(ValueError, match="incompatible"):
        tf.train.Checkpoint(model=partial).restore(path)
    partial.w = tf.Variable(np.zeros((2, 3), np.int32))  # would have been deferred: stays as created
    assert not partial.w.numpy().any()


def test_a_saved_value_on_a_non_variable_object_is_unconsumed(tmp_path):
    path = tf.train.Checkpoint(model=Net()).save(str(tmp_path / "ckpt"))
    odd = Net(scale=0.0)
    odd.v = tf.Module()  # the checkpoint has a value there; the program has no variable
    status = tf.train.Checkpoint(model=odd).restore(path)
    with pytest.raises(AssertionError, match="Unresolved object in checkpoint model.v"):
        status.assert_consumed()


def _rewritten(prefix, graph_key_add, value_add):
    """A checkpoint bundle at `prefix` written by hand: value_add(writer) then graph_key_add(writer)."""
    from tpustrategy import _core

    writer = _core.checkpoint.BundleWriter(prefix)
    value_add(writer)
    graph_key_add(writer)
    writer.finish()
    return prefix


def test_restore_checks_string_values_and_the_object_graph_entry(tmp_path):
    graph_key = "_CHECKPOINTABLE_OBJECT_GRAPH"
    path = tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(tmp_path / "ok"))
    graph = tf.train.load_checkpoint(path).get_tensor(graph_key)
    key = "v/.ATTRIBUTES/VARIABLE_VALUE"
    # A string value where the program has a float variable (TF 2.21 checkpoints can hold string variables):
    # TF's RestoreV2 message (it raised AttributeError here before).
    string_value = _rewritten(str(tmp_path / "s"), lambda w: w.add_strings(graph_key, [], [graph]),
                              lambda w: w.add_strings(key, [], [b"x"]))
    v = tf.Variable(1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"tensor_name = {key}; expected dtype float does not "
                                                             "equal original dtype string"):
        tf.train.Checkpoint(v=v).restore(string_value)
    assert float(v.numpy()) == 1.0
    # An object graph entry that is not a string scalar was decoded from its raw buffer (for a string vector,
    # from the bytes of object pointers).
    for name, add_graph in (("vector", lambda w: w.add_strings(graph_key, [1], [graph])),
                            ("uint8", lambda w: w.add(graph_key, 4, [len(graph)], graph))):
        bad = _rewritten(str(tmp_path / name), add_graph, lambda w: w.add(key, 1, [], np.float32(2).tobytes()))
        with pytest.raises(tf.errors.DataLossError, match=f"{graph_key} is not a string scalar"):
            tf.train.Checkpoint(v=v).restore(bad)
    assert float(v.numpy()) == 1.0


def test_read_none_restores_nothing_as_tf():
    # TF 2.21: Checkpoint.read(None) returns an InitializationOnlyStatus (it raised TypeError here before).
    status = tf.train.Checkpoint(v=tf.Variable(1.0)).read(None)
    with pytest.raises(AssertionError, match=r"No checkpoint specified \(save_path=None\)"):
        status.assert_consumed()
