"""``tf.compat.v1.train``: everything of ``tf.train`` plus the r1.15-era optimizers and the global step."""

from __future__ import annotations

from tpustrategy.compat.v1.train.adam import AdamOptimizer
from tpustrategy.compat.v1.train.gradient_descent import GradientDescentOptimizer
from tpustrategy.compat.v1.train.momentum import MomentumOptimizer
from tpustrategy.compat.v1.train.optimizer import Optimizer
from tpustrategy.compat.v1.train.training_util import (
    create_global_step,
    get_global_step,
    get_or_create_global_step,
)
from tpustrategy.train import *  # noqa: F403 - tf.compat.v1.train is a superset of tf.train
from tpustrategy.train import __all__ as _v2_names

__all__ = ["AdamOptimizer", "GradientDescentOptimizer", "MomentumOptimizer", "Optimizer", "create_global_step",
           "get_global_step", "get_or_create_global_step"]
__all__ += _v2_names
