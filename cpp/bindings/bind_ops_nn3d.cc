// 3-D convolution and pooling in tpustrategy._core.ops. Arguments arrive normalised by the facade
// (python/tpustrategy/ops/nn_conv3d_ops.py): spatial (depth, height, width) strides / dilations / ksize as
// three ints, padding "SAME" or "VALID". The window is resolved against the input here, then the kernel runs
// through the dispatch point with the GIL released.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "bindings/bindings.h"
#include "bindings/convert.h"
#include "tpustrategy/autodiff/recorded_nn3d_ops.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/window3d.h"

namespace tpustrategy::bindings {

namespace {

Window3D window_for(const char* where, const Shape& input_shape, const Dims3& kernel, const Dims3& strides,
                    const Dims3& dilations, const std::string& padding) {
  const PaddingKind kind = padding_kind(padding);
  return make_window3d(where, {input_shape[1], input_shape[2], input_shape[3]}, kernel, strides, dilations, kind);
}

Dims3 filter_extent(const Tensor& filter) { return {filter.shape()[0], filter.shape()[1], filter.shape()[2]}; }

}  // namespace

void init_ops_nn3d(py::module_& m) {
  m.def(
      "conv3d",
      [](py::handle x, py::handle f, Dims3 strides, Dims3 dilations, const std::string& padding) {
        Tensor input = to_tensor(x), filter = to_tensor(f);
        py::gil_scoped_release release;
        check_rank5("Conv3D", input, "input");
        check_rank5("Conv3D", filter, "filter");
        const Window3D win = window_for("Conv3D", input.shape(), filter_extent(filter), strides, dilations, padding);
        return op::conv3d(input, filter, win);
      },
      py::arg("input"), py::arg("filter"), py::kw_only(), py::arg("strides"), py::arg("dilations"), py::arg("padding"),
      R"doc(3-D convolution over NDHWC (tf.nn.conv3d), im2col + GEMM.

Args:
  input: [batch, depth, height, width, channels].
  filter: [filter_depth, filter_height, filter_width, channels, out_channels].
  strides, dilations: (depth, height, width) steps and rates, all > 0.
  padding: "SAME" or "VALID".

Raises:
  InvalidArgumentError: ranks other than 5, mismatched depths or dtypes, non-positive strides / dilations,
    an unknown padding string.)doc");
  m.def(
      "conv3d_backprop_input",
      [](const std::vector<std::int64_t>& input_sizes, py::handle f, py::handle dy, Dims3 strides, Dims3 dilations,
         const std::string& padding) {
        Tensor filter = to_tensor(f), grad = to_tensor(dy);
        py::gil_scoped_release release;
        const char* where = "Conv3DBackpropInputV2";
        if (input_sizes.size() != 5) fail<InvalidArgumentError>(where, "input tensor must have 5 dimensions");
        check_rank5(where, filter, "filter");
        const Window3D win = window_for(where, input_sizes, filter_extent(filter), strides, dilations, padding);
        return op::conv3d_backprop_input(input_sizes, filter, grad, win);
      },
      py::arg("input_sizes"), py::arg("filter"), py::arg("out_backprop"), py::kw_only(), py::arg("strides"),
      py::arg("dilations"), py::arg("padding"),
      R"doc(The gradient of conv3d with respect to an input of `input_sizes` (tf.nn.conv3d_transpose).

Args:
  input_sizes: the [batch, depth, height, width, channels] of the convolution's input.
  filter: [filter_depth, filter_height, filter_width, channels, out_channels].
  out_backprop: the gradient of the convolution's output.
  strides, dilations: (depth, height, width) steps and rates, all > 0.
  padding: "SAME" or "VALID".

Raises:
  InvalidArgumentError: out_backprop's shape is not the convolution's output shape, or as conv3d.)doc");

  auto pool_like = [&m](const char* name, auto kernel, const char* where, const char* doc) {
    m.def(
        name,
        [kernel, where](py::handle x, Dims3 ksize, Dims3 strides, const std::string& padding) {
          Tensor input = to_tensor(x);
          py::gil_scoped_release release;
          check_rank5(where, input, "tensor_in");
          return kernel(input, window_for(where, input.shape(), ksize, strides, {1, 1, 1}, padding));
        },
        py::arg("input"), py::kw_only(), py::arg("ksize"), py::arg("strides"), py::arg("padding"),
        (std::string(doc) + R"doc(

Args:
  input: [batch, depth, height, width, channels].
  ksize: the (depth, height, width) window.
  strides: the (depth, height, width) steps, all > 0.
  padding: "SAME" or "VALID".

Raises:
  InvalidArgumentError: an input of rank other than 5, a non-positive window or stride, an unknown padding.)doc")
            .c_str());
  };
  pool_like(
      "max_pool3d", [](const Tensor& x, const Window3D& w) { return op::max_pool3d(x, w); }, "MaxPool3D",
      "3-D max pooling over NDHWC (tf.nn.max_pool3d); padding never wins, the gradient goes to every tied maximum.");
  pool_like(
      "avg_pool3d", [](const Tensor& x, const Window3D& w) { return op::avg_pool3d(x, w); }, "AvgPool3D",
      "3-D average pooling over NDHWC (tf.nn.avg_pool3d); padding is not counted.");
}

}  // namespace tpustrategy::bindings
