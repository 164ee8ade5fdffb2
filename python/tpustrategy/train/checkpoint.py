"""``tf.train.Checkpoint``: saves and restores an object graph in TF's checkpoint format.

``save``/``write`` walk the graph breadth first (object_graph.py), write each variable's value under its
path key (``model/layer/kernel/.ATTRIBUTES/VARIABLE_VALUE``) and the TrackableObjectGraph proto under
``_CHECKPOINTABLE_OBJECT_GRAPH`` through the C++ BundleWriter (``<prefix>.index`` +
``<prefix>.data-00000-of-00001``, crash-safe). ``restore``/``read`` match the checkpoint's graph to the
Python objects by child names from the root, as TF does (keys are not used for matching, so a
checkpoint written by TF for the same structure restores here and the other way round), check every
value's dtype and shape before assigning any, and defer the values of children that do not exist yet
(restored when they are created: lazily built layers, optimizer slots).
"""

from __future__ import annotations

import collections
import os
import weakref
from typing import Any, NoReturn

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.framework import deferred_restoration
from tpustrategy.framework.type_string import type_string
from tpustrategy.train import object_graph, object_graph_proto
from tpustrategy.train.checkpoint_reader import NUMPY_TO_TF, CheckpointReader
from tpustrategy.train.checkpoint_state import CheckpointState, write_state
from tpustrategy.variables import Variable

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
# A value waiting for its object: (start object, path of names from it, checkpoint node id).
_Deferred = tuple[Any, tuple[str, ...], int]


class CheckpointOptions:
    """Accepted for TF compatibility (``tf.train.CheckpointOptions``); the options have no effect here."""

    def __init__(self, experimental_io_device: str | None = None, experimental_enable_async_checkpoint: bool = False,
                 experimental_write_callbacks: Any = None, enable_async: bool = False,
                 experimental_skip_slot_variables: bool = False, experimental_sharding_callback: Any = None) -> None:
        self.experimental_io_device = experimental_io_device
        self.enable_async = bool(enable_async or experimental_enable_async_checkpoint)


class _RootView:
    """The graph root when ``Checkpoint(root=...)`` is given: the root's children plus the keyword objects."""

    def __init__(self, checkpoint: Checkpoint) -> None:
        self._checkpoint = checkpoint

    def _trackable_children(self) -> list[tuple[str, Any]]:
        ckpt = self._checkpoint
        return object_graph.children(ckpt._root) + ckpt._own_children()


def _serialize(root: Any) -> tuple[bytes, list[tuple[str, np.ndarray]]]:
    objects, paths, references = object_graph.breadth_first(root)
    nodes = [object_graph_proto.TrackableObject(children=list(refs)) for refs in references]
    values: list[tuple[str, np.ndarray]] = []
    for node_id, obj in enumerate(objects):
        if node_id and object_graph.is_leaf(obj):
            key = object_graph.checkpoint_key(paths[node_id])
            nodes[node_id].attributes.append(
                object_graph_proto.SerializedTensor(object_graph.ATTRIBUTE, object_graph.full_name(obj), key))
            values.append((key, object_graph.read_value(obj)))
    has_values = [bool(node.attributes) for node in nodes]
    changed = True
    while changed:  # the graph may have cycles: propagate to a fixed point
        changed = False
        for node_id, node in enumerate(nodes):
            if not has_values[node_id] and any(has_values[c] for c, _ in node.children):
                has_values[node_id] = changed = True
    for node, value in zip(nodes, has_values, strict=True):
        node.has_checkpoint_values = value
    return object_graph_proto.encode(nodes), values


def _write_bundle(prefix: str, graph: bytes, values: list[tuple[str, np.ndarray]]) -> None:
    directory = os.path.dirname(prefix)
    if directory:
        os.makedirs(directory, exist_ok=True)
    writer = _core.checkpoint.BundleWriter(prefix)
    for key, array in values:
        array = np.asarray(array, order="C")  # (ascontiguousarray would make a scalar 1-d)
        if array.dtype not in NUMPY_TO_TF:
            raise TypeError(f"cannot checkpoint {key!r} of dtype {array.dtype}")
        writer.add(key, NUMPY_TO_TF[array.dtype], list(array.shape), array.astype(array.dtype.newbyteorder("<"),
                                                                                   copy=False).tobytes())
    writer.add_strings(OBJECT_GRAPH_KEY, [], [graph])  # type: ignore[list-item]  # std::string takes bytes
    writer.finish()


class _Restoration:
    """One ``restore`` call: the checkpoint's nodes, what matched, and the values still waiting."""

    def __init__(self, reader: CheckpointReader, save_path: str) -> None:
        self.reader, self.save_path = reader, save_path
        if not reader.has_tensor(OBJECT_GRAPH_KEY):
            raise errors.InvalidArgumentError(
                None, None, f"The checkpoint at {save_path} has no object graph ({OBJECT_GRAPH_KEY}): name-based "
                "checkpoints written by tf.compat.v1.train.Saver are not supported")
        graph = reader.get_tensor(OBJECT_GRAPH_KEY)
        if not isinstance(graph, bytes):  # a string scalar reads as bytes; anything else is no object graph
            raise errors.DataLossError(None, None, f"The checkpoint at {save_path} has no object graph: "
                                       f"{OBJECT_GRAPH_KEY} is not a string scalar")
        self.nodes = object_graph_proto.decode(graph)
        if not self.nodes:
            raise errors.DataLossError(None, None, f"The checkpoint at {save_path} has an empty object graph")
        self.matched: dict[int, object] = {}
        self.restored_ids: set[int] = set()
        self._restored_refs: list[Any] = []  # keeps restored leaves alive while their ids are remembered
        # owner -> [(start object, path, node id)]
        self.waiting: weakref.WeakKeyDictionary[Any, list[_Deferred]] = weakref.WeakKeyDictionary()
        self.unused_attributes: dict[int, list[str]] = {}  # node id -> attributes its (non-variable) object cannot take
        self._retrying = False

    # ---- matching ----
    def match(self, node_id: Any, obj: Any, owner: Any, start: Any, path: Any, assignments: Any) -> None:
        """Matches checkpoint node `node_id` to `obj` and its subtree breadth first. A missing child is
        deferred on `owner`, the nearest non-container object (notified when it gains children), with the
        path of names from `start` by which to find it later."""
        queue = collections.deque([(node_id, obj, owner, start, path)])
        while queue:
            nid, o, own, begin, rel = queue.popleft()
            if nid in self.matched:
                continue
            self.matched[nid] = o
            if isinstance(o, _RootView):
                own, begin, rel = o._checkpoint._root, o, ()
            elif not object_graph.is_container(o):
                own, begin, rel = o, o, ()
            node = self.nodes[nid]
            if object_graph.is_leaf(o):
                for attribute in node.attributes:
                    if attribute.name == object_graph.ATTRIBUTE:
                        assignments.append((o, attribute.checkpoint_key))
                continue
            if node.attributes:  # a saved value whose Python object is no variable: assert_consumed reports it
                self.unused_attributes[nid] = [a.checkpoint_key for a in node.attributes]
            current = dict(object_graph.children(o))
            for child_id, name in node.children:
                if name in current:
                    queue.append((child_id, current[name], own, begin, rel + (name,)))
                elif child_id not in self.matched:
                    self._defer(own, begin, rel + (name,), child_id)

    def _defer(self, owner: Any, start: Any, path: tuple[str, ...], node_id: int) -> None:
        try:
            entries = self.waiting.setdefault(owner, [])
            deferred_restoration.pending.setdefault(owner, {})[id(self)] = self._retry
        except TypeError:  # an owner that cannot be weakly referenced: nothing can notify us about it
            return
        entries.append((start, path, node_id))

    def cancel(self) -> None:
        """Forgets every deferred value (after a failed restore, nothing may be restored later)."""
        for owner in list(self.waiting.keys()):
            callbacks = deferred_restoration.pending.get(owner)
            if callbacks is not None:
                callbacks.pop(id(self), None)
                if not callbacks:
                    deferred_restoration.pending.pop(owner, None)
        self.waiting.clear()

    def _retry(self, owner: Any) -> None:
        if self._retrying:
            return
        self._retrying = True
        try:
            still: list[_Deferred] = []
            for start, path, node_id in self.waiting.get(owner, []):
                if node_id in self.matched:
                    continue
                obj, found = start, True
                for name in path:
                    current = dict(object_graph.children(obj))
                    if name not in current:
                        found = False
                        break
                    obj = current[name]
                if not found:
                    still.append((start, path, node_id))
                    continue
                assignments: list[tuple[Any, str]] = []
                self.match(node_id, obj, owner, start, path, assignments)
                self.apply(assignments)
            if still:
                self.waiting[owner] = still
            else:
                self.waiting.pop(owner, None)
                callbacks = deferred_restoration.pending.get(owner)
                if callbacks is not None:
                    callbacks.pop(id(self), None)
                    if not callbacks:
                        deferred_restoration.pending.pop(owner, None)
        finally:
            self._retrying = False

    # ---- values ----
    def apply(self, assignments: Any) -> None:
        """Reads and checks every value first, then assigns: a mismatch leaves every variable unchanged."""
        checked: list[tuple[Any, np.ndarray | bytes]] = []
        shapes = self.reader.get_variable_to_shape_map()
        for obj, key in assignments:
            if key not in shapes:
                raise errors.NotFoundError(None, None, f"Key {key} not found in checkpoint {self.save_path}")
            array = self.reader.get_tensor(key)
            signature = object_graph.signature(obj)
            if signature is not None:
                expected, variable_shape = signature
                # a string scalar reads as bytes
                dtype, shape = (array.dtype, tuple(array.shape)) if isinstance(array, np.ndarray) else \
                    (np.dtype(object), ())
                if dtype != expected:
                    raise errors.InvalidArgumentError(
                        None, None, f"tensor_name = {key}; expected dtype {type_string(expected)} does not equal "
                        f"original dtype {type_string(dtype)}")
                if shape != variable_shape:
                    raise ValueError(f"Received incompatible tensor with shape {shape} when attempting "
                                     f"to restore variable with shape {variable_shape} and name "
                                     f"{getattr(obj, 'name', key)}.")
            checked.append((obj, array))
        for obj, array in checked:
            object_graph.assign_value(obj, array)
            self.restored_ids.add(id(obj))
            self._restored_refs.append(obj)

    def node_paths(self) -> dict[int, str]:
        paths = {0: "(root)"}
        queue = collections.deque([0])
        while queue:
            nid = queue.popleft()
            for child_id, name in self.nodes[nid].children:
                if child_id not in paths:
                    paths[child_id] = name if nid == 0 else f"{paths[nid]}.{name}"
                    queue.append(child_id)
        return paths


class CheckpointLoadStatus:
    """What ``Checkpoint.restore`` returns: assertions about how the checkpoint matched the objects."""

    def __init__(self, restoration: _Restoration, checkpoint: Checkpoint) -> None:
        self._restoration = restoration
        self._checkpoint = checkpoint
        self._expect_partial = False

    def _unmatched_objects(self) -> list[str]:
        objects, paths, _ = object_graph.breadth_first(self._checkpoint._graph_root())
        return [".".join(paths[i]) for i, obj in enumerate(objects)
                if i and object_graph.is_leaf(obj) and id(obj) not in self._restoration.restored_ids]

    def assert_consumed(self) -> CheckpointLoadStatus:
        """Every value in the checkpoint was restored and every object in the program got a value.

        Raises:
          AssertionError: naming the first unresolved checkpoint object, or the unmatched Python objects.
        """
        restoration = self._restoration
        paths = None
        for node_id, node in enumerate(restoration.nodes):
            if node.attributes and (node_id not in restoration.matched or node_id in restoration.unused_attributes):
                paths = paths or restoration.node_paths()
                raise AssertionError(f"Unresolved object in checkpoint {paths.get(node_id, node_id)}: "
                                     f"{[a.checkpoint_key for a in node.attributes]}")
        return self.assert_existing_objects_matched()

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        """Every variable that exists in the program now got a value from the checkpoint.

        Raises:
          AssertionError: naming the unmatched objects.
        """
        unmatched = self._unmatched_objects()
        if unmatched:
            raise AssertionError("Some Python objects were not bound to checkpointed values, likely due to changes "
                                 f"in the Python program: {unmatched}")
        return self

    def assert_nontrivial_match(self) -> CheckpointLoadStatus:
        """Something other than the root (and its save counter) matched.

        Raises:
          AssertionError: nothing matched.
        """
        counter = self._checkpoint._save_counter
        restored = [i for i in self._restoration.restored_ids if counter is None or i != id(counter)]
        if not restored:
            raise AssertionError("Nothing except the root object matched a checkpointed value. Typically this means "
                                 "that the checkpoint does not match the Python program. The following objects have "
                                 f"no matching checkpointed value: {self._unmatched_objects()}")
        return self

    def expect_partial(self) -> CheckpointLoadStatus:
        """Silences warnings about unused values (there are none here); returns self."""
        self._expect_partial = True
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Nothing to run in eager mode."""

    def initialize_or_restore(self, session: Any = None) -> None:
        """Nothing to run in eager mode."""


class InitializationOnlyStatus:
    """What ``restore(None)`` returns: nothing is restored, and every assertion says so."""

    def _fail(self) -> NoReturn:
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def assert_consumed(self) -> NoReturn:
        """Always fails: nothing was restored.

        Raises:
          AssertionError: always.
        """
        self._fail()

    def assert_existing_objects_matched(self) -> NoReturn:
        """Always fails: nothing was restored.

        Raises:
          AssertionError: always.
        """
        self._fail()

    def assert_nontrivial_match(self) -> NoReturn:
        """Always fails: nothing was restored.

        Raises:
          AssertionError: always.
        """
        self._fail()

    def expect_partial(self) -> InitializationOnlyStatus:
        """Does nothing; returns self."""
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Nothing to run."""

    def initialize_or_restore(self, session: Any = None) -> None:
        """Nothing to run: variables are initialized when created."""


class Checkpoint:
    """Manages saving/restoring trackable values to disk in TF's format (mirrors ``tf.train.Checkpoint``).

    Args:
      root: optional root object; its children and the keyword objects are the checkpoint's top level.
      **kwargs: the objects to save (variables, tf.Module / Keras objects, optimizers, lists or dicts of
        them), each under its keyword.

    Raises:
      ValueError: a keyword value that is not trackable.
    """

    def __init__(self, root: Any = None, **kwargs: Any) -> None:
        self._root = root
        self._save_counter: Variable | None = None
        self._root_view = _RootView(self) if root is not None else None
        if root is not None and not object_graph.is_trackable(root):
            raise ValueError(f"`Checkpoint` was expecting root to be a trackable object (an object derived from "
                             f"`Trackable`), got {root!r}.")
        for name, value in sorted(kwargs.items(), key=lambda item: item[0]):
            if not object_graph.is_trackable(value):
                raise ValueError(f"`Checkpoint` was expecting {name} to be a trackable object (an object derived from "
                                 f"`Trackable`), got {value!r}. If you believe this object should be trackable (i.e. "
                                 "it is part of the TensorFlow Python API and manages state), please open an issue.")
            setattr(self, name, value)

    # ---- the graph ----
    def _own_children(self) -> list[tuple[str, Any]]:
        out = [(name, value) for name, value in vars(self).items()
               if not name.startswith("_") and object_graph.is_trackable(value)]
        if self._save_counter is not None:
            out.append(("save_counter", self._save_counter))
        return out

    def _trackable_children(self) -> list[tuple[str, Any]]:
        return self._own_children()

    def _graph_root(self) -> _RootView | Checkpoint:
        return self._root_view if self._root_view is not None else self

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if not name.startswith("_") and deferred_restoration.pending:
            deferred_restoration.notify(self)

    @property
    def save_counter(self) -> Variable:
        """The number of ``save`` calls (an int64 variable, created on first use)."""
        self._maybe_create_save_counter()
        assert self._save_counter is not None  # just created
        return self._save_counter

    def _maybe_create_save_counter(self) -> None:
        if self._save_counter is None:
            self._save_counter = Variable(0, dtype=_core.tensor.int64, trainable=False, name="save_counter")
            deferred_restoration.notify(self)
            if self._root is not None:
                deferred_restoration.notify(self._root)

    # ---- saving ----
    def write(self, file_prefix: str | os.PathLike[str], options: CheckpointOptions | None = None) -> str:
        """Writes a checkpoint at exactly `file_prefix` (no counter, no state file); returns the prefix.

        Raises:
          NotFoundError / FailedPreconditionError: the files cannot be created.
        """
        del options
        prefix = os.fspath(file_prefix)
        if not isinstance(prefix, str) or not prefix:
            raise ValueError(f"file_prefix must be a non-empty path, got {file_prefix!r}")
        graph, values = _serialize(self._graph_root())
        _write_bundle(prefix, graph, values)
        return prefix

    def save(self, file_prefix: str | os.PathLike[str], options: CheckpointOptions | None = None) -> str:
        """Saves to ``<file_prefix>-<save_counter>`` (counter incremented first), records it in the directory's
        ``checkpoint`` state file, and returns that path."""
        prefix = os.fspath(file_prefix)
        self._maybe_create_save_counter()
        assert self._save_counter is not None  # just created
        self._save_counter.assign_add(1)
        path = self.write(f"{prefix}-{int(np.asarray(self._save_counter.numpy()))}", options)
        write_state(os.path.dirname(path) or ".", CheckpointState(path, [path]))
        return path

    # ---- restoring ----
    def read(self, save_path: str | os.PathLike[str] | None,
             options: CheckpointOptions | None = None) -> CheckpointLoadStatus | InitializationOnlyStatus:
        """Restores from `save_path` (see ``restore``, without creating the save counter); returns a
        CheckpointLoadStatus, or for ``None`` an InitializationOnlyStatus, as TF."""
        if save_path is None:
            return InitializationOnlyStatus()
        return self._restore(save_path)

    def restore(self, save_path: str | os.PathLike[str] | None,
                options: CheckpointOptions | None = None) -> CheckpointLoadStatus | InitializationOnlyStatus:
        """Restores the values of `save_path` (a checkpoint prefix) into the objects, deferring those of objects not
        created yet. ``None`` restores nothing.

        Raises:
          NotFoundError: no checkpoint at `save_path`. DataLossError: corrupt files, or a directory.
          ValueError / InvalidArgumentError: a value whose shape / dtype does not fit its variable (nothing is
            assigned then).
        """
        if save_path is not None:
            self._maybe_create_save_counter()
        return self.read(save_path, options)

    def _restore(self, save_path: str | os.PathLike[str]) -> CheckpointLoadStatus:
        path = os.fspath(save_path)
        if os.path.isdir(path):  # as TF: a directory is not a checkpoint (tf.train.latest_checkpoint finds one)
            raise errors.DataLossError(None, None, f"Unable to open table file {path}: FAILED_PRECONDITION: {path}; Is "
                                       "a directory: perhaps your file is in a different file format and you need to "
                                       "use a different restore operator?")
        restoration = _Restoration(CheckpointReader(path), path)
        assignments: list[tuple[Any, str]] = []
        root = self._graph_root()
        try:
            restoration.match(0, root, self._root if self._root is not None else self, root, (), assignments)
            restoration.apply(assignments)
        except BaseException:
            restoration.cancel()
            raise
        return CheckpointLoadStatus(restoration, self)

    def sync(self) -> None:
        """Nothing to wait for: saving is synchronous."""

