# What `cmake --install` puts under the prefix for the kit (adr/0007, adr/0021): its headers
# and static libraries, added to the library's CMake package `thm`, and the files hosts in
# other languages use. The library's install (../cmake/install.cmake) puts the tool.
#
#   find_package(thm 0.1 CONFIG REQUIRED)       also thm::store, thm::memory
#   find_package(thm 0.1 CONFIG REQUIRED COMPONENTS sqlite postgres conformance)
#
# Each component is its own export set, so only a component asked for looks for its
# dependencies: `sqlite` SQLite3, `postgres` libpq, `conformance` GoogleTest and RapidCheck.
include(GNUInstallDirs)

set(THM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/thm)
set(thm_kit_destinations
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT thm_development
    FILE_SET HEADERS DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT thm_development)
install(TARGETS thm_store thm_memory EXPORT thmKitTargets ${thm_kit_destinations})
set(thm_export_sets thmKitTargets)
if(THM_WITH_SQLITE)
  install(TARGETS thm_sqlite EXPORT thmSqliteTargets ${thm_kit_destinations})
  list(APPEND thm_export_sets thmSqliteTargets)
endif()
if(THM_WITH_POSTGRES)
  install(TARGETS thm_postgres EXPORT thmPostgresTargets ${thm_kit_destinations})
  list(APPEND thm_export_sets thmPostgresTargets)
  # The PostgreSQL migration (tables and functions), for hosts in any language.
  install(FILES ${PROJECT_SOURCE_DIR}/stores/postgres/thm_queue.sql
          DESTINATION ${CMAKE_INSTALL_DATADIR}/thm/postgres COMPONENT thm_development)
endif()
if(THM_WITH_CONFORMANCE)
  install(TARGETS thm_conformance thm_protocol thm_queue_model EXPORT thmConformanceTargets
          ${thm_kit_destinations})
  list(APPEND thm_export_sets thmConformanceTargets)
  # The adapter protocol, for adapter programs in other languages.
  install(FILES ${PROJECT_SOURCE_DIR}/protocol/PROTOCOL.md ${PROJECT_SOURCE_DIR}/protocol/v1.schema.json
          DESTINATION ${CMAKE_INSTALL_DATADIR}/thm/protocol COMPONENT thm_development)
endif()
foreach(set IN LISTS thm_export_sets)
  install(EXPORT ${set} NAMESPACE thm:: DESTINATION ${THM_INSTALL_CMAKEDIR}
          COMPONENT thm_development)
endforeach()

# The host queue contract, beside the library's spec.
install(FILES ${PROJECT_SOURCE_DIR}/spec/queue-conformance.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/thm/spec COMPONENT thm_development)

# The kit's part of the package: the library's config includes it when it is there.
configure_file(${PROJECT_SOURCE_DIR}/cmake/thm-kit.cmake ${PROJECT_BINARY_DIR}/thm-kit.cmake COPYONLY)
install(FILES ${PROJECT_BINARY_DIR}/thm-kit.cmake DESTINATION ${THM_INSTALL_CMAKEDIR}
        COMPONENT thm_development)

# pkg-config: the kit's default targets (store, memory) beside the library's thm.pc.
file(RELATIVE_PATH THM_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
configure_file(${PROJECT_SOURCE_DIR}/cmake/thm-kit.pc.in ${PROJECT_BINARY_DIR}/thm-kit.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/thm-kit.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT thm_development)
