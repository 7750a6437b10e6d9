// A document's text made printable (renderers.h): what a report shows a person never
// carries a byte that could forge a line or take over a terminal.
#include "document/renderers.h"

#include "perfgate/core/status.h"

namespace perfgate::document::internal {
namespace {

// Control bytes (a line break, ESC, NUL) and bytes that are not UTF-8 as C escapes,
// as error messages print them (FormatMessage).
void Clean(std::string* s) {
  for (unsigned char c : *s) {
    if (c < 0x20 || c == 0x7f || c >= 0x80) {
      *s = FormatMessage(*s);
      return;
    }
  }
}

void Clean(std::vector<std::string>* v) {
  for (std::string& s : *v) Clean(&s);
}

void Clean(std::vector<std::vector<Cell>>* rows) {
  for (auto& row : *rows) {
    for (Cell& c : row) Clean(&c.text);
  }
}

void CleanBlock(Heading* h) { Clean(&h->text); }
void CleanBlock(Paragraph* p) { Clean(&p->text); }

void CleanBlock(Table* t) {
  for (Column& c : t->columns) Clean(&c.title);
  for (Table::Group& g : t->groups) Clean(&g.title);
  Clean(&t->rows);
  Clean(&t->totals);
}

void CleanBlock(List* l) {
  for (List::Item& i : l->items) {
    Clean(&i.lead);
    Clean(&i.text);
    Clean(&i.names);
  }
}

void CleanBlock(LineChart* c) {
  Clean(&c->title);
  Clean(&c->points);
  for (LineChart::Series& s : c->series) {
    Clean(&s.name);
    for (Cell& v : s.values) Clean(&v.text);
  }
  for (LineChart::Mark& m : c->marks) Clean(&m.label);
}

void CleanBlock(BarChart* c) {
  for (std::string* s : {&c->title, &c->note, &c->axis}) Clean(s);
  Clean(&c->series);
  Clean(&c->key);
  for (BarChart::Row& r : c->rows) {
    Clean(&r.label);
    Clean(&r.note);
  }
}

}  // namespace

Document Printable(const Document& d) {
  Document out = d;
  for (Block& b : out.blocks) std::visit([](auto& block) { CleanBlock(&block); }, b);
  return out;
}

}  // namespace perfgate::document::internal
