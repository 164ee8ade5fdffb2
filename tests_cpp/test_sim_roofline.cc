// Chip figures as data and the per-op roofline of the cost model (cpp/tpustrategy/sim/roofline.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/sim/roofline.h"
#include "tpustrategy/tpu/chip_spec.h"

namespace tpustrategy::sim {
namespace {

TEST(ChipFigures, EveryGenerationIsComplete) {
  for (const ChipSpec& c : chip_specs()) {
    SCOPED_TRACE(c.name);
    EXPECT_GT(c.bf16_tflops, 0);
    EXPECT_GE(c.int8_tops, c.bf16_tflops);   // int8 is never slower than bf16
    EXPECT_EQ(c.f32_tflops, c.bf16_tflops);  // XLA's default precision: one bf16 pass
    EXPECT_GT(c.hbm_gbps, 0);
    EXPECT_EQ(c.ici_links_per_chip, 2 * c.ici_torus_dims);
    EXPECT_GT(c.ici_link_gbps, 0);
    EXPECT_DOUBLE_EQ(c.ici_hop_latency_us, 1.0);  // scaling book part 3: "typically around 1us"
    EXPECT_GT(c.pcie_gbps, 0);
    EXPECT_GT(c.dcn_gbps, 0);
    EXPECT_TRUE(c.chips_per_host == 4 || c.chips_per_host == 8);
    // One TF device per TensorCore, or one per megacore chip (v4/v5p: two TensorCores).
    EXPECT_TRUE(c.cores_per_chip == c.tensorcores_per_chip || (c.cores_per_chip == 1 && c.tensorcores_per_chip == 2));
    for (int i = 0; i < 3; ++i) EXPECT_LE(c.max_slice_shape[i], c.pod_shape[i]);
  }
  EXPECT_EQ(chip_specs().size(), 6u);
}

TEST(ChipFigures, PublishedValues) {
  // Cloud TPU system-architecture pages (cloud.google.com/tpu/docs/v5e, v5p, v6e) and the scaling book's tables.
  const ChipSpec& v5e = find_chip_spec("v5e");
  EXPECT_DOUBLE_EQ(v5e.bf16_tflops, 197);
  EXPECT_DOUBLE_EQ(v5e.int8_tops, 394);
  EXPECT_DOUBLE_EQ(v5e.ici_link_gbps * 2 * v5e.ici_links_per_chip, 400);  // "bidirectional ICI 400 GBps per chip"
  const ChipSpec& v5p = find_chip_spec("v5p");
  EXPECT_DOUBLE_EQ(v5p.ici_link_gbps * 2 * v5p.ici_links_per_chip, 1200);
  EXPECT_EQ(v5p.pod_shape, (std::array<std::int32_t, 3>{16, 20, 28}));
  EXPECT_EQ(v5p.max_slice_shape, (std::array<std::int32_t, 3>{16, 16, 24}));
  EXPECT_DOUBLE_EQ(v5p.dcn_gbps * 8, 50);  // 50 Gbit/s per chip
  const ChipSpec& v6e = find_chip_spec("v6e");
  EXPECT_DOUBLE_EQ(v6e.bf16_tflops, 918);
  EXPECT_DOUBLE_EQ(v6e.int8_tops, 1836);
  EXPECT_DOUBLE_EQ(v6e.hbm_gbps, 1638);
  EXPECT_DOUBLE_EQ(v6e.ici_link_gbps * 2 * v6e.ici_links_per_chip, 800);
  EXPECT_DOUBLE_EQ(v6e.pcie_gbps, 32);  // scaling book: "Trillium (TPU v6e) has 32GB/s"
  EXPECT_EQ(per_device_hbm_bytes(v6e), std::int64_t{32} << 30);
  EXPECT_DOUBLE_EQ(v5e.dcn_gbps * 8 * 8, 200);  // 2 x 100 Gbit/s NICs per 8-chip host
}

TEST(Wraparound, RulesPerGeneration) {
  using A = std::array<std::int32_t, 3>;
  using W = std::array<bool, 3>;
  const ChipSpec& v4 = find_chip_spec("v4");
  const ChipSpec& v5p = find_chip_spec("v5p");
  const ChipSpec& v5e = find_chip_spec("v5e");
  const ChipSpec& v6e = find_chip_spec("v6e");
  const ChipSpec& v3 = find_chip_spec("v3");
  // v4/v5p: whole 4x4x4 cubes wrap on every axis; anything smaller (2x2x4) or not made of cubes wraps nowhere.
  EXPECT_EQ(wraparound_axes(v4, A{4, 4, 4}), (W{true, true, true}));
  EXPECT_EQ(wraparound_axes(v4, A{4, 4, 8}), (W{true, true, true}));
  EXPECT_EQ(wraparound_axes(v5p, A{16, 16, 24}), (W{true, true, true}));
  EXPECT_EQ(wraparound_axes(v5p, A{16, 20, 28}), (W{true, true, true}));
  EXPECT_EQ(wraparound_axes(v4, A{2, 2, 4}), (W{false, false, false}));
  EXPECT_EQ(wraparound_axes(v5p, A{2, 4, 4}), (W{false, false, false}));
  EXPECT_EQ(wraparound_axes(v4, A{2, 2, 1}), (W{false, false, false}));
  // v5e/v6e: only axes of 16 ("A TPU v5e 8x16 will have a wraparound on the longer axis", scaling book part 2).
  EXPECT_EQ(wraparound_axes(v5e, A{8, 16, 1}), (W{false, true, false}));
  EXPECT_EQ(wraparound_axes(v6e, A{16, 16, 1}), (W{true, true, false}));
  EXPECT_EQ(wraparound_axes(v6e, A{4, 8, 1}), (W{false, false, false}));
  // v2/v3: an axis spanning the whole pod.
  EXPECT_EQ(wraparound_axes(v3, A{32, 32, 1}), (W{true, true, false}));
  EXPECT_EQ(wraparound_axes(v3, A{4, 4, 1}), (W{false, false, false}));
}

TEST(Roofline, ComputeBoundMatmul) {
  const ChipSpec& v5e = find_chip_spec("v5e");
  // bf16[8192, 8192] @ bf16[8192, 8192]: 2 n^3 FLOPs, 3 n^2 x 2 bytes.
  const double n = 8192, flops = 2 * n * n * n, bytes = 3 * n * n * 2;
  const OpCost c = op_time(v5e, OpUnit::kMxu, flops, bytes, MxuDType::kBFloat16, CostParams::nominal());
  EXPECT_TRUE(c.compute_bound);
  EXPECT_DOUBLE_EQ(c.seconds, flops / 197e12);
  EXPECT_DOUBLE_EQ(c.memory_seconds, bytes / 819e9);
  // int8 doubles the rate on v5e; the same op is then twice as fast.
  const OpCost i8 = op_time(v5e, OpUnit::kMxu, flops, bytes / 2, MxuDType::kInt8, CostParams::nominal());
  EXPECT_NEAR(i8.seconds, c.seconds / 2, 1e-12);
}

TEST(Roofline, ScalingBookCrossoverOnV5e) {
  // Scaling book part 2, question 4: int8[16384, 4096] x int8[B, 4096] on one v5e is FLOPs-bound for B > ~271
  // (T_math = 2*4096*16384*B / 3.94e14, T_comms = (6.7e7 + 2e4 B) / 8.1e11).
  const ChipSpec& v5e = find_chip_spec("v5e");
  auto bound = [&](double b) {
    const double flops = 2 * 4096.0 * 16384 * b, bytes = 16384.0 * 4096 + 4096 * b + 16384 * b;
    return op_time(v5e, OpUnit::kMxu, flops, bytes, MxuDType::kInt8, CostParams::nominal()).compute_bound;
  };
  EXPECT_FALSE(bound(240));
  EXPECT_TRUE(bound(300));
}

TEST(Roofline, VectorOpsAreMemoryBoundAndOverheadIsAdded) {
  const ChipSpec& v3 = find_chip_spec("v3");
  const OpCost add = op_time(v3, OpUnit::kVector, 1e12, 3 * 4e6, MxuDType::kFloat32);
  EXPECT_EQ(add.compute_seconds, 0);
  EXPECT_FALSE(add.compute_bound);
  // A v3 device is half a chip: half the HBM bandwidth.
  EXPECT_DOUBLE_EQ(add.memory_seconds, 12e6 / 450e9);
  EXPECT_DOUBLE_EQ(add.seconds, add.memory_seconds + 1e-6);
  EXPECT_DOUBLE_EQ(peak_flops_per_device(v3, MxuDType::kBFloat16), 61.5e12);
  EXPECT_DOUBLE_EQ(peak_flops_per_device(find_chip_spec("v4"), MxuDType::kBFloat16), 275e12);  // megacore
}

TEST(Roofline, BadInputIsAValueError) {
  const ChipSpec& v4 = find_chip_spec("v4");
  EXPECT_THROW(op_time(v4, OpUnit::kMxu, -1, 0, MxuDType::kBFloat16), ValueError);
  EXPECT_THROW(op_time(v4, OpUnit::kMxu, 0, std::nan(""), MxuDType::kBFloat16), ValueError);
  EXPECT_THROW(op_time(v4, OpUnit::kMxu, std::numeric_limits<double>::infinity(), 0, MxuDType::kBFloat16), ValueError);
  CostParams bad;
  bad.hbm_efficiency = 0;
  try {
    op_time(v4, OpUnit::kVector, 0, 1, MxuDType::kBFloat16, bad);
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("hbm_efficiency"), std::string::npos) << e.what();
  }
  EXPECT_EQ(mxu_dtype_from_name("float16"), MxuDType::kBFloat16);
  EXPECT_EQ(mxu_dtype_from_name("int8"), MxuDType::kInt8);
  EXPECT_THROW(mxu_dtype_from_name("complex64"), ValueError);
}

}  // namespace
}  // namespace tpustrategy::sim
