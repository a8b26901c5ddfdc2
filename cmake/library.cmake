# thm_library(<target> EXPORT <name> SOURCES <file>... HEADERS <header>... [PUBLIC <lib>...]
#             [PRIVATE <lib>...] [NO_EXCEPTIONS])
# One of thm's static libraries, thm::<name>, made the one way every component is: C++20;
# its folder the root its headers are included from (include/ once installed); HEADERS its
# public headers, installed as they are listed (adr/0011); the warnings on its own code; and
# with NO_EXCEPTIONS compiled with -fno-exceptions, so that a `throw` or `try` in it breaks
# the build (SPEC §0.4).
function(thm_library target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_EXCEPTIONS" "EXPORT" "SOURCES;HEADERS;PUBLIC;PRIVATE")
  add_library(${target} STATIC ${arg_SOURCES})
  add_library(thm::${arg_EXPORT} ALIAS ${target})
  target_compile_features(${target} PUBLIC cxx_std_20)
  if(arg_NO_EXCEPTIONS)
    target_compile_options(${target} PRIVATE -fno-exceptions)
  endif()
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}> $<INSTALL_INTERFACE:include>)
  target_link_libraries(${target} PUBLIC ${arg_PUBLIC}
                        PRIVATE ${arg_PRIVATE} $<BUILD_INTERFACE:thm_warnings>)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${arg_EXPORT})
  target_sources(${target} PUBLIC FILE_SET HEADERS BASE_DIRS ${CMAKE_CURRENT_SOURCE_DIR}
                 FILES ${arg_HEADERS})
endfunction()
