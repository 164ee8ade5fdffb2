// _core.spmd: the SPMD partitioner (cpp/tpustrategy/spmd/) — the per-replica SpmdContext, the per-step
// SpmdRecord, the reshard engine, the partitioned ops (recorded on the gradient tape: spmd/taped_ops.h), the
// tape's view of sharded values, and the partitioned gradients by themselves (for the XLA cross-check tool).
// Every call releases the GIL: the kernels and collectives are pure C++. The facade is
// tpustrategy/tpu/spmd_partitioner.py.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <map>
#include <string_view>

#include "bindings/bindings.h"
#include "bindings/convert.h"
#include "bindings/elementwise_op_names.h"
#include "bindings/nogil.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/spmd/partitioned_conv.h"
#include "tpustrategy/spmd/partitioned_dot.h"
#include "tpustrategy/spmd/partitioned_elementwise.h"
#include "tpustrategy/spmd/partitioned_grad.h"
#include "tpustrategy/spmd/partitioned_reduce.h"
#include "tpustrategy/spmd/partitioned_shape.h"
#include "tpustrategy/spmd/reshard.h"
#include "tpustrategy/spmd/sharded_tape.h"
#include "tpustrategy/spmd/taped_ops.h"

namespace tpustrategy::bindings {

namespace {

using spmd::ContextPtr;
using spmd::ShardedTensor;
using spmd::Sharding;
using spmd::SpmdContext;
using spmd::SpmdEntry;
using spmd::SpmdRecord;

UnaryOp unary_op(const std::string& name) {
  const int i = op_index(kUnaryOpNames, name);
  if (i < 0) fail<ValueError>("spmd.unary", "no partitioned unary op '{}'", name);
  return kUnaryOpNames[static_cast<std::size_t>(i)].second;
}

BinaryOp binary_op(const std::string& name) {
  const int i = op_index(kBinaryOpNames, name);
  if (i < 0) fail<ValueError>("spmd.binary", "no partitioned binary op '{}'", name);
  return kBinaryOpNames[static_cast<std::size_t>(i)].second;
}

const char* kConvArgs = R"doc(

Args:
  ctx: the replica's SpmdContext.
  x: the NHWC input ShardedTensor.
  filter: the filter ShardedTensor.
  padding: "SAME", "VALID" or "EXPLICIT".
  strides, dilations: (height, width) steps and rates.
  explicit_paddings: (top, bottom, left, right), read when padding is "EXPLICIT".)doc";

const char* kConvGradArgs = R"doc(

Args:
  ctx: the replica's SpmdContext.
  x: the convolution's input ShardedTensor.
  filter: its filter ShardedTensor.
  dy: the gradient of its output.
  padding: "SAME", "VALID" or "EXPLICIT".
  strides, dilations: (height, width) steps and rates.
  explicit_paddings: (top, bottom, left, right), read when padding is "EXPLICIT".)doc";

ReduceKind reduce_kind(const std::string& name) {
  static const std::map<std::string, ReduceKind> kinds = {
      {"sum", ReduceKind::kSum},   {"mean", ReduceKind::kMean}, {"max", ReduceKind::kMax}, {"min", ReduceKind::kMin},
      {"prod", ReduceKind::kProd}, {"any", ReduceKind::kAny},   {"all", ReduceKind::kAll}};
  auto it = kinds.find(name);
  if (it == kinds.end()) fail<ValueError>("spmd.reduce", "no partitioned reduction '{}'", name);
  return it->second;
}

py::object shape_or_none(const SpmdEntry& e, std::size_t k) {
  if (!e.holds[k]) return py::none();
  py::tuple t(e.shard_shapes[k].size());
  for (std::size_t i = 0; i < e.shard_shapes[k].size(); ++i) t[i] = e.shard_shapes[k][i];
  return t;
}

void bind_record(py::module_& m) {
  py::class_<SpmdEntry>(m, "SpmdEntry", "One partitioned op, inserted collective or note of an SPMD step.")
      .def_property_readonly("kind",
                             [](const SpmdEntry& e) {
                               return e.kind == spmd::SpmdEntryKind::kOp           ? "op"
                                      : e.kind == spmd::SpmdEntryKind::kCollective ? "collective"
                                                                                   : "note";
                             })
      .def_readonly("name", &SpmdEntry::name)
      .def_readonly("rule", &SpmdEntry::rule)
      .def_readonly("dtype", &SpmdEntry::dtype)
      .def_readonly("sharding", &SpmdEntry::sharding)
      .def_property_readonly("shard_shapes",
                             [](const SpmdEntry& e) {
                               py::list out;
                               for (std::size_t k = 0; k < e.holds.size(); ++k) out.append(shape_or_none(e, k));
                               return out;
                             })
      .def_readonly("flops", &SpmdEntry::flops)
      .def_readonly("bytes", &SpmdEntry::bytes)
      .def_readonly("groups", &SpmdEntry::groups)
      .def_readonly("dimension", &SpmdEntry::dimension)
      .def_readonly("reduction", &SpmdEntry::reduction)
      .def_readonly("pairs", &SpmdEntry::pairs)
      .def_property_readonly("operand_shape", [](const SpmdEntry& e) { return py::tuple(py::cast(e.operand_shape)); });
  py::class_<SpmdRecord>(m, "SpmdRecord", "What one SPMD step ran on each logical core, in program order.")
      .def_readonly("num_cores", &SpmdRecord::num_cores)
      .def_readonly("entries", &SpmdRecord::entries)
      .def("total_flops", &SpmdRecord::total_flops, py::arg("core"),
           R"doc(FLOPs of the ops recorded on one logical core.

Args:
  core: the logical core.)doc")
      .def("collective_bytes", &SpmdRecord::collective_bytes, py::arg("core"),
           R"doc(Bytes one logical core sends in the inserted collectives.

Args:
  core: the logical core.)doc")
      .def("to_text", &SpmdRecord::to_text, "The record as text, one line per entry (as spmd_plan() prints it).");
  py::class_<SpmdContext, std::shared_ptr<SpmdContext>>(m, "SpmdContext", R"doc(
One replica's logical cores for the partitioner: the devices shards live on, an in-process Communicator over
them (subgroups by split) and the record of the current step.

Args:
  logical_devices: the replica's cores, logical core k at index k.)doc")
      .def(py::init([](std::vector<DevicePtr> devices) { return std::make_shared<SpmdContext>(std::move(devices)); }),
           py::arg("logical_devices"), R"doc(A context over the replica's cores.

Args:
  logical_devices: the replica's cores, logical core k at index k.)doc")
      .def_property_readonly("num_cores", &SpmdContext::num_cores)
      .def_property_readonly("record", [](const SpmdContext& c) { return c.record(); })
      .def("take_record", &SpmdContext::take_record, "The step's record; starts a new one.")
      .def("note", &SpmdContext::note, py::arg("text"), R"doc(Adds a note entry to the current record.

Args:
  text: the note.)doc")
      .def_property("windowed_einsum_threshold_bytes", &SpmdContext::windowed_einsum_threshold_bytes,
                    &SpmdContext::set_windowed_einsum_threshold_bytes,
                    "A dot whose all-gathered operand reaches this size runs as XLA's windowed einsum loop "
                    "(default 256 MiB, XLA's threshold_for_windowed_einsum_mib).");
}

void bind_ops(py::module_& m) {
  m.def(
      "reshard",
      [](const ContextPtr& c, const ShardedTensor& x, const Sharding& s, const std::string& why) {
        return nogil([&] { return spmd::taped::reshard(c, x, s, why); });
      },
      py::arg("ctx"), py::arg("x"), py::arg("sharding"), py::kw_only(), py::arg("why") = "reshard",
      R"doc(Moves `x` to `sharding` with XLA's collectives (recorded in ctx and on the tapes).

Args:
  ctx: the replica's SpmdContext.
  x: the ShardedTensor.
  sharding: the target Sharding.
  why: the reason, shown in the record.)doc");
  m.def(
      "unary",
      [](const ContextPtr& c, const std::string& op, const ShardedTensor& x) {
        const auto kind = unary_op(op);
        return nogil([&] { return spmd::taped::unary(c, kind, x); });
      },
      py::arg("ctx"), py::arg("op"), py::arg("x"),
      R"doc(A partitioned elementwise unary op: each shard by itself.

Args:
  ctx: the replica's SpmdContext.
  op: the op's name in _core.ops, e.g. "exp".
  x: the ShardedTensor.)doc");
  m.def(
      "binary",
      [](const ContextPtr& c, const std::string& op, const ShardedTensor& a, const ShardedTensor& b) {
        const auto kind = binary_op(op);
        return nogil([&] { return spmd::taped::binary(c, kind, a, b); });
      },
      py::arg("ctx"), py::arg("op"), py::arg("a"), py::arg("b"),
      R"doc(A partitioned elementwise binary op; operands are resharded to agree first.

Args:
  ctx: the replica's SpmdContext.
  op: the op's name in _core.ops, e.g. "add".
  a: the first ShardedTensor.
  b: the second ShardedTensor.)doc");
  m.def(
      "reduce",
      [](const ContextPtr& c, const std::string& kind, const ShardedTensor& x, std::vector<std::int64_t> axes,
         bool keepdims) {
        const auto k = reduce_kind(kind);
        return nogil([&] { return spmd::taped::reduce(c, k, x, std::move(axes), keepdims); });
      },
      py::arg("ctx"), py::arg("kind"), py::arg("x"), py::arg("axes"), py::kw_only(), py::arg("keepdims") = false,
      R"doc(A partitioned reduction: local reductions, then an all-reduce over split reduced axes.

Args:
  ctx: the replica's SpmdContext.
  kind: "sum", "mean", "max", "min", "prod", "any" or "all".
  x: the ShardedTensor.
  axes: the axes to reduce.
  keepdims: keep reduced axes with length 1.)doc");
  m.def(
      "matmul",
      [](const ContextPtr& c, const ShardedTensor& a, const ShardedTensor& b, std::optional<Sharding> out) {
        return nogil([&] { return spmd::taped::matmul(c, a, b, out); });
      },
      py::arg("ctx"), py::arg("a"), py::arg("b"), py::kw_only(), py::arg("out_sharding") = py::none(),
      R"doc(A partitioned matmul (XLA's dot rules: local, all-reduce, all-gather or windowed einsum).

Args:
  ctx: the replica's SpmdContext.
  a: the left ShardedTensor.
  b: the right ShardedTensor.
  out_sharding: the result's Sharding; None lets the rules choose.)doc");
  m.def(
      "transpose",
      [](const ContextPtr& c, const ShardedTensor& x, std::vector<std::int64_t> perm) {
        return nogil([&] { return spmd::taped::transpose(c, x, std::move(perm)); });
      },
      py::arg("ctx"), py::arg("x"), py::arg("perm"),
      R"doc(A partitioned transpose: the sharding's grid is permuted with the axes.

Args:
  ctx: the replica's SpmdContext.
  x: the ShardedTensor.
  perm: a permutation of the axes.)doc");
  m.def(
      "reshape",
      [](const ContextPtr& c, const ShardedTensor& x, const Shape& shape) {
        return nogil([&] { return spmd::taped::reshape(c, x, shape); });
      },
      py::arg("ctx"), py::arg("x"), py::arg("shape"),
      R"doc(A partitioned reshape (resharding where the split axes do not carry over).

Args:
  ctx: the replica's SpmdContext.
  x: the ShardedTensor.
  shape: the new shape.)doc");
  m.def(
      "concat",
      [](const ContextPtr& c, const std::vector<ShardedTensor>& values, std::int64_t axis) {
        return nogil([&] { return spmd::taped::concat(c, values, axis); });
      },
      py::arg("ctx"), py::arg("values"), py::arg("axis"),
      R"doc(A partitioned concat.

Args:
  ctx: the replica's SpmdContext.
  values: the ShardedTensors.
  axis: the axis to concatenate along.)doc");
  m.def(
      "slice",
      [](const ContextPtr& c, const ShardedTensor& x, std::vector<std::int64_t> begin, std::vector<std::int64_t> size) {
        return nogil([&] { return spmd::taped::slice(c, x, begin, size); });
      },
      py::arg("ctx"), py::arg("x"), py::arg("begin"), py::arg("size"),
      R"doc(A partitioned tf.slice.

Args:
  ctx: the replica's SpmdContext.
  x: the ShardedTensor.
  begin: the start index per axis.
  size: the extent per axis; -1 means to the end.)doc");
  m.def(
      "softmax",
      [](const ContextPtr& c, const ShardedTensor& x, std::int64_t axis) {
        return nogil([&] { return spmd::taped::softmax(c, x, axis); });
      },
      py::arg("ctx"), py::arg("logits"), py::arg("axis") = -1,
      R"doc(A partitioned softmax (max and sum all-reduced when `axis` is split).

Args:
  ctx: the replica's SpmdContext.
  logits: the ShardedTensor.
  axis: the axis to normalise over.)doc");
  m.def(
      "sparse_softmax_cross_entropy",
      [](const ContextPtr& c, const ShardedTensor& logits, const ShardedTensor& labels) {
        return nogil([&] { return spmd::taped::sparse_softmax_cross_entropy(c, logits, labels); });
      },
      py::arg("ctx"), py::arg("logits"), py::arg("labels"),
      R"doc(Partitioned per-example sparse softmax cross-entropy.

Args:
  ctx: the replica's SpmdContext.
  logits: [batch, classes] ShardedTensor.
  labels: [batch] integer ShardedTensor.)doc");
  m.def(
      "gather",
      [](const ContextPtr& c, const ShardedTensor& table, const ShardedTensor& ids) {
        return nogil([&] { return spmd::taped::gather(c, table, ids); });
      },
      py::arg("ctx"), py::arg("table"), py::arg("ids"),
      R"doc(A partitioned gather of table rows (axis 0), e.g. an embedding lookup.

Args:
  ctx: the replica's SpmdContext.
  table: the ShardedTensor.
  ids: the integer ShardedTensor of row ids.)doc");
  using Pads = std::array<std::int64_t, 4>;
  for (const char* name : {"conv2d", "depthwise_conv2d"}) {
    const bool depthwise = std::string_view(name) == "depthwise_conv2d";
    m.def(
        name,
        [depthwise](const ContextPtr& c, const ShardedTensor& x, const ShardedTensor& filter,
                    const std::string& padding, std::array<std::int64_t, 2> strides,
                    std::array<std::int64_t, 2> dilations, Pads pads) {
          const spmd::ConvWindow window{padding, strides, dilations, pads};
          return nogil([&] {
            return depthwise ? spmd::taped::depthwise_conv2d(c, x, filter, window)
                             : spmd::taped::conv2d(c, x, filter, window);
          });
        },
        py::arg("ctx"), py::arg("x"), py::arg("filter"), py::arg("padding") = "SAME", py::kw_only(),
        py::arg("strides") = std::array<std::int64_t, 2>{1, 1},
        py::arg("dilations") = std::array<std::int64_t, 2>{1, 1}, py::arg("explicit_paddings") = Pads{0, 0, 0, 0},
        (std::string(depthwise
                         ? "NHWC x [kh, kw, in, multiplier]; spatial tiles exchange halos, channel tiles stay local."
                         : "NHWC x HWIO; spatially tiled inputs exchange halos by collective-permute (misaligned "
                           "strides gather).") +
         kConvArgs)
            .c_str());
  }
  m.def(
      "halo_exchange",
      [](SpmdContext& c, const ShardedTensor& x, int dim, std::int64_t before, std::int64_t after) {
        return nogil([&] { return spmd::halo_exchange(c, x, dim, before, after); });
      },
      py::arg("ctx"), py::arg("x"), py::arg("dim"), py::arg("before"), py::arg("after"),
      R"doc(Each shard extended by its neighbours' edges along `dim` (collective-permutes).

Args:
  ctx: the replica's SpmdContext.
  x: the ShardedTensor.
  dim: the split dimension.
  before: elements taken from the previous shard.
  after: elements taken from the next shard.)doc");
  // Partitioned gradients.
  m.def(
      "matmul_grad",
      [](SpmdContext& c, const ShardedTensor& a, const ShardedTensor& b, const ShardedTensor& dy, bool want_a,
         bool want_b) {
        return nogil([&] {
          auto g = spmd::matmul_grad(c, a, b, dy, {want_a, want_b});
          return std::pair{g.da, g.db};
        });
      },
      py::arg("ctx"), py::arg("a"), py::arg("b"), py::arg("dy"), py::kw_only(), py::arg("want_a") = true,
      py::arg("want_b") = true,
      R"doc((da, db) of y = a @ b; a gradient not wanted is None and costs nothing.

Args:
  ctx: the replica's SpmdContext.
  a: the left operand.
  b: the right operand.
  dy: the gradient of y.
  want_a: compute da.
  want_b: compute db.)doc");
  m.def(
      "unary_grad",
      [](SpmdContext& c, const std::string& op, const ShardedTensor& x, const ShardedTensor& dy) {
        const auto kind = unary_op(op);
        return nogil([&] { return spmd::unary_grad(c, kind, x, dy); });
      },
      py::arg("ctx"), py::arg("op"), py::arg("x"), py::arg("dy"),
      R"doc(The partitioned gradient of a unary op.

Args:
  ctx: the replica's SpmdContext.
  op: the op's name.
  x: its input.
  dy: the gradient of its output.)doc");
  m.def(
      "binary_grad",
      [](SpmdContext& c, const std::string& op, const ShardedTensor& a, const ShardedTensor& b,
         const ShardedTensor& dy) {
        const auto kind = binary_op(op);
        return nogil([&] { return spmd::binary_grad(c, kind, a, b, dy); });
      },
      py::arg("ctx"), py::arg("op"), py::arg("a"), py::arg("b"), py::arg("dy"),
      R"doc(The partitioned gradients (da, db) of a binary op, reduced over broadcast axes.

Args:
  ctx: the replica's SpmdContext.
  op: the op's name.
  a: its first input.
  b: its second input.
  dy: the gradient of its output.)doc");
  m.def(
      "reduce_grad",
      [](SpmdContext& c, const std::string& kind, const ShardedTensor& x, std::vector<std::int64_t> axes,
         const ShardedTensor& dy) {
        const auto k = reduce_kind(kind);
        return nogil([&] { return spmd::reduce_grad(c, k, x, axes, dy); });
      },
      py::arg("ctx"), py::arg("kind"), py::arg("x"), py::arg("axes"), py::arg("dy"),
      R"doc(The partitioned gradient of a reduction.

Args:
  ctx: the replica's SpmdContext.
  kind: the reduction, e.g. "sum".
  x: its input.
  axes: the reduced axes.
  dy: the gradient of its output.)doc");
  m.def(
      "sparse_softmax_cross_entropy_grad",
      [](SpmdContext& c, const ShardedTensor& logits, const ShardedTensor& labels, const ShardedTensor& dloss) {
        return nogil([&] { return spmd::sparse_softmax_cross_entropy_grad(c, logits, labels, dloss); });
      },
      py::arg("ctx"), py::arg("logits"), py::arg("labels"), py::arg("dloss"),
      R"doc(d logits of sparse softmax cross-entropy.

Args:
  ctx: the replica's SpmdContext.
  logits: [batch, classes] ShardedTensor.
  labels: [batch] integer ShardedTensor.
  dloss: the gradient of the per-example loss.)doc");
  for (const char* name :
       {"conv2d_filter_grad", "conv2d_input_grad", "depthwise_conv2d_filter_grad", "depthwise_conv2d_input_grad"}) {
    const std::string_view n = name;
    const bool filter = n.ends_with("filter_grad"), depthwise = n.starts_with("depthwise");
    m.def(
        name,
        [filter, depthwise](SpmdContext& c, const ShardedTensor& x, const ShardedTensor& f, const ShardedTensor& dy,
                            const std::string& padding, std::array<std::int64_t, 2> strides,
                            std::array<std::int64_t, 2> dilations, Pads pads) {
          const spmd::ConvWindow window{padding, strides, dilations, pads};
          return nogil([&] {
            if (depthwise) {
              return filter ? spmd::depthwise_conv2d_filter_grad(c, x, f, dy, window)
                            : spmd::depthwise_conv2d_input_grad(c, x, f, dy, window);
            }
            return filter ? spmd::conv2d_filter_grad(c, x, f, dy, window)
                          : spmd::conv2d_input_grad(c, x, f, dy, window);
          });
        },
        py::arg("ctx"), py::arg("x"), py::arg("filter"), py::arg("dy"), py::arg("padding") = "SAME", py::kw_only(),
        py::arg("strides") = std::array<std::int64_t, 2>{1, 1},
        py::arg("dilations") = std::array<std::int64_t, 2>{1, 1}, py::arg("explicit_paddings") = Pads{0, 0, 0, 0},
        (std::string(filter ? (depthwise ? "d filter of a partitioned depthwise_conv2d, in the filter's sharding."
                                         : "d filter of a partitioned conv2d, replicated.")
                            : "d input of a partitioned convolution, in x's sharding.") +
         kConvGradArgs)
            .c_str());
  }
  m.def(
      "slice_grad",
      [](SpmdContext& c, const ShardedTensor& x, const std::vector<std::int64_t>& begin, const ShardedTensor& dy) {
        return nogil([&] { return spmd::slice_grad(c, x, begin, dy); });
      },
      py::arg("ctx"), py::arg("x"), py::arg("begin"), py::arg("dy"),
      R"doc(d x of a partitioned slice: dy padded back into x's shape.

Args:
  ctx: the replica's SpmdContext.
  x: the slice's input.
  begin: the slice's start per axis.
  dy: the gradient of the slice.)doc");
  m.def(
      "gather_grad",
      [](SpmdContext& c, const ShardedTensor& table, const ShardedTensor& ids, const ShardedTensor& dy) {
        return nogil([&] { return spmd::gather_table_grad(c, table, ids, dy); });
      },
      py::arg("ctx"), py::arg("table"), py::arg("ids"), py::arg("dy"),
      R"doc(d table of a partitioned gather (axis 0).

Args:
  ctx: the replica's SpmdContext.
  table: the gathered ShardedTensor.
  ids: the row ids.
  dy: the gradient of the gathered rows.)doc");
}

void bind_tape(py::module_& m) {
  m.def("tape_tensor", &spmd::tape_tensor, py::arg("ctx"), py::arg("x"),
        R"doc(The tensor standing for `x` on gradient tapes (a proxy bound to ctx; copies of x share it).

Args:
  ctx: the replica's SpmdContext.
  x: the ShardedTensor.)doc");
  m.def("from_tape_tensor", &spmd::from_tape_tensor, py::arg("tensor"),
        R"doc(The ShardedTensor a tape tensor stands for (a gradient of a partitioned value), or None.

Args:
  tensor: a Tensor from a tape.)doc");
  m.def(
      "shard_recorded",
      [](const ContextPtr& c, py::handle value, const Sharding& sharding) {
        const Tensor tensor = to_tensor(value);
        return nogil([&] { return spmd::shard_recorded(c, tensor, sharding); });
      },
      py::arg("ctx"), py::arg("tensor"), py::arg("sharding"),
      R"doc(`tensor` laid out on ctx's cores, recorded on the tapes (its gradient is the partitioned one assembled).

Args:
  ctx: the replica's SpmdContext.
  tensor: a Tensor or a value convertible to one.
  sharding: the Sharding.)doc");
  m.def(
      "new_value",
      [](const ShardedTensor& x) {
        ShardedTensor out = x;
        out.set_tape_slot(std::make_shared<Tensor>());
        return out;
      },
      py::arg("x"),
      R"doc(The same shards as a new value to tapes (each read of a variable's copies is its own tensor).

Args:
  x: the ShardedTensor.)doc");
}

}  // namespace

void init_spmd_partitioner(py::module_& m) {
  bind_record(m);
  bind_ops(m);
  bind_tape(m);
}

}  // namespace tpustrategy::bindings
