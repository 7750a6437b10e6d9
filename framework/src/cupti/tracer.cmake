# libperfgate_cupti.so, the CUPTI tracer that CUDA_INJECTION64_PATH loads into a CUDA
# process (framework/src/cupti/TRACER.md), and perfgate_cupti_records, its record
# conversion for the tests. Both need CUDA's CUPTI headers and library (CUDA 13 here);
# without them the tracer is skipped, with a message, and everything else builds.
find_package(Threads REQUIRED)
option(PERFGATE_CUPTI "Build the CUPTI tracer (libperfgate_cupti.so) where CUDA's CUPTI is found" ON)
set(PERFGATE_HAVE_CUPTI OFF)
if(PERFGATE_CUPTI)
  find_package(CUDAToolkit QUIET)
  if(TARGET CUDA::cupti)
    find_path(perfgate_cupti_include cupti_activity.h HINTS ${CUDAToolkit_INCLUDE_DIRS}
              PATH_SUFFIXES ../extras/CUPTI/include NO_CACHE)
    find_path(perfgate_nvtx_include nvtx3/nvToolsExt.h HINTS ${CUDAToolkit_INCLUDE_DIRS} NO_CACHE)
  endif()
  # CUDA 13: the record structs read are its CUpti_ActivityKernel10, Memcpy6, Memset4,
  # Overhead3 and Device5.
  if(TARGET CUDA::cupti AND perfgate_cupti_include AND perfgate_nvtx_include AND CUDAToolkit_VERSION_MAJOR GREATER_EQUAL 13)
    set(PERFGATE_HAVE_CUPTI ON)
    set(PERFGATE_NVTX_INCLUDE_DIR "${perfgate_nvtx_include}" CACHE INTERNAL "nvtx3 headers of the CUDA toolkit")
  elseif(DEFINED ENV{CI} AND NOT "$ENV{CI}" STREQUAL "" AND NOT "$ENV{CI}" STREQUAL "false")
    # Under CI the tracer's tests must run: a machine that lost CUDA fails here rather
    # than passing with those tests left out.
    message(FATAL_ERROR "perfgate: CI is set but CUDA's CUPTI was not found (CUDAToolkit "
                        "'${CUDAToolkit_VERSION}', cupti headers '${perfgate_cupti_include}'): the tracer and its "
                        "tests would not be built. Install CUDA's toolkit, or configure with -DPERFGATE_CUPTI=OFF.")
  else()
    message(STATUS "perfgate: CUDA's CUPTI was not found (CUDAToolkit ${CUDAToolkit_VERSION}, cupti headers "
                   "'${perfgate_cupti_include}'): libperfgate_cupti.so and its tests are not built; "
                   "`perfgate record --backend cuda` needs it")
  endif()
endif()

if(PERFGATE_HAVE_CUPTI)
  message(STATUS "perfgate: building the CUPTI tracer against CUDA ${CUDAToolkit_VERSION} (${perfgate_cupti_include})")
  set(perfgate_cupti_common_sources src/cupti/cupti_convert.cc src/cupti/record_dump.cc)

  # The record conversion, for the unit tests (built like the rest of perfgate; the
  # trace writer they use is perfgate_framework's).
  add_library(perfgate_cupti_records STATIC ${perfgate_cupti_common_sources})
  target_include_directories(perfgate_cupti_records PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/src
                             SYSTEM PUBLIC ${perfgate_cupti_include})
  target_link_libraries(perfgate_cupti_records PRIVATE perfgate_build_flags)

  # The injected library. No sanitizers and no perfgate_build_flags (it runs inside
  # other programs); libstdc++ is linked in and every symbol but the two entry points
  # hidden, so it neither needs nor disturbs the target's C++ runtime.
  add_library(perfgate_cupti SHARED
    ${perfgate_cupti_common_sources}
    src/cupti/kineto_writer.cc
    src/cupti/nvtx_injection.cc
    src/cupti/tracer.cc)
  target_include_directories(perfgate_cupti PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src
                             SYSTEM PRIVATE ${perfgate_cupti_include} ${perfgate_nvtx_include})
  target_compile_features(perfgate_cupti PRIVATE cxx_std_17)
  target_compile_options(perfgate_cupti PRIVATE -Wall -Wextra -Wno-unused-parameter
                         $<$<BOOL:${PERFGATE_DEVELOPER_MODE}>:-Werror>)
  target_link_libraries(perfgate_cupti PRIVATE CUDA::cupti ${CMAKE_DL_LIBS} Threads::Threads)
  target_link_options(perfgate_cupti PRIVATE -static-libstdc++ -static-libgcc -Wl,--exclude-libs,ALL
                      -Wl,--version-script=${CMAKE_CURRENT_SOURCE_DIR}/src/cupti/tracer.map)
set_property(TARGET perfgate_cupti APPEND PROPERTY LINK_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/cupti/tracer.map)
  # Beside the perfgate executable, where `perfgate record --backend cuda` looks; an
  # embedding project without the CLI keeps it in this directory.
  if(PERFGATE_BUILD_CLI)
    set(perfgate_cupti_dir ${PROJECT_BINARY_DIR}/tools/perfgate)
  else()
    set(perfgate_cupti_dir ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  set_target_properties(perfgate_cupti PROPERTIES
    OUTPUT_NAME perfgate_cupti
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${perfgate_cupti_dir}
    BUILD_RPATH "${CUDAToolkit_LIBRARY_DIR}")
  include(GNUInstallDirs)
  set_target_properties(perfgate_cupti PROPERTIES INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
  if(PERFGATE_INSTALL)
    install(TARGETS perfgate_cupti LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()
  # Where the recorder looks when it runs in a program other than perfgate (a suite).
  set_property(SOURCE src/cuda/locate.cc APPEND PROPERTY COMPILE_DEFINITIONS
    PERFGATE_CUPTI_BUILD_PATH="$<TARGET_FILE:perfgate_cupti>"
    PERFGATE_CUPTI_INSTALL_PATH="${CMAKE_INSTALL_FULL_LIBDIR}/$<TARGET_FILE_NAME:perfgate_cupti>")
endif()
