"""``tf.compat.v1``: the TF 1 API where it differs (strategies with v1 methods)."""

from __future__ import annotations

from tpustrategy import config, tpu
from tpustrategy.compat.v1 import distribute, train
from tpustrategy.framework.constant import constant, convert_to_tensor
from tpustrategy.variables import VariableAggregationV1 as VariableAggregation

__all__ = ["VariableAggregation", "config", "constant", "convert_to_tensor", "distribute", "tpu", "train"]
