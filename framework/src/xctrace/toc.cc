// Reader for `xctrace export --toc` output. See perfgate/xctrace/toc.h for the
// contract and docs/xctrace-format.md §9 for the format.
//
// The shape this reader expects (Instruments 14.3.1 and 26.0; unknown elements and
// attributes are skipped, so an element added by a later version is not an error):
//
//   <trace-toc>
//     <run number="1">
//       <info>
//         <target>
//           <device uuid model name os-version platform/>
//           <host-device …/>                        (simulator recordings only)
//           <process type arguments return-exit-status name pid termination-reason/>
//         </target>
//         <summary>
//           <start-date/> <end-date/> <duration>5.647984</duration> <end-reason/>
//           <instruments-version/> <template-name/> <recording-mode/> <time-limit/>
//           <intruments-recording-settings>          (sic; 26.0 only)
//             <instrument name><array><dictionary>
//               <key name>text</key> | <key name><value>…</value>…</key>
//           </intruments-recording-settings>
//         </summary>
//       </info>
//       <processes><process name pid path/>…</processes>
//       <data><table schema="…" …/>…</data>
//       <tracks/>
//     </run>
//   </trace-toc>
//
// Parsing is in situ; positions come from the element name pointers into the
// buffer, mapped through a LineIndex built before pugixml rewrites anything.
#include "perfgate/xctrace/toc.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <system_error>

#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "core/text_input.h"
#include "xctrace/xml_chars.h"

namespace perfgate::xctrace {
namespace {

constexpr char kEmptyFile[] = "xctrace.empty_file";
constexpr char kBadUtf8[] = "xctrace.bad_utf8";
constexpr char kNotXml[] = "xctrace.not_xml";
constexpr char kTruncated[] = "xctrace.truncated";
constexpr char kUnexpectedRoot[] = "xctrace.unexpected_root";
constexpr char kBadToc[] = "xctrace.bad_toc";
constexpr char kBadChar[] = "xctrace.bad_char";
constexpr char kTooDeep[] = "xctrace.too_deep";
constexpr char kTooLarge[] = "xctrace.toc_too_large";
// Recording settings nest five levels in real TOCs (instrument/array/dictionary/key/
// value); deeper is refused rather than walked.
constexpr int kMaxSettingsDepth = 64;
// The decoded Toc may cost this many bytes per input byte (plus kDecodedSlack): a
// million empty <run/>s, or many leaf settings under one long joined key, stop with
// xctrace.toc_too_large instead of taking gigabytes.
constexpr uint64_t kDecodedBytesPerInputByte = 32;
constexpr uint64_t kDecodedSlack = uint64_t{1} << 20;

bool IsDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A non-negative decimal integer without sign or spaces; nullopt otherwise or on
// overflow.
std::optional<int64_t> ParseDecimal(std::string_view s) {
  if (!IsDigits(s)) return std::nullopt;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// `digits[.digits]`, as the TOC writes seconds; nullopt for anything else (signs,
// exponents, inf, nan, spaces).
std::optional<double> ParseSeconds(std::string_view s) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos) {
    if (!IsDigits(s)) return std::nullopt;
  } else if (!IsDigits(s.substr(0, dot)) || !IsDigits(s.substr(dot + 1))) {
    return std::nullopt;
  }
  double value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::string Attr(const pugi::xml_node& node, const char* name) {
  return node.attribute(name).value();
}

// Walks one parsed document; owns nothing.
class TocParser {
 public:
  TocParser(const char* base, size_t size, const internal::LineIndex& index,
            const std::string& path)
      : base_(base), size_(size), index_(index), path_(path),
        budget_(kDecodedBytesPerInputByte * size + kDecodedSlack) {}

  SourceLocation Locate(size_t offset) const { return index_.Locate(path_, offset); }

  // The position of the element's '<'.
  SourceLocation Locate(const pugi::xml_node& node) const {
    const char* name = node.name();
    if (name > base_ && name <= base_ + size_) {
      return Locate(static_cast<size_t>(name - base_ - 1));
    }
    return SourceLocation{path_};
  }

  Status BadToc(const pugi::xml_node& node, std::string message) const {
    return Status::Error(kBadToc, std::move(message), Locate(node));
  }

  StatusOr<Toc> ParseRoot(const pugi::xml_node& root) {
    Toc toc;
    toc.path = path_;
    for (pugi::xml_node run_node : root.children("run")) {
      TocRun run;
      PERFGATE_RETURN_IF_ERROR(ParseRun(run_node, &run));
      PERFGATE_RETURN_IF_ERROR(Charge(run_node, CostOf(run)));
      toc.runs.push_back(std::move(run));
    }
    if (toc.runs.empty()) {
      return BadToc(root, "<trace-toc> has no <run>: the trace holds no recording");
    }
    return toc;
  }

 private:
  Status ParseRun(const pugi::xml_node& node, TocRun* run) {
    pugi::xml_attribute number = node.attribute("number");
    if (!number) return BadToc(node, "<run> has no number attribute");
    std::optional<int64_t> n = ParseDecimal(number.value());
    if (!n || *n < 1 || *n > std::numeric_limits<int>::max()) {
      return BadToc(node, std::string("<run number=\"") + number.value() +
                              "\">: the run number is not a positive decimal integer");
    }
    run->number = static_cast<int>(*n);

    pugi::xml_node info = node.child("info");
    pugi::xml_node target = info.child("target");
    ParseDevice(target.child("device"), &run->device);
    if (pugi::xml_node host = target.child("host-device")) {
      run->host_device.emplace();
      ParseDevice(host, &*run->host_device);
    }
    if (pugi::xml_node process = target.child("process")) {
      PERFGATE_RETURN_IF_ERROR(ParseProcess(process, &run->target_process));
      run->has_target_process = true;
    }

    pugi::xml_node summary = info.child("summary");
    run->start_date = summary.child("start-date").text().get();
    run->end_date = summary.child("end-date").text().get();
    run->end_reason = summary.child("end-reason").text().get();
    run->instruments_version = summary.child("instruments-version").text().get();
    run->template_name = summary.child("template-name").text().get();
    run->recording_mode = summary.child("recording-mode").text().get();
    run->time_limit = summary.child("time-limit").text().get();
    if (pugi::xml_node duration = summary.child("duration")) {
      std::string text = duration.text().get();
      run->duration_s = ParseSeconds(text);
      if (!run->duration_s) {
        return BadToc(duration, "<duration>" + text +
                                    "</duration> is not a non-negative decimal number of seconds");
      }
    }
    // Apple spells it "intruments"; accept the corrected spelling too in case a
    // later Instruments fixes it.
    pugi::xml_node settings = summary.child("intruments-recording-settings");
    if (!settings) settings = summary.child("instruments-recording-settings");
    PERFGATE_RETURN_IF_ERROR(CollectSettings(settings, &run->recording_settings));

    for (pugi::xml_node process : node.child("processes").children("process")) {
      TocProcess p;
      PERFGATE_RETURN_IF_ERROR(ParseProcess(process, &p));
      PERFGATE_RETURN_IF_ERROR(Charge(process, CostOf(p)));
      run->processes.push_back(std::move(p));
    }
    for (pugi::xml_node table : node.child("data").children("table")) {
      TocTable t;
      for (pugi::xml_attribute a : table.attributes()) {
        t.attributes.emplace_back(a.name(), a.value());
      }
      pugi::xml_attribute schema = table.attribute("schema");
      if (!schema || *schema.value() == '\0') {
        return BadToc(table, "<table> has no schema attribute, so no --xpath can select it");
      }
      t.schema = schema.value();
      PERFGATE_RETURN_IF_ERROR(Charge(table, CostOf(t)));
      run->tables.push_back(std::move(t));
    }
    for (pugi::xml_node track : node.child("tracks").children("track")) {
      TocTrack t;
      t.name = Attr(track, "name");
      for (pugi::xml_node detail : track.child("details").children("detail")) {
        t.details.push_back(Attr(detail, "name"));
      }
      PERFGATE_RETURN_IF_ERROR(Charge(track, CostOf(t)));
      run->tracks.push_back(std::move(t));
    }
    return Status();
  }

  static void ParseDevice(const pugi::xml_node& node, TocDevice* device) {
    device->uuid = Attr(node, "uuid");
    device->model = Attr(node, "model");
    device->name = Attr(node, "name");
    device->os_version = Attr(node, "os-version");
    device->platform = Attr(node, "platform");
  }

  Status ParseProcess(const pugi::xml_node& node, TocProcess* process) const {
    process->name = Attr(node, "name");
    process->type = Attr(node, "type");
    process->arguments = Attr(node, "arguments");
    process->path = Attr(node, "path");
    process->termination_reason = Attr(node, "termination-reason");
    process->return_exit_status = Attr(node, "return-exit-status");
    if (pugi::xml_attribute pid = node.attribute("pid")) {
      std::optional<int64_t> value = ParseDecimal(pid.value());
      if (!value) {
        return BadToc(node, "<process name=\"" + process->name + "\" pid=\"" + pid.value() +
                                "\">: the pid is not a decimal integer");
      }
      process->pid = *value;
    }
    return Status();
  }

  // Takes `bytes` of the decode budget; toc_too_large at `node` when it is spent.
  Status Charge(const pugi::xml_node& node, uint64_t bytes) {
    if (bytes <= budget_) {
      budget_ -= bytes;
      return Status();
    }
    return Status::Error(kTooLarge,
                         "the table of contents decodes to more than " +
                             std::to_string(kDecodedBytesPerInputByte) +
                             " bytes per input byte (plus 1 MiB); no real TOC comes near that",
                         Locate(node));
  }

  static uint64_t CostOf(const TocProcess& p) {
    return sizeof p + p.name.size() + p.type.size() + p.arguments.size() + p.path.size() +
           p.termination_reason.size() + p.return_exit_status.size();
  }
  // A run's own fields; its processes, tables, tracks and settings are charged one
  // by one as they are decoded, so no list outgrows the budget before it is checked.
  static uint64_t CostOf(const TocRun& run) {
    return sizeof run + 2 * sizeof(TocDevice) + CostOf(run.target_process) + run.start_date.size() +
           run.end_date.size() + run.end_reason.size() + run.instruments_version.size() +
           run.template_name.size() + run.recording_mode.size() + run.time_limit.size();
  }
  static uint64_t CostOf(const TocTable& t) {
    uint64_t cost = sizeof t + t.schema.size();
    for (const auto& [k, v] : t.attributes) cost += sizeof(k) * 2 + k.size() + v.size();
    return cost;
  }
  static uint64_t CostOf(const TocTrack& t) {
    uint64_t cost = sizeof t + t.name.size();
    for (const std::string& d : t.details) cost += sizeof d + d.size();
    return cost;
  }

  // One entry per leaf element below `root`, keyed by the `name` attributes on the
  // way down; text held by an element that also has children is kept too. Iterative
  // and depth-bounded (xctrace.too_deep past kMaxSettingsDepth); every entry's joined
  // key is charged to the decode budget, so a long prefix over many leaves is too.
  Status CollectSettings(const pugi::xml_node& root,
                         std::vector<std::pair<std::string, std::string>>* out) {
    struct Level {
      pugi::xml_node next;  // the next child to visit
      size_t key_size;      // the joined key's length at this level
    };
    std::string key;
    std::vector<Level> stack{{root.first_child(), 0}};
    while (!stack.empty()) {
      pugi::xml_node child = stack.back().next;
      if (!child) {
        stack.pop_back();
        continue;
      }
      stack.back().next = child.next_sibling();
      if (child.type() != pugi::node_element) continue;
      key.resize(stack.back().key_size);
      if (pugi::xml_attribute name = child.attribute("name")) {
        if (!key.empty()) key += '/';
        key += name.value();
      }
      const bool has_element_child = static_cast<bool>(child.find_child(
          [](const pugi::xml_node& n) { return n.type() == pugi::node_element; }));
      std::string text = child.text().get();
      if (has_element_child && stack.size() >= kMaxSettingsDepth) {
        return Status::Error(kTooDeep,
                             "recording settings nest deeper than " + std::to_string(kMaxSettingsDepth) +
                                 " levels",
                             Locate(child));
      }
      if (!has_element_child || !text.empty()) {
        PERFGATE_RETURN_IF_ERROR(Charge(child, sizeof(out->front()) + key.size() + text.size()));
        out->emplace_back(key, std::move(text));
      }
      if (has_element_child) stack.push_back({child.first_child(), key.size()});
    }
    return Status();
  }

  const char* base_;
  size_t size_;
  const internal::LineIndex& index_;
  const std::string& path_;
  uint64_t budget_;
};

std::string HexByte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", c);
  return buf;
}

nlohmann::json DeviceJson(const TocDevice& d) {
  return {{"uuid", d.uuid},
          {"model", d.model},
          {"name", d.name},
          {"os_version", d.os_version},
          {"platform", d.platform}};
}

nlohmann::json ProcessJson(const TocProcess& p) {
  nlohmann::json j = {{"name", p.name},
                      {"type", p.type},
                      {"arguments", p.arguments},
                      {"path", p.path},
                      {"termination_reason", p.termination_reason},
                      {"return_exit_status", p.return_exit_status}};
  j["pid"] = p.pid >= 0 ? nlohmann::json(p.pid) : nlohmann::json(nullptr);
  return j;
}

nlohmann::json RunJson(const TocRun& run) {
  nlohmann::json j = nlohmann::json::object();
  j["number"] = run.number;
  j["device"] = DeviceJson(run.device);
  j["host_device"] = run.host_device ? DeviceJson(*run.host_device) : nlohmann::json(nullptr);
  j["target_process"] =
      run.has_target_process ? ProcessJson(run.target_process) : nlohmann::json(nullptr);
  j["start_date"] = run.start_date;
  j["end_date"] = run.end_date;
  j["end_reason"] = run.end_reason;
  j["instruments_version"] = run.instruments_version;
  j["template_name"] = run.template_name;
  j["recording_mode"] = run.recording_mode;
  j["time_limit"] = run.time_limit;
  j["duration_s"] = run.duration_s ? nlohmann::json(*run.duration_s) : nlohmann::json(nullptr);
  nlohmann::json settings = nlohmann::json::array();
  for (const auto& [key, value] : run.recording_settings) {
    settings.push_back({{"key", key}, {"value", value}});
  }
  j["recording_settings"] = std::move(settings);
  nlohmann::json processes = nlohmann::json::array();
  for (const TocProcess& p : run.processes) processes.push_back(ProcessJson(p));
  j["processes"] = std::move(processes);
  nlohmann::json tables = nlohmann::json::array();
  for (const TocTable& t : run.tables) {
    nlohmann::json table = nlohmann::json::object();
    for (const auto& [name, value] : t.attributes) table[name] = value;
    table["schema"] = t.schema;
    tables.push_back(std::move(table));
  }
  j["tables"] = std::move(tables);
  nlohmann::json tracks = nlohmann::json::array();
  for (const TocTrack& t : run.tracks) {
    tracks.push_back({{"name", t.name}, {"details", t.details}});
  }
  j["tracks"] = std::move(tracks);
  return j;
}

}  // namespace

StatusOr<Toc> ReadTocBuffer(std::string bytes, std::string display_path) {
  if (bytes.empty()) {
    return Status::Error(kEmptyFile, "the file is empty; expected the output of "
                                     "`xctrace export --toc`",
                         SourceLocation{display_path});
  }
  size_t bad;
  const internal::LineIndex index = internal::LineIndex::BuildValidatingUtf8(bytes, &bad);
  if (bad != std::string_view::npos) {
    return Status::Error(kBadUtf8,
                         "byte " + HexByte(static_cast<unsigned char>(bytes[bad])) +
                             " is not valid UTF-8",
                         index.Locate(display_path, bad));
  }

  if (auto bad = internal::FindForbiddenChar(bytes, internal::FindOpaqueRanges(bytes))) {
    return Status::Error(kBadChar, bad->message, index.Locate(display_path, bad->offset));
  }
  char* base = bytes.data();
  const size_t size = bytes.size();
  pugi::xml_document doc;
  pugi::xml_parse_result parsed = doc.load_buffer_inplace(
      base, size, pugi::parse_default | pugi::parse_trim_pcdata, pugi::encoding_utf8);
  TocParser parser(base, size, index, display_path);
  if (!parsed) {
    size_t offset = parsed.offset < 0 ? 0 : static_cast<size_t>(parsed.offset);
    // pugixml points a mismatched end tag at its name; point at its '<' (which the
    // in-situ parse may already have overwritten with a NUL).
    if (parsed.status == pugi::status_end_element_mismatch && offset >= 2 && offset < size &&
        base[offset - 1] == '/' && (base[offset - 2] == '<' || base[offset - 2] == '\0')) {
      offset -= 2;
    }
    // pugixml reports an element left open at the end of the input as a tag
    // mismatch on the last byte.
    if (parsed.status == pugi::status_end_element_mismatch && offset + 1 >= size) {
      return Status::Error(kTruncated,
                           std::string("the input ends before every element is closed (") +
                               parsed.description() + "); was the export cut short?",
                           parser.Locate(offset));
    }
    return Status::Error(kNotXml, std::string("not well-formed XML: ") + parsed.description(),
                         parser.Locate(offset));
  }

  pugi::xml_node root = doc.document_element();
  for (pugi::xml_node extra = root.next_sibling(); extra; extra = extra.next_sibling()) {
    if (extra.type() == pugi::node_element) {
      return Status::Error(kNotXml,
                           std::string("not well-formed XML: a second root element <") +
                               extra.name() + "> follows <" + root.name() + ">",
                           parser.Locate(extra));
    }
  }
  if (std::string_view(root.name()) != "trace-toc") {
    std::string message =
        std::string("the root element is <") + root.name() + ">, expected <trace-toc>";
    if (std::string_view(root.name()) == "trace-query-result") {
      message += " (this is an `xctrace export --xpath` result, not a --toc)";
    }
    return Status::Error(kUnexpectedRoot, std::move(message), parser.Locate(root));
  }
  return parser.ParseRoot(root);
}

StatusOr<Toc> ReadTocFile(const std::string& path) {
  PERFGATE_ASSIGN_OR_RETURN(std::string bytes, internal::ReadWholeFile(path));
  return ReadTocBuffer(std::move(bytes), path);
}

const TocTable* FindTable(const TocRun& run, std::string_view schema) {
  for (const TocTable& table : run.tables) {
    if (table.schema == schema) return &table;
  }
  return nullptr;
}

std::vector<const TocTable*> FindTables(const TocRun& run, std::string_view schema) {
  std::vector<const TocTable*> out;
  for (const TocTable& table : run.tables) {
    if (table.schema == schema) out.push_back(&table);
  }
  return out;
}

std::optional<std::string_view> FindAttribute(const TocTable& table, std::string_view name) {
  for (const auto& [key, value] : table.attributes) {
    if (key == name) return std::string_view(value);
  }
  return std::nullopt;
}

std::string TocToJson(const Toc& toc) {
  // The same text as dumping one tree of the whole TOC (keys sorted: "path" < "runs"),
  // built one run's tree at a time so that the trees never outweigh the Toc itself.
  auto dump = [](const nlohmann::json& j) { return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace); };
  std::string out = "{\n  \"path\": " + dump(nlohmann::json(toc.path)) + ",\n  \"runs\": ";
  if (toc.runs.empty()) return out + "[]\n}\n";
  out += "[";
  for (size_t i = 0; i < toc.runs.size(); ++i) {
    const std::string run = dump(RunJson(toc.runs[i]));
    out += i == 0 ? "\n    " : ",\n    ";
    // Re-indented by four: JSON strings hold no raw newline, so every one is layout.
    for (char c : run) {
      out += c;
      if (c == '\n') out += "    ";
    }
  }
  return out + "\n  ]\n}\n";
}

}  // namespace perfgate::xctrace
