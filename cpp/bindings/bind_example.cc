// tpustrategy._core.example: the Example codec: tf.train.Example / SequenceExample serialization and the
// batched parse_example. Python values are converted to C++ first; parsing runs with the GIL released.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>

#include "bindings/bindings.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/data/example.h"
#include "tpustrategy/data/example_parse.h"

namespace tpustrategy::bindings {

namespace {

using data::Feature;
using data::FeatureMap;
using Kind = Feature::Kind;

Kind kind_from(int kind) {
  if (kind < 0 || kind > 3) throw ValueError(fmt::format("invalid feature kind {}", kind));
  return static_cast<Kind>(kind);
}

// (kind, values) -> Feature; kind 0 is a Feature with no list set.
Feature feature_from(const py::handle& kind_and_values) {
  auto pair = kind_and_values.cast<py::tuple>();
  Feature f;
  f.kind = kind_from(pair[0].cast<int>());
  py::handle values = pair[1];
  switch (f.kind) {
    case Kind::kBytes:
      for (py::handle v : values) f.bytes_list.push_back(v.cast<std::string>());
      break;
    case Kind::kFloat:
      f.float_list = values.cast<std::vector<float>>();
      break;
    case Kind::kInt64:
      f.int64_list = values.cast<std::vector<std::int64_t>>();
      break;
    case Kind::kNone:
      break;
  }
  return f;
}

py::tuple feature_to(const Feature& f) {
  py::list values;
  switch (f.kind) {
    case Kind::kBytes:
      for (const std::string& v : f.bytes_list) values.append(py::bytes(v));
      break;
    case Kind::kFloat:
      for (float v : f.float_list) values.append(v);
      break;
    case Kind::kInt64:
      for (std::int64_t v : f.int64_list) values.append(v);
      break;
    case Kind::kNone:
      break;
  }
  return py::make_tuple(static_cast<int>(f.kind), values);
}

FeatureMap features_from(const py::dict& features) {
  FeatureMap out;
  for (auto [key, value] : features) out.emplace(key.cast<std::string>(), feature_from(value));
  return out;
}

py::dict features_to(const FeatureMap& features) {
  py::dict out;
  for (const auto& [key, f] : features) out[py::str(key)] = feature_to(f);
  return out;
}

template <typename T>
py::array_t<T> to_array(const std::vector<T>& values) {
  py::array_t<T> out(static_cast<py::ssize_t>(values.size()));
  if (!values.empty()) {
    T* to = out.mutable_data();
    py::gil_scoped_release release;
    std::memcpy(to, values.data(), values.size() * sizeof(T));
  }
  return out;
}

py::object column_values(const data::ParsedColumn& col) {
  switch (col.dtype) {
    case Kind::kFloat:
      return to_array(col.floats);
    case Kind::kInt64:
      return to_array(col.int64s);
    default: {
      py::array out(py::dtype("O"), std::vector<py::ssize_t>{static_cast<py::ssize_t>(col.bytes.size())});
      auto** slots = static_cast<PyObject**>(out.mutable_data());
      for (std::size_t i = 0; i < col.bytes.size(); ++i) {
        PyObject* b = PyBytes_FromStringAndSize(col.bytes[i].data(), static_cast<py::ssize_t>(col.bytes[i].size()));
        if (b == nullptr) throw py::error_already_set();
        Py_XDECREF(slots[i]);
        slots[i] = b;
      }
      return std::move(out);
    }
  }
}

// configs: (key, kind, var_len, shape, default (kind, values) or None) per feature.
std::vector<data::FeatureConfig> configs_from(const py::sequence& configs) {
  std::vector<data::FeatureConfig> config;
  for (py::handle item : configs) {
    auto t = item.cast<py::tuple>();
    data::FeatureConfig cfg;
    cfg.key = t[0].cast<std::string>();
    cfg.dtype = kind_from(t[1].cast<int>());
    cfg.var_len = t[2].cast<bool>();
    cfg.shape = t[3].cast<std::vector<std::int64_t>>();
    if (!t[4].is_none()) {
      cfg.has_default = true;
      cfg.default_value = feature_from(t[4]);
    }
    config.push_back(std::move(cfg));
  }
  return config;
}

// The serialized protos as views, with the list that keeps their objects alive: a snapshot of the caller's
// sequence, so that another thread changing it while the GIL is released cannot free viewed bytes. bytes (and
// subclasses such as numpy.bytes_) are viewed as they are, str as its UTF-8 (cached in the str object, as
// str.encode() would produce it); TypeError for any other item.
struct SerializedViews {
  py::list owner;
  std::vector<std::string_view> views;
};

SerializedViews byte_views(const py::sequence& serialized) {
  SerializedViews out{py::reinterpret_steal<py::list>(PySequence_List(serialized.ptr())), {}};
  if (!out.owner) throw py::error_already_set();
  const py::ssize_t n = PyList_GET_SIZE(out.owner.ptr());
  out.views.reserve(static_cast<std::size_t>(n));
  for (py::ssize_t i = 0; i < n; ++i) {
    PyObject* item = PyList_GET_ITEM(out.owner.ptr(), i);
    char* data = nullptr;
    py::ssize_t size = 0;
    if (PyBytes_Check(item)) {
      if (PyBytes_AsStringAndSize(item, &data, &size) != 0) throw py::error_already_set();
      out.views.emplace_back(data, static_cast<std::size_t>(size));
    } else if (PyUnicode_Check(item)) {
      const char* utf8 = PyUnicode_AsUTF8AndSize(item, &size);
      if (utf8 == nullptr) throw py::error_already_set();
      out.views.emplace_back(utf8, static_cast<std::size_t>(size));
    } else {
      throw TypeError(fmt::format("serialized examples must be bytes, got {}",
                                  std::string(py::str(py::type::handle_of(item).attr("__name__")))));
    }
  }
  return out;
}

// The [values, 2] (example, position) indices of a VarLenFeature's values, from its values per example.
py::array_t<std::int64_t> sparse_indices(const std::vector<std::int64_t>& row_lengths) {
  std::int64_t total = 0;
  for (std::int64_t n : row_lengths) total += n;
  py::array_t<std::int64_t> out(std::vector<py::ssize_t>{total, 2});
  std::int64_t* at = out.mutable_data();
  py::gil_scoped_release release;
  for (std::size_t row = 0; row < row_lengths.size(); ++row) {
    for (std::int64_t j = 0; j < row_lengths[row]; ++j) {
      *at++ = static_cast<std::int64_t>(row);
      *at++ = j;
    }
  }
  return out;
}

}  // namespace

void init_example(py::module_& m) {
  m.def(
      "example_serialize",
      [](const py::dict& features) {
        data::Example example{features_from(features)};
        std::string out;
        {
          py::gil_scoped_release release;
          out = data::serialize_example(example);
        }
        return py::bytes(out);
      },
      py::arg("features"), R"doc(Serializes a tf.train.Example.

Args:
  features: {key: (kind, values)}, kind 1 bytes, 2 float, 3 int64 (0: a Feature with no list).

Returns:
  The Example proto's bytes.

Raises:
  ValueError: an invalid kind.)doc");
  m.def(
      "example_parse",
      [](const py::bytes& serialized) {
        std::string_view view = serialized;
        data::Example example;
        {
          py::gil_scoped_release release;
          example = data::parse_example_proto(view);
        }
        return features_to(example.features);
      },
      py::arg("serialized"), R"doc(Parses a tf.train.Example.

Args:
  serialized: the Example proto's bytes.

Returns:
  {key: (kind, values)}, kind 1 bytes, 2 float, 3 int64.

Raises:
  InvalidArgumentError: malformed bytes.)doc");
  m.def(
      "sequence_example_serialize",
      [](const py::dict& context, const py::dict& feature_lists) {
        data::SequenceExample example{features_from(context), {}};
        for (auto [key, list] : feature_lists) {
          std::vector<Feature> features;
          for (py::handle f : list) features.push_back(feature_from(f));
          example.feature_lists.emplace(key.cast<std::string>(), std::move(features));
        }
        return py::bytes(data::serialize_sequence_example(example));
      },
      py::arg("context"), py::arg("feature_lists"), R"doc(Serializes a tf.train.SequenceExample.

Args:
  context: {key: (kind, values)}, as example_serialize takes.
  feature_lists: {key: [(kind, values), ...]}, one Feature per step.

Returns:
  The SequenceExample proto's bytes.)doc");
  m.def(
      "sequence_example_parse",
      [](const py::bytes& serialized) {
        std::string_view view = serialized;
        data::SequenceExample example;
        {
          py::gil_scoped_release release;
          example = data::parse_sequence_example_proto(view);
        }
        py::dict lists;
        for (const auto& [key, features] : example.feature_lists) {
          py::list out;
          for (const Feature& f : features) out.append(feature_to(f));
          lists[py::str(key)] = out;
        }
        return py::make_tuple(features_to(example.context), lists);
      },
      py::arg("serialized"), R"doc(Parses a tf.train.SequenceExample.

Args:
  serialized: the SequenceExample proto's bytes.

Returns:
  (context {key: (kind, values)}, feature_lists {key: [(kind, values), ...]}).

Raises:
  InvalidArgumentError: malformed bytes.)doc");
  m.def(
      "parse_examples",
      [](const py::sequence& serialized, const py::sequence& configs) {
        std::vector<data::FeatureConfig> config = configs_from(configs);
        SerializedViews views = byte_views(serialized);
        std::vector<data::ParsedColumn> columns;
        {
          py::gil_scoped_release release;  // `views.owner` keeps the viewed bytes alive
          columns = data::parse_examples(views.views, config);
        }
        py::list out;
        for (std::size_t c = 0; c < columns.size(); ++c) {
          const data::ParsedColumn& col = columns[c];
          if (config[c].var_len) {
            out.append(py::make_tuple(column_values(col), to_array(col.row_lengths), sparse_indices(col.row_lengths)));
          } else {
            out.append(py::make_tuple(column_values(col), py::none(), py::none()));
          }
        }
        return out;
      },
      py::arg("serialized"), py::arg("configs"), R"doc(Parses serialized Examples (tf.io.parse_example).

Args:
  serialized: the Example protos, bytes (or str, read as UTF-8).
  configs: per feature, (key, kind, var_len, shape, default (kind, values) or None).

Returns:
  One (values, row_lengths, indices) numpy triple per config: for a var_len feature the values per example and
  the [len(values), 2] (example, position) int64 indices of its values; None and None for fixed-length features.

Raises:
  InvalidArgumentError: a malformed Example, a missing feature without default, or a wrong kind or size.
  TypeError: an item of `serialized` is neither bytes nor str.)doc");
  m.def(
      "_parse_sequence_feature_lists",
      [](const py::sequence& serialized, const py::sequence& configs) {
        std::vector<data::FeatureConfig> config = configs_from(configs);
        SerializedViews views = byte_views(serialized);
        std::vector<data::ParsedSequenceColumn> columns;
        {
          py::gil_scoped_release release;  // `views.owner` keeps the viewed bytes alive
          columns = data::parse_sequence_feature_lists(views.views, config);
        }
        py::list out;
        for (const auto& col : columns) {
          out.append(py::make_tuple(column_values(col.values), to_array(col.steps), to_array(col.step_lengths),
                                    to_array(col.present)));
        }
        return out;
      },
      py::arg("serialized"), py::arg("configs"),
      R"doc(Parses the feature_lists of serialized SequenceExamples.

Args:
  serialized: the SequenceExample protos, bytes (or str, read as UTF-8).
  configs: per feature list, (key, kind, var_len, shape, default (kind, values) or None).

Returns:
  One (values, steps per example, values per step, present per example) per config.

Raises:
  InvalidArgumentError: a malformed proto, a missing feature list without default, or a wrong kind or size.
  TypeError: an item of `serialized` is neither bytes nor str.)doc");
}

}  // namespace tpustrategy::bindings
