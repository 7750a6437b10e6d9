// Tests of the synthetic two-engine recordings (tools/xctrace_gen/recording.h). The
// documents are re-parsed with pugixml and checked table against table: execution
// points pair up, every submission has its map, encoder and interval rows, the
// per-token shapes follow the profiles, and the bytes are a function of the seed.
// One end-to-end test runs perfgate's own attribution over a written recording and
// expects the figures the generator says it put in.
#include "xctrace_gen/recording.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>
#include <set>
#include <string>
#include <vector>

#include "perfgate/attribution/attribute.h"
#include "perfgate/xctrace/toc.h"
#include "support/source_count.h"

namespace perfgate::gen {
namespace {

constexpr char kHeadLabel[] = "output_head.fused_norm_lm_argmax";

// One parsed export: refs resolved to their defining elements, cells by mnemonic.
class ParsedTable {
 public:
  explicit ParsedTable(const std::string& xml) {
    ok_ = static_cast<bool>(doc_.load_buffer(xml.data(), xml.size(), pugi::parse_default | pugi::parse_ws_pcdata));
    if (!ok_) return;
    pugi::xml_node root = doc_.child("trace-query-result");
    Index(root);
    pugi::xml_node node = root.child("node");
    size_t i = 0;
    for (pugi::xml_node col : node.child("schema").children("col")) columns_[col.child_value("mnemonic")] = i++;
    for (pugi::xml_node row : node.children("row")) {
      std::vector<pugi::xml_node> cells;
      for (pugi::xml_node cell : row.children()) {
        if (cell.type() == pugi::node_element) cells.push_back(Resolve(cell));
      }
      rows_.push_back(std::move(cells));
    }
  }

  bool ok() const { return ok_; }
  size_t size() const { return rows_.size(); }
  bool Has(const std::string& mnemonic) const { return columns_.count(mnemonic) > 0; }
  pugi::xml_node Cell(size_t row, const std::string& mnemonic) const { return rows_.at(row).at(columns_.at(mnemonic)); }
  std::string Text(size_t row, const std::string& mnemonic) const { return Cell(row, mnemonic).child_value(); }
  int64_t Int(size_t row, const std::string& mnemonic) const { return std::stoll(Text(row, mnemonic)); }
  uint64_t Uint(size_t row, const std::string& mnemonic) const { return std::stoull(Text(row, mnemonic)); }
  std::string Fmt(size_t row, const std::string& mnemonic) const {
    return Cell(row, mnemonic).attribute("fmt").value();
  }
  bool IsSentinel(size_t row, const std::string& mnemonic) const {
    return std::string(Cell(row, mnemonic).name()) == "sentinel";
  }
  // The process name of a process cell ("" for a sentinel).
  std::string ProcessName(size_t row, const std::string& mnemonic = "process") const {
    if (IsSentinel(row, mnemonic)) return "";
    std::string fmt = Fmt(row, mnemonic);
    return fmt.substr(0, fmt.rfind(" ("));
  }

 private:
  void Index(pugi::xml_node node) {
    for (pugi::xml_node child : node.children()) {
      if (child.type() != pugi::node_element) continue;
      if (pugi::xml_attribute id = child.attribute("id")) ids_[id.as_ullong()] = child;
      Index(child);
    }
  }
  pugi::xml_node Resolve(pugi::xml_node cell) const {
    pugi::xml_attribute ref = cell.attribute("ref");
    if (!ref) return cell;
    auto it = ids_.find(ref.as_ullong());
    return it == ids_.end() ? pugi::xml_node() : it->second;
  }

  pugi::xml_document doc_;
  bool ok_ = false;
  std::map<uint64_t, pugi::xml_node> ids_;
  std::map<std::string, size_t> columns_;
  std::vector<std::vector<pugi::xml_node>> rows_;
};

// xctrace-format.md §7: ids rise by one in pre-order; refs point back at the same tag
// and are empty.
::testing::AssertionResult InterningIsValid(const std::string& xml) {
  pugi::xml_document doc;
  if (!doc.load_buffer(xml.data(), xml.size())) return ::testing::AssertionFailure() << "does not parse";
  std::map<uint64_t, std::string> tags;
  uint64_t last = 0;
  std::string error;
  uint64_t refs = 0;
  std::function<void(pugi::xml_node)> walk = [&](pugi::xml_node node) {
    for (pugi::xml_node e : node.children()) {
      if (e.type() != pugi::node_element || !error.empty()) continue;
      if (pugi::xml_attribute id = e.attribute("id")) {
        if (id.as_ullong() != last + 1) error = std::string("id ") + id.value() + " after " + std::to_string(last);
        last = id.as_ullong();
        tags[last] = e.name();
      }
      if (pugi::xml_attribute ref = e.attribute("ref")) {
        ++refs;
        auto it = tags.find(ref.as_ullong());
        if (it == tags.end() || it->second != e.name() || e.first_child() || e.attribute("fmt")) {
          error = std::string("bad <") + e.name() + " ref=\"" + ref.value() + "\">";
        }
      }
      walk(e);
    }
  };
  walk(doc.child("trace-query-result"));
  if (!error.empty()) return ::testing::AssertionFailure() << error;
  return ::testing::AssertionSuccess() << last << " ids, " << refs << " refs";
}

RecordingSpec SmallSpec(uint64_t seed = 7) {
  RecordingSpec spec;
  spec.engines = {{"hf2q", Hf2qProfile()}, {"llama", LlamaProfile()}, {"reg", Hf2qRegressedProfile()}};
  spec.trials = 2;
  spec.tokens = 8;
  spec.seed = seed;
  return spec;
}

// Generated once: 3 engines x 2 trials x 8 tokens.
const std::vector<TrialRecording>& Small() {
  static const std::vector<TrialRecording> kTrials = GenerateRecording(SmallSpec());
  return kTrials;
}

// Expected per-token value of a profile: count x lognormal mean (clamping ignored).
double ExpectedUsPerToken(const EngineProfile& p) {
  double us = 0;
  for (const CommandBufferKind& k : p.decode) {
    us += k.per_token * k.duration.median_us * std::exp(k.duration.sigma * k.duration.sigma / 2);
  }
  return us;
}

double SubmissionsPerToken(const EngineProfile& p) {
  double n = 0;
  for (const CommandBufferKind& k : p.decode) n += k.per_token;
  return n;
}

std::string Gunzip(const std::string& gz) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return {};
  std::string out;
  char buf[1 << 16];
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = static_cast<uInt>(gz.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof(buf);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - zs.avail_out);
  }
  inflateEnd(&zs);
  return rc == Z_STREAM_END ? out : std::string();
}

TEST(RecordingProfileTest, ShapesFollowThePublishedFigures) {
  // attribution-method.md §5/§6: ~39.4 layer CBs, 1 head, ~3 generic, ~1 sm, ~1 md,
  // ~9.7 ms; llama ~3.3 submissions, ~8.9 ms.
  const EngineProfile hf2q = Hf2qProfile();
  EXPECT_NEAR(SubmissionsPerToken(hf2q), 45.6, 1e-9);
  EXPECT_NEAR(ExpectedUsPerToken(hf2q), 9700, 100);
  EXPECT_EQ(hf2q.process.name, "hf2q");
  EXPECT_TRUE(hf2q.prefill_emits_first_token);
  EXPECT_EQ(hf2q.token_label, kHeadLabel);
  const EngineProfile llama = LlamaProfile();
  EXPECT_NEAR(SubmissionsPerToken(llama), 3.3, 1e-9);
  EXPECT_NEAR(ExpectedUsPerToken(llama), 8930, 60);
  EXPECT_EQ(llama.process.name, "llama-completion");
  EXPECT_EQ(llama.prefill.submissions, 6);
  EXPECT_FALSE(llama.prefill_emits_first_token);

  const EngineProfile reg = Hf2qRegressedProfile();
  EXPECT_NEAR(SubmissionsPerToken(reg) - SubmissionsPerToken(hf2q), 2.0, 1e-9);
  for (const CommandBufferKind& k : hf2q.decode) {
    if (k.duration.min_us < 8.0 || k.duration.max_us >= 32.0) continue;  // md kinds only
    bool found = false;
    for (const CommandBufferKind& r : reg.decode) {
      if (r.cmdbuffer_label != k.cmdbuffer_label) continue;
      found = true;
      EXPECT_NEAR(r.duration.median_us, k.duration.median_us * 1.10, 1e-9) << k.cmdbuffer_label;
    }
    EXPECT_TRUE(found) << k.cmdbuffer_label;
  }

  EXPECT_TRUE(FindProfile("hf2q-regressed").has_value());
  EXPECT_FALSE(FindProfile("nope").has_value());
  for (const std::string& name : ProfileNames()) EXPECT_TRUE(FindProfile(name).has_value()) << name;
}

TEST(RecordingTest, EveryDocumentParsesWithValidInterning) {
  for (const TrialRecording& r : Small()) {
    ASSERT_EQ(r.exports.size(), RecordingSchemaNames().size());
    for (const auto& [schema, xml] : r.exports) {
      EXPECT_TRUE(InterningIsValid(xml)) << r.engine << "/" << r.trial << " " << schema;
      ParsedTable t(xml);
      ASSERT_TRUE(t.ok()) << schema;
    }
    ParsedTable timeline(*r.Export(kShaderProfilerIntervalsSchema));
    EXPECT_EQ(timeline.size(), 0u);
  }
}

TEST(RecordingTest, ExecutionPointsPairUpInTimestampOrder) {
  for (const TrialRecording& r : Small()) {
    ParsedTable points(*r.Export(kExecutionPointsSchema));
    std::map<uint64_t, int64_t> open;
    std::set<uint64_t> closed;
    int64_t last = INT64_MIN;
    for (size_t i = 0; i < points.size(); ++i) {
      const int64_t ts = points.Int(i, "timestamp");
      EXPECT_GE(ts, last) << "row " << i;
      last = ts;
      const uint64_t id = points.Uint(i, "gpu-submission-id");
      EXPECT_EQ(points.Uint(i, "slot-id"), id);
      if (points.Int(i, "function") == 1) {
        EXPECT_TRUE(open.emplace(id, ts).second) << "second start of " << id;
      } else {
        ASSERT_EQ(points.Int(i, "function"), 2);
        ASSERT_TRUE(open.count(id)) << "end without start: " << id;
        EXPECT_GT(ts, open[id]);
        open.erase(id);
        EXPECT_TRUE(closed.insert(id).second);
      }
    }
    EXPECT_TRUE(open.empty()) << open.size() << " leftover starts";
    const TrialTruth& t = r.truth;
    int64_t engine = t.prefill.submissions;
    for (const Tally& s : t.steps) engine += s.submissions;
    EXPECT_EQ(static_cast<int64_t>(closed.size()), engine + t.windowserver_submissions + t.unattributed_submissions);
  }
}

TEST(RecordingTest, EverySubmissionJoinsAcrossTables) {
  for (const TrialRecording& r : Small()) {
    SCOPED_TRACE(r.engine + "/trial-" + std::to_string(r.trial));
    ParsedTable points(*r.Export(kExecutionPointsSchema));
    ParsedTable map(*r.Export(kSubmissionMapSchema));
    ParsedTable encoders(*r.Export(kEncodersListSchema));
    ParsedTable intervals(*r.Export(kGpuIntervalsSchema));
    const EngineProfile profile = *FindProfile(r.profile);

    std::map<uint64_t, std::pair<int64_t, int64_t>> pairs;  // submission -> (start, end)
    for (size_t i = 0; i < points.size(); ++i) {
      auto& p = pairs[points.Uint(i, "gpu-submission-id")];
      (points.Int(i, "function") == 1 ? p.first : p.second) = points.Int(i, "timestamp");
    }
    std::map<uint64_t, std::string> encoder_process;  // encoder id -> process
    std::map<uint64_t, std::string> encoder_cb_label;
    for (size_t i = 0; i < encoders.size(); ++i) {
      const uint64_t id = encoders.Uint(i, "encoder-id");
      EXPECT_TRUE(encoder_process.emplace(id, encoders.ProcessName(i)).second) << "encoder " << id << " twice";
      encoder_cb_label[id] = encoders.Text(i, "cmdbuffer-label");
      EXPECT_EQ(encoders.Text(i, "event-type"), "Encoding");
      EXPECT_EQ(encoders.Text(i, "cmdbuffer-label-indexed"), "[0] " + encoders.Text(i, "cmdbuffer-label"));
      EXPECT_NE(encoders.Fmt(i, "thread").find("(" + encoders.ProcessName(i) + ", pid: "), std::string::npos);
    }
    std::map<uint64_t, size_t> interval_of;
    for (size_t i = 0; i < intervals.size(); ++i) {
      EXPECT_TRUE(interval_of.emplace(intervals.Uint(i, "gpu-submission-id"), i).second);
    }

    ASSERT_EQ(map.size(), pairs.size());
    int64_t windowserver = 0, sentinel = 0, engine = 0, heads = 0;
    std::set<uint64_t> seen;
    for (size_t i = 0; i < map.size(); ++i) {
      const uint64_t sub = map.Uint(i, "gpu-submission-id");
      EXPECT_TRUE(seen.insert(sub).second) << "two map rows for " << sub;
      ASSERT_TRUE(pairs.count(sub)) << "map row without execution points: " << sub;
      EXPECT_EQ(map.Int(i, "num-coalasced-encoders"), 1);
      const std::string process = map.ProcessName(i);
      ASSERT_TRUE(interval_of.count(sub)) << "no gpu-intervals row for " << sub;
      const size_t g = interval_of[sub];
      EXPECT_EQ(intervals.Int(g, "start"), pairs[sub].first);
      EXPECT_EQ(intervals.Int(g, "duration"), pairs[sub].second - pairs[sub].first);
      EXPECT_EQ(intervals.Uint(g, "cmdbuffer-id"), map.Uint(i, "cmdbuffer-id"));
      EXPECT_EQ(intervals.Uint(g, "encoder-id"), map.Uint(i, "encoder-id"));
      EXPECT_EQ(intervals.ProcessName(g), process);
      if (map.IsSentinel(i, "process")) {
        ++sentinel;
        EXPECT_EQ(encoder_process.count(map.Uint(i, "encoder-id")), 0u);
        continue;
      }
      EXPECT_EQ(map.Uint(i, "pid"), process == "WindowServer" ? 181u : static_cast<uint64_t>(profile.process.pid));
      const uint64_t encoder = map.Uint(i, "encoder-id");
      ASSERT_TRUE(encoder_process.count(encoder)) << "encoder " << encoder << " not in the encoders list";
      EXPECT_EQ(encoder_process[encoder], process);
      if (process == "WindowServer") {
        ++windowserver;
      } else {
        EXPECT_EQ(process, profile.process.name);
        ++engine;
        if (encoder_cb_label[encoder] == kHeadLabel) ++heads;
      }
    }
    EXPECT_EQ(sentinel, 3);
    EXPECT_EQ(sentinel, r.truth.unattributed_submissions);
    EXPECT_GT(windowserver, 0);
    EXPECT_EQ(windowserver, r.truth.windowserver_submissions);
    EXPECT_EQ(engine, r.truth.engine_encoders);
    // hf2q: the head once per decode step, 7 steps for 8 tokens; llama: no labels.
    if (profile.token_label.empty()) {
      EXPECT_EQ(heads, 0);
      EXPECT_EQ(r.truth.labelled_encoders, 0);
    } else {
      EXPECT_EQ(heads, 7);
      EXPECT_EQ(r.truth.decode_steps, 7);
      EXPECT_EQ(r.truth.label_window_tokens, 6);
    }
  }
}

TEST(RecordingTest, PerTokenCountsFollowTheProfile) {
  // 64 tokens: enough for per-token averages; the small recording checks exact counts.
  RecordingSpec spec;
  spec.engines = {{"hf2q", Hf2qProfile()}, {"llama", LlamaProfile()}, {"reg", Hf2qRegressedProfile()}};
  spec.trials = 1;
  spec.tokens = 64;
  spec.seed = 99;
  const TrialRecording hf2q = GenerateTrial(spec, 0, 1);
  const TrialRecording llama = GenerateTrial(spec, 1, 1);
  const TrialRecording reg = GenerateTrial(spec, 2, 1);

  const TrialTruth& h = hf2q.truth;
  ASSERT_EQ(h.decode_steps, 63);
  EXPECT_EQ(h.decode_phases.at(kHeadLabel).submissions, 63);
  EXPECT_EQ(h.prefill.submissions, 4);
  EXPECT_NEAR(h.decode_phases.at("layer.attn_moe_ffn").submissions / 63.0, 39.4, 0.3);
  EXPECT_NEAR(h.decode_phases.at("Command Buffer 0").submissions / 63.0, 3.2, 0.3);
  EXPECT_EQ(h.decode_buckets.at("sm_2_8us").submissions, 63);
  EXPECT_EQ(h.decode_buckets.at("md_8_32us").submissions, 63);
  int64_t subs = 0, ns = 0;
  for (const Tally& s : h.steps) {
    subs += s.submissions;
    ns += s.gpu_ns;
  }
  EXPECT_NEAR(subs / 63.0, 45.6, 0.4);
  EXPECT_NEAR(ns / 63e3, 9700, 9700 * 0.03);
  EXPECT_NEAR(static_cast<double>(h.labelled_encoders) / h.engine_encoders, 0.93, 0.01);
  EXPECT_EQ(h.label_window_tokens, 62);

  const TrialTruth& l = llama.truth;
  ASSERT_EQ(l.decode_steps, 64);
  EXPECT_EQ(l.prefill.submissions, 6);
  int64_t lsubs = 0, lns = 0;
  for (const Tally& s : l.steps) {
    lsubs += s.submissions;
    lns += s.gpu_ns;
  }
  EXPECT_NEAR(lsubs / 64.0, 3.3, 0.2);
  EXPECT_NEAR(lns / 64e3, 8930, 8930 * 0.01);
  EXPECT_EQ(l.decode_buckets.at("xl_>=80us").submissions, 128);
  EXPECT_EQ(l.labelled_encoders, 0);
  EXPECT_EQ(l.decode_phases.size(), 1u);  // only "Command Buffer 0"
  EXPECT_EQ(l.label_window_tokens, 0);

  // The regression: two more md submissions per token, and md submissions longer.
  const TrialTruth& g = reg.truth;
  EXPECT_EQ(g.decode_buckets.at("md_8_32us").submissions, 3 * 63);
  auto mean_md = [](const TrialTruth& t) {
    const Tally& md = t.decode_buckets.at("md_8_32us");
    return static_cast<double>(md.gpu_ns) / md.submissions / t.speed_factor;
  };
  EXPECT_GT(mean_md(g), mean_md(h) * 1.03);
}

TEST(RecordingTest, SameSeedSameBytesOtherSeedOtherBytes) {
  const std::vector<TrialRecording> again = GenerateRecording(SmallSpec());
  const std::vector<TrialRecording> other = GenerateRecording(SmallSpec(8));
  ASSERT_EQ(again.size(), Small().size());
  for (size_t i = 0; i < again.size(); ++i) {
    EXPECT_EQ(again[i].exports, Small()[i].exports);
    EXPECT_EQ(again[i].toc_xml, Small()[i].toc_xml);
    EXPECT_EQ(again[i].meta_json, Small()[i].meta_json);
    EXPECT_NE(other[i].exports, Small()[i].exports);
    const std::string& xml = *Small()[i].Export(kExecutionPointsSchema);
    EXPECT_EQ(GzipDeterministic(xml), GzipDeterministic(*again[i].Export(kExecutionPointsSchema)));
  }
  // Trials differ from each other.
  EXPECT_NE(Small()[0].exports, Small()[1].exports);
}

TEST(RecordingTest, GzipIsDeterministicAndRoundTrips) {
  const std::string& xml = *Small()[0].Export(kGpuIntervalsSchema);
  const std::string gz = GzipDeterministic(xml);
  ASSERT_GE(gz.size(), 18u);
  EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
  EXPECT_EQ(gz.substr(4, 4), std::string(4, '\0'));  // mtime 0
  EXPECT_LT(gz.size(), xml.size() / 4);
  EXPECT_EQ(Gunzip(gz), xml);
  EXPECT_EQ(Gunzip(GzipDeterministic("")), "");
}

TEST(RecordingTest, TocAndMetaDescribeTheTrial) {
  for (const TrialRecording& r : Small()) {
    auto toc = xctrace::ReadTocBuffer(r.toc_xml, "toc.xml");
    ASSERT_TRUE(toc.ok()) << toc.status().message();
    ASSERT_EQ(toc->runs.size(), 1u);
    const xctrace::TocRun& run = toc->runs[0];
    const EngineProfile profile = *FindProfile(r.profile);
    EXPECT_EQ(run.number, 1);
    EXPECT_TRUE(run.has_target_process);
    EXPECT_EQ(run.target_process.name, profile.process.name);
    EXPECT_EQ(run.target_process.pid, profile.process.pid);
    EXPECT_EQ(run.template_name, "Metal System Trace");
    ASSERT_TRUE(run.duration_s.has_value());
    EXPECT_NEAR(*run.duration_s, r.truth.trace_duration_ns / 1e9, 1e-6);
    std::vector<std::string> schemas;
    for (const auto& t : run.tables) schemas.push_back(t.schema);
    EXPECT_EQ(schemas, RecordingSchemaNames());
    // Each export's xpath names its own table in this TOC.
    for (size_t i = 0; i < r.exports.size(); ++i) {
      EXPECT_NE(r.exports[i].second.find("data[1]/table[" + std::to_string(i + 1) + "]'"), std::string::npos);
    }

    const nlohmann::json meta = nlohmann::json::parse(r.meta_json);
    EXPECT_EQ(meta["synthetic"], true);
    EXPECT_EQ(meta["engine"], r.engine);
    EXPECT_EQ(meta["profile"], r.profile);
    EXPECT_EQ(meta["trial"], r.trial);
    EXPECT_EQ(meta["tokens"], 8);
    EXPECT_EQ(meta["seed"], 7);
    EXPECT_EQ(meta["generator_version"], kRecordingGeneratorVersion);
    EXPECT_EQ(meta["expected"]["decode_steps"], r.truth.decode_steps);
    EXPECT_EQ(meta["expected"]["label_window"]["figures"]["submissions"], r.truth.label_window.submissions);
  }
}

TEST(RecordingTest, SpecValidation) {
  std::string error;
  EXPECT_TRUE(ValidateRecordingSpec(SmallSpec(), &error)) << error;
  RecordingSpec bad = SmallSpec();
  bad.engines.push_back({"hf2q", Hf2qProfile()});
  EXPECT_FALSE(ValidateRecordingSpec(bad, &error));
  EXPECT_NE(error.find("twice"), std::string::npos);
  bad = SmallSpec();
  bad.engines[0].first = "../x";
  EXPECT_FALSE(ValidateRecordingSpec(bad, &error));
  bad = SmallSpec();
  bad.tokens = 0;
  EXPECT_FALSE(ValidateRecordingSpec(bad, &error));
  bad = SmallSpec();
  bad.engines.clear();
  EXPECT_FALSE(ValidateRecordingSpec(bad, &error));
}

// perfgate's attribution over a written (uncompressed) recording finds what the
// generator put in: the label window's tokens, submissions and GPU time for hf2q,
// the post-prefill decode for llama, and every excluded WindowServer and
// unattributed submission.
TEST(RecordingTest, AttributionRecoversTheTruth) {
  namespace fs = std::filesystem;
  RecordingSpec spec = SmallSpec();
  spec.engines.pop_back();
  spec.trials = 1;
  spec.gzip = false;
  const fs::path dir = fs::temp_directory_path() / ("perfgate_recording_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::string error;
  ASSERT_TRUE(WriteRecording(spec, dir.string(), &error)) << error;
  EXPECT_TRUE(fs::exists(dir / "hf2q" / "trial-1" / "toc.xml"));
  EXPECT_TRUE(fs::exists(dir / "llama" / "trial-1" / "meta.json"));
  EXPECT_FALSE(fs::exists(dir / "hf2q" / "trial-1" / (std::string(kExecutionPointsSchema) + ".xml.gz")));

  for (size_t e = 0; e < spec.engines.size(); ++e) {
    const TrialRecording r = GenerateTrial(spec, e, 1);
    SCOPED_TRACE(r.engine);
    auto tables = attribution::LoadTrial((dir / r.engine / "trial-1").string());
    ASSERT_TRUE(tables.ok()) << tables.status().message();
    attribution::AttributionOptions options;
    options.process_prefix = e == 0 ? "hf2q" : "llama";
    Tally expected;
    int64_t tokens = 0;
    if (e == 0) {
      options.window.mode = attribution::DecodeWindow::Mode::kLabel;
      options.window.label = kHeadLabel;
      options.token_label = kHeadLabel;
      expected = r.truth.label_window;
      tokens = r.truth.label_window_tokens;
    } else {
      options.window.mode = attribution::DecodeWindow::Mode::kSkipSubmissions;
      options.window.skip = r.truth.prefill.submissions;
      options.tokens = spec.tokens;
      for (const Tally& s : r.truth.steps) {
        expected.submissions += s.submissions;
        expected.gpu_ns += s.gpu_ns;
      }
      tokens = spec.tokens;
    }
    auto s = attribution::SummarizeTrial(*tables, options);
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_EQ(s->tokens, tokens);
    EXPECT_EQ(s->items, expected.submissions);
    EXPECT_EQ(s->total_sum_ns, expected.gpu_ns);
    EXPECT_EQ(s->excluded_other_process, r.truth.windowserver_submissions);
    EXPECT_EQ(s->excluded_unnamed_owner, r.truth.unattributed_submissions);
    EXPECT_EQ(s->excluded_no_owner, 0);
    for (const char* pairing : {"unpaired_ends", "leftover_starts", "duplicate_starts"}) {
      EXPECT_EQ(perfgate::testing_support::SourceCount(*s, pairing), 0) << pairing;
    }
    EXPECT_EQ(s->items_with_call, s->items);
    EXPECT_EQ(s->busy_union_ns, s->total_sum_ns);  // one channel, back to back
    ASSERT_GE(perfgate::testing_support::SourceCount(*s, "gpu_intervals_union_ns"), 0);
    EXPECT_EQ(perfgate::testing_support::SourceCount(*s, "gpu_intervals_union_ns"), s->busy_union_ns);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace perfgate::gen
