# What a test needs to load a module built with AddressSanitizer (the asan preset) into an
# interpreter built without it (python3, node): the sanitizers' runtimes loaded first, and
# leak detection on. Sets THM_SANITIZED (ON or OFF) and THM_SANITIZER_PRELOAD (a list of
# environment assignments, empty in a build without ASan).
set(THM_SANITIZED OFF)
set(THM_SANITIZER_PRELOAD "")
if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*address")
  set(THM_SANITIZED ON)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE thm_libasan OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libubsan.so
                  OUTPUT_VARIABLE thm_libubsan OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(THM_SANITIZER_PRELOAD "LD_PRELOAD=${thm_libasan}:${thm_libubsan}" "ASAN_OPTIONS=detect_leaks=1")
endif()
