"""
Slice presets and chip generations (private; use tpustrategy.tpu).
"""
from __future__ import annotations
import typing
__all__: list[str] = ['ChipSpec', 'SlicePreset', 'activate_slice', 'active_slice', 'chip_specs', 'find_slice_preset', 'slice_presets']
class ChipSpec:
    """
    Figures of one TPU chip generation (cost model presets).
    """
    def __repr__(self) -> str:
        ...
    @property
    def bf16_tflops_per_chip(self) -> float:
        ...
    @property
    def chips_per_host(self) -> int:
        ...
    @property
    def cores_per_chip(self) -> int:
        ...
    @property
    def dcn_gbps(self) -> float:
        ...
    @property
    def f32_tflops_per_chip(self) -> float:
        ...
    @property
    def hbm_bytes_per_chip(self) -> int:
        ...
    @property
    def hbm_bytes_per_device(self) -> int:
        ...
    @property
    def hbm_gbps(self) -> float:
        ...
    @property
    def ici_gbps_per_link(self) -> float:
        ...
    @property
    def ici_hop_latency_us(self) -> float:
        ...
    @property
    def ici_links_per_chip(self) -> int:
        ...
    @property
    def ici_torus_dims(self) -> int:
        ...
    @property
    def int8_tops_per_chip(self) -> float:
        ...
    @property
    def max_slice_shape(self) -> typing.Annotated[list[int], "FixedSize(3)"]:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def pcie_gbps(self) -> float:
        ...
    @property
    def pod_shape(self) -> typing.Annotated[list[int], "FixedSize(3)"]:
        ...
    @property
    def tensorcores_per_chip(self) -> int:
        ...
class SlicePreset:
    """
    A named simulated TPU slice such as 'v3-8'.
    """
    def __repr__(self) -> str:
        ...
    @property
    def chip(self) -> ChipSpec:
        ...
    @property
    def devices_per_host(self) -> int:
        ...
    @property
    def generation(self) -> str:
        ...
    @property
    def host_shape(self) -> typing.Annotated[list[int], "FixedSize(3)"]:
        ...
    @property
    def mesh_shape(self) -> typing.Annotated[list[int], "FixedSize(4)"]:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def num_chips(self) -> int:
        ...
    @property
    def num_devices(self) -> int:
        ...
    @property
    def num_hosts(self) -> int:
        ...
    @property
    def twisted(self) -> bool:
        ...
    @property
    def wraparound(self) -> typing.Annotated[list[bool], "FixedSize(3)"]:
        """
        Per chip axis [x, y, z]: whether the ring closes through a wraparound link.
        """
def activate_slice(name: str) -> None:
    """
    Replaces the simulated devices with the named slice's.
    
    Args:
      name: a preset name such as "v3-8".
    
    Raises:
      ValueError: no preset has that name.
    """
def active_slice() -> SlicePreset:
    """
    The SlicePreset whose devices are simulated now (v3-8 until activate_slice).
    """
def chip_specs() -> list[ChipSpec]:
    """
    Every chip generation the simulator knows, as ChipSpec values.
    """
def find_slice_preset(name: str) -> SlicePreset:
    """
    The preset called `name`.
    
    Args:
      name: a preset name such as "v3-8" or "v5p-128".
    
    Returns:
      The SlicePreset.
    
    Raises:
      ValueError: no preset has that name (the message lists them).
    """
def slice_presets() -> list[SlicePreset]:
    """
    Every named slice the simulator knows, as SlicePreset values.
    """
