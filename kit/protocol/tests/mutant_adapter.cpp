// thm_mutant_adapter MUTANT: serves one broken in-memory queue (broken_queue.hpp) over the
// adapter protocol on stdin and stdout, so that `thm conformance --queue 'exec:...'` can be
// shown a queue that fails: the HTML report's browser test and the README's screenshot use
// it. MUTANT is a label's first word, e.g. `M1`. Test code: never installed.
#include <iostream>
#include <string>
#include <string_view>

#include "broken_queue.hpp"
#include "thm/protocol/serve.hpp"

int main(int argc, char** argv) {
  using namespace thm::conformance::mutants;
  const std::string_view wanted = argc == 2 ? argv[1] : "";
  for (const Flaw flaw : all_flaws()) {
    const std::string_view label = name(flaw);
    if (wanted.empty() || label.substr(0, label.find(' ')) != wanted) continue;
    const auto harness = broken_harness(flaw);
    return thm::protocol::serve(*harness, std::cin, std::cout, std::cerr);
  }
  std::cerr << "usage: thm_mutant_adapter MUTANT, one of:";
  for (const Flaw flaw : all_flaws()) std::cerr << "\n  " << name(flaw);
  std::cerr << '\n';
  return 2;
}
