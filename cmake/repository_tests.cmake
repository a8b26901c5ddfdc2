# Tests of the repository as a whole, registered by the library's test build: the layering
# of both projects, the function budget, the format of the library's C++ files, and builds of
# the library the way hosts make them (vendored, and alone, without anything the kit needs).

# Every C++ file of the library as the repository's .clang-format says (the kit checks its
# own); no clang-format fails the test.
find_program(THM_CLANG_FORMAT NAMES clang-format-14 clang-format)
add_test(NAME format.clang_format
         COMMAND ${CMAKE_COMMAND} -DCLANG_FORMAT=${THM_CLANG_FORMAT} -DSOURCE=${PROJECT_SOURCE_DIR}
                 -DEXCLUDE=kit -P ${PROJECT_SOURCE_DIR}/cmake/check_format.cmake)

# The layering, read from the includes and imports of both projects, and for each of its
# rules a proof that the check fails on an edge that breaks it.
set(layering ${PROJECT_SOURCE_DIR}/scripts/check_layering)
add_test(NAME layering.includes COMMAND ${Python3_EXECUTABLE} ${layering})
# name | FILE=LINE to pretend | what the check must then say
set(layering_negatives
  "an_upward_component|kit/store/thm/store/store.hpp=#include \"thm/conformance/harness.hpp\"|store -> conformance"
  "the_library_reaching_the_kit|cli/thm/cli/cases.cpp=#include \"thm/conformance/suite.hpp\"|the library reaches the kit: cli -> conformance"
  "an_angle_bracket_include|core/thm/chat/chat.hpp=#include <thm/store/store.hpp>|the library reaches the kit: core -> store"
  "shipped_code_reaching_tests|kit/protocol/thm/protocol/serve.cpp=#include \"broken_queue.hpp\"|shipped code reaches test code: protocol -> mutants"
  "a_core_module_out_of_order|core/thm/chat/chat.hpp=#include \"thm/dispatch/types.hpp\"|core module chat -> dispatch"
  "a_clock_in_a_core_header|core/thm/result.hpp=#include <chrono>|a core header includes <chrono>"
  "a_javascript_import|bindings/node/lib/index.mjs=import { serve } from '../../../kit/protocol/node/protocol.mjs'|the library reaches the kit: bindings -> protocol-node"
  "a_python_import|bindings/python/thm/_values.py=import thm_protocol|the library reaches the kit: bindings -> protocol-python")
foreach(negative IN LISTS layering_negatives)
  string(REPLACE "|" ";" negative "${negative}")
  list(GET negative 0 name)
  list(GET negative 1 pretend)
  list(GET negative 2 expected)
  string(REGEX REPLACE "([][().*+?^$\\\\])" "\\\\\\1" expected "${expected}")
  add_test(NAME layering.catches_${name} COMMAND ${Python3_EXECUTABLE} ${layering} --pretend ${pretend})
  set_tests_properties(layering.catches_${name} PROPERTIES
                       PASS_REGULAR_EXPRESSION "${expected}[^\n]*\n.*1 forbidden edge")
endforeach()

# No function over 80 lines outside the script's allow-list, and a proof that it finds one
# (scripts/tests/ holds an 81-line C++ function and Python function, outside the tree scan).
set(budget ${PROJECT_SOURCE_DIR}/scripts/check_function_length)
add_test(NAME functions.at_most_80_lines COMMAND ${Python3_EXECUTABLE} ${budget})
add_test(NAME functions.catches_a_long_function
         COMMAND ${Python3_EXECUTABLE} ${budget} ${PROJECT_SOURCE_DIR}/scripts/tests/long_function.cpp
                 ${PROJECT_SOURCE_DIR}/scripts/tests/long_function.py)
set_tests_properties(functions.catches_a_long_function PROPERTIES PASS_REGULAR_EXPRESSION
  "long_function.cpp:[0-9]+: eighty_one_lines is 81 lines.*long_function.py:[0-9]+: eighty_one_lines is 81 lines.*2 function[(]s[)] over 80")

# The walk both checks share lists sources without entering a build tree, where other tests
# create and delete folders while it runs.
add_test(NAME scripts.source_tree
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/tests/test_source_tree.py)

# Every planted bug of scripts/mutate still applies to core, and the check finds one that does
# not (a tree without core/, where none applies).
set(mutate ${PROJECT_SOURCE_DIR}/scripts/mutate)
add_test(NAME mutate.mutants_apply COMMAND ${Python3_EXECUTABLE} ${mutate} --check)
add_test(NAME mutate.catches_a_stale_mutant
         COMMAND ${Python3_EXECUTABLE} ${mutate} --check --source ${PROJECT_SOURCE_DIR}/scripts/tests)
set_tests_properties(mutate.catches_a_stale_mutant PROPERTIES PASS_REGULAR_EXPRESSION
  "M01: its text occurs 0 times in core/thm/dispatch/dispatch.cpp.*mutate: 0 of [0-9]+ mutants apply")

get_property(repository_tests DIRECTORY PROPERTY TESTS)
set_tests_properties(${repository_tests} PROPERTIES LABELS unit)

# The checkout vendored: a project that does add_subdirectory on it, on a machine view
# where only ICU and nlohmann_json can be found, builds and links thm::core and thm::json.
add_test(NAME consumer.vendored COMMAND ${PROJECT_SOURCE_DIR}/scripts/vendored ${PROJECT_BINARY_DIR})
# The library alone: configured, built and tested with what only the kit uses (SQLite,
# libpq, valijson, Google Benchmark) hidden from find_package.
add_test(NAME consumer.library_alone
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/library_alone ${PROJECT_BINARY_DIR})
set_tests_properties(consumer.vendored consumer.library_alone PROPERTIES LABELS consumer TIMEOUT 1200)
