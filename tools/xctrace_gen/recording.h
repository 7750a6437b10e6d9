// perfgate::gen recordings: realistic synthetic Metal System Trace exports of LLM
// decode, one bundle per engine and trial, for the attribution pipeline's tests,
// fixtures and demos.
//
// An EngineProfile describes one engine's per-token GPU work as data (command-buffer
// kinds with labels, submissions per token and duration distributions, a prefill
// segment, shader names, the trial-to-trial spread). GenerateTrial turns a profile
// into the tables a real `xctrace export` of a Metal System Trace would give:
//
//   - metal-gpu-execution-points: one start and one end per GPU submission, system
//     wide (the engine, WindowServer on its own channel, a few unattributed one-offs),
//     rows in timestamp order;
//   - metal-gpu-submission-to-command-buffer-id: one row per submission (process
//     composite, or <sentinel/> for the unattributed ones);
//   - metal-application-encoders-list: one `Encoding` row per encoder, engine and
//     WindowServer;
//   - metal-gpu-intervals: one row per submission with the same start and duration;
//   - metal-shader-profiler-shader-list: the engine's pipelines and two WindowServer ones;
//   - metal-shader-profiler-intervals: no rows, as from the CLI;
//
// plus a `toc.xml` in the `xctrace export --toc` shape and a `meta.json` that says
// the bundle is synthetic and records the figures the generator put in (TrialTruth),
// so attribution output can be checked against them.
//
// The shapes follow docs/attribution-method.md §5 and §6 (hf2q ADR-015).
// Everything is deterministic for a seed: the same RecordingSpec gives the same bytes,
// gzip included (no timestamp in the gzip header).
#ifndef PERFGATE_TOOLS_XCTRACE_GEN_RECORDING_H_
#define PERFGATE_TOOLS_XCTRACE_GEN_RECORDING_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xctrace_gen/xctrace_gen.h"

namespace perfgate::gen {

// Bumped whenever the same spec would give different bytes; written to meta.json.
inline constexpr int kRecordingGeneratorVersion = 1;

// A duration distribution: lognormal around `median_us` with `sigma` (the standard
// deviation of the log), scaled by the trial's speed factor, then clamped to
// [min_us, max_us] so that a kind stays inside its duration bucket.
struct DurationDist {
  double median_us = 100.0;
  double sigma = 0.1;
  double min_us = 0.5;
  double max_us = 1e7;
};

// One kind of command buffer an engine submits per decode token. Each command buffer
// has one encoder and one GPU submission.
struct CommandBufferKind {
  // setLabel text of the command buffer. "{layer}" is replaced by a layer index: the
  // occurrence index within the token, or a random index below random_layer_below
  // when that is positive.
  std::string cmdbuffer_label = "Command Buffer 0";
  // "Compute Command 0" or "Blit Command 0"; a Blit encoder runs on the Blit channel.
  std::string encoder_label = "Compute Command 0";
  // Expected command buffers per decode token. The fraction is a Bernoulli draw per
  // token: 39.4 gives 39 or 40.
  double per_token = 1.0;
  int random_layer_below = 0;
  DurationDist duration;
};

// Work before the first decode token: a few long submissions.
struct PrefillSegment {
  std::string cmdbuffer_label = "Command Buffer 0";
  std::string encoder_label = "Compute Command 0";
  int submissions = 0;
  DurationDist duration;
};

// One engine's per-token GPU work, as data. See Hf2qProfile() for an example.
struct EngineProfile {
  std::string name;  // the profile name, e.g. "hf2q"
  ProcessInfo process;
  std::string thread_name = "main";
  uint64_t tid = 0x1000;
  std::string executable_path;  // for the TOC's <processes>
  std::string arguments;        // the launch arguments, for the TOC
  uint64_t channel_id = 0x123457;
  PrefillSegment prefill;
  // True when prefill produces the first token, so a trace of N tokens has N - 1
  // decode steps (hf2q); false: N decode steps (llama.cpp).
  bool prefill_emits_first_token = false;
  // Per decode step, in submission order.
  std::vector<CommandBufferKind> decode;
  // A label that occurs exactly once per decode step ("" if none): the engine's
  // per-token marker for attribution's label window.
  std::string token_label;
  // Shader names for the shader-list registry (pipeline names, no " (N)" suffix).
  std::vector<std::string> shader_names;
  // Trial speed factors spread over about this relative range (0.026 = 2.6 %).
  double trial_spread = 0.0;
  // Gap between consecutive command buffers of one token (CPU to GPU latency), and
  // between the last command buffer of a token and the first of the next.
  DurationDist gap{4.0, 0.35, 1.5, 40.0};
  DurationDist token_gap{45.0, 0.3, 15.0, 400.0};
  // CPU encode time of one encoder (the encoders list's duration).
  DurationDist encode{6.0, 0.4, 1.5, 80.0};
};

// hf2q on Qwen3.6-35B-A3B Q4_0 (ADR-015 iter16/iter22 shapes): per decode token 3.2
// `Command Buffer 0` (~420 µs), 39.4 `layer.N.attn_moe_ffn` (~197 µs), one sm
// `layer.N.moe_router` (~5.5 µs), one md `kv_cache.copy` (~16 µs) and one
// `output_head.fused_norm_lm_argmax` (~558 µs): 45.6 submissions, ~9.7 ms, label
// coverage 93 %. Prefill: 4 `prefill.forward` submissions of ~9 ms that emit the
// first token. Process `hf2q` (pid 4242). Trial spread 2.6 %.
EngineProfile Hf2qProfile();
// llama-completion (b8680): per decode token 2 xl `Command Buffer 0` (~4.46 ms), one
// sm (~3.8 µs) and 0.3 md blits (~16.6 µs): 3.3 submissions, ~8.93 ms, no labels.
// Prefill: 6 generic submissions of ~6 ms, then one decode step per token. Process
// `llama-completion` (pid 5151). Trial spread 0.6 %.
EngineProfile LlamaProfile();
// hf2q with md submissions 10 % longer and two extra md submissions per token
// (`layer.N.moe_gather`): 47.6 submissions per token.
EngineProfile Hf2qRegressedProfile();
// "hf2q", "llama" or "hf2q-regressed"; nullopt otherwise.
std::optional<EngineProfile> FindProfile(std::string_view name);
// The names FindProfile knows, in a fixed order.
std::vector<std::string> ProfileNames();

struct RecordingSpec {
  // (engine name, profile). The engine name is the bundle's directory name: letters,
  // digits, '.', '_' and '-' only, unique within the spec.
  std::vector<std::pair<std::string, EngineProfile>> engines;
  int trials = 3;   // trial-1 .. trial-N per engine
  int tokens = 64;  // generated tokens per trial (>= 1)
  uint64_t seed = 1;
  bool gzip = true;  // <schema>.xml.gz (true) or <schema>.xml
};

// Submissions and summed GPU time (start-to-end, ns) of one group.
struct Tally {
  int64_t submissions = 0;
  int64_t gpu_ns = 0;
};

// What the generator put into one trial: the figures attribution should find.
struct TrialTruth {
  double speed_factor = 1.0;  // multiplies every engine duration of this trial
  int tokens = 0;
  int decode_steps = 0;
  Tally prefill;
  // Per decode step, in order.
  std::vector<Tally> steps;
  // Decode steps only, keyed by phase (the command-buffer label with numeric dotted
  // parts removed: "layer.attn_moe_ffn") and by the seed's duration bands
  // ("xs_<2us", "sm_2_8us", "md_8_32us", "lg_32_80us", "xl_>=80us").
  std::map<std::string, Tally> decode_phases;
  std::map<std::string, Tally> decode_buckets;
  // The label window (attribution `--window label:<token_label>`): from the end of the
  // first token-label command buffer to the end of the last, i.e. decode steps 2..N;
  // tokens = N - 1. All zero when the profile has no token label.
  int label_window_tokens = 0;
  Tally label_window;
  int64_t label_window_start_ns = 0;
  int64_t label_window_end_ns = 0;
  int64_t engine_encoders = 0;    // every engine encoder, prefill included
  int64_t labelled_encoders = 0;  // of which with a non-generic command-buffer label
  int64_t windowserver_submissions = 0;
  int64_t unattributed_submissions = 0;  // submission-map process <sentinel/>
  int64_t trace_duration_ns = 0;
};

// One generated trial.
struct TrialRecording {
  std::string engine;   // the engine name (directory)
  std::string profile;  // the profile name
  int trial = 1;        // 1-based, as in trial-K
  uint64_t trial_seed = 0;
  // (schema, XML document) in TOC order.
  std::vector<std::pair<std::string, std::string>> exports;
  std::string toc_xml;
  std::string meta_json;
  TrialTruth truth;

  // The document of `schema`, or nullptr.
  const std::string* Export(std::string_view schema) const;
};

// The schemas a recording writes, in TOC order.
const std::vector<std::string>& RecordingSchemaNames();

// Checks the spec (engines, names, trials 1..1000, tokens 1..100000). Returns false
// with a message when it is not usable.
bool ValidateRecordingSpec(const RecordingSpec& spec, std::string* error);

// Trial `trial` (1-based) of engine `engine_index`, in memory. The spec must be valid.
TrialRecording GenerateTrial(const RecordingSpec& spec, size_t engine_index, int trial);

// Every trial of every engine, engines in spec order.
std::vector<TrialRecording> GenerateRecording(const RecordingSpec& spec);

// Writes OUT_DIR/<engine>/trial-K/{<schema>.xml.gz | <schema>.xml, toc.xml, meta.json}
// for every engine and trial, creating directories. Removes a stale export of the
// other compression in each trial directory, so a trial never holds both. Returns
// false with a message on an invalid spec or an I/O failure. When `written` is given,
// it receives one entry per trial written, with `exports` emptied (the documents are
// on disk) but toc, meta and truth kept.
bool WriteRecording(const RecordingSpec& spec, const std::string& out_dir, std::string* error,
                    std::vector<TrialRecording>* written = nullptr);

// gzip of `data` (deflate level 9, mtime 0, no file name): the same bytes on every
// run, so committed fixtures only change when their content does.
std::string GzipDeterministic(std::string_view data);

}  // namespace perfgate::gen

#endif  // PERFGATE_TOOLS_XCTRACE_GEN_RECORDING_H_
