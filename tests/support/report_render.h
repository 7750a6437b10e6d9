// The attribution report in one format, as `perfgate attribute` writes it: its
// document (report/formats.h, AttributeDocument) through document::Render.
// A format the document cannot take fails the test that asked for it.
#ifndef PERFGATE_TESTS_SUPPORT_REPORT_RENDER_H_
#define PERFGATE_TESTS_SUPPORT_REPORT_RENDER_H_

#include <gtest/gtest.h>

#include <string>

#include "perfgate/document/render.h"
#include "perfgate/report/formats.h"

namespace perfgate::report {

inline std::string RenderAs(const document::Document& d, const std::string& format) {
  auto rendered = document::Render(d, format);
  if (!rendered.ok()) {
    ADD_FAILURE() << format << ": " << rendered.status().message();
    return "";
  }
  return *rendered;
}

inline std::string RenderText(const Report& r) { return RenderAs(AttributeDocument(r), "text"); }
inline std::string RenderMarkdown(const Report& r) { return RenderAs(AttributeDocument(r), "markdown"); }
inline std::string RenderSvg(const Report& r) { return RenderAs(AttributeDocument(r), "svg"); }

}  // namespace perfgate::report

#endif  // PERFGATE_TESTS_SUPPORT_REPORT_RENDER_H_
