# perfgate_snapshot_repo(<source dir> <repo dir> <out commit>): a scratch git repository
# whose one commit holds <source dir>'s files as they are now (tracked ones as edited,
# new ones git does not ignore), so FetchContent can clone it through a file:// URL.
# The source repository itself is only read.
function(perfgate_snapshot_repo source_dir repo out_commit)
  find_program(git git REQUIRED)
  execute_process(COMMAND ${git} -c core.quotePath=false -C "${source_dir}"
                          ls-files --cached --others --exclude-standard
                  RESULT_VARIABLE rc OUTPUT_VARIABLE listing ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "git ls-files in ${source_dir} failed (${rc}): ${err}")
  endif()
  string(REPLACE "\n" ";" files "${listing}")
  set(present "")
  foreach(f IN LISTS files)
    if(NOT f STREQUAL "" AND EXISTS "${source_dir}/${f}" AND NOT IS_DIRECTORY "${source_dir}/${f}")
      string(APPEND present "${f}\n")  # a deleted tracked file is left out, as in the tree
    endif()
  endforeach()
  file(MAKE_DIRECTORY "${repo}")
  file(WRITE "${repo}.files" "${present}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E tar cf "${repo}.tar" "--files-from=${repo}.files"
                  WORKING_DIRECTORY "${source_dir}" RESULT_VARIABLE rc)
  execute_process(COMMAND ${CMAKE_COMMAND} -E tar xf "${repo}.tar" WORKING_DIRECTORY "${repo}"
                  RESULT_VARIABLE rc2)
  if(NOT rc EQUAL 0 OR NOT rc2 EQUAL 0)
    message(FATAL_ERROR "copying ${source_dir} into ${repo} failed")
  endif()
  set(ident -c user.name=perfgate-test -c user.email=perfgate-test@localhost -c commit.gpgsign=false)
  foreach(step "init -q" "add -A -f" "commit -q -m snapshot" "rev-parse HEAD")
    separate_arguments(args UNIX_COMMAND "${step}")
    execute_process(COMMAND ${git} ${ident} -C "${repo}" ${args}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE commit ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "git ${step} in ${repo} failed (${rc}): ${err}")
    endif()
  endforeach()
  set(${out_commit} "${commit}" PARENT_SCOPE)
endfunction()
