// Tensors, dtypes, devices, HBM accounting and the device registry.
#include <gtest/gtest.h>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/core/tensor.h"
#include "tpustrategy/runtime/device_registry.h"
#include "tpustrategy/runtime/slice_devices.h"

namespace tpustrategy {
namespace {

DevicePtr make_core(std::int64_t capacity) {
  return std::make_shared<Device>("/job:worker/replica:0/task:0/device:TPU:0", "TPU", 0, 0,
                                  std::array<int, 4>{0, 0, 0, 0}, capacity);
}

TEST(DType, NamesSizesAndParsing) {
  EXPECT_EQ(dtype_size(DType::kBFloat16), 2u);
  EXPECT_EQ(dtype_size(DType::kFloat16), 2u);
  EXPECT_EQ(dtype_size(DType::kInt64), 8u);
  EXPECT_EQ(dtype_size(DType::kBool), 1u);
  for (DType d : kAllDTypes) EXPECT_EQ(dtype_from_name(dtype_name(d)), d);
  EXPECT_EQ(dtype_from_name("double"), DType::kFloat64);
  EXPECT_EQ(dtype_from_name("half"), DType::kFloat16);
  EXPECT_EQ(dtype_from_name("complex128"), DType::kComplex128);
  EXPECT_THROW(dtype_from_name("qint8"), TypeError);  // TF's quantized dtypes are not dtypes here
  EXPECT_TRUE(is_floating(DType::kBFloat16));
  EXPECT_FALSE(is_floating(DType::kInt32));
}

TEST(DType, BFloat16AndHalfRoundToNearestEven) {
  // 1 + 2^-8 is halfway between bfloat16 neighbours 1 and 1 + 2^-7: ties to even → 1.
  EXPECT_EQ(static_cast<float>(Eigen::bfloat16(1.0f + 1.0f / 256)), 1.0f);
  // 1 + 3·2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: ties to even → 1 + 2^-6.
  EXPECT_EQ(static_cast<float>(Eigen::bfloat16(1.0f + 3.0f / 256)), 1.0f + 1.0f / 64);
  EXPECT_EQ(static_cast<float>(Eigen::half(65504.0f)), 65504.0f);
  EXPECT_TRUE(std::isinf(static_cast<float>(Eigen::half(65520.0f))));
}

TEST(Shape, TextStridesAxes) {
  EXPECT_EQ(shape_to_string({}), "()");
  EXPECT_EQ(shape_to_string({3}), "(3,)");
  EXPECT_EQ(shape_to_string({4, 1}), "(4, 1)");
  EXPECT_EQ(row_major_strides({2, 3, 4}), (std::vector<std::int64_t>{12, 4, 1}));
  EXPECT_EQ(normalize_axis(-1, 3, "t"), 2);
  EXPECT_THROW(normalize_axis(3, 3, "t"), InvalidArgumentError);
  EXPECT_THROW(check_shape({2, -1}, "t"), ValueError);
  EXPECT_THROW(check_shape({1 << 30, 1 << 30, 1 << 30}, "t"), ValueError);
}

TEST(Shape, AZeroDimensionDoesNotHideOverflowingStrides) {
  constexpr std::int64_t kHuge = std::int64_t{1} << 40;
  // No elements, but the outer stride would be 2^80.
  EXPECT_THROW(check_shape({0, kHuge, kHuge}, "t"), ValueError);
  EXPECT_THROW(row_major_strides({0, kHuge, kHuge}), ValueError);
  // A zero inside zeroes every stride left of it: nothing overflows.
  EXPECT_NO_THROW(check_shape({kHuge, kHuge, 0}, "t"));
  EXPECT_EQ(row_major_strides({kHuge, kHuge, 0}), (std::vector<std::int64_t>{0, 0, 1}));
  EXPECT_NO_THROW(check_shape({kHuge, 0, 4}, "t"));
}

TEST(Tensor, FromVectorRoundTripAndReshape) {
  auto core = make_core(1 << 20);
  Tensor t = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3}, core);
  EXPECT_EQ(t.nbytes(), 24);
  EXPECT_EQ(t.device(), core);
  EXPECT_EQ(t.to_vector<double>(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  Tensor r = t.reshaped({3, 2});
  EXPECT_EQ(r.raw_data(), t.raw_data()) << "reshape shares the buffer";
  EXPECT_THROW(t.reshaped({4}), InvalidArgumentError);
  EXPECT_THROW(t.data<int>(), InvalidArgumentError);
}

TEST(Hbm, ChargesCurrentAndPeakAndReleases) {
  auto core = make_core(1000);
  {
    Tensor a = Tensor::empty(DType::kFloat32, {100}, core);  // 400 B
    EXPECT_EQ(core->memory_info().current, 400);
    {
      Tensor b = Tensor::empty(DType::kFloat64, {50}, core);  // 400 B
      EXPECT_EQ(core->memory_info().current, 800);
    }
    EXPECT_EQ(core->memory_info().current, 400);
    EXPECT_EQ(core->memory_info().peak, 800);
  }
  EXPECT_EQ(core->memory_info().current, 0);
  core->reset_peak();
  EXPECT_EQ(core->memory_info().peak, 0);
}

TEST(Hbm, ExhaustionThrowsNamingCoreAndLeavesStateIntact) {
  auto core = make_core(1000);
  Tensor a = Tensor::empty(DType::kFloat32, {200}, core);  // 800 B
  try {
    Tensor::empty(DType::kFloat32, {100}, core);
    FAIL() << "expected ResourceExhaustedError";
  } catch (const ResourceExhaustedError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("TPU:0"), std::string::npos) << message;
    EXPECT_NE(message.find("400 bytes"), std::string::npos) << message;
    EXPECT_NE(message.find("800 B"), std::string::npos) << message;
  }
  EXPECT_EQ(core->memory_info().current, 800);
  EXPECT_EQ(core->memory_info().peak, 800);
}

TEST(Hbm, CapacityCanBeLoweredButNotBelowUse) {
  auto core = make_core(1000);
  Tensor a = Tensor::empty(DType::kFloat32, {100}, core);
  EXPECT_THROW(core->set_capacity(399), ValueError);
  core->set_capacity(400);
  EXPECT_THROW(Tensor::empty(DType::kBool, {1}, core), ResourceExhaustedError);
  core->set_capacity(core->default_capacity());
  EXPECT_NO_THROW(Tensor::empty(DType::kBool, {1}, core));
}

TEST(DeviceSpec, ParsesFullAndPartialNames) {
  auto s = parse_device_spec("/job:worker/replica:0/task:2/device:TPU:7");
  EXPECT_EQ(*s.job, "worker");
  EXPECT_EQ(*s.task, 2);
  EXPECT_EQ(*s.type, "TPU");
  EXPECT_EQ(*s.index, 7);
  auto p = parse_device_spec("cpu:0");
  EXPECT_EQ(*p.type, "CPU");
  EXPECT_FALSE(p.task.has_value());
  EXPECT_THROW(parse_device_spec("/device:XPU:0"), ValueError);
  EXPECT_THROW(parse_device_spec("TPU:x"), ValueError);
  EXPECT_THROW(parse_device_spec("garbage"), ValueError);
}

TEST(Slice, V38HasEightCoresOneHostAndTfNames) {
  activate_slice("v3-8");
  auto tpus = DeviceRegistry::global().devices("TPU");
  ASSERT_EQ(tpus.size(), 8u);
  EXPECT_EQ(tpus[3]->name(), "/job:localhost/replica:0/task:0/device:TPU:3");  // one host: TF's local job
  EXPECT_EQ(tpus[2]->coordinates(), (std::array<int, 4>{1, 0, 0, 0}));
  EXPECT_EQ(tpus[4]->coordinates(), (std::array<int, 4>{0, 1, 0, 0}));
  EXPECT_EQ(tpus[0]->memory_info().capacity, std::int64_t{16} << 30);
  EXPECT_EQ(DeviceRegistry::global().find("TPU:5"), tpus[5]);
  EXPECT_EQ(DeviceRegistry::global().find("/device:CPU:0")->type(), "CPU");
  EXPECT_THROW(DeviceRegistry::global().find("TPU:8"), ValueError);
}

TEST(Slice, OneHostHasNoWorkerJobAsTf) {
  // TF 2.21 on one host (job localhost): any name of another job is InvalidArgumentError "<full name> unknown
  // device.", completed with replica 0, task 0 and CPU:0 where the name leaves them out.
  activate_slice("v3-8");
  for (const auto& [name, full] :
       {std::pair{"/job:worker/replica:0/task:0/device:CPU:0", "/job:worker/replica:0/task:0/device:CPU:0"},
        std::pair{"/job:worker", "/job:worker/replica:0/task:0/device:CPU:0"},
        std::pair{"/job:worker/device:TPU:3", "/job:worker/replica:0/task:0/device:TPU:3"}}) {
    try {
      DeviceRegistry::global().find(name);
      ADD_FAILURE() << name << " resolved";
    } catch (const InvalidArgumentError& e) {
      EXPECT_EQ(std::string(e.what()), std::string(full) + " unknown device.");
    }
  }
  EXPECT_EQ(DeviceRegistry::global().find("/job:localhost/replica:0/task:0/device:TPU:3")->index(), 3);
}

TEST(Slice, V432HasFourHostsAndPerTaskOrdinals) {
  activate_slice("v4-32");
  auto tpus = DeviceRegistry::global().devices("TPU");
  ASSERT_EQ(tpus.size(), 16u);
  EXPECT_EQ(DeviceRegistry::global().devices("CPU").size(), 5u) << "the client's CPU and one per host";
  EXPECT_EQ(tpus[4]->name(), "/job:worker/replica:0/task:1/device:TPU:0");
  EXPECT_EQ(tpus[4]->coordinates()[2], 1) << "host t holds the z = t tray";
  EXPECT_EQ(DeviceRegistry::global().find("/job:worker/task:3/device:TPU:2")->task(), 3);
  EXPECT_EQ(DeviceRegistry::global().find("TPU:1")->task(), 0) << "unqualified names mean task 0";
  EXPECT_EQ(tpus[0]->memory_info().capacity, std::int64_t{32} << 30);
  activate_slice("v3-8");
}

TEST(Slice, UnknownPresetListsThePresets) {
  try {
    activate_slice("v9-1");
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("v3-8"), std::string::npos) << e.what();
  }
}

TEST(Placement, DeviceScopeRoutesAllocations) {
  activate_slice("v3-8");
  auto core = DeviceRegistry::global().find("TPU:6");
  auto before = core->memory_info().current;
  {
    DeviceScope scope(core);
    Tensor t = Tensor::zeros(DType::kFloat32, {256});
    EXPECT_EQ(t.device(), core);
    EXPECT_EQ(core->memory_info().current, before + 1024);
  }
  EXPECT_EQ(current_device(), nullptr);
  Tensor host = Tensor::zeros(DType::kFloat32, {1});
  EXPECT_EQ(host.device()->type(), "CPU");
}

}  // namespace
}  // namespace tpustrategy
