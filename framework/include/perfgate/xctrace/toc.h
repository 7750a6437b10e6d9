// Reader for the table of contents that `xctrace export --input X.trace --toc` writes
// (<trace-toc>).
//
// The TOC lists a trace's runs; for each run it names the device, the target process,
// the recording summary (template, Instruments version, duration, settings), the
// processes seen and the tables that `--xpath` can export. This reader turns it into
// plain structs so that callers can check a recording before exporting its tables,
// and `perfgate toc FILE.xml` prints it as JSON (TocToJson).
//
// Every value is kept as the TOC writes it (attributes and element text, entities
// decoded, surrounding whitespace trimmed); only the run number, pids and the
// duration are converted to numbers. Elements the reader does not know are ignored,
// so newer Instruments versions still read. Errors come back as a Status with a
// `path:line:col` position (codes xctrace.empty_file, xctrace.bad_utf8,
// xctrace.bad_char, xctrace.not_xml, xctrace.truncated, xctrace.unexpected_root,
// xctrace.bad_toc, xctrace.too_deep, xctrace.toc_too_large).
// The format is described in docs/xctrace-format.md §9.
#ifndef PERFGATE_XCTRACE_TOC_H_
#define PERFGATE_XCTRACE_TOC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfgate/core/status.h"

namespace perfgate::xctrace {

// A <device> or <host-device> of <target>: the attributes as written, "" when absent.
struct TocDevice {
  std::string uuid;        // e.g. "4015AB8A-185C-4334-8019-EBDE113852E5"
  std::string model;       // e.g. "MacBook Pro", "Simulated iPhone 17 Pro"
  std::string name;        // the user-visible device name, e.g. "Filipp’s MacBook Pro"
  std::string os_version;  // `os-version`, e.g. "26.3.1 (23D8133)"
  std::string platform;    // e.g. "macOS", "iOS Simulator"
};

// A <process>: the target process under <target>, or one entry of <processes>.
// Attributes absent from the element are "" (pid: -1). The target process carries
// type, arguments, return-exit-status and termination-reason but no path; the
// entries of <processes> carry only name, pid and path.
struct TocProcess {
  std::string name;                // e.g. "ProbeFixture"
  std::string type;                // "attached" or "launched"; "" in older TOCs
  std::string arguments;           // the launch arguments as one string, e.g. "Test"
  std::string path;                // executable path (only in <processes>)
  std::string termination_reason;  // `termination-reason`, e.g. "exit(0)"
  std::string return_exit_status;  // `return-exit-status`, kept as text, e.g. "0"
  int64_t pid = -1;                // decimal pid; -1 when the attribute is absent
};

// One <table> of <data>: a table that `--xpath` can export. The same schema can
// appear several times in one run (kdebug, tick, os-signpost), with different
// attributes.
struct TocTable {
  // The `schema` attribute, e.g. "metal-gpu-intervals"; never empty.
  std::string schema;
  // Every attribute of the element, `schema` included, in document order (which
  // varies between tables), values with entities decoded: for example
  // {"codes", "\"0x2b,0xd8\""}, {"schema", "kdebug"}, {"target", "SINGLE"}.
  std::vector<std::pair<std::string, std::string>> attributes;
};

// One <track> of <tracks> (empty in every TOC seen so far; shape as reported by the
// xctrace man page's `tracks/track[@name]/details/detail[@name]` selector).
struct TocTrack {
  std::string name;                  // the `name` attribute
  std::vector<std::string> details;  // `name` of each <details>/<detail>, in order
};

// One <run number="N">.
struct TocRun {
  // The run number, 1-based as in `/trace-toc/run[@number="1"]`.
  int number = 0;

  // <info><target>: the recorded device; the host Mac for simulator recordings.
  TocDevice device;
  std::optional<TocDevice> host_device;
  // <info><target><process>: the process the trace targeted. Absent (and
  // has_target_process false) for all-process recordings.
  TocProcess target_process;
  bool has_target_process = false;

  // <info><summary>: element texts as written, "" when absent.
  std::string start_date;           // ISO 8601 with offset, e.g. "2026-04-09T23:30:15.850-03:00"
  std::string end_date;             // likewise
  std::string end_reason;           // e.g. "Time limit reached", "Target app exited"
  std::string instruments_version;  // e.g. "26.0 (17C529)"
  std::string template_name;        // e.g. "Metal System Trace"
  std::string recording_mode;       // e.g. "Deferred", "Windowed (5 seconds)"
  std::string time_limit;           // e.g. "5 seconds", "12 hours"
  // <duration>: the recording's length in seconds (microsecond resolution in the
  // TOC, e.g. 5.647984); nullopt when the element is absent.
  std::optional<double> duration_s;
  // <intruments-recording-settings> (Apple's spelling), flattened: one entry per
  // leaf element, in document order. The key joins the `name` attributes on the way
  // down with '/', so `<instrument name="Hangs">…<key name="Reporting Threshold">X`
  // gives {"Hangs/Reporting Threshold", "X"}, and a key holding several <value>s
  // gives one entry per value under the same key. Empty when the element is absent.
  std::vector<std::pair<std::string, std::string>> recording_settings;

  // <processes>: every process seen during the run, in document order.
  std::vector<TocProcess> processes;
  // <data>: the exportable tables in TOC order; tables[i] is `data/table[i + 1]`.
  std::vector<TocTable> tables;
  // <tracks>.
  std::vector<TocTrack> tracks;
};

// A whole TOC.
struct Toc {
  std::string path;          // the display path given to the reader
  std::vector<TocRun> runs;  // at least one, in document order
};

// Decodes a TOC held in memory; `display_path` names it in errors and in Toc::path.
// Errors: xctrace.empty_file; xctrace.bad_utf8 at the first bad byte;
// xctrace.not_xml at pugixml's error position, with its description;
// xctrace.truncated when the input ends inside an open element;
// xctrace.unexpected_root when the root element is not <trace-toc>; xctrace.bad_toc
// at the offending element for a TOC without <run>, a run without a positive
// decimal `number`, a pid that is not a decimal integer, a <duration> that is not a
// non-negative decimal number, or a <table> without `schema`; xctrace.bad_char at a
// raw control byte or a reference to a character XML 1.0 forbids (`&#0;`);
// xctrace.too_deep at recording settings nested past 64 levels; and
// xctrace.toc_too_large when the decoded Toc would pass 32 bytes per input byte plus
// 1 MiB (a million empty <run>s, or a long joined settings key over many leaves).
StatusOr<Toc> ReadTocBuffer(std::string bytes, std::string display_path);
// Reads and decodes a TOC file; adds io.not_found / io.read_failed to the above.
StatusOr<Toc> ReadTocFile(const std::string& path);

// The first table of `run` with this schema, or nullptr.
const TocTable* FindTable(const TocRun& run, std::string_view schema);
// Every table of `run` with this schema, in TOC order; empty when there is none.
std::vector<const TocTable*> FindTables(const TocRun& run, std::string_view schema);
// The value of the table's attribute `name` (e.g. "target-pid"), or nullopt when the
// table does not carry it.
std::optional<std::string_view> FindAttribute(const TocTable& table, std::string_view name);

// The TOC as JSON: keys sorted, 2-space indent, a trailing newline. Numbers (run
// number, pids, duration_s) are JSON numbers; absent values (pid, duration,
// host_device, target_process) are null; a table is an object of its attributes;
// recording_settings is a list of {"key", "value"} objects. This is what
// `perfgate toc FILE.xml` prints.
std::string TocToJson(const Toc& toc);

}  // namespace perfgate::xctrace

#endif  // PERFGATE_XCTRACE_TOC_H_
