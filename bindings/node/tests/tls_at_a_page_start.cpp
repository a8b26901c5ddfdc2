// An addon whose thread-local block glibc allocates at 16 bytes past a page boundary, where
// the sanitizer runtime of GCC 12 takes the two words before a dynamic TLS block for a
// pre-2.25 glibc header and records a range that is not memory: LeakSanitizer's tracer then
// dies at exit ("Tracer caught signal 11"), and the process fails with no leak found. The
// addons of this build land there by chance, once in about 128 processes; this one lands
// there on purpose (with the allocator's quarantine off, a freed block is the next one
// handed out), so that the check of the interpreters' options is not left to chance
// (bindings/node/CMakeLists.txt, `sanitizer.node_tls_at_a_page_start`).
#include <node_api.h>

#include <array>
#include <cstdint>
#include <cstdlib>

namespace {

thread_local char block[8];
std::array<void*, 4096> taken{};

bool at_a_page_start(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 4096 == 16; }

// Takes blocks of block's size until one starts 16 bytes into a page, frees that one, then
// touches block for the first time, so that glibc allocates it, here.
bool place_block() {
  std::size_t n = 0;
  for (; n < taken.size(); ++n) {
    void* p = std::malloc(sizeof block);
    if (at_a_page_start(p)) {
      std::free(p);
      break;
    }
    taken[n] = p;
  }
  block[0] = 1;
  const bool placed = at_a_page_start(static_cast<const void*>(block));
  for (std::size_t i = 0; i < n; ++i) std::free(taken[i]);
  return placed;
}

}  // namespace

NAPI_MODULE_INIT() {
  if (!place_block()) {
    napi_throw_error(env, nullptr, "the thread-local block did not land 16 bytes into a page");
  }
  return exports;
}
