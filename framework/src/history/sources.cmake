# The results history (perfgate/history/): runs, the store and its two back ends,
# change points, the history gate and interchange. Each part lists its own sources
# in a file of its own, so that work on one does not touch the others.
set(PERFGATE_HISTORY_SOURCES)
set(PERFGATE_HISTORY_LIBS)
foreach(part run_store change_points postgres interchange report)
  include(${CMAKE_CURRENT_LIST_DIR}/${part}.cmake OPTIONAL)
endforeach()
