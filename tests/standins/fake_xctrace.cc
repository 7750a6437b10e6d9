// A stand-in for Apple's `xctrace`, for perfgate's recorder tests on Linux.
//
// It accepts the command lines perfgate runs and answers from stored exports:
//
//   fake_xctrace version
//   fake_xctrace record --template 'Metal System Trace' --no-prompt --output T.trace
//                       [--time-limit X] [--env NAME=VALUE]... --launch -- CMD ARGS...
//       runs CMD (with the --env variables), then creates the directory T.trace holding
//       `source` (the served directory) and `target-exit` (CMD's exit status)
//   fake_xctrace export --input T.trace --toc [--output F]
//       prints SOURCE/toc.xml, with the target's exit status filled in
//   fake_xctrace export --input T.trace --xpath '/trace-toc/run[@number="1"]/data/table[@schema="S"]'
//       prints SOURCE/S.xml (an export with no <node> when there is none)
//
// SOURCE is $FAKE_XCTRACE_SOURCE/<basename of CMD> when that directory exists, else
// $FAKE_XCTRACE_SOURCE itself; it holds toc.xml and <schema>.xml files.
//
// Misbehaviour, chosen by $FAKE_XCTRACE_MODE (comma-separated), applied only to calls
// with an argument containing $FAKE_XCTRACE_MATCH when that is set:
//   hang_record, hang_export       sleep until killed
//   hang_record_ignore_signals     ... ignoring SIGINT and SIGTERM
//   hang_record_grandchild         ... with a child in the same process group that
//                                  writes its pid to $FAKE_XCTRACE_PIDFILE
//   crash_record, crash_export     abort() (SIGABRT)
//   fail_record, fail_export       exit 5 with a message on stderr
//   no_trace                       record exits 0 without writing the trace
//   empty_toc                      the TOC export prints nothing
//   empty_export                   table exports print a document without <node>
//   garbage_export                 table exports print text that is not XML
//   omit_table=S                   the TOC lacks S, and its export has no <node>
//
// Every call is appended to $FAKE_XCTRACE_LOG (when set) as one line of
// tab-separated arguments.
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::string Slurp(const std::string& path, bool* ok = nullptr) {
  std::ifstream in(path, std::ios::binary);
  if (ok != nullptr) *ok = static_cast<bool>(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::vector<std::string> Modes(const std::vector<std::string>& args) {
  std::string match = Env("FAKE_XCTRACE_MATCH");
  if (!match.empty()) {
    bool hit = false;
    for (const std::string& a : args) hit |= a.find(match) != std::string::npos;
    if (!hit) return {};
  }
  std::vector<std::string> modes;
  std::stringstream ss(Env("FAKE_XCTRACE_MODE"));
  std::string m;
  while (std::getline(ss, m, ',')) {
    if (!m.empty()) modes.push_back(m);
  }
  return modes;
}

bool Has(const std::vector<std::string>& modes, const std::string& mode) {
  for (const std::string& m : modes) {
    if (m == mode) return true;
  }
  return false;
}

std::string OmittedTable(const std::vector<std::string>& modes) {
  for (const std::string& m : modes) {
    if (m.rfind("omit_table=", 0) == 0) return m.substr(11);
  }
  return "";
}

[[noreturn]] void Hang() {
  for (;;) pause();
}

[[noreturn]] void Fail(const std::string& message, int code = 5) {
  std::cerr << "xctrace: " << message << '\n';
  std::exit(code);
}

void Log(int argc, char** argv) {
  std::string path = Env("FAKE_XCTRACE_LOG");
  if (path.empty()) return;
  std::ofstream out(path, std::ios::app);
  for (int i = 1; i < argc; ++i) out << (i > 1 ? "\t" : "") << argv[i];
  out << '\n';
}

// Prints to --output F when given, else stdout.
int Emit(const std::string& text, const std::string& output) {
  if (output.empty()) {
    std::cout << text;
    return std::cout.good() ? 0 : 1;
  }
  std::ofstream out(output, std::ios::binary);
  out << text;
  return out.good() ? 0 : 1;
}

int Record(const std::vector<std::string>& args) {
  std::vector<std::string> modes = Modes(args);
  std::string templ, output;
  bool no_prompt = false, launch = false;
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::string> command;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= args.size()) Fail("option " + a + " needs a value", 2);
      return args[++i];
    };
    if (a == "--template") {
      templ = next();
    } else if (a == "--output") {
      output = next();
    } else if (a == "--time-limit") {
      next();
    } else if (a == "--env") {
      std::string kv = next();
      size_t eq = kv.find('=');
      if (eq == std::string::npos) Fail("--env needs NAME=VALUE", 2);
      env.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    } else if (a == "--no-prompt") {
      no_prompt = true;
    } else if (a == "--launch") {
      launch = true;
    } else if (a == "--" && launch) {
      command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    } else {
      Fail("unknown record argument " + a, 2);
    }
  }
  if (templ != "Metal System Trace") Fail("unexpected template '" + templ + "'", 2);
  if (!no_prompt || output.empty() || command.empty())
    Fail("record needs --no-prompt, --output and --launch -- CMD", 2);
  if (Exists(output)) Fail("the output " + output + " already exists", 1);

  if (Has(modes, "hang_record_ignore_signals")) {
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    Hang();
  }
  if (Has(modes, "hang_record_grandchild")) {
    pid_t child = fork();
    if (child == 0) {
      std::ofstream(Env("FAKE_XCTRACE_PIDFILE")) << getpid() << '\n';
      Hang();
    }
    Hang();
  }
  if (Has(modes, "hang_record")) Hang();
  if (Has(modes, "crash_record")) std::abort();
  if (Has(modes, "fail_record")) Fail("simulated recording failure (fail_record)");
  if (Has(modes, "no_trace")) return 0;

  std::string root = Env("FAKE_XCTRACE_SOURCE");
  if (root.empty()) Fail("FAKE_XCTRACE_SOURCE is not set", 2);
  std::string base = command[0].substr(command[0].rfind('/') == std::string::npos ? 0 : command[0].rfind('/') + 1);
  std::string source = IsDirectory(root + "/" + base) ? root + "/" + base : root;

  // Run the target as xctrace would, with its environment.
  pid_t pid = fork();
  if (pid == 0) {
    for (const auto& kv : env) setenv(kv.first.c_str(), kv.second.c_str(), 1);
    std::vector<char*> cargv;
    for (const std::string& c : command) cargv.push_back(const_cast<char*>(c.c_str()));
    cargv.push_back(nullptr);
    execvp(cargv[0], cargv.data());
    std::perror("xctrace: cannot launch the target");
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  int exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

  if (mkdir(output.c_str(), 0755) != 0) Fail("cannot create " + output, 1);
  std::ofstream(output + "/source") << source;
  std::ofstream(output + "/target-exit") << exit_status;
  std::cout << "Target app exited, ending recording...\nRecording completed. Saving output file...\n"
            << "Output file saved as: " << output << '\n';
  return 0;
}

int Export(const std::vector<std::string>& args) {
  std::vector<std::string> modes = Modes(args);
  std::string input, xpath, output;
  bool toc = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= args.size()) Fail("option " + a + " needs a value", 2);
      return args[++i];
    };
    if (a == "--input") {
      input = next();
    } else if (a == "--xpath") {
      xpath = next();
    } else if (a == "--output") {
      output = next();
    } else if (a == "--toc") {
      toc = true;
    } else {
      Fail("unknown export argument " + a, 2);
    }
  }
  if (input.empty() || toc == !xpath.empty()) Fail("export needs --input and one of --toc, --xpath", 2);
  bool ok = false;
  std::string source = Slurp(input + "/source", &ok);
  if (!ok) Fail("no trace at " + input, 1);
  if (Has(modes, "hang_export")) Hang();
  if (Has(modes, "crash_export")) std::abort();
  if (Has(modes, "fail_export")) Fail("simulated export failure (fail_export)");
  const std::string omitted = OmittedTable(modes);

  if (toc) {
    if (Has(modes, "empty_toc")) return 0;
    std::string text = Slurp(source + "/toc.xml", &ok);
    if (!ok) Fail("no toc.xml in " + source, 1);
    std::string exit_status = Slurp(input + "/target-exit");
    const std::string zero = "return-exit-status=\"0\"";
    size_t at = text.find(zero);
    if (at != std::string::npos && exit_status != "0") {
      text.replace(at, zero.size(), "return-exit-status=\"" + exit_status + "\"");
      const std::string reason = "termination-reason=\"exit(0)\"";
      size_t r = text.find(reason);
      if (r != std::string::npos) text.replace(r, reason.size(), "termination-reason=\"exit(" + exit_status + ")\"");
    }
    if (!omitted.empty()) {
      std::string needle = "<table schema=\"" + omitted + "\"";
      size_t t = text.find(needle);
      if (t != std::string::npos) {
        size_t line_start = text.rfind('\n', t) + 1;
        size_t line_end = text.find('\n', t);
        text.erase(line_start, line_end - line_start + 1);
      }
    }
    return Emit(text, output);
  }

  const std::string prefix = "/trace-toc/run[@number=\"1\"]/data/table[@schema=\"";
  if (xpath.rfind(prefix, 0) != 0 || xpath.size() < prefix.size() + 3 || xpath.substr(xpath.size() - 2) != "\"]") {
    Fail("unsupported xpath " + xpath, 2);
  }
  std::string schema = xpath.substr(prefix.size(), xpath.size() - prefix.size() - 2);
  const std::string empty = "<?xml version=\"1.0\"?>\n<trace-query-result>\n</trace-query-result>\n";
  if (Has(modes, "garbage_export")) return Emit("this is not XML\n", output);
  if (Has(modes, "empty_export") || schema == omitted) return Emit(empty, output);
  std::string text = Slurp(source + "/" + schema + ".xml", &ok);
  return Emit(ok ? text : empty, output);
}

}  // namespace

int main(int argc, char** argv) {
  Log(argc, argv);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) Fail("usage: xctrace record|export|version ...", 2);
  std::string sub = args[0];
  args.erase(args.begin());
  if (sub == "version") {
    std::cout << "xctrace version 26.4 (17E202) [perfgate stand-in]\n";
    return 0;
  }
  if (sub == "record") return Record(args);
  if (sub == "export") return Export(args);
  Fail("unknown subcommand " + sub, 2);
}
