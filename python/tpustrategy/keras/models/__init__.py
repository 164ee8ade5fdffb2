"""``tf.keras.models``: ``Model`` (functional and subclassed) and ``Sequential``."""

from tpustrategy.keras.models.model import Model
from tpustrategy.keras.models.sequential import Sequential

__all__ = ["Model", "Sequential"]
