// accept_selection on arbitrary selector output. Input: candidate ids, one per line, up to
// the first NUL byte; everything after it is the output. Invariants: never crashes; the
// answer is one of the candidates' ids or nothing; core and model agree.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "thm/bridge/bridge.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t split = input.find('\0');
  const std::string_view ids = input.substr(0, split);
  const std::string output(split == std::string_view::npos ? std::string_view{}
                                                           : input.substr(split + 1));
  std::vector<thm::SelectorCandidate> candidates;
  for (std::size_t begin = 0; begin <= ids.size() && candidates.size() < 8;) {
    const std::size_t end = std::min(ids.find('\n', begin), ids.size());
    candidates.push_back({.id = std::string(ids.substr(begin, end - begin))});
    begin = end + 1;
  }
  const auto accepted = thm::accept_selection(output, candidates);
  if (accepted) {
    bool found = false;
    for (const auto& candidate : candidates) found = found || candidate.id == *accepted;
    THM_FUZZ_CHECK(found);
  }
  THM_FUZZ_CHECK(accepted ==
                 thm::model::accept_selection(output, thm::bridge::to_model(candidates)));
  return 0;
}
