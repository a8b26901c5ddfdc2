# What `cmake --install` puts under the prefix (adr/0007, adr/0021): the headers, the static
# libraries, the `thm` tool, the CMake package `thm` and the pkg-config file `thm.pc`.
#
#   find_package(thm 0.1 CONFIG REQUIRED)       thm::core, thm::json (and thm::model)
#
# The queue kit, installed into the same prefix, adds its targets to this package
# (kit/cmake/install.cmake): thm::store and thm::memory by default, and the components
# sqlite, postgres and conformance.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(THM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/thm)

# Libraries with their header sets (each target lists its public headers: FILE_SET HEADERS).
set(thm_installed thm_core thm_json)
if(TARGET thm_model)
  list(APPEND thm_installed thm_model)  # the reference model: the kit's queue model needs it
endif()
install(TARGETS ${thm_installed} EXPORT thmTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT thm_development
        FILE_SET HEADERS DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT thm_development)
install(EXPORT thmTargets NAMESPACE thm:: DESTINATION ${THM_INSTALL_CMAKEDIR}
        COMPONENT thm_development)

# The specification the headers and the tool cite: the behaviour and the case format.
install(FILES ${PROJECT_SOURCE_DIR}/spec/SPEC.md ${PROJECT_SOURCE_DIR}/spec/cases.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/thm/spec COMPONENT thm_development)

# The tool, with every command linked into it (the kit's too, when the kit is built).
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

# pkg-config: the library (core, json), relocatable through ${pcfiledir}.
file(RELATIVE_PATH THM_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
configure_file(${PROJECT_SOURCE_DIR}/cmake/thm.pc.in ${PROJECT_BINARY_DIR}/thm.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/thm.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT thm_development)
