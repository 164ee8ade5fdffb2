#pragma once
// Turning a slice preset into the simulated devices of the registry: one TPU
// device per TF device of the topology (per-task ordinals "…/task:T/device:TPU:k")
// charged with its share of chip HBM, and one host CPU per task.
#include <string>
#include <string_view>

#include "tpustrategy/tpu/slice_preset.h"

namespace tpustrategy {

// Replaces the registry's devices with those of `preset_name` ("v3-8", ...); unknown → ValueError.
void activate_slice(std::string_view preset_name);
// The preset of the active slice (v3-8 until activate_slice is called).
const SlicePreset& active_slice();

}  // namespace tpustrategy
