#pragma once
/// \file
/// `thm::Result<T, E>`: the value-or-error return type of every fallible core call
/// (house style §5, SPEC §0.4). It mirrors `std::expected`'s member names so that a
/// C++23 build can turn it into an alias without touching callers.

#include <type_traits>
#include <utility>
#include <variant>

#include "thm/detail/unreachable.hpp"

namespace thm {

/// Wraps an error so that `Result<T, E>` can be built from it unambiguously, like
/// `std::unexpected`. Construct with `thm::unexpected{error}` (CTAD).
template <class E>
struct unexpected {
  E error{};
};
template <class E>
unexpected(E) -> unexpected<E>;

/// Either a `T` (success) or an `E` (a typed error). Never empty. Accessing the wrong
/// side is a programming error and terminates the process (it is never undefined).
template <class T, class E>
class [[nodiscard]] Result {
 public:
  using value_type = T;
  using error_type = E;

  /// A successful result holding `value`.
  template <class U = T>
  requires std::is_constructible_v<T, U&&>
  constexpr Result(U&& value) : state_(std::in_place_index<0>, std::forward<U>(value)) {}  // NOLINT

  /// A failed result holding `failure.error`.
  template <class G>
  constexpr Result(unexpected<G> failure)  // NOLINT
      : state_(std::in_place_index<1>, std::move(failure.error)) {}

  /// True when this holds a value.
  [[nodiscard]] constexpr bool has_value() const noexcept { return state_.index() == 0; }
  constexpr explicit operator bool() const noexcept { return has_value(); }

  /// The value. Precondition: `has_value()`.
  [[nodiscard]] constexpr T& value() & { return checked_value(*this); }
  [[nodiscard]] constexpr const T& value() const& { return checked_value(*this); }
  [[nodiscard]] constexpr T&& value() && { return std::move(checked_value(*this)); }

  /// The error. Precondition: `!has_value()`.
  [[nodiscard]] constexpr E& error() & { return checked_error(*this); }
  [[nodiscard]] constexpr const E& error() const& { return checked_error(*this); }
  [[nodiscard]] constexpr E&& error() && { return std::move(checked_error(*this)); }

  constexpr T& operator*() & { return value(); }
  constexpr const T& operator*() const& { return value(); }
  constexpr T&& operator*() && { return std::move(*this).value(); }
  constexpr T* operator->() { return &value(); }
  constexpr const T* operator->() const { return &value(); }

  friend constexpr bool operator==(const Result&, const Result&) = default;

 private:
  template <class Self>
  static constexpr auto& checked_value(Self& self) {
    if (!self.has_value()) detail::unreachable();
    return *std::get_if<0>(&self.state_);
  }
  template <class Self>
  static constexpr auto& checked_error(Self& self) {
    if (self.has_value()) detail::unreachable();
    return *std::get_if<1>(&self.state_);
  }

  std::variant<T, E> state_;
};

}  // namespace thm
