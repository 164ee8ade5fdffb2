#pragma once
// pybind11 keeps, per thread, a stack of call frames ("loader_life_support", one per bound call in
// progress, linked by `parent`) and checks that they end in LIFO order. Replica greenlets share one thread
// and may switch while inside bound calls (a replica collective's gradient runs inside Tape.gradient), so
// one LIFO stack per thread does not hold: each context keeps its own chain, and binding a context (the
// scheduler does it before every switch into a replica and when the driver takes over again) swaps chains.
// pybind11 offers no accessor for the two private members used here; they are reached through the rule
// that explicit template instantiations ignore access (C++20 [temp.spec.general]/6). Checked at compile
// time: a pybind11 without them fails to build rather than misbehave.
#include <pybind11/pybind11.h>

#include "tpustrategy/core/placement.h"

namespace tpustrategy::bindings::call_frames {

using Frame = pybind11::detail::loader_life_support;

template <typename Tag, typename Tag::type Member>
struct Expose {
  friend typename Tag::type get(Tag) { return Member; }
};
struct TopOfStack {
  using type = Frame*& (*)();
  friend type get(TopOfStack);
};
struct ParentOf {
  using type = Frame* Frame::*;
  friend type get(ParentOf);
};
template struct Expose<TopOfStack, &Frame::tls_current_frame>;
template struct Expose<ParentOf, &Frame::parent>;

// The chains of the contexts not bound now, each in its context's slot (the thread with no context bound has a
// slot of its own): keeps `chain` as `from`'s and returns `to`'s.
inline Frame* exchange_chain(PlacementContext* from, Frame* chain, PlacementContext* to) {
  thread_local void* unbound = nullptr;
  (from != nullptr ? from->front_end_frames : unbound) = chain;
  return static_cast<Frame*>(to != nullptr ? to->front_end_frames : unbound);
}

// Called from inside a bound call (whose own frame is on top) that switches the bound context from `from`
// to `to`: the caller's chain is kept as `from`'s, and the call returns into `to`'s chain (empty for a
// context not seen before, as a replica that has not started).
inline void switch_chain(PlacementContext* from, PlacementContext* to) {
  Frame* own = get(TopOfStack{})();
  if (own == nullptr || from == to) return;
  Frame*& parent = own->*get(ParentOf{});
  parent = exchange_chain(from, parent, to);
}

// For a bound call that switches into another greenlet which resumes in context `to` (a replica handing over to
// the next one): the chain now on top (the caller's, its own frame included if it is part of it) is kept as
// `from`'s, and the thread continues on `to`'s chain.
inline void swap_chains(PlacementContext* from, PlacementContext* to) {
  if (from == to) return;
  Frame*& top = get(TopOfStack{})();
  top = exchange_chain(from, top, to);
}

// For a bound call that itself switches into other greenlets (the scheduler's switch_round): while the
// switched-to code runs, the thread's stack is the bound context's chain (the call's own frame set aside,
// as if the call had returned); when control comes back, whatever that chain has become hangs under the
// call's frame again, so that the next switch_chain saves it for that context.
class HandOver {
 public:
  HandOver() : own_(get(TopOfStack{})()) {
    if (own_ != nullptr) get(TopOfStack{})() = own_->*get(ParentOf{});
  }
  ~HandOver() {
    if (own_ == nullptr) return;
    Frame*& top = get(TopOfStack{})();
    own_->*get(ParentOf{}) = top;
    top = own_;
  }
  HandOver(const HandOver&) = delete;
  HandOver& operator=(const HandOver&) = delete;

 private:
  Frame* own_;
};

}  // namespace tpustrategy::bindings::call_frames
