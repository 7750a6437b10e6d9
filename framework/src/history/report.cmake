# The history as a static HTML page (perfgate/history/html.h): its text forms, its
# charts, and the page that lays them out.
list(APPEND PERFGATE_HISTORY_SOURCES
  src/history/html_text.cc
  src/history/html_chart.cc
  src/history/html_page.cc
)
