"""Keras 3's dtype policies: a layer's compute dtype and variable dtype, and the global default.

``"mixed_float16"`` computes in float16 and keeps variables in float32 (``"mixed_bfloat16"``: bfloat16 /
float32); any float dtype name is a policy whose two dtypes are that dtype. A layer created without ``dtype=``
takes the global policy current at its construction (``set_dtype_policy`` / the legacy
``mixed_precision.set_global_policy``); changing the global policy later does not touch existing layers.
"""

from __future__ import annotations

from typing import Any, cast

from tpustrategy import _core

_MIXED = {"mixed_float16": ("float16", "float32"), "mixed_bfloat16": ("bfloat16", "float32")}


def _standardize(name: str) -> str:
    try:
        return _core.tensor.DType(name).name
    except (TypeError, ValueError):
        raise ValueError(f"Cannot convert '{name}' to a mixed precision DTypePolicy. Valid policies include "
                         "'mixed_float16', 'mixed_bfloat16', and the name of any float dtype such as "
                         "'float32'.") from None


class DTypePolicy:
    """A layer's dtypes: ``compute_dtype`` (inputs, outputs and math) and ``variable_dtype`` (its weights).

    Args:
      name: ``"mixed_float16"``, ``"mixed_bfloat16"`` or a dtype name; None: the global policy's name.

    Raises:
      TypeError: `name` is not a string.
      ValueError: `name` names no policy.
    """

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = dtype_policy().name
        if not isinstance(name, str):
            raise TypeError(f"'name' must be a string, such as 'mixed_float16'. Received: name={name} "
                            f"(of type {type(name)})")
        self._name = name
        self._compute_dtype, self._variable_dtype = _MIXED.get(name) or (_standardize(name),) * 2

    @property
    def name(self) -> str:
        """The policy's name, as given."""
        return self._name

    @property
    def compute_dtype(self) -> str:
        """The dtype name layers compute in (float16 for ``mixed_float16``)."""
        return self._compute_dtype

    @property
    def variable_dtype(self) -> str:
        """The dtype name layer weights are created in (float32 for the mixed policies)."""
        return self._variable_dtype

    @property
    def quantization_mode(self) -> str | None:
        """Always None: this package has no quantized policies."""
        return None

    def get_config(self) -> dict[str, Any]:
        """``{"name": name}``, what ``from_config`` takes."""
        return {"name": self._name}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> DTypePolicy:
        """Builds the policy from a ``get_config`` dict."""
        return cls(**config)

    def __repr__(self) -> str:
        return f'<DTypePolicy "{self._name}">'

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DTypePolicy) and self._name == other._name

    def __hash__(self) -> int:
        return hash(self._name)


FloatDTypePolicy = DTypePolicy  # Keras 3 keeps the old name as an alias


_GLOBAL: list[DTypePolicy | None] = [None]


def set_dtype_policy(policy: Any) -> None:
    """Sets the global policy (a name or a DTypePolicy) that layers created from now on take."""
    if isinstance(policy, str):
        policy = DTypePolicy(policy)
    elif not isinstance(policy, DTypePolicy):
        raise ValueError("Invalid `policy` argument. Expected the string name of a policy (such as "
                         f"'mixed_float16') or a `DTypePolicy` instance. Received: policy={policy} "
                         f"(of type {type(policy)})")
    _GLOBAL[0] = policy


def dtype_policy() -> DTypePolicy:
    """The global policy (``float32`` until set)."""
    if _GLOBAL[0] is None:
        _GLOBAL[0] = DTypePolicy("float32")
    return cast(DTypePolicy, _GLOBAL[0])  # set just above when it was None


def get(identifier: Any) -> DTypePolicy:
    """A layer's ``dtype=`` argument as a policy: None (the global one), a name, a DType, a policy or its
    serialized dict."""
    if identifier is None:
        return dtype_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        from tpustrategy.keras.object_registration import dtype_name

        return DTypePolicy(dtype_name(identifier))
    return DTypePolicy(getattr(identifier, "name", identifier))


__all__ = ["DTypePolicy", "FloatDTypePolicy", "dtype_policy", "get", "set_dtype_policy"]
