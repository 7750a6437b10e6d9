// `perfgate ane-dma`: the ANE KernelDMA 1 MiB notch probe.
//
//   perfgate ane-dma --host-only [--label m3u] [--preset dual]      # shapes and chip, any host
//   perfgate ane-dma --out DIR [--preset stock|dual|auto]           # native run (macOS + ANE)
//   perfgate ane-dma classify --on-us 785.5 --off-us 353.8          # class of a ratio
//   perfgate ane-dma replay RECORDING.json                          # a recorded run, any host
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.h"
#include "perfgate/ane/notch.h"
#include "perfgate/ane/probe.h"

namespace perfgate::cli {
namespace {

struct ThresholdArgs {
  ane::Thresholds t;
  bool positional = false;
};

struct AneArgs {
  bool host_only = false;
  std::string out;
  bool probe_anec = false;
  std::string label;
  int64_t cout = ane::kDefaultCout;
  std::string cins = "2016,2048";
  int cores = 0;
  std::string preset = "auto";
  int warm = 3;
  int timed = 12;
  int rounds = 1;
  int64_t overhead_channels = 0;
  std::string eval_host;
  std::string model_gen;
  double host_timeout_s = 120;
  double model_timeout_s = 600;
  ThresholdArgs thresholds;
};

Status Usage(std::string message) { return Status::Error("cli.usage", std::move(message), {}, ErrorKind::kUsage); }

StatusOr<std::vector<int64_t>> ParseCins(const std::string& text) {
  std::vector<int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t used = 0;
      long long v = std::stoll(item, &used);
      if (used != item.size()) throw std::invalid_argument("");
      out.push_back(v);
    } catch (const std::exception&) {
      return Usage("--cins '" + text + "': expected comma-separated integers such as 2016,2048");
    }
  }
  if (out.empty()) return Usage("--cins needs at least one Cin");
  return out;
}

// Whether `s` is well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing
// above U+10FFFF; the label ends up in JSON. The tool cannot reach the library's private
// FindInvalidUtf8, so this is the same check on the bytes' ranges (Unicode table 3-7).
bool ValidUtf8(const std::string& s) {
  auto in = [&](size_t i, unsigned lo, unsigned hi) {
    return i < s.size() && static_cast<unsigned char>(s[i]) >= lo && static_cast<unsigned char>(s[i]) <= hi;
  };
  for (size_t i = 0; i < s.size();) {
    const unsigned c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    unsigned lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (c < 0x80) n = 1;
    else if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    if (n == 0) return false;
    if (n > 1 && !in(i + 1, lo, hi)) return false;
    for (size_t k = 2; k < n; ++k) {
      if (!in(i + k, 0x80, 0xBF)) return false;
    }
    i += n;
  }
  return true;
}

std::vector<std::string> SplitWords(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

void AddThresholdOptions(CLI::App* cmd, ThresholdArgs* a) {
  cmd->add_option("--m3-ratio", a->t.m3_class_ratio, "ratio at or above which the class is m3_class_notch")
      ->capture_default_str();
  cmd->add_option("--milder-ratio", a->t.milder_ratio, "ratio at or above which the class is milder_1mib_slowdown")
      ->capture_default_str();
  cmd->add_option("--host-dominated-us", a->t.host_dominated_us,
                  "on-notch median (us) at or above which the run is host_dominated_invalid")
      ->capture_default_str();
  cmd->add_option("--borderline-margin", a->t.borderline_margin,
                  "flag a ratio within this many ratio units of a class edge as borderline")
      ->capture_default_str();
}

int RunClassify(double on_us, double off_us, const ThresholdArgs& a) {
  auto c = ane::ClassifyPair(on_us, off_us, a.t);
  if (!c.ok()) return ReportError(Status::Error(c.status().code(), c.status().message(), {}, ErrorKind::kUsage));
  std::cout << ane::RenderClassificationJson(*c, on_us, off_us, a.t);
  return kExitOk;
}

int RunReplay(const std::string& path, const ThresholdArgs& a) {
  ane::ReplayOptions o;
  o.thresholds = a.t;
  if (a.positional) o.rule = ane::OnOffRule::kPositional;
  Status valid = a.t.Validate();
  if (!valid.ok()) return ReportError(valid);
  auto r = ane::Replay(path, o);
  if (!r.ok()) return ReportError(r.status());
  std::cout << ane::RenderResultJson(*r);
  return kExitOk;
}

int RunAne(const AneArgs& args) {
  if (!ValidUtf8(args.label)) return ReportError(Usage("--label is not valid UTF-8"));
  auto cins = ParseCins(args.cins);
  if (!cins.ok()) return ReportError(cins.status());
  auto preset_requested = ane::ParsePreset(args.preset);
  if (!preset_requested.ok()) return ReportError(preset_requested.status());
  Status valid = args.thresholds.t.Validate();
  if (!valid.ok()) return ReportError(valid);
  if (args.cores < 0) return ReportError(Usage("--cores must be >= 0 (0: 32 on Ultra, else 16)"));

  const ane::ChipInfo chip = ane::DetectChip(args.label);
  const ane::Preset preset = ane::ResolvePreset(*preset_requested, chip, args.label);
  const bool native = !args.out.empty() && !args.host_only;

  if (args.host_only || args.out.empty()) {
    auto report = ane::BuildHostReport(*cins, args.cout, chip, args.cores);
    if (!report.ok()) return ReportError(report.status());
    report->preset = preset;
    std::cout << ane::RenderHostReportJson(*report);
    if (args.out.empty() && !args.probe_anec) return kExitOk;
  }

  ane::NativeOptions o;
  o.cins = *cins;
  o.cout = args.cout;
  o.cores = args.cores;
  o.warm = args.warm;
  o.timed = args.timed;
  o.rounds = args.rounds;
  o.overhead_channels = args.overhead_channels;
  o.analyze.thresholds = args.thresholds.t;
  o.analyze.rule = args.thresholds.positional ? ane::OnOffRule::kPositional : ane::OnOffRule::kPredicate;
  o.toolchain.eval_host = args.eval_host;
  o.toolchain.model_generator = SplitWords(args.model_gen);
  o.toolchain.host_timeout_s = args.host_timeout_s;
  o.toolchain.model_timeout_s = args.model_timeout_s;
  o.log = &std::cout;

  int code = kExitOk;
  if (native) {
    if (preset == ane::Preset::kDual) {
      auto s = ane::RunPreset(args.out, preset, o, chip);
      if (!s.ok()) return ReportError(s.status());
      for (const auto& scan : s->scans) {
        if (!scan.result) code = kExitEnvironment;  // a scan stopped; summary.json says why
      }
    } else {
      auto r = ane::RunNative(args.out, o, chip);
      if (!r.ok()) return ReportError(r.status());
    }
  }
  if (args.probe_anec) {
    // After the run, so that the probe's directory does not pre-empt the fresh run
    // directory (the seed created <out>/anec_probe first and then refused <out>).
    const std::string dest = !args.out.empty() ? args.out + "/anec_probe" : "anec_dma_split_probe";
    std::cout << ane::RenderAnecProbeJson(ane::ProbeAnec(dest, o.toolchain));
  }
  return code;
}

}  // namespace

void RegisterAneCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<AneArgs>();
  auto* cmd = app.add_subcommand(
      "ane-dma",
      "ANE KernelDMA 1 MiB notch probe (https://eiln.github.io/posts/ane-dma.html).\n"
      "--host-only prints the shapes, the lattices and the chip on any host; --out DIR times the\n"
      "probe natively (macOS with an Apple Neural Engine only; exit 3 elsewhere).");
  cmd->add_flag("--host-only", args->host_only, "print the host report (shapes, chip, lattices) and stop");
  cmd->add_option("--out", args->out, "a fresh run directory for a native run (refused when it exists)");
  cmd->add_flag("--probe-anec", args->probe_anec, "probe ANECompiler options for a KernelDMA split flag (macOS)");
  cmd->add_option("--label", args->label, "override the chip label, e.g. m1m / m3u / m4 / m5m");
  cmd->add_option("--cout", args->cout, "output channels (Cout)")->capture_default_str();
  cmd->add_option("--cins", args->cins, "input channels to time, comma-separated")->capture_default_str();
  cmd->add_option("--cores", args->cores, "ANE cores for the MiB/core math (0 = auto: 32 if Ultra else 16)")
      ->capture_default_str();
  cmd->add_option("--preset", args->preset, "stock = 16-core article pair; dual = 16c+32c lattice; auto = dual on Ultra")
      ->check(CLI::IsMember({"stock", "dual", "auto"}))
      ->capture_default_str();
  cmd->add_option("--warm", args->warm, "warm-up evaluations per model")->capture_default_str();
  cmd->add_option("--timed", args->timed, "timed evaluations per model")->capture_default_str();
  cmd->add_option("--rounds", args->rounds, "timing rounds, alternating forward and reverse order (1 = the seed)")
      ->capture_default_str();
  cmd->add_option("--overhead-channels", args->overhead_channels,
                  "also time a tiny CxC model and report the dispatch-overhead-corrected ratio (0 = off; e.g. 64)")
      ->capture_default_str();
  cmd->add_flag("--positional", args->thresholds.positional,
                "the seed's on/off rule: first Cin off, last Cin on (default: by the exact-MiB predicate)");
  AddThresholdOptions(cmd, &args->thresholds);
  cmd->add_option("--eval-host", args->eval_host, "a prebuilt eval host instead of building eval_host.m");
  cmd->add_option("--model-gen", args->model_gen,
                  "the model generator command (default: python3 model_gen.py); with --eval-host it replaces the "
                  "native tools, e.g. with the tests' stand-ins");
  cmd->add_option("--host-timeout", args->host_timeout_s, "seconds per eval-host run")->capture_default_str();
  cmd->add_option("--model-timeout", args->model_timeout_s, "seconds per model generation")->capture_default_str();
  cmd->require_subcommand(0, 1);

  auto classify = std::make_shared<std::pair<double, double>>(0, 0);
  auto classify_thresholds = std::make_shared<ThresholdArgs>();
  auto* cls = cmd->add_subcommand("classify", "classify an on/off pair of median eval times (JSON: ratio, "
                                              "class_name, borderline)");
  cls->add_option("--on-us", classify->first, "on-notch median eval time (us)")->required();
  cls->add_option("--off-us", classify->second, "off-notch median eval time (us)")->required();
  AddThresholdOptions(cls, classify_thresholds.get());
  cls->callback([classify, classify_thresholds, exit_code] {
    *exit_code = RunClassify(classify->first, classify->second, *classify_thresholds);
  });

  auto replay_path = std::make_shared<std::string>();
  auto replay_thresholds = std::make_shared<ThresholdArgs>();
  auto* rep = cmd->add_subcommand("replay", "analyse a recorded run (report.json or an eval-samples JSON) on any host");
  rep->add_option("recording", *replay_path, "report.json, a run directory, or an eval-samples JSON")->required();
  rep->add_flag("--positional", replay_thresholds->positional, "the seed's on/off rule (first off, last on)");
  AddThresholdOptions(rep, replay_thresholds.get());
  rep->callback([replay_path, replay_thresholds, exit_code] {
    *exit_code = RunReplay(*replay_path, *replay_thresholds);
  });

  cmd->callback([args, cls, rep, exit_code] {
    if (cls->parsed() || rep->parsed()) return;
    *exit_code = RunAne(*args);
  });
}

}  // namespace perfgate::cli
