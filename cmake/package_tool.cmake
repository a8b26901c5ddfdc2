# The thm tool the packages carry (scripts/package_tool, adr/0022), built once, as a test
# fixture, for the tests that build and install the packages (python.install.*,
# node.install), which find it in THM_PACKAGE_TOOL. Not under the sanitizers, whose presets
# install nothing.
if(NOT THM_SANITIZED)
  set(THM_PACKAGE_TOOL_DIR ${PROJECT_BINARY_DIR}/package-tool)
  add_test(NAME package.tool
           COMMAND ${PROJECT_SOURCE_DIR}/scripts/package_tool ${THM_PACKAGE_TOOL_DIR})
  set_tests_properties(package.tool PROPERTIES LABELS install FIXTURES_SETUP package_tool
                       TIMEOUT 1200)
  set(THM_PACKAGE_TOOL_ENVIRONMENT "THM_PACKAGE_TOOL=${THM_PACKAGE_TOOL_DIR}/thm/cli/thm")
endif()
