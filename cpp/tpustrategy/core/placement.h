#pragma once
// Where the code running on this thread places new tensors. This is the core's view of the
// per-replica context (runtime/replica_context.h extends it with the replica's id, mode and the
// slots of later layers): one thread-local pointer, switched by the scheduler at every greenlet
// switch, and read by every allocation. Core knows no registry: the default device (host CPU 0)
// is supplied by whoever owns the devices.
#include <memory>

#include "tpustrategy/core/device.h"

namespace tpustrategy {

struct PlacementContext {
  DevicePtr device;  // null = the default device
  int logical_core = 0;
  // The gradient tapes recording in this context (an autodiff TapeStack, created there on first use):
  // here, not in the runtime's extension, so autodiff reaches it without depending on the runtime, and
  // each replica greenlet records on its own stack, switched with its context.
  std::shared_ptr<void> tape_stack;
  // What a front end sets aside while this context is not bound (the Python bindings' chain of pybind11 call
  // frames, bindings/call_frames.h): a slot here, not a map keyed by context, because the scheduler reads and
  // writes it at every greenlet switch and a map of 2048 replicas' entries misses the cache each time.
  void* front_end_frames = nullptr;
};

// The context bound to this thread, or null when none is.
PlacementContext* bound_placement();
// The context bound to this thread; when none is, the thread's default context (from the provider
// below, else a core-owned one) is bound first, so what a thread records before and after its first
// explicit binding lands in one place.
PlacementContext& current_placement();
// The runtime supplies the thread's default context (a ReplicaContext) so core never binds another type.
using ThreadDefaultContextFn = PlacementContext* (*)();
void set_thread_default_context_provider(ThreadDefaultContextFn provider);
// Binds `context` (not owned; null unbinds) to this thread.
void bind_placement(PlacementContext* context);

// The device a new tensor lands on: `requested` if given, else the bound context's device, else the
// default device.
DevicePtr placement_device(DevicePtr requested = nullptr);

// The default device, supplied by the device registry. Until one is set, new tensors are charged to
// no device.
using DefaultDeviceFn = DevicePtr (*)();
void set_default_device_provider(DefaultDeviceFn provider);

}  // namespace tpustrategy
