# What the library's benches (bench/) and the kit's (kit/bench/) share.
#
# thm_bench_support(ALLOC_COUNT_CPP TESTS): the counting global allocator benches link to
# report heap blocks per call (target thm_alloc_count), and THM_BENCH_SMOKE_DIR, where the
# smoke runs leave their JSON when TESTS is true.
macro(thm_bench_support alloc_count_cpp tests)
  add_library(thm_alloc_count OBJECT ${alloc_count_cpp})
  get_filename_component(thm_alloc_count_dir ${alloc_count_cpp} DIRECTORY)
  target_include_directories(thm_alloc_count PUBLIC ${thm_alloc_count_dir})  # alloc_count.hpp
  target_link_libraries(thm_alloc_count PUBLIC benchmark::benchmark)
  target_compile_features(thm_alloc_count PUBLIC cxx_std_20)
  set(THM_BENCH_SMOKE_DIR "${CMAKE_CURRENT_BINARY_DIR}/smoke")
  set(THM_BENCH_TESTS ${tests})
endmacro()

# thm_add_bench(<name> SOURCES <files>... LIBRARIES <targets>... [LABELS <labels>...])
# Adds executable thm_<name>_bench and, with the tests, its smoke run bench.<name>_smoke
# (`--benchmark_min_time=0.01`, label bench-smoke, so that benches cannot rot), which leaves
# its JSON in smoke/<name>.json for bench.report (fixture bench_smoke_<name>).
function(thm_add_bench name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;LIBRARIES;LABELS")
  add_executable(thm_${name}_bench ${arg_SOURCES})
  target_link_libraries(thm_${name}_bench PRIVATE ${arg_LIBRARIES} benchmark::benchmark
                        thm_warnings)
  if(THM_BENCH_TESTS)
    file(MAKE_DIRECTORY "${THM_BENCH_SMOKE_DIR}")
    add_test(NAME bench.${name}_smoke
             COMMAND thm_${name}_bench --benchmark_min_time=0.01
                     --benchmark_out=${THM_BENCH_SMOKE_DIR}/${name}.json
                     --benchmark_out_format=json)
    set_tests_properties(bench.${name}_smoke PROPERTIES LABELS "bench-smoke;${arg_LABELS}"
                         FIXTURES_SETUP bench_smoke_${name})
  endif()
endfunction()

# thm_bench_report(NAME...): bench.report, the report script over the smoke runs NAME...:
# every run must pair with a baseline and none may have errored (`report.py --check`), so a
# renamed or broken bench fails here.
function(thm_bench_report report_py)
  set(outputs ${ARGN})
  list(TRANSFORM outputs PREPEND "bench_smoke_" OUTPUT_VARIABLE fixtures)
  list(TRANSFORM outputs PREPEND "${THM_BENCH_SMOKE_DIR}/")
  list(TRANSFORM outputs APPEND ".json")
  add_test(NAME bench.report COMMAND Python3::Interpreter ${report_py} --check ${outputs})
  set_tests_properties(bench.report PROPERTIES LABELS bench-smoke FIXTURES_REQUIRED "${fixtures}")
endfunction()
