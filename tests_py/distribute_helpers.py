"""Helpers for the distribute tests: host-side arithmetic until tensor ops land (branch ``ops``)."""

from __future__ import annotations

import numpy as np

import tpustrategy as tps


def times(x, factor):
    """x * factor as a new tensor on the current device."""
    return tps.constant(np.asarray(x) * factor)


def values_of(distributed):
    """The components of a distributed value as numpy values (Python scalars for rank 0)."""
    return [np.asarray(v).tolist() for v in distributed.values]


def ms2():
    return tps.distribute.MirroredStrategy(["GPU:0", "GPU:1"])
