#pragma once
// Internal to thm::json: building JSON Pointer (RFC 6901) paths.

#include <string>
#include <string_view>

namespace thm::json {

/// `token` escaped for use as one JSON Pointer segment (`~` → `~0`, `/` → `~1`).
[[nodiscard]] inline std::string escape_pointer_token(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (const char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace thm::json
