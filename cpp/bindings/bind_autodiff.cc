// The gradient tape (tpustrategy._core.autodiff): the C++ Tape, the tape stack of
// the current replica and the hook variables call when read. The TF-shaped
// GradientTape facade is python/tpustrategy/eager/backprop.py.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <vector>

#include "bindings/bindings.h"
#include "bindings/convert.h"
#include "tpustrategy/autodiff/dispatch.h"
#include "tpustrategy/autodiff/gradient_registry.h"
#include "tpustrategy/autodiff/static_shapes.h"
#include "tpustrategy/autodiff/tape_stack.h"
#include "tpustrategy/core/errors.h"

namespace tpustrategy::bindings {

namespace {

// A gradient as Python sees it: None, a Tensor, or (values, indices, dense_shape) for IndexedSlices.
py::object to_python(std::optional<Grad> grad) {
  if (!grad) return py::none();
  if (auto* dense = std::get_if<Tensor>(&*grad)) return py::cast(std::move(*dense));
  auto& s = std::get<IndexedSlices>(*grad);
  return py::make_tuple(s.values, s.indices, s.dense_shape);
}

// One output of a Python gradient function as a Grad: None, a Tensor, IndexedSlices, or convertible.
std::optional<Grad> from_python(py::handle g) {
  if (g.is_none()) return std::nullopt;
  if (py::isinstance<Tensor>(g)) return Grad(g.cast<Tensor>());
  if (py::hasattr(g, "indices") && py::hasattr(g, "values") && py::hasattr(g, "dense_shape")) {
    Tensor shape = to_tensor(g.attr("dense_shape"));
    auto dims = shape.to_vector<std::int64_t>();
    return Grad(
        IndexedSlices{to_tensor(g.attr("values")), to_tensor(g.attr("indices")), Shape(dims.begin(), dims.end())});
  }
  return Grad(to_tensor(g));
}

// A Python callable whose last reference may be dropped without the GIL (tapes outlive calls).
std::shared_ptr<py::object> hold(py::object fn) {
  return {new py::object(std::move(fn)), [](py::object* p) {
            py::gil_scoped_acquire gil;
            delete p;
          }};
}

// TF's static shapes while a Dataset function's element_spec is found (autodiff/static_shapes.h).
void init_static_shapes(py::module_& m) {
  m.def("push_static_shapes", &static_shapes::push,
        "Starts a table of static shapes for this thread (nests; framework/static_shape.py's recording()).");
  m.def("pop_static_shapes", &static_shapes::pop, "Ends this thread's innermost static-shape table.");
  m.def("static_shapes_active", &static_shapes::active, "Whether this thread has a static-shape table.");
  m.def(
      "set_static_shape",
      [](const Tensor& t, std::optional<std::vector<std::optional<std::int64_t>>> dims) {
        static_shapes::StaticShape shape;
        if (dims) {
          shape.rank_known = true;
          for (const auto& d : *dims) shape.dims.push_back(d.value_or(-1));
        }
        static_shapes::set(t, std::move(shape));
      },
      py::arg("tensor"), py::arg("dims").none(true), R"doc(Gives `tensor` a static shape in this thread's table.

Args:
  tensor: the Tensor.
  dims: the sizes, None for an unknown one; None for an unknown rank.)doc");
  m.def(
      "static_shape",
      [](const Tensor& t) -> py::object {
        auto shape = static_shapes::get(t);
        if (!shape) return py::none();
        if (!shape->rank_known) return py::make_tuple(false, py::list());
        py::list dims;
        for (std::int64_t d : shape->dims) dims.append(d < 0 ? py::object(py::none()) : py::object(py::int_(d)));
        return py::make_tuple(true, dims);
      },
      py::arg("tensor"), R"doc(The static shape this thread's table gives `tensor`.

Args:
  tensor: the Tensor.

Returns:
  None when it has no entry (its full shape is its static shape), else (rank_known, dims with None for unknown).)doc");
}

}  // namespace

void init_autodiff(py::module_& m) {
  py::class_<Tape, std::shared_ptr<Tape>>(m, "Tape", py::dynamic_attr(),
                                          "A C++ gradient tape; records while it is on the tape stack.")
      .def(py::init<bool, bool>(), py::kw_only(), py::arg("persistent") = false,
           py::arg("watch_accessed_variables") = true, R"doc(A new tape, not yet on the tape stack.

Args:
  persistent: whether gradient() may be called more than once.
  watch_accessed_variables: whether reads of trainable variables are watched automatically.)doc")
      .def_property_readonly("persistent", &Tape::persistent)
      .def_property_readonly("watch_accessed_variables", &Tape::watch_accessed_variables)
      .def("watch", &Tape::watch, py::arg("tensor"), R"doc(Records ops reading `tensor` from now on.

Args:
  tensor: the Tensor to watch.)doc")
      .def("is_tracked", &Tape::is_tracked, py::arg("tensor"), R"doc(Whether the tape records ops reading `tensor`.

Args:
  tensor: a Tensor (watched, or computed from a watched one).)doc")
      .def("reset", &Tape::reset, "Forgets every record and watched tensor.")
      .def_property_readonly("num_records", &Tape::num_records)
      .def(
          "gradient",
          [](Tape& tape, const std::vector<Tensor>& targets, const std::vector<Tensor>& sources,
             const std::vector<std::optional<Tensor>>& output_gradients, bool unconnected_zero) {
            std::vector<std::optional<Grad>> grads;
            {
              py::gil_scoped_release release;
              grads = tape.gradient(targets, sources, output_gradients,
                                    unconnected_zero ? UnconnectedGradients::kZero : UnconnectedGradients::kNone);
            }
            py::list out;
            for (auto& g : grads) out.append(to_python(std::move(g)));
            return out;
          },
          py::arg("targets"), py::arg("sources"), py::arg("output_gradients"), py::kw_only(),
          py::arg("unconnected_zero") = false,
          R"doc(Gradients of the targets with respect to each source.

Args:
  targets: the Tensors to differentiate (their gradients are summed).
  sources: the Tensors to differentiate with respect to.
  output_gradients: per target, its initial gradient, or None for ones.
  unconnected_zero: give zeros instead of None for a source the targets do not depend on.

Returns:
  One entry per source: None, a Tensor, or (values, indices, dense_shape) for a sparse gradient.

Raises:
  RuntimeError: a non-persistent tape was already used.)doc")
      .def(
          "jacobian",
          [](Tape& tape, const Tensor& target, const std::vector<Tensor>& sources, bool unconnected_zero) {
            py::gil_scoped_release release;
            return tape.jacobian(target, sources,
                                 unconnected_zero ? UnconnectedGradients::kZero : UnconnectedGradients::kNone);
          },
          py::arg("target"), py::arg("sources"), py::kw_only(), py::arg("unconnected_zero") = false,
          R"doc(Per source, the Jacobian of shape target.shape + source.shape.

Args:
  target: the Tensor to differentiate.
  sources: the Tensors to differentiate with respect to.
  unconnected_zero: give zeros instead of None for a source the target does not depend on.

Returns:
  One Tensor (or None when unconnected) per source.)doc")
      .def(
          "batch_jacobian",
          [](Tape& tape, const Tensor& target, const Tensor& source, bool unconnected_zero) {
            py::gil_scoped_release release;
            return tape.batch_jacobian(target, source,
                                       unconnected_zero ? UnconnectedGradients::kZero : UnconnectedGradients::kNone);
          },
          py::arg("target"), py::arg("source"), py::kw_only(), py::arg("unconnected_zero") = false,
          R"doc(The per-example Jacobian of shape [B] + target.shape[1:] + source.shape[1:].

Args:
  target: a Tensor of shape [B, ...]; row b depends only on row b of `source`.
  source: a Tensor of shape [B, ...].
  unconnected_zero: give zeros instead of None when the target does not depend on the source.

Returns:
  A Tensor, or None when unconnected.)doc")
      .def_property_readonly("spent", &Tape::spent);

  m.def(
      "push_tape", [](std::shared_ptr<Tape> tape) { current_tape_stack().push(std::move(tape)); }, py::arg("tape"),
      R"doc(Puts `tape` on the current replica's tape stack.

Args:
  tape: the Tape to start recording on.)doc");
  m.def(
      "pop_tape", [](const std::shared_ptr<Tape>& tape) { return current_tape_stack().remove(tape.get()); },
      py::arg("tape"), R"doc(Takes `tape` off the current replica's tape stack.

Args:
  tape: the Tape to stop recording on.

Returns:
  False when it was not on the stack.)doc");
  m.def(
      "is_active", [](const std::shared_ptr<Tape>& tape) { return current_tape_stack().contains(tape.get()); },
      py::arg("tape"), R"doc(Whether `tape` is on the current replica's tape stack.

Args:
  tape: a Tape.)doc");
  m.def(
      "current_tapes", [] { return current_tape_stack().tapes(); },
      "The tapes on the current replica's stack, innermost last.");
  m.def(
      "tensor_id", [](const Tensor& t) { return t.id(); }, py::arg("tensor"),
      R"doc(The identity tapes key on (copies of one tensor share it).

Args:
  tensor: a Tensor.)doc");
  m.def("recording", &recording, "Whether any tape is on the current stack.");
  m.def(
      "variable_accessed",
      [](const Tensor& value) {
        py::list watching;
        for (const auto& tape : current_tape_stack().tapes()) {
          if (!tape->watch_accessed_variables()) continue;
          tape->watch(value);
          watching.append(py::cast(tape));
        }
        return watching;
      },
      py::arg("value"), R"doc(Watches a trainable variable's value on every tape that watches accessed variables.

Args:
  value: the variable's current value.

Returns:
  The tapes that now watch it.)doc");
  m.def(
      "record_custom_gradient",
      [](std::vector<Tensor> inputs, std::vector<Tensor> outputs, py::object grad_fn) {
        auto fn = hold(std::move(grad_fn));
        const std::size_t num_inputs = inputs.size();
        GradFn gradient = [fn, num_inputs](const OpCall&, const std::vector<Tensor>& grads) {
          py::gil_scoped_acquire gil;
          py::list args;
          for (const Tensor& g : grads) args.append(py::cast(g));
          py::object result = (*fn)(*args);
          std::vector<std::optional<Grad>> out;
          for (py::handle g : result) out.push_back(from_python(g));
          if (out.size() != num_inputs) {
            fail<ValueError>("custom_gradient", "the gradient function returned {} gradients for {} inputs", out.size(),
                             num_inputs);
          }
          return out;
        };
        return record_custom(std::move(inputs), std::move(outputs), std::move(gradient));
      },
      py::arg("inputs"), py::arg("outputs"), py::arg("grad_fn"),
      R"doc(Records outputs = f(inputs) on the active tapes with a Python gradient (tf.custom_gradient).

Args:
  inputs: the Tensors f read.
  outputs: the Tensors f returned.
  grad_fn: called as grad_fn(*output_grads); returns one gradient (or None) per input.

Raises:
  ValueError: at backprop, when grad_fn returns another number of gradients than there are inputs.)doc");
  m.def(
      "ops_with_gradients",
      [] {
        std::vector<std::string> names;
        for (auto n : ops_with_gradients()) names.emplace_back(n);
        return names;
      },
      "TF op type names with a registered gradient function.");
  init_static_shapes(m);
}

}  // namespace tpustrategy::bindings
