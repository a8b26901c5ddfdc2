# The queue kit's part of the CMake package `thm` (kit/cmake/install.cmake): included by
# thmConfig.cmake after the library's targets. It imports thm::store and thm::memory, and
# the components asked for:
#   sqlite        thm::sqlite, the SQLite host queue (links SQLite3)
#   postgres      thm::postgres, the PostgreSQL host queue (links libpq)
#   conformance   thm::conformance, the queue conformance suite, thm::protocol, and
#                 GoogleTest (GTest::gtest_main) and RapidCheck for it
find_dependency(Threads)
include(${CMAKE_CURRENT_LIST_DIR}/thmKitTargets.cmake)

set(_thm_known_components sqlite postgres conformance)
foreach(_thm_component IN LISTS ${CMAKE_FIND_PACKAGE_NAME}_FIND_COMPONENTS)
  if(NOT _thm_component IN_LIST _thm_known_components)
    set(${CMAKE_FIND_PACKAGE_NAME}_NOT_FOUND_MESSAGE
        "thm has no component '${_thm_component}'; it has: ${_thm_known_components}")
    set(${CMAKE_FIND_PACKAGE_NAME}_FOUND FALSE)
    return()
  endif()
  set(_thm_file sqlite Sqlite postgres Postgres conformance Conformance)
  list(FIND _thm_file ${_thm_component} _thm_index)
  math(EXPR _thm_index "${_thm_index} + 1")
  list(GET _thm_file ${_thm_index} _thm_file)
  if(NOT EXISTS ${CMAKE_CURRENT_LIST_DIR}/thm${_thm_file}Targets.cmake)
    string(TOUPPER "${_thm_component}" _thm_option)
    set(${CMAKE_FIND_PACKAGE_NAME}_NOT_FOUND_MESSAGE
        "thm's kit was built without its '${_thm_component}' component (THM_WITH_${_thm_option})")
    set(${CMAKE_FIND_PACKAGE_NAME}_FOUND FALSE)
    return()
  endif()
  if(_thm_component STREQUAL "sqlite")
    find_dependency(SQLite3)
    include(${CMAKE_CURRENT_LIST_DIR}/thmSqliteTargets.cmake)
  elseif(_thm_component STREQUAL "postgres")
    find_dependency(PostgreSQL)
    include(${CMAKE_CURRENT_LIST_DIR}/thmPostgresTargets.cmake)
  elseif(_thm_component STREQUAL "conformance")
    find_dependency(GTest 1.12 CONFIG)
    find_dependency(rapidcheck CONFIG)   # Debian's config has no version file
    include(${CMAKE_CURRENT_LIST_DIR}/thmConformanceTargets.cmake)
  endif()
  set(${CMAKE_FIND_PACKAGE_NAME}_${_thm_component}_FOUND TRUE)
endforeach()
unset(_thm_component)
unset(_thm_file)
unset(_thm_index)
unset(_thm_option)
unset(_thm_known_components)
