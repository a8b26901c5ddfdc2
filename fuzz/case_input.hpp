#pragma once
// Reading a case file's `input` object in a structured fuzz target: the seeds of those targets
// are the shipped cases' inputs, so mutations start from documents the decoders accept.

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

}  // namespace thm::fuzz
