"""``tf.keras.backend`` pieces Keras 3 keeps: layer-name uids, ``clear_session``, ``epsilon``, ``floatx``."""

from __future__ import annotations

import collections

_UIDS: collections.defaultdict[str, int] = collections.defaultdict(int)


def get_uid(prefix: str = "") -> int:
    """1, 2, 3 … per prefix (Keras 3 names the first layer ``dense``, then ``dense_1`` …)."""
    _UIDS[prefix] += 1
    return _UIDS[prefix]


def unique_name(prefix: str) -> str:
    """`prefix` the first time, then ``prefix_1``, ``prefix_2`` ... (the layer-naming scheme)."""
    uid = get_uid(prefix)
    return prefix if uid == 1 else f"{prefix}_{uid - 1}"


def clear_session(free_memory: bool = True) -> None:
    """Resets the layer-name counters (Keras 3: the next Dense is ``dense`` again)."""
    _UIDS.clear()


def epsilon() -> float:
    """The fuzz factor Keras adds to avoid division by zero: always 1e-7 here (not settable)."""
    return 1e-7


def floatx() -> str:
    """The default float dtype name: always ``float32`` here (not settable)."""
    return "float32"


def image_data_format() -> str:
    """The image layout convention: always ``channels_last`` here (not settable)."""
    return "channels_last"


__all__ = ["clear_session", "epsilon", "floatx", "get_uid", "image_data_format"]
