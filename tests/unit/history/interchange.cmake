# Interchange: BMF and Otava exports, and imports of counter histories, JSON reports and goldens.
list(APPEND PERFGATE_HISTORY_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/interchange_test.cc
)
