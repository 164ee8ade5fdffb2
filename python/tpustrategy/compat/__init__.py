"""``tf.compat``: the v1 and v2 API namespaces."""

from __future__ import annotations

from tpustrategy.compat import v1, v2

__all__ = ["v1", "v2"]
