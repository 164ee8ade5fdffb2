// tpustrategy._core.example: the Example codec: serialization of the tf.train messages (Example, SequenceExample
// and their parts) and the batched parse_example. Python values are converted to C++ first; the codec runs with
// the GIL released.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bindings/bindings.h"
#include "bindings/nogil.h"
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

std::vector<Feature> feature_list_from(const py::handle& list) {
  std::vector<Feature> out;
  for (py::handle f : list) out.push_back(feature_from(f));
  return out;
}

py::list feature_list_to(const std::vector<Feature>& list) {
  py::list out;
  for (const Feature& f : list) out.append(feature_to(f));
  return out;
}

data::FeatureListMap feature_lists_from(const py::dict& lists) {
  data::FeatureListMap out;
  for (auto [key, list] : lists) out.emplace(key.cast<std::string>(), feature_list_from(list));
  return out;
}

py::dict feature_lists_to(const data::FeatureListMap& lists) {
  py::dict out;
  for (const auto& [key, list] : lists) out[py::str(key)] = feature_list_to(list);
  return out;
}

// The messages of example.proto and feature.proto, by the name of their Python class.
enum class Message : std::uint8_t {
  kBytesList,
  kFloatList,
  kInt64List,
  kFeature,
  kFeatures,
  kFeatureList,
  kFeatureLists,
  kExample,
  kSequenceExample
};

Message message_from(const std::string& name) {
  static const std::map<std::string, Message, std::less<>> kMessages{{"BytesList", Message::kBytesList},
                                                                     {"FloatList", Message::kFloatList},
                                                                     {"Int64List", Message::kInt64List},
                                                                     {"Feature", Message::kFeature},
                                                                     {"Features", Message::kFeatures},
                                                                     {"FeatureList", Message::kFeatureList},
                                                                     {"FeatureLists", Message::kFeatureLists},
                                                                     {"Example", Message::kExample},
                                                                     {"SequenceExample", Message::kSequenceExample}};
  auto it = kMessages.find(name);
  if (it == kMessages.end()) throw ValueError(fmt::format("unknown tf.train message {}", name));
  return it->second;
}

// The kind of a BytesList, FloatList or Int64List.
Kind list_kind(Message message) {
  return message == Message::kBytesList ? Kind::kBytes : message == Message::kFloatList ? Kind::kFloat : Kind::kInt64;
}

py::bytes serialize_message(const std::string& name, const py::handle& value) {
  const Message message = message_from(name);
  switch (message) {
    case Message::kBytesList:
    case Message::kFloatList:
    case Message::kInt64List: {
      Feature f = feature_from(py::make_tuple(static_cast<int>(list_kind(message)), value));
      return {nogil([&] { return data::serialize_value_list(f); })};
    }
    case Message::kFeature: {
      Feature f = feature_from(value);
      return {nogil([&] { return data::serialize_feature(f); })};
    }
    case Message::kFeatures: {
      FeatureMap features = features_from(value.cast<py::dict>());
      return {nogil([&] { return data::serialize_features(features); })};
    }
    case Message::kFeatureList: {
      std::vector<Feature> list = feature_list_from(value);
      return {nogil([&] { return data::serialize_feature_list(list); })};
    }
    case Message::kFeatureLists: {
      data::FeatureListMap lists = feature_lists_from(value.cast<py::dict>());
      return {nogil([&] { return data::serialize_feature_lists(lists); })};
    }
    case Message::kExample: {
      data::Example example;
      example.has_features = !value.is_none();
      if (example.has_features) example.features = features_from(value.cast<py::dict>());
      return {nogil([&] { return data::serialize_example(example); })};
    }
    case Message::kSequenceExample: {
      auto parts = value.cast<py::tuple>();
      data::SequenceExample example;
      example.has_context = !parts[0].is_none();
      example.has_feature_lists = !parts[1].is_none();
      if (example.has_context) example.context = features_from(parts[0].cast<py::dict>());
      if (example.has_feature_lists) example.feature_lists = feature_lists_from(parts[1].cast<py::dict>());
      return {nogil([&] { return data::serialize_sequence_example(example); })};
    }
  }
  throw ValueError(fmt::format("unknown tf.train message {}", name));
}

py::object parse_message(const std::string& name, const py::bytes& serialized) {
  const Message message = message_from(name);
  const std::string_view view = serialized;
  switch (message) {
    case Message::kBytesList:
    case Message::kFloatList:
    case Message::kInt64List:
      return feature_to(nogil([&] { return data::parse_value_list_proto(view, list_kind(message)); }))[1];
    case Message::kFeature:
      return feature_to(nogil([&] { return data::parse_feature_proto(view); }));
    case Message::kFeatures:
      return features_to(nogil([&] { return data::parse_features_proto(view); }));
    case Message::kFeatureList:
      return feature_list_to(nogil([&] { return data::parse_feature_list_proto(view); }));
    case Message::kFeatureLists:
      return feature_lists_to(nogil([&] { return data::parse_feature_lists_proto(view); }));
    case Message::kExample: {
      const data::Example example = nogil([&] { return data::parse_example_proto(view); });
      return example.has_features ? py::object(features_to(example.features)) : py::object(py::none());
    }
    case Message::kSequenceExample: {
      const data::SequenceExample example = nogil([&] { return data::parse_sequence_example_proto(view); });
      return py::make_tuple(
          example.has_context ? py::object(features_to(example.context)) : py::object(py::none()),
          example.has_feature_lists ? py::object(feature_lists_to(example.feature_lists)) : py::object(py::none()));
    }
  }
  throw ValueError(fmt::format("unknown tf.train message {}", name));
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
  m.def("message_serialize", &serialize_message, py::arg("message"), py::arg("value"),
        R"doc(Serializes one tf.train message from its wire form (see message_parse).

Args:
  message: the message type's name: "BytesList", "FloatList", "Int64List", "Feature", "Features", "FeatureList",
    "FeatureLists", "Example" or "SequenceExample".
  value: the message in the form message_parse returns.

Returns:
  The message's bytes, as TF's deterministic serialization writes them.

Raises:
  ValueError: an unknown message name or feature kind.)doc");
  m.def("message_parse", &parse_message, py::arg("message"), py::arg("serialized"),
        R"doc(Parses one tf.train message.

Args:
  message: the message type's name, as message_serialize takes it.
  serialized: the message's bytes.

Returns:
  BytesList / FloatList / Int64List: [values]; Feature: (kind, [values]), kind 0 none, 1 bytes, 2 float,
  3 int64; Features: {key: Feature}; FeatureList: [Feature]; FeatureLists: {key: FeatureList}; Example: Features
  or None (the field unset); SequenceExample: (Features or None, FeatureLists or None).

Raises:
  InvalidArgumentError: malformed bytes. ValueError: an unknown message name.)doc");
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
