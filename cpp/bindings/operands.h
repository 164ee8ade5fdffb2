#pragma once
// How the elementwise ops take their operands (TF's conversion rules) and run their kernels: shared by the
// pybind11 bindings of _core.ops (bind_ops.cc) and the fast entry points of tf.add & co. (elementwise_entries.cc).
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <utility>

#include "tpustrategy/core/tensor.h"
#include "tpustrategy/ops/elementwise.h"

namespace tpustrategy::bindings {

// `v` as a Tensor: a Tensor as is, a tensor-like (`_as_tensor()`) read through it, else converted (to `hint`).
Tensor as_tensor(pybind11::handle v, std::optional<DType> hint = std::nullopt);

// TF's binary-op conversion: the first tensor operand fixes the dtype the other, Python, operand takes.
std::pair<Tensor, Tensor> operands(pybind11::handle x, pybind11::handle y);

// Values a reflected / forward operator accepts; others make the operator return NotImplemented.
bool is_operand(pybind11::handle v);

// The dispatched op (recorded on tapes), with the GIL released only when the operands are big enough to pay
// for handing it over (numpy's ufuncs keep it below a size too).
Tensor binary_maybe_nogil(BinaryOp kind, const Tensor& a, const Tensor& b);
Tensor unary_maybe_nogil(UnaryOp kind, const Tensor& x);

}  // namespace tpustrategy::bindings
