# `perfgate --version` against the commit of SOURCE_DIR, computed here with git
# independently of tools/scripts/build_commit.cmake; then that script in a scratch
# repository: it follows a new commit, marks edits dirty, leaves an unchanged header
# untouched (so nothing recompiles), and says "unknown" outside a checkout or in a
# copy inside another project's repository.
foreach(var PERFGATE SOURCE_DIR SCRIPT WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "version_test.cmake needs -D${var}=...")
  endif()
endforeach()
find_program(git git REQUIRED)
function(git_in dir out)
  execute_process(COMMAND ${git} -c user.name=t -c user.email=t@localhost -c commit.gpgsign=false -C "${dir}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "git ${ARGN} in ${dir} failed: ${err}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# 1. The binary under test. (Run ctest after building: a commit made since the build
# is, rightly, not the one the binary names.) The commit must be HEAD's; the dirty mark
# is checked one way only, as files may be edited after the build: a tree clean now was
# clean when built, so the binary must not say dirty; a tree dirty now may have been
# either. Outside a checkout (a source archive) the binary says unknown.
file(STRINGS "${SOURCE_DIR}/CMakeLists.txt" project_line REGEX "^project\\(perfgate VERSION ")
string(REGEX REPLACE ".* VERSION ([0-9.]+).*" "\\1" version "${project_line}")
string(REPLACE "." "\\." version_re "${version}")
if(NOT EXISTS "${SOURCE_DIR}/.git")  # a directory, or a file in a worktree
  set(expected "perfgate ${version_re} \\(commit unknown\\)")
else()
  git_in("${SOURCE_DIR}" head rev-parse HEAD)
  git_in("${SOURCE_DIR}" changes status --porcelain --untracked-files=no)
  if(changes STREQUAL "")
    set(expected "perfgate ${version_re} \\(commit ${head}\\)")
  else()
    set(expected "perfgate ${version_re} \\(commit ${head}(, dirty)?\\)")
  endif()
endif()
execute_process(COMMAND "${PERFGATE}" --version RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^${expected}$")
  message(FATAL_ERROR "perfgate --version (rc ${rc}) printed\n  ${out}${err}\nexpected (a regular expression)\n  ${expected}")
endif()
message(STATUS "perfgate --version: ${out}")

# 2. The build-time script.
file(REMOVE_RECURSE "${WORK_DIR}")
set(repo "${WORK_DIR}/repo")
file(MAKE_DIRECTORY "${repo}")
set(header "${WORK_DIR}/perfgate_build_commit.h")
function(expect_commit dir expected)
  execute_process(COMMAND ${CMAKE_COMMAND} -DGIT_EXECUTABLE=${git} -DSOURCE_DIR=${dir} -DOUTPUT=${header}
                          -P "${SCRIPT}" RESULT_VARIABLE rc ERROR_VARIABLE err)
  file(READ "${header}" text)
  if(NOT rc EQUAL 0 OR NOT text MATCHES "#define PERFGATE_BUILD_COMMIT \"${expected}\"\n")
    message(FATAL_ERROR "${dir}: expected commit ${expected} (rc ${rc} ${err}), header:\n${text}")
  endif()
endfunction()
git_in("${repo}" ignored init -q)
file(WRITE "${repo}/a.txt" "one\n")
git_in("${repo}" ignored add a.txt)
git_in("${repo}" ignored commit -q -m one)
git_in("${repo}" first rev-parse HEAD)
expect_commit("${repo}" "${first}")
file(WRITE "${repo}/a.txt" "two\n")
expect_commit("${repo}" "${first}-dirty")
git_in("${repo}" ignored commit -q -am two)
git_in("${repo}" second rev-parse HEAD)
if(second STREQUAL first)
  message(FATAL_ERROR "the scratch repository did not get a new commit")
endif()
expect_commit("${repo}" "${second}")
# Unchanged: the header keeps its (backdated) time, so its includers do not rebuild.
execute_process(COMMAND touch -d "2001-01-01 00:00:00" "${header}")
expect_commit("${repo}" "${second}")
file(TIMESTAMP "${header}" stamp "%Y")
if(NOT stamp STREQUAL "2001")
  message(FATAL_ERROR "an unchanged commit rewrote ${header} (time ${stamp})")
endif()
# A copy inside another repository, and a plain directory: unknown.
file(MAKE_DIRECTORY "${repo}/vendored/perfgate" "${WORK_DIR}/plain")
expect_commit("${repo}/vendored/perfgate" "unknown")
expect_commit("${WORK_DIR}/plain" "unknown")
message(STATUS "build_commit.cmake follows commits and edits, and says unknown outside a checkout")
