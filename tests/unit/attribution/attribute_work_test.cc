// The one attribution (attribution::AttributeWork) on hand-built work sets, where a
// source's work is launched in labelled groups (Metal's command buffers and encoders),
// and the conventions an importer sets; every figure computed by hand. The Metal
// importer that fills such sets from xctrace tables (sources/metal/metal_work.h) is
// tested here too; attribute_test.cc tests the two together on whole trials.
#include "perfgate/attribution/work.h"

#include <gtest/gtest.h>

#include "sources/cuda_launch_kind.h"
#include "sources/metal/metal_work.h"

namespace perfgate::attribution::work_test {

// A set of submissions launched by encoders, each encoder in a group (command
// buffer) with a label, all of process 7 ("engine").
class GroupedWork {
 public:
  GroupedWork() {
    work_.path = "work";
    work_.process_names[7] = "engine";
    work_.conventions.owner_required = true;
    work_.conventions.several_processes_need_a_choice = false;
  }
  // An encoder with `host_ns` of host time in group `group` labelled `label`.
  void Encoder(int64_t id, int64_t group, const std::string& label, int64_t host_ns = 100,
               const std::string& family = "compute") {
    model::HostCall call;
    call.kind = model::HostCallKind::kEncoder;
    call.start_ns = 0;
    call.end_ns = host_ns;
    call.pid = 7;
    call.correlation = id;
    call.group = group;
    call.group_label = label;
    call.family = family;
    work_.host_calls.push_back(call);
  }
  // A submission of encoder `encoder` (none: of no known encoder) over [start, end].
  void Submission(int64_t start_ns, int64_t end_ns, std::optional<int64_t> encoder,
                  std::optional<int64_t> process = 7) {
    model::WorkItem item;
    item.kind = model::WorkKind::kSubmission;
    item.start_ns = start_ns;
    item.end_ns = end_ns;
    item.correlation = encoder;
    item.process = process;
    work_.items.push_back(item);
  }
  model::WorkSet& work() { return work_; }

 private:
  model::WorkSet work_;
};

AttributionOptions Tokens(int64_t tokens) {
  AttributionOptions o;
  o.tokens = tokens;
  return o;
}

AttributionOptions GroupWindow(const std::string& label) {
  AttributionOptions o;
  o.window.mode = DecodeWindow::Mode::kLabel;
  o.window.label = LabelMatch::Exact(label);
  o.token_label = LabelMatch::Exact(label);
  return o;
}

TEST(AttributeWork, AGroupLabelWindowRunsBetweenTheEndsOfItsFirstAndLastGroups) {
  GroupedWork g;
  for (int64_t i = 1; i <= 3; ++i) g.Encoder(i, 100 + i, "token");
  g.Encoder(4, 104, "other");
  g.Submission(0, 10, 1);   // its group ends at 10: the window's start, so outside
  g.Submission(20, 30, 2);
  g.Submission(40, 50, 3);  // the last group's end: the window's end
  g.Submission(60, 70, 4);
  auto s = AttributeWork(g.work(), GroupWindow("token"));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->window_start_ns, 10);
  EXPECT_EQ(s->window_end_ns, 50);
  EXPECT_EQ(s->tokens, 2);  // three group ends bound two steps
  EXPECT_EQ(s->items, 2);
  EXPECT_EQ(s->excluded_outside_window, 2);
}

TEST(AttributeWork, AGroupLabelWindowNeedsTwoGroups) {
  GroupedWork g;
  g.Encoder(1, 101, "token");
  g.Submission(0, 10, 1);
  auto s = AttributeWork(g.work(), GroupWindow("token"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), "attr.window_label");
  EXPECT_NE(s.status().message().find("names 1 launch group(s)"), std::string::npos) << s.status().message();
}

TEST(AttributeWork, AnEncoderCountsOnceHoweverManySubmissionsItEncoded) {
  GroupedWork g;
  g.Encoder(1, 101, "decode.3", 100);
  g.Encoder(2, 101, "decode.3", 40);
  for (int i = 0; i < 3; ++i) g.Submission(10 * i, 10 * i + 5, 1);
  g.Submission(50, 60, 2);
  auto s = AttributeWork(g.work(), Tokens(1));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const LevelItem& f = s->families.at("compute");
  EXPECT_EQ(f.items, 4);
  EXPECT_EQ(f.calls, 2);
  EXPECT_EQ(f.host_sum_ns, 140);  // each encoder's host time once
  EXPECT_EQ(f.gpu_sum_ns, 25);
  const LevelItem& ph = s->phases.at("decode");  // numeric parts removed from the label
  EXPECT_EQ(ph.calls, 2);              // encoders
  EXPECT_EQ(ph.groups, 1);  // groups
  EXPECT_EQ(ph.host_sum_ns, 140);
  EXPECT_EQ(s->phase_units, 2);
  EXPECT_EQ(s->labelled_units, 2);
  EXPECT_TRUE(s->extras.empty());  // the extras are kernel work's
}

TEST(AttributeWork, ASubmissionOfNoKnownEncoderCountsInTheTotalsButInNoFamilyOrPhase) {
  GroupedWork g;
  g.Encoder(1, 101, "decode");
  g.Submission(0, 10, 1);
  g.Submission(20, 50, 9);             // its encoder is not in the set: unmatched
  g.Submission(60, 70, std::nullopt);  // no encoder at all: unmapped
  auto s = AttributeWork(g.work(), Tokens(1));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->items, 3);
  EXPECT_EQ(s->total_sum_ns, 50);
  EXPECT_EQ(s->families.at("compute").gpu_sum_ns, 10);
  EXPECT_EQ(s->phases.size(), 1u);
  EXPECT_EQ(s->items_with_call, 1);
  EXPECT_EQ(s->items_of_unknown_call, 1);
  EXPECT_EQ(s->items_without_call, 1);
  EXPECT_EQ(s->diagnostics.Count("attr.unmatched_encoder"), 1);
}

TEST(AttributeWork, WhereTheSourceRequiresAnOwnerWorkOfNoneIsDroppedWithNoProcessNamed) {
  GroupedWork g;
  g.work().conventions.no_owner_code = "attr.unmapped_submission";
  g.work().conventions.unnamed_owner_code = "attr.sentinel_process";
  g.Encoder(1, 101, "decode");
  g.Submission(0, 10, 1);
  g.Submission(20, 30, std::nullopt, std::nullopt);
  g.Submission(40, 50, 1, model::kNoProcess);
  auto s = AttributeWork(g.work(), Tokens(1));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->items, 1);
  EXPECT_EQ(s->excluded_no_owner, 1);
  EXPECT_EQ(s->excluded_unnamed_owner, 1);
  EXPECT_EQ(s->diagnostics.Count("attr.unmapped_submission"), 1);
  EXPECT_EQ(s->diagnostics.Count("attr.sentinel_process"), 1);

  AttributionOptions all = Tokens(1);
  all.all_processes = true;
  auto every = AttributeWork(g.work(), all);
  ASSERT_TRUE(every.ok()) << every.status().ToString();
  EXPECT_EQ(every->items, 3);

  g.work().conventions.owner_required = false;  // the kernel sources' way: no filter without a name
  auto kernels_way = AttributeWork(g.work(), Tokens(1));
  ASSERT_TRUE(kernels_way.ok()) << kernels_way.status().ToString();
  EXPECT_EQ(kernels_way->items, 3);
}

TEST(AttributeWork, TheSeedMethodCountsEveryEncoderAndOnlyWhereTheSourceHasIt) {
  GroupedWork g;
  g.Encoder(1, 101, "decode", 100);
  g.Encoder(2, 102, "prefill", 30);  // launched nothing
  g.Submission(0, 10, 1);
  AttributionOptions seed = Tokens(1);
  seed.seed_compat = true;
  auto refused = AttributeWork(g.work(), seed);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), "attr.seed_compat");

  g.work().conventions.seed_method = true;
  auto s = AttributeWork(g.work(), seed);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->phase_units, 2);
  EXPECT_EQ(s->families.at("compute").host_sum_ns, 130);
  EXPECT_EQ(s->phases.at("prefill").calls, 1);
  EXPECT_EQ(s->phases.at("prefill").items, 0);

  auto corrected = AttributeWork(g.work(), Tokens(1));
  ASSERT_TRUE(corrected.ok()) << corrected.status().ToString();
  EXPECT_EQ(corrected->phase_units, 1);
  EXPECT_EQ(corrected->phases.count("prefill"), 0u);
}

TEST(CudaHostCallKind, NamesWhatEachCallLaunches) {
  using model::HostCallKind;
  EXPECT_EQ(sources::CudaHostCallKind("cudaLaunchKernel"), HostCallKind::kKernelLaunch);
  EXPECT_EQ(sources::CudaHostCallKind("cuLaunchKernelEx"), HostCallKind::kKernelLaunch);
  EXPECT_EQ(sources::CudaHostCallKind("hipExtModuleLaunchKernel"), HostCallKind::kKernelLaunch);
  EXPECT_EQ(sources::CudaHostCallKind("cudaLaunchCooperativeKernel"), HostCallKind::kKernelLaunch);
  EXPECT_EQ(sources::CudaHostCallKind("cudaGraphLaunch"), HostCallKind::kGraphLaunch);
  EXPECT_EQ(sources::CudaHostCallKind("hipGraphLaunch"), HostCallKind::kGraphLaunch);
  EXPECT_EQ(sources::CudaHostCallKind("cudaMemcpyAsync"), HostCallKind::kOther);
}

// ---- The Metal importer ---------------------------------------------------------

xctrace::ExecutionPoint Point(int64_t ts, uint32_t function, uint64_t submission) {
  xctrace::ExecutionPoint p;
  p.timestamp_ns = ts;
  p.function = function;
  p.submission = xctrace::SubmissionId{submission};
  p.channel_id = 5;
  return p;
}

xctrace::SubmissionMapRow MapRow(uint64_t submission, uint64_t encoder, const xctrace::ProcessRef& process) {
  xctrace::SubmissionMapRow m;
  m.submission = xctrace::SubmissionId{submission};
  m.encoder = xctrace::EncoderId{encoder};
  m.process = process;
  return m;
}

TEST(MetalImport, SubmissionsGetTheirOwnerAndEncoderAndEncodersTheirGroup) {
  TrialTables t;
  t.path = "trial";
  t.execution_points = {Point(10, 1, 1), Point(30, 2, 1), Point(40, 1, 2), Point(45, 2, 2), Point(50, 1, 3),
                        Point(55, 2, 3)};
  const xctrace::ProcessRef engine{"hf2q", 42, false};
  const xctrace::ProcessRef sentinel{"", 0, true};
  t.submission_map = std::vector<xctrace::SubmissionMapRow>{MapRow(1, 8, engine), MapRow(2, 8, sentinel)};
  xctrace::EncoderRow e;
  e.start_ns = 3;
  e.duration_ns = 4;
  e.process = engine;
  e.cmdbuffer_label = "decode.token 12";
  e.encoder_label = "Compute Command 0";
  e.cmdbuffer = xctrace::CommandBufferId{77};
  e.encoder = xctrace::EncoderId{8};
  t.encoders = std::vector<xctrace::EncoderRow>{e, e};  // the second row of the id is not a second encoder
  AttributionOptions o;
  o.process_prefix = "hf2q";
  sources::metal::TableFigures figures;
  auto work = sources::metal::ImportWork(t, o, &figures);
  ASSERT_TRUE(work.ok()) << work.status().ToString();
  ASSERT_EQ(work->items.size(), 3u);
  EXPECT_EQ(work->items[0].kind, model::WorkKind::kSubmission);
  EXPECT_EQ(work->items[0].start_ns, 10);
  EXPECT_EQ(work->items[0].end_ns, 30);
  EXPECT_EQ(work->items[0].process, 42);
  EXPECT_EQ(work->items[0].correlation, 8);
  EXPECT_EQ(work->items[1].process, model::kNoProcess);
  EXPECT_FALSE(work->items[2].process.has_value());  // no submission-map row
  EXPECT_FALSE(work->items[2].correlation.has_value());
  ASSERT_EQ(work->host_calls.size(), 1u);
  const model::HostCall& encoder = work->host_calls[0];
  EXPECT_EQ(encoder.kind, model::HostCallKind::kEncoder);
  EXPECT_EQ(encoder.duration_ns(), 4);
  EXPECT_EQ(encoder.group, 77);
  EXPECT_EQ(encoder.group_label, "decode.token 12");
  EXPECT_EQ(encoder.family, "compute");
  EXPECT_EQ(work->process_names.at(42), "hf2q");
  EXPECT_TRUE(work->conventions.owner_required);
  EXPECT_EQ(figures.encoder_rows, 2);
  EXPECT_EQ(figures.encoder_total_ns, 8);
}

}  // namespace perfgate::attribution::work_test
