// Importing a file into a history: what kind it is (by its content, never its name),
// the context and keys its runs get, and appending them.
#include <sys/stat.h>

#include <cctype>
#include <ctime>
#include <filesystem>
#include <map>

#include "core/json_document.h"
#include "core/text_input.h"
#include "history/interchange_internal.h"

namespace perfgate::history {
namespace interchange {
namespace {

// FNV-1a, 128 bits (offset basis and prime of the FNV specification).
__extension__ typedef unsigned __int128 Hash128;
constexpr Hash128 kFnvOffset = (static_cast<Hash128>(0x6c62272e07bb0142ull) << 64) | 0x62b821756295c58dull;
constexpr Hash128 kFnvPrime = (static_cast<Hash128>(0x0000000001000000ull) << 64) | 0x000000000000013Bull;

// Folds one field into the hash as a netstring ("<length>:<bytes>,"), so that no
// field's bytes can pass for a boundary between two.
void HashField(std::string_view bytes, Hash128* h) {
  auto fold = [h](std::string_view part) {
    for (unsigned char c : part) {
      *h ^= c;
      *h *= kFnvPrime;
    }
  };
  fold(std::to_string(bytes.size()) + ":");
  fold(bytes);
  fold(",");
}

std::string HexOf128(Hash128 h) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 31; i >= 0; --i, h >>= 4) out[static_cast<size_t>(i)] = kHex[static_cast<unsigned>(h & 15)];
  return out;
}

// The file's name without its extensions: "metrics_baseline.txt" -> "metrics_baseline".
std::string FileStem(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  const size_t dot = name.find('.', 1);
  return dot == std::string::npos ? name : name.substr(0, dot);
}

// The suite a kind's runs default to: the CLI subcommand that writes the file.
std::string DefaultSuite(ImportKind kind, const std::string& path) {
  switch (kind) {
    case ImportKind::kCounterHistory: return "counters";
    case ImportKind::kAttributeReport: return "attribute";
    case ImportKind::kGolden: {
      const std::string folder = std::filesystem::path(path).parent_path().filename().string();
      return folder.empty() ? "golden" : folder;
    }
    case ImportKind::kKernelReport: return "kernel-report";
    case ImportKind::kToksRatio: return "toks-ratio";
  }
  return "";
}

}  // namespace

Status BadImport(const std::string& message, SourceLocation location) {
  return Status::Error("history.bad_import", message, std::move(location));
}

std::string ImportRunKey(ImportKind kind, const RunContext& context, const std::string& engine,
                         std::string_view content, int occurrence) {
  Hash128 h = kFnvOffset;
  for (std::string_view field : {std::string_view("perfgate-import/1"), std::string_view(ImportKindName(kind)),
                                 std::string_view(context.suite), std::string_view(context.test),
                                 std::string_view(engine), content}) {
    HashField(field, &h);
  }
  HashField(std::to_string(occurrence), &h);
  return HexOf128(h);
}

std::vector<int> Occurrences(const std::vector<std::string>& contents) {
  std::map<std::string_view, int> seen;
  std::vector<int> out;
  for (const std::string& c : contents) out.push_back(seen[c]++);
  return out;
}

RunContext ImportContext(ImportKind kind, const std::string& path, const ImportOptions& options,
                         const std::string& file_time) {
  RunContext c;
  c.time = options.time.empty() ? file_time : options.time;
  c.commit = options.commit;
  c.branch = options.branch;
  c.machine = options.machine;
  c.suite = options.suite.empty() ? DefaultSuite(kind, path) : options.suite;
  c.test = options.test.empty() ? FileStem(path) : options.test;
  c.meta["import.file"] = path;
  c.meta["import.kind"] = ImportKindName(kind);
  return c;
}

std::string ImportEngine(const ImportOptions& options, const std::string& own) {
  if (!options.engine.empty()) return options.engine;
  return own.empty() ? kDefaultImportEngine : own;
}

Status JsonFields::Error(const std::string& pointer, const std::string& message) const {
  return BadImport(message, internal::LocateJsonPointerOrAncestor(text_, path_, pointer));
}

std::string JsonFields::Child(const std::string& pointer, const std::string& key) {
  return pointer + "/" + internal::EscapeJsonPointerToken(key);
}

StatusOr<double> JsonFields::Number(const nlohmann::json& object, const std::string& pointer,
                                    const std::string& key) const {
  const std::string at = Child(pointer, key);
  auto it = object.find(key);
  if (it == object.end()) return Error(pointer, "'" + key + "' is missing at " + at);
  if (!it->is_number()) return Error(at, at + " is no number (null: not finite)");
  return it->get<double>();
}

StatusOr<std::vector<double>> JsonFields::Numbers(const nlohmann::json& object, const std::string& pointer,
                                                  const std::string& key) const {
  PERFGATE_ASSIGN_OR_RETURN(const nlohmann::json* list, Array(object, pointer, key));
  std::vector<double> out;
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string at = Child(pointer, key) + "/" + std::to_string(i);
    if (!(*list)[i].is_number()) return Error(at, at + " is no number (null: not finite)");
    out.push_back((*list)[i].get<double>());
  }
  return out;
}

StatusOr<const nlohmann::json*> JsonFields::Object(const nlohmann::json& object, const std::string& pointer,
                                                   const std::string& key) const {
  const std::string at = Child(pointer, key);
  auto it = object.find(key);
  if (it == object.end()) return Error(pointer, "'" + key + "' is missing at " + at);
  if (!it->is_object()) return Error(at, at + " is no object");
  return &*it;
}

StatusOr<const nlohmann::json*> JsonFields::Array(const nlohmann::json& object, const std::string& pointer,
                                                  const std::string& key) const {
  const std::string at = Child(pointer, key);
  auto it = object.find(key);
  if (it == object.end()) return Error(pointer, "'" + key + "' is missing at " + at);
  if (!it->is_array()) return Error(at, at + " is no array");
  return &*it;
}

std::string JsonFields::Text(const nlohmann::json& object, const std::string& key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace interchange

namespace {

using interchange::BadImport;
using interchange::JsonFields;

// The file's modification time, UTC ISO 8601; "" when it cannot be read.
std::string ModificationTime(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return "";
  std::tm utc{};
  gmtime_r(&st.st_mtime, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// "YYYY-MM-DDTHH:MM:SSZ", as every run's time is written.
bool IsRunTime(const std::string& t) {
  static constexpr char kShape[] = "dddd-dd-ddTdd:dd:ddZ";
  if (t.size() != sizeof kShape - 1) return false;
  for (size_t i = 0; i < t.size(); ++i) {
    const bool digit = std::isdigit(static_cast<unsigned char>(t[i])) != 0;
    if (kShape[i] == 'd' ? !digit : t[i] != kShape[i]) return false;
  }
  return true;
}

// The first byte that is not a byte-order mark or white space.
char FirstSignificant(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) return c;
  }
  return '\0';
}

bool JsonHasMember(const nlohmann::json& root, const char* key) { return root.find(key) != root.end(); }

const internal::JsonDocumentCodes kJsonCodes{"history.bad_import", "history.bad_import"};

// A JSON document by what it says it is.
StatusOr<ImportedFile> ReadJsonImport(std::string_view text, const std::string& path, const ImportOptions& options,
                                      const std::string& file_time) {
  PERFGATE_ASSIGN_OR_RETURN(nlohmann::json root, internal::ParseJsonObject(text, path, kJsonCodes));
  const JsonFields fields(text, path);
  const std::string kind = JsonFields::Text(root, "kind");
  auto context = [&](ImportKind k) { return interchange::ImportContext(k, path, options, file_time); };
  ImportedFile file;
  if (kind == "perfgate.kernel_report") {
    file.kind = ImportKind::kKernelReport;
    PERFGATE_ASSIGN_OR_RETURN(file.runs, interchange::KernelReportRuns(root, fields, context(file.kind), text));
  } else if (JsonFields::Text(root, "schema") == "perfgate.toks_ratio/1") {
    file.kind = ImportKind::kToksRatio;
    PERFGATE_ASSIGN_OR_RETURN(file.runs, interchange::ToksRatioRuns(root, fields, context(file.kind),
                                                                    interchange::ImportEngine(options), text));
  } else if (kind == "perfgate.history") {
    return fields.Error("/kind", "a `perfgate history --format json` table holds only the counters it shows: "
                                 "import the counter-report file it was made from");
  } else if (JsonHasMember(root, "schema_version") && JsonHasMember(root, "values")) {
    file.kind = ImportKind::kGolden;
    PERFGATE_ASSIGN_OR_RETURN(file.runs, interchange::GoldenRuns(text, path, context(file.kind), options));
  } else if (JsonHasMember(root, "schema_version") && JsonHasMember(root, "engines")) {
    file.kind = ImportKind::kAttributeReport;
    PERFGATE_ASSIGN_OR_RETURN(file.runs, interchange::AttributeReportRuns(root, fields, context(file.kind), text));
  } else {
    return BadImport("a JSON document of no kind perfgate imports: not a `perfgate attribute`, `kernel-report` "
                     "or `toks-ratio` JSON report, nor a golden file",
                     internal::LocateJsonPointer(text, path, ""));
  }
  return file;
}

}  // namespace

const char* ImportKindName(ImportKind kind) {
  switch (kind) {
    case ImportKind::kCounterHistory: return "counter_history";
    case ImportKind::kAttributeReport: return "attribute_report";
    case ImportKind::kGolden: return "golden";
    case ImportKind::kKernelReport: return "kernel_report";
    case ImportKind::kToksRatio: return "toks_ratio";
  }
  return "";
}

StatusOr<ImportedFile> ReadImportFile(const std::string& path, const ImportOptions& options) {
  if (!options.time.empty() && !IsRunTime(options.time)) {
    return Status::Error("history.bad_import",
                         "the runs' time '" + options.time + "' is not UTC ISO 8601 like 2026-12-05T23:14:00Z", {},
                         ErrorKind::kUsage);
  }
  PERFGATE_ASSIGN_OR_RETURN(std::string text, internal::ReadWholeFile(path));
  const std::string file_time = ModificationTime(path);
  const char first = FirstSignificant(text);
  if (first == '{') return ReadJsonImport(text, path, options, file_time);
  if (first == '[') {
    return BadImport("a JSON array: perfgate imports JSON reports and golden files, which are objects",
                     internal::LocateJsonPointer(text, path, ""));
  }
  ImportedFile file;
  file.kind = ImportKind::kCounterHistory;
  const RunContext base = interchange::ImportContext(file.kind, path, options, file_time);
  PERFGATE_ASSIGN_OR_RETURN(file.runs,
                            interchange::CounterHistoryRuns(text, path, base, interchange::ImportEngine(options)));
  return file;
}

StatusOr<ImportResult> ImportFile(Store& store, const std::string& path, const ImportOptions& options) {
  PERFGATE_ASSIGN_OR_RETURN(ImportedFile file, ReadImportFile(path, options));
  PERFGATE_ASSIGN_OR_RETURN(const int64_t before, store.RunCount());
  ImportResult result;
  result.kind = file.kind;
  for (const Run& run : file.runs) {
    PERFGATE_ASSIGN_OR_RETURN(const int64_t id, store.Append(run));
    result.run_ids.push_back(id);
  }
  PERFGATE_ASSIGN_OR_RETURN(const int64_t after, store.RunCount());
  result.added = after - before;
  return result;
}

}  // namespace perfgate::history
