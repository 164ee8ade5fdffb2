"""``tf.keras.utils``: ``set_random_seed``, ``to_categorical``."""

from __future__ import annotations

from typing import Any

import numpy as np

from tpustrategy.keras.random_seed import set_random_seed
from tpustrategy.keras.utils.progbar import Progbar


def to_categorical(x: Any, num_classes: int | None = None) -> np.ndarray:
    """One-hot float32 rows for integer labels (``keras.utils.to_categorical``)."""
    x = np.asarray(x, dtype=np.int64)
    if num_classes is None:
        num_classes = int(x.max()) + 1
    out = np.zeros(x.shape + (num_classes,), np.float32)
    np.put_along_axis(out, x[..., None], 1.0, axis=-1)
    return out


__all__ = ["Progbar", "set_random_seed", "to_categorical"]
