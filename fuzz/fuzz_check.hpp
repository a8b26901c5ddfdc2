#pragma once
// THM_FUZZ_CHECK(cond): the invariant check of every fuzz target. Unlike assert it stays on
// in release builds; a failure prints the condition and aborts, which libFuzzer and the
// replay program both report as a crash.

#include <cstdio>
#include <cstdlib>

#define THM_FUZZ_CHECK(condition)                                                            \
  do {                                                                                       \
    if (!(condition)) {                                                                      \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (false)
