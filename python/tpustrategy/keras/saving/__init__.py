"""``keras.saving``: ``.keras`` model files, ``.weights.h5`` weight files and Keras 3's object serialization."""

from tpustrategy.keras.saving.keras_file import load_model, save_model
from tpustrategy.keras.saving.serialization_lib import (
    custom_object_scope,
    deserialize_keras_object,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    serialize_keras_object,
)

CustomObjectScope = custom_object_scope

__all__ = ["CustomObjectScope", "custom_object_scope", "deserialize_keras_object", "get_registered_name",
           "get_registered_object", "load_model", "register_keras_serializable", "save_model",
           "serialize_keras_object"]
