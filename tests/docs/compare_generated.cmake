# cmake -DGENERATOR=program -DEXPECTED=file -P compare_generated.cmake: fails when the program's
# output is not the file's text, showing the difference (the output is kept beside, as
# <file name>.generated in the working directory).
execute_process(COMMAND ${GENERATOR} OUTPUT_VARIABLE generated RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${GENERATOR} failed (exit ${rc})")
endif()
file(READ ${EXPECTED} expected)
if(NOT generated STREQUAL expected)
  get_filename_component(name ${EXPECTED} NAME)
  file(WRITE ${name}.generated "${generated}")
  execute_process(COMMAND diff -u ${EXPECTED} ${name}.generated)
  message(FATAL_ERROR "${EXPECTED} differs from the keys' declarations "
                      "(write it again: ${GENERATOR} > ${EXPECTED})")
endif()
