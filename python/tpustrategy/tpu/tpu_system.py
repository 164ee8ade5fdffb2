"""Connecting to, initializing and shutting down the simulated TPU system (``tf.tpu.experimental.*_tpu_system``).

A TPUClusterResolver names a simulated slice. ``connect_to_cluster`` makes it the active slice (its devices replace
the registry's); ``initialize_tpu_system`` does the same if needed and records the slice's Topology, which
TPUStrategy reads. Re-initializing logs a warning, as TensorFlow does (on a real TPU it loses TPU variables).
"""

from __future__ import annotations

import collections
import logging
import os
from typing import Any

from tpustrategy import _core
from tpustrategy.tpu.topology import Topology

_logger = logging.getLogger("tpustrategy")


class TPUSystemMetadata(
    collections.namedtuple(
        "TPUSystemMetadata", ["num_cores", "num_hosts", "num_of_cores_per_host", "topology", "devices"]
    )
):
    """What a TPU system consists of: total cores, hosts, cores per host, its Topology and its devices."""

    __slots__ = ()


# Slice name -> Topology of every initialized TPU system.
_initialized: dict[str, Topology] = {}


def _slice_name_of(cluster_resolver: Any) -> str | None:
    """The simulated slice a resolver names, or None for resolvers that do not describe a TPU slice."""
    return getattr(cluster_resolver, "_tpu_slice_name", None)


_DEFAULT_SLICE = "v3-8"


def default_slice_name() -> str:
    """The slice of ``TPUClusterResolver("")``: ``TPUSTRATEGY_SLICE``, else v3-8."""
    return os.environ.get("TPUSTRATEGY_SLICE") or _DEFAULT_SLICE


def _default_slice() -> str:
    """The slice name of the default resolver, ``TPUClusterResolver("")`` (ValueError for an unknown preset)."""
    return _core.slice.find_slice_preset(default_slice_name()).name


def activate(slice_name: str) -> None:
    """Makes ``slice_name`` the active slice unless it already is (re-activating would drop every device's state)."""
    if _core.slice.active_slice().name != slice_name:
        _core.slice.activate_slice(slice_name)
        _initialized.clear()  # a new slice: nothing on it is initialized yet


def connect_to_cluster(cluster_spec_or_resolver: Any) -> None:
    """Selects the slice a TPUClusterResolver names; other resolvers and ClusterSpecs keep the local slice."""
    slice_name = _slice_name_of(cluster_spec_or_resolver)
    if slice_name is not None:
        activate(slice_name)


def initialize_tpu_system(cluster_resolver: Any = None) -> Topology:
    """Initializes the TPU system of ``cluster_resolver`` (default: ``TPUClusterResolver("")``).

    Returns:
      The Topology of the slice.

    Raises:
      ValueError: the resolver does not describe a TPU slice.
    """
    slice_name = _default_slice() if cluster_resolver is None else _slice_name_of(cluster_resolver)
    if slice_name is None:
        raise ValueError(f"initialize_tpu_system needs a TPUClusterResolver, got {type(cluster_resolver).__name__}")
    activate(slice_name)
    if slice_name in _initialized:
        _logger.warning(
            "TPU system %s has already been initialized. Reinitializing the TPU can cause previously created "
            "variables on TPU to be lost.",
            slice_name,
        )
    topology = Topology._of_slice(slice_name)
    _initialized[slice_name] = topology
    _logger.info("Initialized TPU system %s: %r", slice_name, topology)
    return topology


def shutdown_tpu_system(cluster_resolver: Any = None) -> None:
    """Forgets the initialization of the resolver's TPU system (a later initialize does not warn)."""
    slice_name = _default_slice() if cluster_resolver is None else _slice_name_of(cluster_resolver)
    if slice_name is None:
        raise ValueError(f"shutdown_tpu_system needs a TPUClusterResolver, got {type(cluster_resolver).__name__}")
    if _initialized.pop(slice_name, None) is None:
        _logger.warning("TPU system %s was not initialized; nothing to shut down.", slice_name)


def get_initialized_tpu_systems() -> dict[str, Topology]:
    """Slice name → Topology of every initialized TPU system (a copy)."""
    return dict(_initialized)


def current_topology() -> Topology:
    """The Topology of the active slice: the initialized one if any, else computed from the preset."""
    name = _core.slice.active_slice().name
    topology = _initialized.get(name)
    return topology if topology is not None else Topology._of_slice(name)
