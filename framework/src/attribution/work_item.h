// A kept unit of a work set as the one attribution (attribute_work.cc) carries it: the
// item, its launch call, its owner and where its phase comes from.
#ifndef PERFGATE_SRC_ATTRIBUTION_WORK_ITEM_H_
#define PERFGATE_SRC_ATTRIBUTION_WORK_ITEM_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include "perfgate/model/work.h"

namespace perfgate::attribution::detail {

// A host call's place in its work set: a flag per call is cheaper than a hash set
// of a million encoders.
inline size_t HostCallIndex(const model::WorkSet& trace, const model::HostCall& call) {
  return static_cast<size_t>(&call - trace.host_calls.data());
}

// The work every per-token figure counts: kernels, or submissions where the source
// names no kernel. Copies (memcpy, memset) are reported beside them.
inline bool IsUnit(const model::WorkItem& w) {
  return w.kind == model::WorkKind::kKernel || w.kind == model::WorkKind::kSubmission;
}

// A kept unit of GPU work, with its launch call, owning process and phase.
struct Item {
  const model::WorkItem* work;
  const model::HostCall* launch;     // nullptr when no host call has its correlation id
  std::optional<int64_t> owner;  // model::WorkItem::process, else the launch call's pid
  int gpu_annotation = -1;    // innermost gpu_user_annotation containing it
  int cpu_annotation = -1;    // innermost user_annotation containing its launch call
  bool kernel() const { return work->kind == model::WorkKind::kKernel; }
  // Launched by a Metal encoder: the encoder, not the item, is what families and
  // phases count and whose host time they add, once whatever the submissions it encoded.
  bool by_encoder() const { return launch != nullptr && launch->kind == model::HostCallKind::kEncoder; }
};

}  // namespace perfgate::attribution::detail

#endif  // PERFGATE_SRC_ATTRIBUTION_WORK_ITEM_H_
