// `perfgate table`, `perfgate toc` and `perfgate info`: decoding xctrace exports.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.h"
#include "perfgate/xctrace/reader.h"
#include "perfgate/xctrace/table_dump.h"
#include "perfgate/xctrace/toc.h"

namespace perfgate::cli {
namespace {

struct TableArgs {
  std::string file;
  std::string format = "json";
  std::string output;
  std::string schema;
  int run = 0;
  bool lenient = false;
};

// Opens --output (or stdout) for writing.
std::ostream* OpenOutput(const std::string& path, std::unique_ptr<std::ofstream>* holder, Status* error) {
  if (path.empty() || path == "-") return &std::cout;
  *holder = std::make_unique<std::ofstream>(path, std::ios::binary);
  if (!**holder) *error = Status::Error("io.write_failed", "cannot open for writing", {path});
  return holder->get();
}

int RunTable(const TableArgs& args) {
  xctrace::ReadOptions options;
  options.mode = args.lenient ? xctrace::ReadMode::kLenient : xctrace::ReadMode::kStrict;
  options.expected_schema = args.schema;
  options.run = args.run;
  auto doc = xctrace::ReadExportFile(args.file, options);
  if (!doc.ok()) return ReportError(doc.status());
  std::vector<xctrace::Table> tables;
  for (size_t i = 0; i < doc->table_count(); ++i) {
    if (args.schema.empty() || doc->table(i).schema() == args.schema) tables.push_back(doc->table(i));
  }
  if (tables.empty()) {
    return ReportError(Status::Error("xctrace.empty_export",
                                     args.schema.empty() ? "the export holds no table"
                                                         : "no table of schema '" + args.schema + "'",
                                     {args.file}));
  }
  if (args.format == "csv" && tables.size() > 1) {
    return ReportError(Status::Error("cli.usage",
                                     "the export holds " + std::to_string(tables.size()) +
                                         " tables; pick one with --schema for CSV",
                                     {args.file}, ErrorKind::kUsage));
  }
  std::unique_ptr<std::ofstream> holder;
  Status open_error;
  std::ostream* out = OpenOutput(args.output, &holder, &open_error);
  if (!open_error.ok()) return ReportError(open_error);
  Status written;
  if (args.format == "csv") {
    written = xctrace::WriteTableCsv(*doc, tables[0], *out);
  } else if (tables.size() == 1) {
    written = xctrace::WriteTableJson(*doc, tables[0], *out);
  } else {
    // One budget for the whole dump: the bound is per input, not per table.
    uint64_t budget = xctrace::TableOutputBound(*doc);
    *out << "[\n";
    for (size_t i = 0; i < tables.size() && written.ok(); ++i) {
      if (i) *out << ",\n";
      written = xctrace::WriteTableJson(*doc, tables[i], *out, &budget);
    }
    if (written.ok()) *out << "]\n";
  }
  if (!written.ok()) {
    out->flush();
    return ReportError(written);
  }
  for (const auto& e : doc->diagnostics().Entries()) {
    std::cerr << FormatLocation(e.first_location) << ": " << SeverityName(e.severity) << '[' << e.code << "]: " << e.first_detail << " (x"
              << e.count << ")\n";
  }
  out->flush();
  if (!*out) return ReportError(Status::Error("io.write_failed", "write failed", {args.output}));
  return kExitOk;
}

// Reads the first element name, to tell a TOC from a table export. Opened without
// blocking and only when it is a regular file: anything else (a FIFO, a directory)
// goes on to the reader, which names what is wrong with it.
bool LooksLikeToc(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  struct stat st;
  char buf[512] = {};
  ssize_t n = 0;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  return n > 0 && std::string(buf, static_cast<size_t>(n)).find("<trace-toc") != std::string::npos;
}

int RunInfo(const std::vector<std::string>& files, bool lenient, int run) {
  int worst = kExitOk;
  for (const std::string& file : files) {
    if (LooksLikeToc(file)) {
      auto toc = xctrace::ReadTocFile(file);
      if (!toc.ok()) {
        worst = std::max(worst, ReportError(toc.status()));
        continue;
      }
      std::cout << file << ": table of contents, " << toc->runs.size() << " run(s)\n";
      for (const auto& run : toc->runs) {
        std::cout << "  run " << run.number << ": template '" << run.template_name << "', Instruments "
                  << run.instruments_version << ", " << run.tables.size() << " tables\n";
      }
      continue;
    }
    xctrace::ReadOptions options;
    options.mode = lenient ? xctrace::ReadMode::kLenient : xctrace::ReadMode::kStrict;
    options.run = run;
    auto doc = xctrace::ReadExportFile(file, options);
    if (!doc.ok()) {
      worst = std::max(worst, ReportError(doc.status()));
      continue;
    }
    std::cout << file << ": " << doc->byte_size() << " bytes, " << doc->table_count() << " table(s)\n";
    for (size_t i = 0; i < doc->table_count(); ++i) {
      xctrace::Table t = doc->table(i);
      std::cout << "  " << t.schema() << ": " << t.row_count() << " rows x " << t.columns().size()
                << " columns (";
      for (size_t c = 0; c < t.columns().size(); ++c) {
        std::cout << (c ? ", " : "") << t.columns()[c].mnemonic;
      }
      std::cout << ")";
      if (t.run() > 0) std::cout << ", run " << t.run();
      if (t.node_count() > 1) std::cout << ", from " << t.node_count() << " nodes";
      std::cout << "\n";
    }
    for (const auto& e : doc->diagnostics().Entries()) {
      std::cout << "  " << SeverityName(e.severity) << ' ' << e.code << " x" << e.count << ": "
                << e.first_detail << '\n';
    }
  }
  return worst;
}

}  // namespace

void RegisterXctraceCommands(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<TableArgs>();
  auto* table = app.add_subcommand("table", "Dump one table of an `xctrace export --xpath` file as JSON or CSV");
  table->add_option("file", args->file, "the exported XML")->required();
  table->add_option("--format", args->format, "json (default) or csv")->check(CLI::IsMember({"json", "csv"}));
  table->add_option("--output,-o", args->output, "write here instead of stdout");
  table->add_option("--schema", args->schema, "the schema expected (and selected when several)");
  table->add_option("--run", args->run,
                    "keep only this run's tables (by the run in each node's xpath); required when the export "
                    "holds a schema from several runs")
      ->check(PositiveInt());
  table->add_flag("--lenient", args->lenient, "count anomalies instead of failing on the first");
  AddInputLimitOptions(table);
  table->callback([args, exit_code] { *exit_code = RunTable(*args); });

  auto toc_file = std::make_shared<std::string>();
  auto* toc = app.add_subcommand("toc", "Print an `xctrace export --toc` file as JSON");
  toc->add_option("file", *toc_file, "the exported TOC XML")->required();
  AddInputLimitOptions(toc);
  toc->callback([toc_file, exit_code] {
    auto t = xctrace::ReadTocFile(*toc_file);
    if (!t.ok()) {
      *exit_code = ReportError(t.status());
      return;
    }
    std::cout << xctrace::TocToJson(*t);
    *exit_code = kExitOk;
  });

  auto files = std::make_shared<std::vector<std::string>>();
  auto lenient = std::make_shared<bool>(false);
  auto info_run = std::make_shared<int>(0);
  auto* info = app.add_subcommand("info", "Summarise exports and TOCs: tables, rows, columns, anomalies");
  info->add_option("files", *files, "exported XML files")->required();
  info->add_flag("--lenient", *lenient, "count anomalies instead of failing on the first");
  AddInputLimitOptions(info);
  info->add_option("--run", *info_run, "keep only this run's tables (as `table --run`)")->check(PositiveInt());
  info->callback([files, lenient, info_run, exit_code] { *exit_code = RunInfo(*files, *lenient, *info_run); });
}

}  // namespace perfgate::cli
