#include "perfgate/model/work.h"

namespace perfgate::model {

std::string_view WorkKindName(WorkKind kind) {
  switch (kind) {
    case WorkKind::kKernel: return "kernel";
    case WorkKind::kMemcpy: return "memcpy";
    case WorkKind::kMemset: return "memset";
    case WorkKind::kSubmission: return "submission";
  }
  return "kernel";
}

}  // namespace perfgate::model
