#include "tpustrategy/collectives/mpi/observed_mpi_communicator.h"

#include <string>
#include <utility>
#include <vector>

#include "tpustrategy/collectives/observing_communicator.h"

namespace tpustrategy::detail {
namespace {

// The one observing wrapper, with the MPI members forwarded and MPI subgroups kept MPI.
class ObservedMpiCommunicator final : public ObservingCommunicator<MpiCommunicator> {
 public:
  using ObservingCommunicator::ObservingCommunicator;

  bool abort(int rank, std::string_view message) noexcept override { return inner()->abort(rank, message); }
  double timeout_seconds() const override { return inner()->timeout_seconds(); }
  void set_timeout_seconds(double seconds) override { inner()->set_timeout_seconds(seconds); }
  int world_rank_of_process(int process_index) const override { return inner()->world_rank_of_process(process_index); }

 protected:
  // MPI subgroups are observed with members 0 .. size-1 of the subgroup.
  std::shared_ptr<Communicator> observe_subgroup(std::shared_ptr<Communicator> group,
                                                 std::vector<int> /*members*/) const override {
    auto mpi = std::dynamic_pointer_cast<MpiCommunicator>(group);
    return mpi ? observed_mpi(std::move(mpi)) : observed(std::move(group));
  }
};

}  // namespace

std::shared_ptr<MpiCommunicator> observed_mpi(std::shared_ptr<MpiCommunicator> backend) {
  if (!backend || dynamic_cast<NotifiesObservers*>(backend.get()) != nullptr) return backend;
  return std::make_shared<ObservedMpiCommunicator>(std::move(backend));
}

}  // namespace tpustrategy::detail
