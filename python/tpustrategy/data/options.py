"""``tf.data.Options`` and its option groups (mirrors ``tensorflow.python.data.ops.options``).

Options only carry settings here: the simulator's pipeline is synchronous and deterministic,
so threading and optimization settings are accepted and recorded but change nothing. The
distribution layer reads ``experimental_distribute`` (auto-shard policy, device count).
"""

from __future__ import annotations

import enum
from typing import Any, ClassVar, TypeVar

AUTOTUNE = -1
SHARD_HINT = -1


class AutoShardPolicy(enum.IntEnum):
    """How ``experimental_distribute_dataset`` shards a dataset over input workers."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class ExternalStatePolicy(enum.Enum):
    """What serializing a dataset does with stateful ops; recorded in Options only, nothing here acts on it."""

    WARN = 0
    IGNORE = 1
    FAIL = 2


class AutotuneAlgorithm(enum.Enum):
    """Which autotuner ``Options.autotune.autotune_algorithm`` names; recorded only, the pipeline is not tuned."""

    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


_Group = TypeVar("_Group", bound="_OptionsGroup")


class _OptionsGroup:
    """Attribute-only settings: unknown names raise AttributeError (as TF), None means "not set"."""

    _defaults: ClassVar[dict[str, Any]] = {}

    def __init__(self) -> None:
        for name in self._defaults:
            object.__setattr__(self, name, None)

    def __getattribute__(self, name: str) -> Any:
        value = object.__getattribute__(self, name)
        if value is None and name in type(self)._defaults:
            default = type(self)._defaults[name]
            return default() if callable(default) else default
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._defaults:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        object.__setattr__(self, name, value)

    def _explicit(self, name: str) -> Any:
        return object.__getattribute__(self, name)

    def _merge(self: _Group, other: _Group) -> _Group:
        """A copy of self overridden by every option `other` set explicitly."""
        out = type(self)()
        for name in self._defaults:
            mine, theirs = self._explicit(name), other._explicit(name)
            if isinstance(mine, _OptionsGroup):
                object.__setattr__(out, name, mine._merge(theirs))
            else:
                object.__setattr__(out, name, theirs if theirs is not None else mine)
        return out

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and all(getattr(self, n) == getattr(other, n) for n in self._defaults)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable, as TF's

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._defaults)
        return f"{type(self).__name__}({fields})"


class DistributeOptions(_OptionsGroup):
    """``tf.data.experimental.DistributeOptions``: auto_shard_policy (AUTO) and num_devices (None)."""

    _defaults = {"auto_shard_policy": AutoShardPolicy.AUTO, "num_devices": None}


class ThreadingOptions(_OptionsGroup):
    """``tf.data.ThreadingOptions`` (recorded only)."""

    _defaults = {"max_intra_op_parallelism": None, "private_threadpool_size": None}


class OptimizationOptions(_OptionsGroup):
    """``tf.data.experimental.OptimizationOptions`` (recorded only)."""

    _defaults = {
        "apply_default_optimizations": None,
        "filter_fusion": None,
        "filter_parallelization": None,
        "inject_prefetch": None,
        "map_and_batch_fusion": None,
        "map_and_filter_fusion": None,
        "map_fusion": None,
        "map_parallelization": None,
        "noop_elimination": None,
        "parallel_batch": None,
        "shuffle_and_repeat_fusion": None,
    }


class AutotuneOptions(_OptionsGroup):
    """``tf.data.experimental.AutotuneOptions`` (recorded only)."""

    _defaults = {"enabled": None, "cpu_budget": None, "ram_budget": None, "autotune_algorithm": None}


class Options(_OptionsGroup):
    """``tf.data.Options``: set on a dataset with ``with_options``, read back with ``options()``."""

    _defaults = {
        "autotune": AutotuneOptions,
        "deterministic": None,
        "experimental_deterministic": None,
        "experimental_distribute": DistributeOptions,
        "experimental_external_state_policy": None,
        "experimental_optimization": OptimizationOptions,
        "experimental_slack": None,
        "experimental_symbolic_checkpoint": None,
        "experimental_warm_start": None,
        "threading": ThreadingOptions,
    }

    def __init__(self) -> None:
        super().__init__()
        for name, default in self._defaults.items():
            if isinstance(default, type):
                object.__setattr__(self, name, default())

    def merge(self, options: Options) -> Options:
        """Options set in `options` override those set in self (``Options.merge``)."""
        if not isinstance(options, Options):
            raise TypeError(f"`options` must be a tf.data.Options, got {type(options).__name__}")
        return self._merge(options)
