# What a test needs to load a module built with AddressSanitizer (the asan preset) into an
# interpreter built without it (python3, node): the sanitizers' runtimes loaded first, and
# leak detection on. The runtime does not follow the dynamic TLS of the modules loaded
# (intercept_tls_get_addr=0): GCC 12's takes a block 16 bytes into a page for one with a
# pre-2.25 glibc header and records a range that is not memory, and LeakSanitizer's tracer
# dies on it at exit, failing about one run in 128 of a process that leaks nothing
# (`sanitizer.node_tls_at_a_page_start`). No leak goes unreported for it: a block held only
# in such TLS would be reported, and none is (the library keeps no pointer there).
# Sets THM_SANITIZED (ON or OFF) and THM_SANITIZER_PRELOAD (a list of environment
# assignments, empty in a build without ASan).
set(THM_SANITIZED OFF)
set(THM_SANITIZER_PRELOAD "")
if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*address")
  set(THM_SANITIZED ON)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE thm_libasan OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libubsan.so
                  OUTPUT_VARIABLE thm_libubsan OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(THM_SANITIZER_PRELOAD "LD_PRELOAD=${thm_libasan}:${thm_libubsan}"
                            "ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0")
endif()
