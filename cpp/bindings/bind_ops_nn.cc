// Convolutions, pooling, top_k and random numbers in tpustrategy._core.ops. Arguments arrive normalised by
// the facade (python/tpustrategy/ops/nn_conv_ops.py, random_ops.py): spatial strides / dilations / window
// as two ints, padding "SAME" / "VALID" / "EXPLICIT" with four explicit amounts. The window is resolved
// against the input here, then the kernel runs through the dispatch point with the GIL released.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <string>

#include "bindings/bindings.h"
#include "bindings/convert.h"
#include "tpustrategy/autodiff/recorded_ops.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/random.h"
#include "tpustrategy/ops/tf_philox_random.h"
#include "tpustrategy/ops/tf_philox_sampling.h"
#include "tpustrategy/ops/window.h"

namespace tpustrategy::bindings {

namespace {

using Pair = std::array<std::int64_t, 2>;
using Quad = std::array<std::int64_t, 4>;

Window2D window_for(const char* where, const Shape& input_shape, Pair kernel, Pair strides, Pair dilations,
                    const std::string& padding, Quad explicit_pads) {
  return make_window(where, input_shape[1], input_shape[2], kernel[0], kernel[1], strides, dilations,
                     padding_kind(padding), explicit_pads);
}

// The window of a convolution of `input` by `filter` (both checked to be rank 4 first).
Window2D conv_window(const char* where, const Tensor& input, const Tensor& filter, Pair strides, Pair dilations,
                     const std::string& padding, Quad explicit_pads) {
  check_rank4(where, input, "convolution input");
  check_rank4(where, filter, "convolution filter");
  return window_for(where, input.shape(), {filter.shape()[0], filter.shape()[1]}, strides, dilations, padding,
                    explicit_pads);
}

RandomDistribution distribution(const std::string& name) {
  if (name == "uniform") return RandomDistribution::kUniform;
  if (name == "normal") return RandomDistribution::kNormal;
  if (name == "truncated_normal") return RandomDistribution::kTruncatedNormal;
  fail<ValueError>("random_float", "unknown distribution '{}' (uniform, normal, truncated_normal)", name);
}

const char* kConvArgs = R"doc(

Args:
  input: [batch, height, width, channels].
  filter: [filter_height, filter_width, in_channels, out_channels] (conv2d) or
    [filter_height, filter_width, channels, multiplier] (depthwise_conv2d).
  strides, dilations: (height, width) steps and rates, all > 0.
  padding: "SAME", "VALID" or "EXPLICIT".
  explicit_paddings: (top, bottom, left, right), read when padding is "EXPLICIT".

Raises:
  InvalidArgumentError: ranks other than 4, mismatched depths or dtypes, non-positive strides /
    dilations, negative explicit paddings, an unknown padding string.)doc";

const char* kPoolArgs = R"doc(

Args:
  input: [batch, height, width, channels].
  ksize: the (height, width) window.
  strides: the (height, width) steps, all > 0.
  padding: "SAME", "VALID" or "EXPLICIT".
  explicit_paddings: (top, bottom, left, right), read when padding is "EXPLICIT".

Raises:
  InvalidArgumentError: an input of rank other than 4, a non-positive window or stride, an unknown padding.)doc";

}  // namespace

void init_ops_nn(py::module_& m) {
  auto conv_like = [&m](const char* name, auto kernel, const char* where, const char* doc) {
    m.def(
        name,
        [kernel, where](py::handle x, py::handle f, Pair strides, Pair dilations, const std::string& padding,
                        Quad explicit_paddings) {
          Tensor input = to_tensor(x), filter = to_tensor(f);
          py::gil_scoped_release release;
          const Window2D win = conv_window(where, input, filter, strides, dilations, padding, explicit_paddings);
          return kernel(input, filter, win);
        },
        py::arg("input"), py::arg("filter"), py::kw_only(), py::arg("strides"), py::arg("dilations"),
        py::arg("padding"), py::arg("explicit_paddings") = Quad{0, 0, 0, 0}, (std::string(doc) + kConvArgs).c_str());
  };
  conv_like(
      "conv2d", [](const Tensor& x, const Tensor& f, const Window2D& w) { return op::conv2d(x, f, w); }, "Conv2D",
      "2-D convolution over NHWC (tf.nn.conv2d); input depth may be a multiple of the filter's (groups).");
  conv_like(
      "depthwise_conv2d",
      [](const Tensor& x, const Tensor& f, const Window2D& w) { return op::depthwise_conv2d(x, f, w); },
      "DepthwiseConv2dNative", "Depthwise 2-D convolution over NHWC (tf.nn.depthwise_conv2d_native).");
  m.def(
      "conv2d_backprop_input",
      [](const std::vector<std::int64_t>& input_sizes, py::handle f, py::handle dy, Pair strides, Pair dilations,
         const std::string& padding, Quad explicit_paddings) {
        Tensor filter = to_tensor(f), grad = to_tensor(dy);
        py::gil_scoped_release release;
        const char* where = "Conv2DBackpropInput";
        if (input_sizes.size() != 4) {
          fail<InvalidArgumentError>(where, "input_sizes must have 4 elements, got {}", input_sizes.size());
        }
        check_rank4(where, filter, "filter");
        const Window2D win = window_for(where, input_sizes, {filter.shape()[0], filter.shape()[1]}, strides, dilations,
                                        padding, explicit_paddings);
        return op::conv2d_backprop_input(input_sizes, filter, grad, win);
      },
      py::arg("input_sizes"), py::arg("filter"), py::arg("out_backprop"), py::kw_only(), py::arg("strides"),
      py::arg("dilations"), py::arg("padding"), py::arg("explicit_paddings") = Quad{0, 0, 0, 0},
      R"doc(The gradient of conv2d with respect to an input of `input_sizes` (tf.nn.conv2d_transpose).

Args:
  input_sizes: the [batch, height, width, channels] of the convolution's input.
  filter: [filter_height, filter_width, in_channels, out_channels].
  out_backprop: the gradient of the convolution's output.
  strides, dilations: (height, width) steps and rates, all > 0.
  padding: "SAME", "VALID" or "EXPLICIT".
  explicit_paddings: (top, bottom, left, right), read when padding is "EXPLICIT".

Raises:
  InvalidArgumentError: out_backprop's shape is not the convolution's output shape, or as conv2d.)doc");

  auto pool_like = [&m](const char* name, auto kernel, const char* where, const char* doc) {
    m.def(
        name,
        [kernel, where](py::handle x, Pair ksize, Pair strides, const std::string& padding, Quad explicit_paddings) {
          Tensor input = to_tensor(x);
          py::gil_scoped_release release;
          if (!input.valid() || input.rank() != 4) {
            fail<InvalidArgumentError>(where, "tensor_in_shape must have 2 spatial dimensions, got shape {}",
                                       shape_to_string(input.shape()));
          }
          const Window2D win = window_for(where, input.shape(), ksize, strides, {1, 1}, padding, explicit_paddings);
          return kernel(input, win);
        },
        py::arg("input"), py::kw_only(), py::arg("ksize"), py::arg("strides"), py::arg("padding"),
        py::arg("explicit_paddings") = Quad{0, 0, 0, 0}, (std::string(doc) + kPoolArgs).c_str());
  };
  pool_like(
      "max_pool2d", [](const Tensor& x, const Window2D& w) { return op::max_pool2d(x, w); }, "MaxPool",
      "2-D max pooling over NHWC (tf.nn.max_pool2d); padding never wins.");
  pool_like(
      "avg_pool2d", [](const Tensor& x, const Window2D& w) { return op::avg_pool2d(x, w); }, "AvgPool",
      "2-D average pooling over NHWC (tf.nn.avg_pool2d); padding is not counted.");

  m.def(
      "top_k",
      [](py::handle x, std::int64_t k, DType index_type) {
        Tensor t = to_tensor(x);
        py::gil_scoped_release release;
        return op::top_k(t, k, index_type);
      },
      py::arg("input"), py::arg("k"), py::kw_only(), py::arg("index_type") = DType::kInt32,
      R"doc((values, indices) of the k largest entries of the last axis, descending, ties by lower index.

Args:
  input: a Tensor of rank >= 1 (or convertible).
  k: how many entries to keep.
  index_type: int32 or int64, the indices' DType.

Raises:
  InvalidArgumentError: a scalar input, k < 0, or k > the last dimension.)doc");
  m.def(
      "random_float",
      [](const std::vector<std::int64_t>& shape, DType dtype, const std::string& dist, std::uint64_t seed,
         std::uint64_t stream) {
        const RandomDistribution d = distribution(dist);
        py::gil_scoped_release release;
        return random_float(shape, dtype, d, seed, stream);
      },
      py::arg("shape"), py::arg("dtype"), py::arg("distribution"), py::arg("seed"), py::arg("stream"),
      R"doc(Standard samples that are a pure function of (seed, stream, element index): Philox4x32-10, not TF's stream.

Args:
  shape: the result's shape.
  dtype: a floating DType.
  distribution: "uniform" [0, 1), "normal" or "truncated_normal" (within 2 stddev).
  seed: the seed.
  stream: the stream, so that one seed gives several independent sequences.

Raises:
  ValueError: an unknown distribution.)doc");
  m.def(
      "random_int",
      [](const std::vector<std::int64_t>& shape, DType dtype, std::int64_t minval, std::int64_t maxval,
         std::uint64_t seed, std::uint64_t stream) {
        py::gil_scoped_release release;
        return random_int(shape, dtype, minval, maxval, seed, stream);
      },
      py::arg("shape"), py::arg("dtype"), py::arg("minval"), py::arg("maxval"), py::arg("seed"), py::arg("stream"),
      R"doc(Integers uniform in [minval, maxval), a pure function of (seed, stream, index).

Args:
  shape: the result's shape.
  dtype: int32 or int64.
  minval: the lower bound, included.
  maxval: the upper bound, excluded.
  seed: the seed.
  stream: the stream.)doc");
  m.def(
      "stateless_key_counter",
      [](std::int64_t seed0, std::int64_t seed1) {
        const PhiloxKeyCounter state = tf_key_counter_from_seed(seed0, seed1);
        return py::make_tuple(state.key, state.counter);
      },
      py::arg("seed0"), py::arg("seed1"),
      R"doc(TF's Philox (key, counter) for a stateless seed pair (StatelessRandomGetKeyCounter).

Args:
  seed0: the seed pair's first element.
  seed1: the seed pair's second element.

Returns:
  (key: two uint32, counter: four uint32).)doc");
  m.def(
      "philox_random_float",
      [](const std::vector<std::int64_t>& shape, DType dtype, const std::string& dist, std::array<std::uint32_t, 2> key,
         std::array<std::uint32_t, 4> counter) {
        const RandomDistribution d = distribution(dist);
        py::gil_scoped_release release;
        return tf_philox_random_float(shape, dtype, d, PhiloxKeyCounter{key, counter});
      },
      py::arg("shape"), py::arg("dtype"), py::arg("distribution"), py::arg("key"), py::arg("counter"),
      R"doc(Standard samples exactly as TF's Philox kernels draw them from (key, counter).

Args:
  shape: the result's shape.
  dtype: a floating DType.
  distribution: "uniform" [0, 1), "normal" or "truncated_normal" (within 2 stddev).
  key: TF's Philox key (two uint32).
  counter: TF's Philox counter (four uint32).

Raises:
  ValueError: an unknown distribution.)doc");
  m.def(
      "philox_random_int",
      [](const std::vector<std::int64_t>& shape, DType dtype, std::int64_t minval, std::int64_t maxval,
         std::array<std::uint32_t, 2> key, std::array<std::uint32_t, 4> counter) {
        py::gil_scoped_release release;
        return tf_philox_random_int(shape, dtype, minval, maxval, PhiloxKeyCounter{key, counter});
      },
      py::arg("shape"), py::arg("dtype"), py::arg("minval"), py::arg("maxval"), py::arg("key"), py::arg("counter"),
      R"doc(Integers uniform in [minval, maxval) exactly as TF's Philox kernels draw them.

Args:
  shape: the result's shape.
  dtype: int32 or int64.
  minval: the lower bound, included.
  maxval: the upper bound, excluded.
  key: TF's Philox key (two uint32).
  counter: TF's Philox counter (four uint32).)doc");
  m.def(
      "philox_random_full_int",
      [](const std::vector<std::int64_t>& shape, DType dtype, std::array<std::uint32_t, 2> key,
         std::array<std::uint32_t, 4> counter) {
        py::gil_scoped_release release;
        return tf_philox_random_full_int(shape, dtype, PhiloxKeyCounter{key, counter});
      },
      py::arg("shape"), py::arg("dtype"), py::arg("key"), py::arg("counter"),
      R"doc(Integers over the whole range of the dtype exactly as TF's Philox kernels draw them.

Args:
  shape: the result's shape.
  dtype: int32, uint32, int64 or uint64.
  key: TF's Philox key (two uint32).
  counter: TF's Philox counter (four uint32).)doc");
  m.def(
      "philox_words",
      [](std::int64_t count, std::array<std::uint32_t, 2> key, std::array<std::uint32_t, 4> counter) {
        py::gil_scoped_release release;
        return tf_philox_words(count, PhiloxKeyCounter{key, counter});
      },
      py::arg("count"), py::arg("key"), py::arg("counter"),
      R"doc(The first `count` 32-bit words (uint32) of TF's Philox stream at (key, counter).

Args:
  count: how many words.
  key: TF's Philox key (two uint32).
  counter: TF's Philox counter (four uint32).)doc");
  m.def(
      "philox_shuffle_permutation",
      [](std::int64_t n, std::array<std::uint32_t, 2> key, std::array<std::uint32_t, 4> counter) {
        py::gil_scoped_release release;
        return tf_shuffle_permutation(n, PhiloxKeyCounter{key, counter});
      },
      py::arg("n"), py::arg("key"), py::arg("counter"),
      R"doc(The int64 row permutation TF's RandomShuffle / StatelessShuffle draws for n rows from (key, counter).

Args:
  n: the number of rows.
  key: TF's Philox key (two uint32).
  counter: TF's Philox counter (four uint32).)doc");
  m.def(
      "philox_multinomial",
      [](const Tensor& logits, std::int64_t num_samples, DType dtype, std::array<std::uint32_t, 2> key,
         std::array<std::uint32_t, 4> counter) {
        py::gil_scoped_release release;
        return tf_multinomial(logits, num_samples, dtype, PhiloxKeyCounter{key, counter});
      },
      py::arg("logits"), py::arg("num_samples"), py::arg("dtype"), py::arg("key"), py::arg("counter"),
      R"doc([batch, num_samples] class indices drawn from softmax(logits) as TF's Multinomial kernel draws them.

TF's single-shard stream from (key, counter).

Args:
  logits: [batch, classes] unnormalised log-probabilities.
  num_samples: samples per row.
  dtype: int32 or int64, the indices' DType.
  key: TF's Philox key (two uint32).
  counter: TF's Philox counter (four uint32).)doc");
}

}  // namespace tpustrategy::bindings
