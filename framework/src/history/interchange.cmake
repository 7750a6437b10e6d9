# Interchange: exports for Bencher (BMF JSON) and Apache Otava (CSV and its config),
# and importing counter-report histories, perfgate's JSON reports and golden files.
list(APPEND PERFGATE_HISTORY_SOURCES
  src/history/interchange_select.cc
  src/history/interchange_bmf_export.cc
  src/history/interchange_otava_export.cc
  src/history/interchange_import.cc
  src/history/interchange_import_counters.cc
  src/history/interchange_import_attribute.cc
  src/history/interchange_import_reports.cc
)
