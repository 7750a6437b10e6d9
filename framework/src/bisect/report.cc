#include "perfgate/bisect/report.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/lossless_json.h"
#include "perfgate/golden/golden.h"
#include "perfgate/stats/summary.h"
#include "report/diff_json.h"

namespace perfgate::bisect {
namespace {

using document::Align;
using document::Cell;
using document::Column;
using json = nlohmann::ordered_json;

std::string Headline(const BisectResult& r) {
  switch (r.outcome) {
    case Outcome::kCulprit: return "culprit: " + ShortCommit(r.culprit->commit) + " " + r.culprit->subject;
    case Outcome::kUncertain:
      if (r.culprit) return "uncertain: " + ShortCommit(r.culprit->commit) + " " + r.culprit->subject + " (not proven)";
      return "uncertain: the change across " + (r.before ? ShortCommit(r.before->commit) : std::string("?")) + ".." +
             (r.after ? ShortCommit(r.after->commit) : std::string("?")) + " is not proven";
    case Outcome::kRange: return "range: the first bad commit is one of " + std::to_string(r.candidates.size());
    case Outcome::kNoRegression: return "no regression: the bad side is not worse than the good side";
    case Outcome::kUndecided: return "undecided: the trials cannot tell the bad side from the good side";
  }
  return "";
}

document::Table FiguresTable(const std::vector<gates::MetricVerdict>& figures) {
  document::Table t("figures", {{"figure", Align::kLeft}, {"before"}, {"after"}, {"Δ"}, {"Δ%"}, {"p"},
                                {"n"}, {"verdict", Align::kLeft}});
  for (const gates::MetricVerdict& v : figures) {
    t.rows.push_back({Cell::Code(v.metric), Cell::Significant(v.baseline), Cell::Significant(v.current), Cell::Signed(v.delta, 2),
                      Cell::Percent(v.delta_pct), v.p_value ? Cell::PValue(*v.p_value) : Cell::Missing(),
                      Cell::Text(std::to_string(v.n_baseline) + " vs " + std::to_string(v.n_current)),
                      Cell::Text(std::string(gates::VerdictName(v.verdict)))});
  }
  return t;
}

document::Table MoversTable(const diff::Diff& d) {
  document::Table t("movers", {{"level", Align::kLeft}, {"name", Align::kLeft}, {"before µs/tok"},
                               {"after µs/tok"}, {"Δ µs/tok"}, {"share"}, {"calls/tok"}});
  for (const diff::LevelDiff& level : d.levels) {
    for (const diff::Change& c : diff::TopMovers(level, kMoverRows)) {
      if (c.unchanged()) continue;
      char calls[64];
      std::snprintf(calls, sizeof calls, "%.4g -> %.4g", c.before_calls, c.after_calls);
      t.rows.push_back({Cell::Text(level.word), Cell::Code(c.name), Cell::Fixed(c.before_us, 2),
                        Cell::Fixed(c.after_us, 2), Cell::Signed(c.delta_us(), 2),
                        c.share ? Cell::Percent(100 * *c.share) : Cell::Missing(), Cell::Text(calls)});
    }
  }
  return t;
}

document::Table CommitsTable(const std::vector<CommitRecord>& commits) {
  document::Table t("commits", {{"commit", Align::kLeft}, {"subject", Align::kLeft}, {"mark", Align::kLeft},
                                {"recordings"}, {"samples"}, {"median"}, {"why", Align::kLeft}});
  for (const CommitRecord& c : commits) {
    t.rows.push_back({Cell::Code(ShortCommit(c.commit)), Cell::Text(c.subject), Cell::Text(c.mark.empty() ? "—" : c.mark),
                      Cell::Integer(c.recordings), Cell::Integer(static_cast<int64_t>(c.samples.size())),
                      c.samples.empty() ? Cell::Missing() : Cell::Significant(stats::Median(c.samples)), Cell::Text(c.reason)});
  }
  return t;
}

json VerdictJson(const gates::MetricVerdict& v) {
  return {{"metric", v.metric},
          {"verdict", gates::VerdictName(v.verdict)},
          {"before", v.baseline},
          {"after", v.current},
          {"delta", v.delta},
          {"delta_pct", v.delta_pct ? json(*v.delta_pct) : json(nullptr)},
          {"threshold", v.threshold},
          {"p_value", v.p_value ? json(*v.p_value) : json(nullptr)},
          {"n_before", v.n_baseline},
          {"n_after", v.n_current},
          {"explanation", v.explanation}};
}

json EndpointJson(const std::optional<Endpoint>& e) {
  if (!e) return nullptr;
  return {{"ref", e->ref}, {"commit", e->commit}, {"subject", e->subject}};
}

json CommitJson(const CommitRecord& c) {
  json j = {{"commit", c.commit},     {"subject", c.subject}, {"mark", c.mark},       {"reason", c.reason},
            {"recordings", c.recordings}, {"taken", c.taken},  {"samples", c.samples}};
  j["median"] = c.samples.empty() ? json(nullptr) : json(stats::Median(c.samples));
  j["notes"] = c.notes;
  j["vs_good"] = c.judgement ? VerdictJson(c.judgement->vs_good) : json(nullptr);
  j["vs_bad"] = c.judgement ? VerdictJson(c.judgement->vs_bad) : json(nullptr);
  return j;
}

json PolicyJson(const gates::Policy& p) {
  return {{"kind", golden::ToString(p.kind)},
          {"rel", p.rel},
          {"abs", p.abs},
          {"alpha", p.alpha},
          {"dir", golden::ToString(p.dir)}};
}

std::string ResultJson(const BisectResult& r) {
  json j = {{"kind", "perfgate.bisect"}, {"schema_version", 1}, {"outcome", OutcomeName(r.outcome)},
            {"proven", r.proven()},      {"metric", r.metric},   {"engine", r.engine},
            {"recording_kind", r.recording_kind}, {"policy", PolicyJson(r.policy)}};
  j["good"] = EndpointJson(r.good);
  j["bad"] = EndpointJson(r.bad);
  j["endpoints"] = VerdictJson(r.endpoints);
  j["culprit"] = r.culprit ? json{{"commit", r.culprit->commit}, {"subject", r.culprit->subject},
                                  {"parent", r.before ? r.before->commit : ""}}
                           : json(nullptr);
  j["before"] = EndpointJson(r.before);
  j["after"] = EndpointJson(r.after);
  j["confirmation"] = r.confirmation ? VerdictJson(*r.confirmation) : json(nullptr);
  j["candidates"] = r.candidates;
  j["why"] = r.why;
  j["recordings"] = {{"taken", r.taken}, {"reused", r.reused}};
  json figures = json::array();
  for (const gates::MetricVerdict& v : r.figures) figures.push_back(VerdictJson(v));
  j["figures"] = figures;
  j["movers"] = r.movers ? report::DiffJson(*r.movers) : json(nullptr);
  json commits = json::array();
  for (const CommitRecord& c : r.commits) commits.push_back(CommitJson(c));
  j["commits"] = commits;
  j["log"] = r.log;
  return text::RenderLosslessJson(j);
}

}  // namespace

document::Document BisectDocument(const BisectResult& r) {
  document::Document d;
  d.blocks.push_back(document::Heading{"perfgate bisect: " + r.metric + " of " + r.engine, 1});
  d.blocks.push_back(document::Paragraph{Headline(r)});
  document::List why;
  for (const std::string& w : r.why) why.items.push_back({"", w});
  why.wrap = true;
  d.blocks.push_back(std::move(why));
  d.blocks.push_back(document::Paragraph{
      "good " + r.good.ref + " (" + ShortCommit(r.good.commit) + "), bad " + r.bad.ref + " (" + ShortCommit(r.bad.commit) +
      "): " + r.endpoints.explanation + ". Recordings: " + std::to_string(r.taken) + " taken, " +
      std::to_string(r.reused) + " reused."});
  const std::string between =
      r.before && r.after ? " (" + ShortCommit(r.before->commit) + " .. " + ShortCommit(r.after->commit) + ")" : "";
  if (!r.figures.empty()) {
    d.blocks.push_back(document::Heading{"Figures before and after" + between, 2});
    d.blocks.push_back(FiguresTable(r.figures));
  }
  if (r.movers) {
    d.blocks.push_back(document::Heading{"Movers" + between, 2});
    d.blocks.push_back(MoversTable(*r.movers));
  }
  d.blocks.push_back(document::Heading{"Commits measured", 2, true});
  d.blocks.push_back(CommitsTable(r.commits));
  document::List notes;
  for (const CommitRecord& c : r.commits) {
    for (const std::string& n : c.notes) notes.items.push_back({"note", ShortCommit(c.commit) + ": " + n});
  }
  if (!notes.items.empty()) d.blocks.push_back(std::move(notes));
  d.json = ResultJson(r);
  return d;
}

}  // namespace perfgate::bisect
