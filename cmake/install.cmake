# What `cmake --install` puts under the prefix (issue 10, adr/0007): the headers, the static
# libraries, the `thm` tool, the CMake package `thm` and the pkg-config file `thm.pc`.
#
#   find_package(thm 0.1 CONFIG REQUIRED)       thm::core, thm::json, thm::store, thm::memory
#   find_package(thm 0.1 CONFIG REQUIRED COMPONENTS sqlite postgres conformance)
#
# Each component is its own export set, so only a component asked for looks for its
# dependencies: `sqlite` SQLite3, `postgres` libpq, `conformance` GoogleTest and RapidCheck.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(THM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/thm)

# Libraries with their header sets (each target lists its public headers: FILE_SET HEADERS),
# one export set per package component; a component that is not built is not installed.
set(thm_header_destination FILE_SET HEADERS DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    COMPONENT thm_development)
install(TARGETS thm_core thm_store thm_json thm_memory EXPORT thmTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT thm_development
        ${thm_header_destination})
set(thm_export_sets thmTargets)
if(THM_WITH_SQLITE)
  install(TARGETS thm_sqlite EXPORT thmSqliteTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT thm_development
          ${thm_header_destination})
  list(APPEND thm_export_sets thmSqliteTargets)
endif()
if(THM_WITH_POSTGRES)
  install(TARGETS thm_postgres EXPORT thmPostgresTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT thm_development
          ${thm_header_destination})
  list(APPEND thm_export_sets thmPostgresTargets)
endif()
if(THM_WITH_CONFORMANCE)
  install(TARGETS thm_conformance thm_protocol thm_model EXPORT thmConformanceTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT thm_development
          ${thm_header_destination})
  list(APPEND thm_export_sets thmConformanceTargets)
endif()
foreach(set IN LISTS thm_export_sets)
  install(EXPORT ${set} NAMESPACE thm:: DESTINATION ${THM_INSTALL_CMAKEDIR}
          COMPONENT thm_development)
endforeach()

# The adapter protocol, for adapter programs in other languages (protocol/PROTOCOL.md).
if(THM_WITH_CONFORMANCE)
install(FILES ${PROJECT_SOURCE_DIR}/protocol/PROTOCOL.md
              ${PROJECT_SOURCE_DIR}/protocol/v1.schema.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/thm/protocol COMPONENT thm_development)
endif()

# The specification the headers and the tool cite: the behaviour, the case format and the
# host queue contract.
install(FILES ${PROJECT_SOURCE_DIR}/spec/SPEC.md
              ${PROJECT_SOURCE_DIR}/spec/cases.md
              ${PROJECT_SOURCE_DIR}/spec/queue-conformance.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/thm/spec COMPONENT thm_development)

# The PostgreSQL migration (tables and functions), for hosts in any language.
if(THM_WITH_POSTGRES)
  install(FILES ${PROJECT_SOURCE_DIR}/adapters/postgres/thm_queue.sql
          DESTINATION ${CMAKE_INSTALL_DATADIR}/thm/postgres COMPONENT thm_development)
endif()

# The tool.
if(THM_WITH_CLI)
  install(TARGETS thm RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT thm_runtime)
endif()

# The package: its config, and the one version (project(thm VERSION ...)). 0.x releases
# promise nothing across minor versions, so only the same minor version is compatible.
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/thmConfig.cmake.in
  ${PROJECT_BINARY_DIR}/thmConfig.cmake INSTALL_DESTINATION ${THM_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/thmConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/thmConfig.cmake ${PROJECT_BINARY_DIR}/thmConfigVersion.cmake
        DESTINATION ${THM_INSTALL_CMAKEDIR} COMPONENT thm_development)

# pkg-config: the default targets (core, json, store, memory), relocatable through ${pcfiledir}.
file(RELATIVE_PATH THM_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
configure_file(${PROJECT_SOURCE_DIR}/cmake/thm.pc.in ${PROJECT_BINARY_DIR}/thm.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/thm.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT thm_development)
