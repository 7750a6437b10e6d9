#include "report_output.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <utility>

#include "commands.h"
#include "engine_options.h"
#include "perfgate/document/render.h"

namespace perfgate::cli {
namespace {

// The file extension of each format, for --format all: the registered formats'.
const std::map<std::string, std::string>& Extensions() {
  static const std::map<std::string, std::string> kExtensions = [] {
    std::map<std::string, std::string> out;
    for (const document::Format& f : document::Formats()) out.emplace(f.name, f.extension);
    // `perfgate history --store`'s page: a renderer of its own (perfgate/history/html.h).
    out.emplace("html", ".html");
    return out;
  }();
  return kExtensions;
}

// "text (default), markdown, json, or all (every format, to --output PREFIX.<ext>)".
std::string FormatHelp(const std::vector<std::string>& formats) {
  std::string help;
  for (size_t i = 0; i < formats.size(); ++i) help += formats[i] + (i == 0 ? " (default), " : ", ");
  std::string extensions;
  for (const std::string& f : formats) extensions += (extensions.empty() ? "" : "/") + Extensions().at(f);
  return help + "or all (every format, written to --output PREFIX" + extensions + ")";
}

}  // namespace

std::vector<std::string> DocumentFormats() {
  std::vector<std::string> out;
  for (const document::Format& f : document::Formats()) out.emplace_back(f.name);
  return out;
}

void AddOutputOptions(CLI::App* cmd, OutputOptions* options, const std::vector<std::string>& formats,
                      const std::string& output_names) {
  options->format = formats.front();
  std::vector<std::string> choices = formats;
  choices.push_back("all");
  cmd->add_option("--format", options->format, FormatHelp(formats))->check(CLI::IsMember(choices));
  cmd->add_option(output_names, options->output,
                  "write here instead of stdout (with --format all, the prefix of the files)");
}

Status WriteRenderings(const OutputOptions& options, const std::vector<Rendering>& renderings) {
  if (options.format != "all") {
    for (const Rendering& r : renderings) {
      if (r.format != options.format) continue;
      PERFGATE_ASSIGN_OR_RETURN(std::string text, r.render());
      return WriteOutput(options.output, text);
    }
    return Usage("--format " + options.format + " is not a format of this subcommand");
  }
  if (options.output.empty() || options.output == "-") {
    std::string files;
    for (const Rendering& r : renderings) files += (files.empty() ? "PREFIX" : "/") + Extensions().at(r.format);
    return Usage("--format all needs --output PREFIX (writes " + files + ")");
  }
  // Every rendering first, so that one that fails leaves no file written.
  std::vector<std::string> texts;
  for (const Rendering& r : renderings) {
    PERFGATE_ASSIGN_OR_RETURN(std::string text, r.render());
    texts.push_back(std::move(text));
  }
  for (size_t i = 0; i < renderings.size(); ++i) {
    PERFGATE_RETURN_IF_ERROR(WriteOutput(options.output + Extensions().at(renderings[i].format), texts[i]));
  }
  return Status();
}

Status WriteDocument(const OutputOptions& options, const document::Document& document,
                     const std::vector<std::string>& offered) {
  std::vector<std::string> formats = {options.format};
  if (options.format == "all") {
    formats.clear();
    for (const std::string& f : document::FormatsOf(document)) {
      if (offered.empty() || std::find(offered.begin(), offered.end(), f) != offered.end()) formats.push_back(f);
    }
  }
  std::vector<Rendering> renderings;
  for (const std::string& f : formats) {
    renderings.push_back({f, [&document, f] { return document::Render(document, f); }});
  }
  return WriteRenderings(options, renderings);
}

}  // namespace perfgate::cli
