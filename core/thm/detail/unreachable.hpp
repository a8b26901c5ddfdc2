#pragma once
/// \file
/// `thm::detail::unreachable()`: marks states the type system cannot rule out but the code
/// never produces (after an exhaustive `switch`, or a precondition broken by a caller).
/// It stops the process deterministically instead of invoking undefined behaviour.

#include <cstdlib>

namespace thm::detail {

/// Never returns: aborts the process.
[[noreturn]] inline void unreachable() noexcept { std::abort(); }

}  // namespace thm::detail
