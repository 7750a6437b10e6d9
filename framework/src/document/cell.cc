// The cells of a report document (perfgate/document/document.h).
#include "perfgate/document/document.h"

#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include "core/text_cells.h"

namespace perfgate::document {

Cell Cell::Text(std::string text) { return Cell{std::move(text), std::nullopt, false, false}; }

Cell Cell::Code(std::string text) { return Cell{std::move(text), std::nullopt, false, true}; }

Cell Cell::Integer(int64_t value) { return Cell{std::to_string(value), static_cast<double>(value), false, false}; }

Cell Cell::Fixed(double value, int decimals) { return Cell{text::Fixed(value, decimals), value, false, false}; }

Cell Cell::Signed(double value, int decimals) { return Cell{text::Signed(value, decimals), value, false, false}; }

Cell Cell::Percent(std::optional<double> percent) { return Cell{text::Percent(percent), percent, false, false}; }

Cell Cell::PValue(double p) {
  return Cell{text::PValue(p), std::isfinite(p) ? std::optional<double>(p) : std::nullopt, false, false};
}

Cell Cell::Written(std::string text, std::optional<double> number) { return Cell{std::move(text), number, false, false}; }

Cell Cell::Significant(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return Cell{text, value, false, false};
}

Cell Cell::Missing() { return Cell{"\xE2\x80\x94", std::nullopt, true, false}; }  // —

}  // namespace perfgate::document
