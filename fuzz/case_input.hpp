#pragma once
// Reading a case file's `input` object in a structured fuzz target: the seeds of those targets
// are the shipped cases' inputs, so mutations start from documents the decoders accept.

#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "thm/json/json.hpp"

namespace thm::fuzz {

// The wire value under `key` of the object `input`, decoded as `T`; nothing when the key is
// missing or the value does not decode (the json_decode target covers those paths).
template <json::WireType T>
std::optional<T> case_member(const json::Value& input, const char* key) {
  if (!input.is_object() || !input.contains(key)) return std::nullopt;
  auto decoded = json::from_value<T>(input[key]);
  if (!decoded) return std::nullopt;
  return *std::move(decoded);
}

// The body of a structured target: an input that starts with `{` is a case file's `input`
// object, read by `from_case` (nothing: the input is skipped); any other input is drawn by
// `draw` from a FuzzedDataProvider. Either way the case goes to `check`.
template <class FromCase, class DrawCase, class Check>
int run_structured(const std::uint8_t* data, std::size_t size, FromCase from_case, DrawCase draw,
                   Check check) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (text.starts_with('{')) {
    if (const auto c = from_case(text)) check(*c);
    return 0;
  }
  FuzzedDataProvider bytes(data, size);
  check(draw(bytes));
  return 0;
}

}  // namespace thm::fuzz
