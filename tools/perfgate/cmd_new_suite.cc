// `perfgate new-suite`: writes a perf suite (its .cc with budgets measured from the
// recordings and a golden test, its CMakeLists.txt) and the goldens, then prints the
// two commands that build and run it.
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <vector>

#include "commands.h"
#include "engine_options.h"
#include "install_prefix.h"
#include "new_suite_render.h"
#include "perfgate/bundle/trials.h"
#include "perfgate/core/version.h"
#include "perfgate/golden/golden.h"
#include "perfgate/metrics/catalogue.h"
#include "perfgate/suite/suite.h"

namespace perfgate::cli {
namespace {

namespace fs = std::filesystem;

struct NewSuiteArgs {
  std::string name;
  std::vector<std::string> engines;  // ENGINE=RECORDINGS
  std::string baseline;              // ENGINE=RECORDINGS
  std::string dir;                   // default suites/NAME
  std::string golden_dir;            // default golden/NAME beside suites/, else DIR/golden
  std::string build_dir;             // default build/NAME
  std::string argv0;                 // how perfgate was started: finds its install prefix
  int min_trials = suite::SuiteConfig().min_trials;
  EngineOptionArgs options;
};

// An engine as given: its name and recording path.
struct GivenEngine {
  std::string name;
  std::string path;
};

fs::path Absolute(const std::string& path) {
  fs::path p = fs::absolute(path).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();  // "x/hf2q/" names hf2q
  return p;
}

StatusOr<std::vector<GivenEngine>> ParseEngines(const NewSuiteArgs& args) {
  std::vector<GivenEngine> out;
  std::set<std::string> names;
  std::vector<std::string> specs = args.engines;
  specs.push_back(args.baseline);  // last: the baseline
  for (size_t i = 0; i < specs.size(); ++i) {
    const char* flag = i + 1 == specs.size() ? "--baseline" : "--engine";
    GivenEngine e;
    if (!SplitAssignment(specs[i], &e.name, &e.path)) {
      return Usage(std::string(flag) + " '" + specs[i] + "': expected ENGINE=RECORDINGS, e.g. " + flag +
                   " llama=recordings/llama");
    }
    PERFGATE_RETURN_IF_ERROR(scaffold::CheckEngineName(e.name));
    if (!names.insert(e.name).second) {
      return Usage("engine '" + e.name + "' is given twice; each engine of a suite has one recording");
    }
    out.push_back(e);
  }
  return out;
}

// Every recording is read or named in an error, and all lie side by side as the suite
// reads them: <recordings>/<engine>/. Returns <recordings>.
StatusOr<std::string> CheckRecordings(const std::vector<GivenEngine>& engines) {
  std::string common;
  for (const GivenEngine& e : engines) {
    auto recording = bundle::DiscoverTrials(e.path);
    if (!recording.ok()) return recording.status();
    for (const std::string& ignored : recording->ignored) {
      std::cerr << "note: not a trial, ignored: " << FormatPath(ignored) << '\n';
    }
    const fs::path p = Absolute(e.path);
    const std::string parent = p.parent_path().string();
    if (p.filename() != e.name || (!common.empty() && parent != common)) {
      return Status::Error("scaffold.recordings_layout",
                           "a suite reads every engine from <recordings>/<engine>/, so engine '" + e.name +
                               "' must be a directory named " + e.name +
                               (common.empty() ? "" : " in " + common) +
                               "; put the recordings side by side (a symbolic link will do)",
                           {e.path}, ErrorKind::kUsage);
    }
    common = parent;
  }
  return common;
}

// A folder the suite writes must be new or empty: nothing of the user's is overwritten.
Status CheckWritable(const fs::path& dir, const char* what) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (ec || st.type() == fs::file_type::not_found) return Status();
  if (st.type() != fs::file_type::directory) {
    return Status::Error("scaffold.dir_not_empty", std::string(what) + " exists and is not a directory",
                         {dir.string()}, ErrorKind::kUsage);
  }
  if (!fs::is_empty(dir, ec) || ec) {
    return Status::Error("scaffold.dir_not_empty",
                         std::string(what) + " exists and is not empty; new-suite writes only new folders "
                         "(choose another with --dir / --golden-dir, or remove it)",
                         {dir.string()}, ErrorKind::kUsage);
  }
  return Status();
}

fs::path DefaultGoldenDir(const fs::path& dir, const std::string& name) {
  if (dir.parent_path().filename() == "suites") return dir.parent_path().parent_path() / "golden" / name;
  return dir / "golden";
}

StatusOr<suite::SuiteConfig> BuildConfig(const NewSuiteArgs& args, const std::vector<GivenEngine>& engines,
                                         const std::string& recordings, const fs::path& golden_dir) {
  auto base = BaseOptions(args.options);
  if (!base.ok()) return base.status();
  suite::SuiteConfig c;
  c.suite = args.name;
  c.recordings_dir = recordings;
  c.golden_dir = golden_dir.string();
  c.buckets = base->buckets;  // stated once, for the suite
  c.min_trials = args.min_trials;
  for (const GivenEngine& g : engines) {
    auto options = EngineOptions(args.options, *base, g.name);
    if (!options.ok()) return options.status();
    suite::EngineSpec e;
    e.name = g.name;
    e.options = std::move(options).value();
    e.options.buckets = attribution::DefaultBuckets();
    c.engines.push_back(std::move(e));
  }
  c.baseline = engines.back().name;
  return c;
}

// Attributes the recordings the way the suite will (its own loading), never redirected
// by PERFGATE_RECORDINGS or recording anew: the budgets are measured on what was given.
StatusOr<std::shared_ptr<const suite::SuiteData>> Measure(const suite::SuiteConfig& config) {
  const EnvLookup env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "PERFGATE_RECORDINGS" || name == "PERFGATE_RECORD") return std::nullopt;
    return ProcessEnv(name);
  };
  suite::SuiteLoad load = suite::LoadSuite(config, env);
  if (!load.error.ok()) return load.error;
  if (load.unavailable || !load.data) {
    return Status::Error("scaffold.no_recording", load.unavailable ? load.unavailable->reason : "nothing loaded",
                         {config.recordings_dir});
  }
  return load.data;
}

// The files of the suite, rendered in full before anything is written.
struct SuiteFiles {
  std::vector<std::pair<fs::path, std::string>> texts;
  std::vector<std::pair<fs::path, golden::GoldenFile>> goldens;
};

StatusOr<SuiteFiles> Render(const suite::SuiteConfig& config, const suite::SuiteData& data, const fs::path& dir,
                            const fs::path& golden_dir) {
  auto recordings_ref = scaffold::CMakePathFrom(dir.string(), config.recordings_dir);
  if (!recordings_ref.ok()) return recordings_ref.status();
  auto golden_ref = scaffold::CMakePathFrom(dir.string(), golden_dir.string());
  if (!golden_ref.ok()) return golden_ref.status();
  const std::string recordings_name = fs::path(config.recordings_dir).filename().string();
  std::string provenance = recordings_name + " (";
  for (const auto& e : config.engines) {
    provenance += (e.name == config.engines.front().name ? "" : ", ") +
                  std::to_string(data.engines.at(e.name).trials.size()) + " trials of " + e.name;
  }
  provenance += ")";  // "decode_q4_0 (3 trials of hf2q, 3 trials of llama)"
  SuiteFiles files;
  files.texts.emplace_back(dir / (config.suite + "_perf.cc"), scaffold::RenderSource(config, data, provenance));
  files.texts.emplace_back(dir / "CMakeLists.txt",
                           scaffold::RenderCMakeLists(config.suite, *recordings_ref, *golden_ref));
  for (const auto& [engine, file] : scaffold::GoldenFiles(config)) {
    files.goldens.emplace_back(golden_dir / file,
                               metrics::EngineGolden(data.engines.at(engine),
                                                     {{"perfgate_version", std::string(Version())},
                                                      {"recordings", recordings_name},
                                                      {"written_by", "perfgate new-suite"}}));
  }
  return files;
}

Status WriteText(const fs::path& path, const std::string& text) {
  PERFGATE_RETURN_IF_ERROR(WriteTextFile(path.string(), text));
  std::cerr << "wrote: " << FormatPath(path.string()) << '\n';
  return Status();
}

// The folders a run creates: removed again, with what was written in them, when the
// run fails, so that it leaves no half-written suite and can simply be run again.
class CreatedDirs {
 public:
  // Creates `dir` and its missing parents, remembering the topmost one created.
  Status Create(const fs::path& dir, const char* what) {
    fs::path top;
    std::error_code ec;
    for (fs::path p = dir; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) top = p;
    fs::create_directories(dir, ec);
    if (!top.empty()) created_.push_back(top);
    if (ec || !fs::is_directory(dir, ec)) {
      return Status::Error("io.write_failed",
                           std::string("cannot create ") + what + (ec ? ": " + ec.message() : std::string()),
                           {dir.string()}, ErrorKind::kEnvironment);
    }
    return Status();
  }
  void Keep() { created_.clear(); }
  ~CreatedDirs() {
    std::error_code ec;
    for (auto it = created_.rbegin(); it != created_.rend(); ++it) fs::remove_all(*it, ec);
  }

 private:
  std::vector<fs::path> created_;
};

// Every folder is created and checked before the first file is written; on a failure
// the files written so far go with them (the folders were new or empty: CheckWritable).
Status Write(const SuiteFiles& files, const fs::path& dir, const fs::path& golden_dir) {
  CreatedDirs created;
  PERFGATE_RETURN_IF_ERROR(created.Create(dir, "the suite folder"));
  PERFGATE_RETURN_IF_ERROR(created.Create(golden_dir, "the golden folder"));
  std::vector<fs::path> written;
  Status s = [&]() -> Status {
    for (const auto& [path, text] : files.texts) {
      written.push_back(path);
      PERFGATE_RETURN_IF_ERROR(WriteText(path, text));
    }
    for (const auto& [path, golden] : files.goldens) {
      written.push_back(path);
      PERFGATE_RETURN_IF_ERROR(golden::WriteGoldenAtomic(path.string(), golden));
      std::cerr << "wrote: " << FormatPath(path.string()) << '\n';
    }
    return Status();
  }();
  if (!s.ok()) {
    std::error_code ec;
    for (const fs::path& path : written) fs::remove(path, ec);
    return s;
  }
  created.Keep();
  return Status();
}

int RunNewSuite(NewSuiteArgs args) {
  if (Status s = scaffold::CheckSuiteName(args.name); !s.ok()) return ReportError(s);
  if (args.dir.empty()) args.dir = "suites/" + args.name;
  if (args.build_dir.empty()) args.build_dir = "build/" + args.name;
  const fs::path dir = Absolute(args.dir);
  const fs::path golden_dir = args.golden_dir.empty() ? DefaultGoldenDir(dir, args.name) : Absolute(args.golden_dir);
  auto engines = ParseEngines(args);
  if (!engines.ok()) return ReportError(engines.status());
  std::vector<std::string> names;
  for (const GivenEngine& e : *engines) names.push_back(e.name);
  if (Status s = CheckEngineNames(args.options, names, "--engine or --baseline"); !s.ok()) return ReportError(s);
  if (Status s = CheckWritable(dir, "the suite folder"); !s.ok()) return ReportError(s);
  if (Status s = CheckWritable(golden_dir, "the golden folder"); !s.ok()) return ReportError(s);
  auto recordings = CheckRecordings(*engines);
  if (!recordings.ok()) return ReportError(recordings.status());
  auto config = BuildConfig(args, *engines, *recordings, golden_dir);
  if (!config.ok()) return ReportError(config.status());
  auto data = Measure(*config);
  if (!data.ok()) return ReportError(data.status());
  auto files = Render(*config, **data, dir, golden_dir);
  if (!files.ok()) return ReportError(files.status());
  if (Status s = Write(*files, dir, golden_dir); !s.ok()) return ReportError(s);

  const std::string prefix = InstallPrefixOf(RunningExecutable(args.argv0));
  if (prefix.empty()) {
    std::cerr << "note: this perfgate is not an installed one (no lib/cmake/PerfGate beside its bin/): install it "
                 "(cmake --install <build> --prefix <p>) and add -DCMAKE_PREFIX_PATH=<p> to the first command\n";
  }
  const auto [build, run] = scaffold::BuildAndRunCommands(args.dir, args.build_dir, prefix);
  std::cerr << "build and run it:\n";
  std::cout << build << '\n' << run << '\n';
  return kExitOk;
}

}  // namespace

void RegisterNewSuiteCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<NewSuiteArgs>();
  auto* cmd = app.add_subcommand(
      "new-suite",
      "Write a perf suite from recordings: NAME_perf.cc (budgets measured from them, a golden test), its\n"
      "CMakeLists.txt and its goldens, then print the two commands that build and run it.");
  cmd->add_option("name", args->name, "the suite's name, a C++ and CMake identifier (e.g. my_decode)")->required();
  cmd->add_option("--engine", args->engines,
                  "ENGINE=RECORDINGS, repeatable: an engine's recording directory of trial-K/ subdirectories "
                  "(the directory is named after the engine)")
      ->required();
  cmd->add_option("--baseline", args->baseline, "ENGINE=RECORDINGS: the engine every other is compared with")
      ->required();
  cmd->add_option("--dir", args->dir, "the suite folder to create (default suites/NAME; must be new or empty)");
  cmd->add_option("--golden-dir", args->golden_dir,
                  "the golden folder to create (default golden/NAME beside suites/, else DIR/golden)");
  cmd->add_option("--build-dir", args->build_dir, "the build folder the printed commands use (default build/NAME)");
  cmd->add_option("--min-trials", args->min_trials, "fail when an engine has fewer trials (default 3, the suites')")
      ->check(PositiveInt());
  AddEngineOptions(cmd, &args->options, /*with_seed_compat=*/false);
  AddInputLimitOptions(cmd);
  cmd->callback([args, exit_code, cmd] {
    args->argv0 = cmd->get_parent()->get_name();  // argv[0]: CLI11 names the app after it
    *exit_code = RunNewSuite(*args);
  });
}

}  // namespace perfgate::cli
