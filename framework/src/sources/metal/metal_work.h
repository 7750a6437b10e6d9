// The Metal importer: a trial's xctrace tables as a model::WorkSet, and the figures of
// the tables themselves that only this source has. What is Metal's alone stays here:
// pairing execution points into submissions, and joining each to its encoder and
// command buffer through the submission map and the encoders list.
#ifndef PERFGATE_SRC_SOURCES_METAL_METAL_WORK_H_
#define PERFGATE_SRC_SOURCES_METAL_METAL_WORK_H_

#include <cstdint>

#include "perfgate/attribution/attribute.h"
#include "perfgate/core/status.h"
#include "perfgate/model/work.h"

namespace perfgate::sources::metal {

// Counts of the tables, which the attribution of the work cannot know.
struct TableFigures {
  int64_t unpaired_ends = 0;     // execution-point ends without a start
  int64_t leftover_starts = 0;   // starts never ended
  int64_t duplicate_starts = 0;  // a second start while one was open
  int64_t encoder_rows = 0;      // every row of the encoders list, of every process
  int64_t encoder_total_ns = 0;  // and their summed host time
};

// Whether a row of `process` is the target's: every process with all_processes or no
// prefix, else a named one whose name matches options.process_prefix as the
// attribution's process filter matches it (whole, or after its last '/'). The
// encoders list, the shader list and metal-gpu-intervals are filtered with it.
bool IsTargetProcess(const xctrace::ProcessRef& process, const attribution::AttributionOptions& options);

// The work of one trial:
//  - an item (WorkKind::kSubmission) per execution-point pair, on its channel, owned
//    by its submission-map row's process (model::kNoProcess for the sentinel; none
//    without a row), correlated with its encoder;
//  - a host call (HostCallKind::kEncoder) per encoder of the target process
//    (options.process_prefix), the first row of each id: its host time, its family
//    (EncoderFamily of its label), its command buffer as the group and the command
//    buffer's label as the group label;
//  - Metal's conventions (model::Conventions): an owner is required, several
//    processes are counted rather than refused, the seed's method applies.
// With options.seed_compat the pairing and the submission map are the seed's (a second
// start replaces the first; negative durations are kept; the map holds the target's
// rows only). Errors: no pair at all (attr.no_pairs), the process filter without the
// submission map (attr.needs_submission_map), a sum past int64 (attr.overflow).
StatusOr<model::WorkSet> ImportWork(const attribution::TrialTables& tables,
                                    const attribution::AttributionOptions& options, TableFigures* figures);

}  // namespace perfgate::sources::metal

#endif  // PERFGATE_SRC_SOURCES_METAL_METAL_WORK_H_
