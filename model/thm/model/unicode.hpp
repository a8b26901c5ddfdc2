#pragma once
// The model's Unicode facts, straight from ICU (SPEC §0.7). Internal to the model.

#include <cstddef>
#include <string>

namespace thm::model::unicode {

/// The code point starting at byte `i` (or -1 for an ill-formed byte) and its length.
struct Char {
  long code_point = -1;
  std::size_t length = 1;
};
Char char_at(const std::string& text, std::size_t i);

bool is_white_space(long code_point);           // Unicode White_Space
bool is_alphanumeric(long code_point);          // Alphabetic, or general category Nd/Nl/No
std::string to_lower(const std::string& text);  // full lower-casing, root locale
std::string trim(const std::string& text);      // White_Space off both ends

}  // namespace thm::model::unicode
