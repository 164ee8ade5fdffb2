// Topology, its TopologyProto wire format, slice presets and chip specs.
#include <gtest/gtest.h>

#include <limits>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/tpu/chip_spec.h"
#include "tpustrategy/tpu/slice_preset.h"
#include "tpustrategy/tpu/topology.h"
#include "tpustrategy/tpu/topology_proto.h"

namespace tpustrategy {
namespace {

using Bytes = std::vector<unsigned char>;

std::string bytes(const Bytes& b) { return std::string(b.begin(), b.end()); }

// Expects `fn` to throw ValueError whose message contains `needle`.
template <typename Fn>
void expect_value_error(Fn&& fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "no ValueError; expected one containing: " << needle;
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace

// Readable test parameters instead of a byte dump.
void PrintTo(const SlicePreset& preset, std::ostream* os) { *os << preset.name; }

namespace {

// ---- slice presets ----------------------------------------------------------------------------

class PresetTest : public ::testing::TestWithParam<SlicePreset> {};

TEST_P(PresetTest, ShapeHostsAndOrdinals) {
  const SlicePreset& p = GetParam();
  const Topology t = make_topology(p);
  EXPECT_EQ(t.mesh_shape(), p.mesh_shape);
  EXPECT_EQ(t.mesh_rank(), 4);
  EXPECT_EQ(t.num_tasks(), p.num_hosts);
  EXPECT_EQ(t.num_tpus_per_task(), p.devices_per_host);
  EXPECT_TRUE(t.missing_devices().empty());
  const ChipSpec& chip = chip_spec(p);
  EXPECT_EQ(chip.name, p.generation);
  EXPECT_EQ(p.mesh_shape[3], chip.cores_per_chip);
  EXPECT_EQ(p.host_shape[0] * p.host_shape[1] * p.host_shape[2] * p.mesh_shape[3], p.devices_per_host);
  EXPECT_EQ(std::int64_t{p.num_hosts} * p.devices_per_host, t.num_mesh_positions());

  std::set<Coordinate> seen;
  for (int task = 0; task < t.num_tasks(); ++task) {
    const Coordinate first = t.device_coordinate(task, 0);
    for (int d = 0; d < t.num_tpus_per_task(); ++d) {
      const Coordinate c = t.device_coordinate(task, d);
      EXPECT_TRUE(seen.insert(c).second) << "duplicate coordinate on task " << task;
      // The host's chips form one host_shape block starting at its first device.
      for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(first[i] % p.host_shape[i], 0);
        EXPECT_GE(c[i], first[i]);
        EXPECT_LT(c[i], first[i] + p.host_shape[i]);
      }
      // Ordinals: core fastest, then x, then y, then z.
      if (d > 0) {
        const Coordinate prev = t.device_coordinate(task, d - 1);
        EXPECT_LT(std::tie(prev[2], prev[1], prev[0], prev[3]), std::tie(c[2], c[1], c[0], c[3]));
      }
      EXPECT_EQ(t.task_ordinal_at_coordinates(c), task);
      EXPECT_EQ(t.tpu_device_ordinal_at_coordinates(c), d);
      EXPECT_EQ(t.tpu_device_name_at_coordinates(c, "worker"),
                fmt::format("/job:worker/task:{}/device:TPU:{}", task, d));
      EXPECT_EQ(t.tpu_device_name_at_coordinates(c), fmt::format("/task:{}/device:TPU:{}", task, d));
      EXPECT_EQ(t.cpu_device_name_at_coordinates(c, "tpu_worker"),
                fmt::format("/job:tpu_worker/task:{}/device:CPU:0", task));
      EXPECT_EQ(t.cpu_device_name_at_coordinates(c), fmt::format("/task:{}/device:CPU:0", task));
    }
    // Hosts are ordered x-block fastest, then y, then z.
    if (task > 0) {
      const Coordinate prev = t.device_coordinate(task - 1, 0);
      EXPECT_LT(std::tie(prev[2], prev[1], prev[0]), std::tie(first[2], first[1], first[0]));
    }
  }
  EXPECT_EQ(static_cast<std::int64_t>(seen.size()), t.num_mesh_positions());
}

TEST_P(PresetTest, SerializationRoundTripsByteIdentically) {
  const Topology t = make_topology(GetParam());
  const std::string wire = t.serialized();
  const Topology parsed(wire);
  EXPECT_EQ(parsed, t);
  EXPECT_EQ(parsed.serialized(), wire);
  // Rebuilding from the parsed fields writes the same bytes again.
  const auto shape = parsed.device_coordinates_shape();
  const Topology rebuilt(std::vector<std::int32_t>(parsed.mesh_shape().begin(), parsed.mesh_shape().end()),
                         {shape[0], shape[1], shape[2]}, parsed.device_coordinates());
  EXPECT_EQ(rebuilt.serialized(), wire);
}

TEST_P(PresetTest, EveryTruncationAndByteFlipIsRejectedOrValid) {
  const std::string wire = make_topology(GetParam()).serialized();
  const std::size_t step = std::max<std::size_t>(1, wire.size() / 300);
  for (std::size_t n = 0; n < wire.size(); n += step) {
    // A cut between fields can leave a valid device-less topology; any other cut is malformed.
    try {
      const Topology t(wire.substr(0, n));
      EXPECT_EQ(t.num_tasks() * t.num_tpus_per_task(), 0) << "truncated at " << n;
    } catch (const ValueError&) {
    }
  }
  EXPECT_THROW(Topology(wire.substr(0, wire.size() - 1)), ValueError);
  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) {
    std::string mutated = wire;
    mutated[rng() % mutated.size()] = static_cast<char>(rng());
    try {
      const Topology t(mutated);
      EXPECT_EQ(t.serialized(), mutated);
    } catch (const ValueError&) {
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllSlices, PresetTest, ::testing::ValuesIn(slice_presets()), [](const auto& info) {
  std::string name = info.param.name;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

TEST(SlicePreset, V3_8OrdinalsMatchARealV3_8) {
  const Topology t = make_topology(find_slice_preset("v3-8"));
  const std::vector<Coordinate> expected = {{0, 0, 0, 0}, {0, 0, 0, 1}, {1, 0, 0, 0}, {1, 0, 0, 1},
                                            {0, 1, 0, 0}, {0, 1, 0, 1}, {1, 1, 0, 0}, {1, 1, 0, 1}};
  for (int d = 0; d < 8; ++d) EXPECT_EQ(t.device_coordinate(0, d), expected[d]) << "TPU:" << d;
}

TEST(SlicePreset, HostLayouts) {
  // v3-32: four hosts, each a 2x2 block of chips, x-block fastest.
  const Topology v3 = make_topology(find_slice_preset("v3-32"));
  EXPECT_EQ(v3.task_ordinal_at_coordinates({1, 1, 0, 1}), 0);
  EXPECT_EQ(v3.task_ordinal_at_coordinates({2, 0, 0, 0}), 1);
  EXPECT_EQ(v3.task_ordinal_at_coordinates({0, 2, 0, 0}), 2);
  EXPECT_EQ(v3.task_ordinal_at_coordinates({3, 3, 0, 1}), 3);
  EXPECT_EQ(v3.tpu_device_ordinal_at_coordinates({3, 3, 0, 1}), 7);
  // v4-32: host t holds the z = t tray.
  const Topology v4 = make_topology(find_slice_preset("v4-32"));
  for (int z = 0; z < 4; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x) {
        EXPECT_EQ(v4.task_ordinal_at_coordinates({x, y, z, 0}), z);
        EXPECT_EQ(v4.tpu_device_ordinal_at_coordinates({x, y, z, 0}), 2 * y + x);
      }
  // v5e-16: two hosts split along y.
  const Topology v5e = make_topology(find_slice_preset("v5e-16"));
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) EXPECT_EQ(v5e.task_ordinal_at_coordinates({x, y, 0, 0}), y / 2);
  EXPECT_EQ(v5e.tpu_device_ordinal_at_coordinates({3, 3, 0, 0}), 7);
  // v3-2048: 256 hosts of 8 devices.
  const Topology pod = make_topology(find_slice_preset("v3-2048"));
  EXPECT_EQ(pod.task_ordinal_at_coordinates({31, 31, 0, 1}), 255);
  EXPECT_EQ(pod.task_ordinal_at_coordinates({2, 0, 0, 0}), 1);
  EXPECT_EQ(pod.task_ordinal_at_coordinates({0, 2, 0, 0}), 16);
}

TEST(SlicePreset, UnknownNameListsPresets) {
  expect_value_error([] { find_slice_preset("v9-8"); }, "v9-8");
  expect_value_error([] { find_slice_preset("v3-9"); }, "v2-8, v2-32, v3-8");
  EXPECT_EQ(find_slice_preset("v5e-16").num_hosts, 2);
  // The first round's 14 presets keep their place; issue 16 added v4/v5p/v5e/v6e shapes after them.
  EXPECT_EQ(slice_presets().size(), 45u);
  EXPECT_EQ(slice_presets()[13].name, "v5p-8");
}

TEST(ChipSpec, HbmPerDevice) {
  constexpr std::int64_t GiB = std::int64_t{1} << 30;
  EXPECT_EQ(per_device_hbm_bytes(find_chip_spec("v2")), 8 * GiB);
  EXPECT_EQ(per_device_hbm_bytes(find_chip_spec("v3")), 16 * GiB);
  EXPECT_EQ(per_device_hbm_bytes(find_chip_spec("v4")), 32 * GiB);
  EXPECT_EQ(per_device_hbm_bytes(find_chip_spec("v5e")), 16 * GiB);
  EXPECT_EQ(per_device_hbm_bytes(find_chip_spec("v5p")), 95'000'000'000LL);
  EXPECT_EQ(find_chip_spec("v4").ici_torus_dims, 3);
  EXPECT_EQ(find_chip_spec("v3").ici_links_per_chip, 4);
  EXPECT_DOUBLE_EQ(find_chip_spec("v5p").bf16_tflops, 459.0);
  expect_value_error([] { find_chip_spec("v6"); }, "v2, v3, v4, v5e, v5p");
}

// ---- construction and lookups -----------------------------------------------------------------

Topology tiny() { return Topology({1, 1, 1, 2}, {{{0, 0, 0, 0}, {0, 0, 0, 1}}}); }

TEST(Topology, ConstructorValidation) {
  expect_value_error(
      [] {
        Topology({2, 2, 2}, {1, 1, 4}, {0, 0, 0, 0});
      },
      "`mesh_shape` must be a sequence of 4 positive entries; got `mesh_shape=[2 2 2]`");
  expect_value_error([] { Topology({2, 0, 1, 1}, {1, 1, 4}, {0, 0, 0, 0}); }, "4 positive entries");
  expect_value_error(
      [] {
        Topology({2, 2, 1, 1}, {4, 4}, std::vector<std::int32_t>(16));
      },
      "rank 3 int32 array with minor dimension equal to the `mesh_shape` rank (4); "
      "got device_coordinates.shape=(4, 4)");
  expect_value_error([] { Topology({2, 2, 1, 1}, {1, 4, 3}, std::vector<std::int32_t>(12)); }, "rank 3 int32");
  expect_value_error(
      [] {
        Topology({2, 2, 1, 1}, {1, 2, 4}, std::vector<std::int32_t>(4));
      },
      "has 4 values but shape (1, 2, 4) needs 8");
  expect_value_error([] { Topology({2, 2, 1, 1}, {-1, 2, 4}, {}); }, "invalid shape");
  expect_value_error([] { Topology({2, 2, 1, 1}, {{{0, -1, 0, 0}}}); }, "must be >= 0");
  expect_value_error([] { Topology({2, 2, 1, 1}, {{{0, 2, 0, 0}}}); }, "lies outside mesh_shape [2 2 1 1]");
  expect_value_error(
      [] {
        Topology({2, 2, 1, 1}, std::vector<std::vector<Coordinate>>{{{0, 0, 0, 0}}, {}});
      },
      "ragged");
  expect_value_error([] { Topology({4096, 4096, 1, 1}, {0, 0, 4}, {}); }, "positions");
}

TEST(Topology, MissingDevicesAndLookups) {
  // A degraded v3-8: chip (1,1) is gone, leaving one host of 6 devices.
  const Topology t({2, 2, 1, 2},
                   {{{0, 0, 0, 0}, {0, 0, 0, 1}, {1, 0, 0, 0}, {1, 0, 0, 1}, {0, 1, 0, 0}, {0, 1, 0, 1}}});
  const std::vector<Coordinate> missing = {{1, 1, 0, 0}, {1, 1, 0, 1}};
  EXPECT_EQ(t.missing_devices(), missing);
  EXPECT_EQ(t.task_ordinal_at_coordinates({1, 1, 0, 1}), -1);
  EXPECT_EQ(t.tpu_device_ordinal_at_coordinates({1, 1, 0, 0}), -1);
  EXPECT_EQ(t.tpu_device_name_at_coordinates({1, 1, 0, 0}), "/task:-1/device:TPU:-1");
  EXPECT_EQ(t.tpu_device_ordinal_at_coordinates({0, 1, 0, 1}), 5);
  expect_value_error([&] { t.task_ordinal_at_coordinates({2, 0, 0, 0}); }, "outside the mesh");
  expect_value_error([&] { t.tpu_device_ordinal_at_coordinates({0, 0, 0, -1}); }, "outside the mesh");
  expect_value_error([&] { t.device_coordinate(0, 6); }, "no device 6 on task 0");
  // Empty topology: everything missing.
  const Topology empty({1, 1, 1, 2}, {0, 0, 4}, {});
  EXPECT_EQ(empty.missing_devices().size(), 2u);
  EXPECT_EQ(Topology(empty.serialized()), empty);
}

// Issue 10, defect 7: TF's Python Topology keeps the last device silently, and DeviceAssignment.build then
// stacked every replica on one core. Two devices at one position are not a slice: rejected, from both
// constructors, naming the position and both devices.
TEST(Topology, DuplicateCoordinatesAreRejected) {
  expect_value_error(
      [] {
        Topology({1, 1, 1, 2}, {{{0, 0, 0, 0}, {0, 0, 0, 0}}});
      },
      "lists position [0 0 0 0] twice: task 0 device 0 and task 0 device 1");
  detail::TopologyProto proto{{1, 1, 1, 2}, 2, 1, {0, 0, 0, 1, 0, 0, 0, 1}};
  expect_value_error([&] { Topology{detail::serialize_topology_proto(proto)}; },
                     "lists position [0 0 0 1] twice: task 0 device 0 and task 1 device 0");
}

// Found by fuzz_topology_proto (UBSan): num_tasks * num_tpu_devices_per_task * 4 overflowed int64.
TEST(Topology, HugeDeviceCountsAreRejectedWithoutOverflow) {
  const std::int32_t big = std::numeric_limits<std::int32_t>::max();
  detail::TopologyProto proto{{1, 1, 1, 1}, big, big, {0, 0, 0, 0}};
  expect_value_error([&] { Topology{detail::serialize_topology_proto(proto)}; }, "must have shape num_tasks");
  expect_value_error(
      [&] {
        Topology({1, 1, 1, 1}, {big, big, 4}, {0, 0, 0, 0});
      },
      "has 4 values but shape (2147483647, 2147483647, 4) needs 18446744056529682436");
}

TEST(DeviceNames, WithAndWithoutJob) {
  EXPECT_EQ(tpu_device_name("worker", 3, 5), "/job:worker/task:3/device:TPU:5");
  EXPECT_EQ(tpu_device_name(std::nullopt, 3, 5), "/task:3/device:TPU:5");
  EXPECT_EQ(cpu_device_name("worker", 2), "/job:worker/task:2/device:CPU:0");
  EXPECT_EQ(cpu_device_name(std::nullopt, 2), "/task:2/device:CPU:0");
}

// ---- wire format ------------------------------------------------------------------------------

TEST(TopologyProto, HandBuiltBytes) {
  const Bytes expected = {0x0A, 4, 1, 1, 1, 2,               // mesh_shape, packed
                          0x10, 1,                           // num_tasks
                          0x18, 2,                           // num_tpu_devices_per_task
                          0x22, 8, 0, 0, 0, 0, 0, 0, 0, 1};  // device_coordinates, packed
  EXPECT_EQ(tiny().serialized(), bytes(expected));
  EXPECT_EQ(Topology(bytes(expected)), tiny());
}

TEST(TopologyProto, NegativeInt32IsATenByteVarint) {
  detail::TopologyProto proto{{1, 1, 1, 1}, -1, 1, {}};
  const std::string wire = detail::serialize_topology_proto(proto);
  const Bytes expected = {0x0A, 4,    1,    1,    1,    1,    0x10, 0xFF, 0xFF, 0xFF,
                          0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x18, 0x01};
  EXPECT_EQ(wire, bytes(expected));
  EXPECT_EQ(detail::parse_topology_proto(wire).num_tasks, -1);
  expect_value_error([&] { Topology{wire}; }, "`num_tasks` must be >= 0; got -1");
  proto = {{1, 1, 1, 1}, 1, -2, {}};
  expect_value_error([&] { Topology{detail::serialize_topology_proto(proto)}; },
                     "`num_tpu_devices_per_task` must be >= 0; got -2");
  proto = {{1, 1, 1, 1}, 1, 1, {0, 0, -5, 0}};
  expect_value_error([&] { Topology{detail::serialize_topology_proto(proto)}; }, "`device_coordinates` must be >= 0");
}

TEST(TopologyProto, SemanticErrors) {
  expect_value_error([] { Topology(std::string()); },
                     "`mesh_shape` must be a vector of size 4 with positive entries; got []");
  detail::TopologyProto proto{{2, 2, 1}, 1, 1, {0, 0, 0}};
  expect_value_error([&] { Topology{detail::serialize_topology_proto(proto)}; }, "got [2 2 1]");
  proto = {{2, 2, 1, 2}, 1, 2, {0, 0, 0, 0}};
  expect_value_error([&] { Topology{detail::serialize_topology_proto(proto)}; },
                     "must have shape num_tasks (1) * num_tpu_devices_per_task (2) * len(mesh_shape) (4); got shape 4");
  proto = {{2, 2, 1, 2}, 1, 1, {0, 0, 1, 0}};
  expect_value_error([&] { Topology{detail::serialize_topology_proto(proto)}; }, "outside mesh_shape");
}

TEST(TopologyProto, AcceptsUnpackedFieldsUnknownFieldsAndLastScalarWins) {
  const Bytes wire = {
      0x08, 1,    0x08, 1,                          // mesh_shape[0..1], unpacked
      0x0A, 2,    1,    2,                          // mesh_shape[2..3], packed
      0x10, 7,                                      // num_tasks = 7 ...
      0x10, 1,                                      // ... overridden by 1
      0x18, 2,                                      // num_tpu_devices_per_task
      0x2A, 3,    'a',  'b',  'c',                  // unknown length-delimited field 5
      0x30, 0x96, 0x01,                             // unknown varint field 6
      0x39, 1,    2,    3,    4,    5, 6,    7, 8,  // unknown fixed64 field 7
      0x45, 1,    2,    3,    4,                    // unknown fixed32 field 8
      0x4B, 0x50, 0x05, 0x4C,                       // unknown group 9 holding varint field 10
      0x22, 4,    0,    0,    0,    0,              // device_coordinates[0], packed
      0x20, 0,    0x20, 0,    0x20, 0, 0x20, 1,     // device_coordinates[1], unpacked
  };
  const Topology t(bytes(wire));
  EXPECT_EQ(t, tiny());
  EXPECT_EQ(t.serialized(), bytes(wire));  // as given, like TF
}

TEST(TopologyProto, MalformedBytesNameTheProblem) {
  const std::vector<std::pair<Bytes, std::string>> cases = {
      {{0x08}, "truncated varint (mesh_shape)"},
      {{0x08, 0x80}, "truncated varint"},
      {{0x80}, "truncated varint (field tag)"},
      {{0x0A, 5, 1, 1}, "runs past the end"},
      {{0x0A, 0x80}, "truncated varint (packed length)"},
      {{0x0A, 1, 0x80}, "truncated varint (mesh_shape)"},
      {{0x2A, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F}, "runs past the end"},
      {{0x12, 1, 0}, "field 2 (num_tasks) has wire type 2, expected varint"},
      {{0x1D, 0, 0, 0, 0}, "field 3 (num_tpu_devices_per_task) has wire type 5"},
      {{0x0D, 0, 0, 0, 0}, "field 1 (mesh_shape) has wire type 5, expected varint or packed"},
      {{0x21, 0, 0, 0, 0, 0, 0, 0, 0}, "field 4 (device_coordinates) has wire type 1"},
      {{0x0E}, "invalid wire type 6"},
      {{0x0F}, "invalid wire type 7"},
      {{0x00}, "invalid field number 0"},
      {{0x39, 1, 2}, "fixed64 field of 8 bytes"},
      {{0x45, 1}, "fixed32 field of 4 bytes"},
      {{0x4B, 0x50, 0x05}, "unterminated group 9"},
      {{0x4B, 0x54}, "group 9 closed by end-group 10"},
      {{0x4C}, "unexpected end-group 9"},
      {{0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}, "longer than 10 bytes"},
      {{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}, "invalid field number"},
  };
  for (const auto& [wire, needle] : cases) {
    SCOPED_TRACE(needle);
    expect_value_error([&] { Topology{bytes(wire)}; }, needle);
  }
  // Deeply nested groups are refused, not recursed into without bound.
  Bytes deep(200, 0x4B);
  expect_value_error([&] { Topology{bytes(deep)}; }, "nested too deeply");
}

TEST(TopologyProto, RandomBytesNeverCrash) {
  std::mt19937 rng(1234);
  int parsed = 0;
  for (int i = 0; i < 5000; ++i) {
    std::string wire(rng() % 48, '\0');
    for (char& c : wire) c = static_cast<char>(rng());
    // Bias some inputs towards plausible tags so the deeper paths run too.
    if (i % 2 == 0 && !wire.empty()) wire[0] = static_cast<char>(0x08 + 8 * (rng() % 5) + rng() % 3);
    try {
      const Topology t(wire);
      EXPECT_EQ(t.serialized(), wire);
      ++parsed;
    } catch (const ValueError&) {
    }
  }
  RecordProperty("parsed", parsed);
}

}  // namespace
}  // namespace tpustrategy
