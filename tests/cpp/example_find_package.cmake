# Installs clusterscore to a scratch prefix, builds examples/cpp with find_package, runs it.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "install failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/cpp -B ${WORK_DIR}/build
                        -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the example failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the example failed")
endif()
execute_process(COMMAND ${WORK_DIR}/build/evaluate_example OUTPUT_VARIABLE out RESULT_VARIABLE rc)
message("${out}")
if(rc OR NOT out MATCHES "precision 0.75\n" OR NOT out MATCHES "recall 0.777778\n"
   OR NOT out MATCHES "truth cluster 10 recall 0.555556\n")
  message(FATAL_ERROR "the example did not print the expected result")
endif()
