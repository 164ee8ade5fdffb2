"""``tf.keras.models``: ``Model`` (functional and subclassed), ``Sequential``, ``load_model`` / ``save_model``."""

from tpustrategy.keras.models.model import Model
from tpustrategy.keras.models.sequential import Sequential
from tpustrategy.keras.saving.keras_file import load_model, save_model

__all__ = ["Model", "Sequential", "load_model", "save_model"]
