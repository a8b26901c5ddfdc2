// Every wire decoder on arbitrary bytes, and the lenient parse that records repeated keys
// (as `thm check` reads case files). Invariants: never crashes and never throws through the
// API; anything a decoder accepts re-encodes and decodes to the same value; a text the
// strict parse accepts has no repeated keys for the lenient one to record.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "fuzz_check.hpp"
#include "thm/json/json.hpp"

namespace {

template <class... Types>
void decode_as_each(std::string_view text, std::tuple<Types...>*) {
  const auto check = [text]<class T>(T*) {
    const auto decoded = thm::json::decode<T>(text);
    if (!decoded) return;
    const auto again = thm::json::decode<T>(thm::json::encode(*decoded));
    THM_FUZZ_CHECK(again.has_value());
    THM_FUZZ_CHECK(*again == *decoded);
  };
  (check(static_cast<Types*>(nullptr)), ...);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  decode_as_each(text, static_cast<thm::json::WireTypes*>(nullptr));
  std::vector<std::string> repeated;
  const auto lenient = thm::json::parse(text, &repeated);
  if (thm::json::parse(text).has_value()) THM_FUZZ_CHECK(lenient.has_value() && repeated.empty());
  return 0;
}
