#pragma once
// The op-dispatch point's second listener: a profiler (sim/step_recorder.h) sees every op of the public op set
// (recorded_ops.h) with its inputs and outputs, whether or not a tape records. One process-wide function pointer:
// with none installed the cost per op is one relaxed atomic load and a branch.
#include <atomic>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "tpustrategy/core/tensor.h"

namespace tpustrategy {

// Called on the op's calling thread (the replica's context is bound) after the kernel ran.
using OpTraceHook = void (*)(std::string_view op, std::span<const Tensor* const> inputs,
                             std::span<const Tensor> outputs);

namespace detail {
inline std::atomic<OpTraceHook> g_op_trace_hook{nullptr};
}  // namespace detail

// Installs `hook` (null removes it); returns the previous one.
inline OpTraceHook set_op_trace_hook(OpTraceHook hook) { return detail::g_op_trace_hook.exchange(hook); }

inline void trace_op(std::string_view op, std::initializer_list<const Tensor*> inputs, const Tensor& output) {
  const OpTraceHook hook = detail::g_op_trace_hook.load(std::memory_order_relaxed);
  if (hook != nullptr) hook(op, {inputs.begin(), inputs.size()}, {&output, 1});
}

inline void trace_op(std::string_view op, const std::vector<Tensor>& inputs, std::span<const Tensor> outputs) {
  const OpTraceHook hook = detail::g_op_trace_hook.load(std::memory_order_relaxed);
  if (hook == nullptr) return;
  std::vector<const Tensor*> pointers;
  pointers.reserve(inputs.size());
  for (const Tensor& t : inputs) pointers.push_back(&t);
  hook(op, pointers, outputs);
}

}  // namespace tpustrategy
