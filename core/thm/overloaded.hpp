#pragma once
/// \file
/// `thm::overloaded`: builds one visitor out of several lambdas, for `std::visit` over the
/// decision variants (house style §4). List one lambda per alternative, never a catch-all
/// `auto` one, so that a new alternative fails to compile at every visit.

namespace thm {

/// A visitor made of the call operators of `Fs...`.
template <class... Fs>
struct overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
overloaded(Fs...) -> overloaded<Fs...>;

}  // namespace thm
