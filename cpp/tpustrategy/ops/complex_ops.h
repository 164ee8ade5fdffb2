#pragma once
// complex64 construction and parts: tf.complex, tf.math.real / imag / conj / angle.
// TF's rules: complex(real, imag) needs two float32 tensors (float64 would give
// complex128, which tpustrategy does not hold); real / imag / conj / angle of a
// real tensor are x, zeros, x and atan2(0, x).
#include "tpustrategy/core/tensor.h"

namespace tpustrategy {

Tensor make_complex(const Tensor& real, const Tensor& imag);
Tensor real_part(const Tensor& x);
Tensor imag_part(const Tensor& x);
Tensor conj(const Tensor& x);
Tensor angle(const Tensor& x);

}  // namespace tpustrategy
