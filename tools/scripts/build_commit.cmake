# Writes OUTPUT, a header defining PERFGATE_BUILD_COMMIT: the commit SOURCE_DIR is
# checked out at, with "-dirty" when tracked files differ from it, or "unknown" when
# SOURCE_DIR is not the top of a git checkout (a tarball, or a copy inside another
# project's repository, whose commit would be the wrong one) or git is missing.
# Run at every build (framework/CMakeLists.txt); file(CONFIGURE) rewrites OUTPUT only
# when its content changes, so an unchanged commit recompiles nothing.
foreach(var SOURCE_DIR OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "build_commit.cmake needs -D${var}=...")
  endif()
endforeach()

function(perfgate_git out)
  execute_process(COMMAND "${GIT_EXECUTABLE}" --no-optional-locks -C "${SOURCE_DIR}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    set(text "perfgate-git-failed")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(commit "unknown")
if(GIT_EXECUTABLE)
  perfgate_git(top rev-parse --show-toplevel)
  file(REAL_PATH "${SOURCE_DIR}" source_real)
  if(NOT top STREQUAL "perfgate-git-failed")
    file(REAL_PATH "${top}" top)
  endif()
  if(top STREQUAL source_real)
    perfgate_git(head rev-parse HEAD)
    perfgate_git(changes status --porcelain --untracked-files=no)
    if(head MATCHES "^[0-9a-f]+$" AND NOT changes STREQUAL "perfgate-git-failed")
      set(commit "${head}")
      if(NOT changes STREQUAL "")
        string(APPEND commit "-dirty")
      endif()
    endif()
  endif()
endif()
file(CONFIGURE OUTPUT "${OUTPUT}" CONTENT [[
// Written at build time by tools/scripts/build_commit.cmake.
#define PERFGATE_BUILD_COMMIT "@commit@"
]] @ONLY)
