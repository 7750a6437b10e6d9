# Checks that the documentation shows what tests/packaging builds: the suite example of
# step 2 of README.md's "Register a new suite in five minutes" is
# consumer/my_decode_perf.cc, and each consumer CMakeLists.txt block of
# docs/suites-and-assertions.md ("Using perfgate from another project"), marked
# `<!-- tests/packaging/WAY/CMakeLists.txt -->` on the line before it, is that file,
# byte for byte.

# _readme_fenced_block(<out> <doc> <text> <after> <fence>): the first block fenced by
# <fence> (e.g. "```cmake\n", at the start of a line) after the text <after> in <text>,
# the contents of the document <doc> (named in errors).
function(_readme_fenced_block out doc text after fence)
  string(FIND "${text}" "${after}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${doc} has no `${after}`")
  endif()
  string(SUBSTRING "${text}" ${at} -1 text)
  string(FIND "${text}" "${fence}" open)
  string(LENGTH "${fence}" fence_length)
  math(EXPR open "${open} + ${fence_length}")
  string(SUBSTRING "${text}" ${open} -1 text)
  string(REGEX REPLACE "```.*" "" indent "${fence}")
  string(FIND "${text}" "\n${indent}```\n" close)
  math(EXPR close "${close} + 1")
  string(SUBSTRING "${text}" 0 ${close} block)
  set(${out} "${block}" PARENT_SCOPE)
endfunction()

function(_readme_expect_equal doc what block file)
  file(READ "${file}" expected)
  if(NOT block STREQUAL expected)
    message(FATAL_ERROR "${doc}'s ${what} and ${file} differ:\n--- ${doc}\n${block}--- ${file}\n${expected}")
  endif()
endfunction()

# perfgate_check_readme(<source dir> <way>...): README.md's suite block and each way's
# block in docs/suites-and-assertions.md.
function(perfgate_check_readme source_dir)
  file(READ "${source_dir}/README.md" readme)
  # The suite block of step 2, its three-space indentation removed.
  _readme_fenced_block(block "README.md" "${readme}" "2. Write the suite" "   ```cpp\n")
  # (CMake's ^ also matches after each replacement, so the first line is cut apart.)
  string(SUBSTRING "${block}" 3 -1 block)
  string(REPLACE "\n   " "\n" block "${block}")
  _readme_expect_equal("README.md" "suite example" "${block}" "${source_dir}/tests/packaging/consumer/my_decode_perf.cc")
  set(consumers_doc "docs/suites-and-assertions.md")
  file(READ "${source_dir}/${consumers_doc}" consumers)
  foreach(way IN LISTS ARGN)
    set(path "tests/packaging/${way}/CMakeLists.txt")
    _readme_fenced_block(block "${consumers_doc}" "${consumers}" "<!-- ${path} -->\n" "```cmake\n")
    _readme_expect_equal("${consumers_doc}" "${way} consumer" "${block}" "${source_dir}/${path}")
  endforeach()
endfunction()
