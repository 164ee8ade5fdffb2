// The client CPU of a multi-host slice: the program is the client of the slice's worker tasks, as TF's is of a
// TPU pod after experimental_connect_to_cluster, so values made outside any device scope live on its own
// "/job:localhost/replica:0/task:0/device:CPU:0" while the hosts' CPUs stay "/job:worker/...".
#include <gtest/gtest.h>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/runtime/device_registry.h"
#include "tpustrategy/runtime/slice_devices.h"

namespace tpustrategy {
namespace {

constexpr const char* kClientCpu = "/job:localhost/replica:0/task:0/device:CPU:0";

class ClientDevice : public ::testing::Test {
 protected:
  void SetUp() override { activate_slice("v4-32"); }
  void TearDown() override { activate_slice("v3-8"); }
  DeviceRegistry& registry() { return DeviceRegistry::global(); }
};

TEST_F(ClientDevice, IsTheDefaultAndListedFirst) {
  EXPECT_EQ(registry().default_cpu()->name(), kClientCpu);
  EXPECT_EQ(registry().devices("CPU").front(), registry().default_cpu());
  EXPECT_EQ(registry().local_devices(""), std::vector<DevicePtr>{registry().default_cpu()});
  EXPECT_EQ(registry().local_job(), "localhost");
  EXPECT_EQ(registry().job(), "worker");
}

TEST_F(ClientDevice, HostCpusStayTheWorkers) {
  for (int task = 0; task < 4; ++task)
    EXPECT_EQ(registry().host_cpu(task)->name(), canonical_device_name("worker", task, "CPU", 0));
}

TEST_F(ClientDevice, AJobDecidesBetweenTheTwoCpuZerosAndNoJobMeansTheClient) {
  EXPECT_EQ(registry().find("CPU:0")->name(), kClientCpu);
  EXPECT_EQ(registry().find("/device:CPU:0")->name(), kClientCpu);
  EXPECT_EQ(registry().find("/job:localhost/replica:0/task:0/device:CPU:0")->name(), kClientCpu);
  EXPECT_EQ(registry().find("/job:worker/replica:0/task:0/device:CPU:0"), registry().host_cpu(0));
  EXPECT_EQ(registry().find("/job:worker/task:1"), registry().host_cpu(1));
  EXPECT_EQ(registry().find("TPU:2")->name(), "/job:worker/replica:0/task:0/device:TPU:2");
}

TEST_F(ClientDevice, ATaskWithoutAJobIsTheClientsJobAsTf) {
  // TF 2.21: "/task:1/device:CPU:0" is task 1 of job localhost, which a client lacks: InvalidArgumentError.
  try {
    registry().find("/task:1/device:CPU:0");
    FAIL() << "a jobless task 1 resolved";
  } catch (const InvalidArgumentError& e) {
    EXPECT_STREQ(e.what(), "/job:localhost/replica:0/task:1/device:CPU:0 unknown device.");
  }
  EXPECT_THROW(registry().find("/replica:1/device:CPU:0"), InvalidArgumentError);
  EXPECT_THROW(registry().find("/job:worker/task:4"), InvalidArgumentError);
  EXPECT_EQ(registry().find("/task:0/device:CPU:0")->name(), kClientCpu);
}

TEST_F(ClientDevice, LogicalDevicesAreTheClients) {
  registry().set_logical_cpu_count(3);
  auto local = registry().local_devices("CPU");
  ASSERT_EQ(local.size(), 3u);
  EXPECT_EQ(local[2]->name(), "/job:localhost/replica:0/task:0/device:CPU:2");
  EXPECT_EQ(registry().find("CPU:1")->name(), "/job:localhost/replica:0/task:0/device:CPU:1");
  EXPECT_EQ(registry().host_cpu(0)->name(), "/job:worker/replica:0/task:0/device:CPU:0");
  EXPECT_THROW(registry().find("/job:worker/replica:0/task:0/device:CPU:7"), ValueError)
      << "a worker's logical device is not created by the client";
}

TEST_F(ClientDevice, JoiningTheClusterAsATaskDropsTheClient) {
  registry().set_job("worker");
  EXPECT_EQ(registry().default_cpu(), registry().host_cpu(0));
  EXPECT_EQ(registry().devices("CPU").size(), 4u);
  EXPECT_EQ(registry().find("CPU:0"), registry().host_cpu(0));
}

}  // namespace
}  // namespace tpustrategy
