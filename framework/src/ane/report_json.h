// JSON building blocks of the ANE probe's reports (private). Key order follows the
// seed (Python dicts keep insertion order), so nlohmann::ordered_json throughout.
#ifndef PERFGATE_SRC_ANE_REPORT_JSON_H_
#define PERFGATE_SRC_ANE_REPORT_JSON_H_

#include <nlohmann/json.hpp>

#include <string>

#include "perfgate/ane/notch.h"
#include "perfgate/ane/probe.h"

namespace perfgate::ane::internal {

using Json = nlohmann::ordered_json;

Json ChipJson(const ChipInfo& chip);
Json DensePointJson(const DensePoint& p);
Json MeasuredPointJson(const MeasuredPoint& p);
Json ThresholdsJson(const Thresholds& t);
// The host report's keys (without `preset` unless set).
Json HostReportJson(const HostReport& r);
// perfgate's additions to a measured result: borderline ... dispatch_overhead.
void AddResultExtras(const NotchResult& r, Json* out);
// 2-space indent and a trailing newline.
std::string Dump(const Json& j);

}  // namespace perfgate::ane::internal

#endif  // PERFGATE_SRC_ANE_REPORT_JSON_H_
