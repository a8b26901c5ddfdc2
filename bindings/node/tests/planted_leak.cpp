// A leak on purpose, made when the library is loaded: the asan build preloads it into the
// interpreters its language packages run in, to show that LeakSanitizer reports a leak there
// (bindings/node/CMakeLists.txt, `sanitizer.*_reports_a_planted_leak`).
#include <cstdlib>

namespace {
[[gnu::constructor]] void plant() {
  void* volatile kept = std::malloc(4242);
  kept = nullptr;
}
}  // namespace
