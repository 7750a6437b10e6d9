// --format and --output of every subcommand that writes a report, declared once: the
// formats a subcommand has, plus `all`, which writes every one of them beside each
// other as PREFIX.txt, PREFIX.md, PREFIX.json, PREFIX.csv and PREFIX.svg.
#ifndef PERFGATE_TOOLS_PERFGATE_REPORT_OUTPUT_H_
#define PERFGATE_TOOLS_PERFGATE_REPORT_OUTPUT_H_

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "perfgate/core/status.h"
#include "perfgate/document/document.h"

namespace perfgate::cli {

// What --format and --output chose.
struct OutputOptions {
  std::string format;  // one of the subcommand's formats, or "all"
  std::string output;  // "" or "-": standard output; with "all", the files' prefix
};

// One format of a subcommand's report and how to render it. The format's name is one
// of "text", "markdown", "json" and "svg"; its file extension follows from it.
struct Rendering {
  std::string format;
  std::function<StatusOr<std::string>()> render;
};

// The formats of a subcommand that writes a report document: every registered format
// (document::Formats()), text first.
std::vector<std::string> DocumentFormats();

// Declares --format (the names of `formats`, the first the default, and "all") and
// --output,-o on `cmd`. `output_names` keeps an older alias where a
// subcommand had one ("--out,--output,-o").
void AddOutputOptions(CLI::App* cmd, OutputOptions* options, const std::vector<std::string>& formats,
                      const std::string& output_names = "--output,-o");

// Writes the rendering --format names to standard output or to --output ("wrote:
// PATH" on stderr). With --format all it renders every format, then writes each to
// PREFIX plus its extension; it needs --output PREFIX (a usage error without it). A
// rendering's error is returned as it is, before any file is written.
Status WriteRenderings(const OutputOptions& options, const std::vector<Rendering>& renderings);

// Writes `document` as WriteRenderings does, in the format --format names
// (document::Render: a format that does not apply to the document is a usage error
// saying why). With --format all, every format the document renders in
// (document::FormatsOf) that is among `offered`, the subcommand's formats (every one
// when `offered` is empty).
Status WriteDocument(const OutputOptions& options, const document::Document& document,
                     const std::vector<std::string>& offered = {});

}  // namespace perfgate::cli

#endif  // PERFGATE_TOOLS_PERFGATE_REPORT_OUTPUT_H_
