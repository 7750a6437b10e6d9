# The history's HTML page: its text (html_page_test) and the picture and DOM headless
# Chromium makes of it (html_chromium_test; Chromium is a dependency, see
# tools/scripts/deps.sh).
list(APPEND PERFGATE_HISTORY_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/html_page_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/html_chromium_test.cc
)
