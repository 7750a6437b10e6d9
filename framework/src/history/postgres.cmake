# The store's PostgreSQL back end (postgresql:// URLs), built where pkg-config finds
# libpq (Debian libpq-dev, Homebrew libpq); without it such a URL is an error that
# says so. PERFGATE_WITH_POSTGRESQL tells the tests and the installed package
# (cmake/PerfGateConfig.cmake.in, which finds libpq again for consumers of the static
# library) whether it was built.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  # Homebrew's libpq is keg-only: its .pc file is in its keg, not on pkg-config's path.
  set(perfgate_pkg_config_path "$ENV{PKG_CONFIG_PATH}")
  foreach(keg /opt/homebrew/opt/libpq /usr/local/opt/libpq)
    if(APPLE AND EXISTS ${keg}/lib/pkgconfig)
      set(ENV{PKG_CONFIG_PATH} "$ENV{PKG_CONFIG_PATH}:${keg}/lib/pkgconfig")
    endif()
  endforeach()
  pkg_check_modules(perfgate_libpq QUIET IMPORTED_TARGET GLOBAL libpq)
  set(ENV{PKG_CONFIG_PATH} "${perfgate_pkg_config_path}")
endif()
if(perfgate_libpq_FOUND)
  message(STATUS "perfgate: the history's PostgreSQL store is built (libpq ${perfgate_libpq_VERSION})")
  list(APPEND PERFGATE_HISTORY_SOURCES
    src/history/postgres_connection.cc
    src/history/postgres_store.cc
  )
  list(APPEND PERFGATE_HISTORY_LIBS PkgConfig::perfgate_libpq)
  set_property(SOURCE src/history/store.cc APPEND PROPERTY COMPILE_DEFINITIONS PERFGATE_HAVE_POSTGRESQL=1)
  set(PERFGATE_WITH_POSTGRESQL ON CACHE INTERNAL "Whether the history's PostgreSQL store is built")
else()
  message(STATUS "perfgate: libpq not found through pkg-config (Debian: libpq-dev pkg-config; Homebrew: libpq "
                 "pkg-config): the history is built without its PostgreSQL store")
  set(PERFGATE_WITH_POSTGRESQL OFF CACHE INTERNAL "Whether the history's PostgreSQL store is built")
endif()
