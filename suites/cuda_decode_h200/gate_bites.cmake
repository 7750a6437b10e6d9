# Proof that the gate bites: the cuda_decode_h200 suite, with its graphs engine pointed
# at the eager recording (the CUDA graphs lost: every kernel launched by itself again),
# must fail every graphs gate and its golden, and pass the eager golden and the
# tracer-against-profiler agreement (which reads the stored recordings).
include(${CMAKE_CURRENT_LIST_DIR}/../gate_bites_common.cmake)
gate_bites_require(SUITE RECORDINGS GOLDEN WORK_DIR)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/recordings")
file(CREATE_LINK "${RECORDINGS}/eager" "${WORK_DIR}/recordings/eager" SYMBOLIC)
file(CREATE_LINK "${RECORDINGS}/eager" "${WORK_DIR}/recordings/graphs" SYMBOLIC)
gate_bites_run_failing_suite("graphs engine pointed at the eager recording" out)
foreach(expected
    "\\[  FAILED  \\] CudaDecodeH200.DispatchesPerTokenBudgets"
    "graphs\\.kernels_per_token +160 +423 +\\+263 +\\+164\\.4% .* regressed"
    "\\[  FAILED  \\] CudaDecodeH200.GraphsCutGpuTimePerToken"
    "\\[  FAILED  \\] CudaDecodeH200.GraphLaunchesExpandToTheirKernels"
    "\\[  FAILED  \\] CudaDecodeH200.BucketAndFamilyDeltasVsEager"
    "\\[  FAILED  \\] CudaDecodeH200.GraphsGolden"
    "\\[       OK \\] CudaDecodeH200.EagerGolden"
    "\\[       OK \\] CudaDecodeH200/TracerAgreesWithPyTorchProfiler.OnEveryTrial/0"
    "\\[       OK \\] CudaDecodeH200/TracerAgreesWithPyTorchProfiler.OnEveryTrial/1"
    "5 FAILED TESTS")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "expected /${expected}/ in the suite's output:\n${out}")
  endif()
endforeach()
message(STATUS "the gate bites: the suite failed on the graphs engine without CUDA graphs, as expected")
