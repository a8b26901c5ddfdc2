# Run as: cmake -DCLANG_FORMAT=<clang-format> -DSOURCE=<folder> [-DEXCLUDE=<subfolder>] -P check_format.cmake
# Fails unless every C++ file under SOURCE (*.cpp, *.hpp), but those under SOURCE/EXCLUDE, is
# formatted as the repository's .clang-format says, listing those that are not and the
# command that formats them. A missing clang-format is a failure, never a skip.
cmake_policy(SET CMP0009 NEW)  # the glob does not follow links (a linked node_modules)
if(NOT CLANG_FORMAT OR NOT EXISTS "${CLANG_FORMAT}")
  message(FATAL_ERROR "no clang-format: install the Debian package clang-format-14 (scripts/setup)")
endif()
# Every folder of the checkout, so a new one cannot be left out (store/ once was): all but
# build trees, npm's packages and hidden folders.
file(GLOB_RECURSE files RELATIVE "${SOURCE}" "${SOURCE}/*.cpp" "${SOURCE}/*.hpp")
list(FILTER files EXCLUDE REGEX "^build/|^build-[^/]*/|/node_modules/|^node_modules/|(^|/)\\.")
if(EXCLUDE)
  list(FILTER files EXCLUDE REGEX "^${EXCLUDE}/")
endif()
list(TRANSFORM files PREPEND "${SOURCE}/")
list(LENGTH files count)
if(count EQUAL 0)
  message(FATAL_ERROR "no C++ files found under ${SOURCE}")
endif()
# One clang-format for every file (a process per file took most of the test's 25 s); only
# when it finds something is each file asked again, to name them.
execute_process(COMMAND "${CLANG_FORMAT}" --dry-run --Werror ${files}
                RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
set(unformatted "")
if(NOT status EQUAL 0)
  foreach(path IN LISTS files)
    execute_process(COMMAND "${CLANG_FORMAT}" --dry-run --Werror "${path}"
                    RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
    if(NOT status EQUAL 0)
      file(RELATIVE_PATH shown "${SOURCE}" "${path}")
      string(APPEND unformatted "\n  ${shown}")
    endif()
  endforeach()
  if(NOT unformatted)
    message(FATAL_ERROR "${CLANG_FORMAT} failed on the ${count} files together, and on none alone")
  endif()
endif()
if(unformatted)
  message(FATAL_ERROR "files not formatted as .clang-format says:${unformatted}\n"
                      "format them with: ${CLANG_FORMAT} -i FILE...")
endif()
message(STATUS "${count} C++ files match .clang-format")
