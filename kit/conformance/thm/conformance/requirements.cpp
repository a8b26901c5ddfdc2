#include "thm/conformance/requirements.hpp"

#include <algorithm>
#include <array>

namespace thm::conformance {
namespace {

struct CapabilityFlag {
  std::string_view name;
  bool Capabilities::*field;
};

// The flags of `Capabilities`, in its order.
constexpr CapabilityFlag kCapabilityFlags[] = {
    {"hooks", &Capabilities::hooks},
    {"row_locking", &Capabilities::row_locking},
    {"persistent", &Capabilities::persistent},
    {"sql_schema", &Capabilities::sql_schema},
    {"leases", &Capabilities::leases},
    {"injected_store_clock", &Capabilities::injected_store_clock},
    {"skewable_client_clock", &Capabilities::skewable_client_clock},
    {"hold_child", &Capabilities::hold_child},
    {"nodes", &Capabilities::nodes},
};

constexpr auto kCapabilityNames = [] {
  std::array<std::string_view, std::size(kCapabilityFlags)> names{};
  for (std::size_t i = 0; i < names.size(); ++i) names[i] = kCapabilityFlags[i].name;
  return names;
}();

std::string_view trimmed(std::string_view part) {
  const auto first = part.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return part.substr(first, part.find_last_not_of(" \t") - first + 1);
}

}  // namespace

std::span<const std::string_view> capability_names() noexcept { return kCapabilityNames; }

bool declares(const Capabilities& capabilities, std::string_view name) noexcept {
  for (const auto& flag : kCapabilityFlags) {
    if (flag.name == name) return capabilities.*flag.field;
  }
  return false;
}

Result<std::vector<std::string>, std::string> parse_requirements(std::string_view list,
                                                                 std::string_view source) {
  std::vector<std::string> required;
  if (trimmed(list).empty()) return required;
  const auto refuse = [source](const std::string& what) {
    std::string message = std::string(source) + " " + what +
                          "; it takes a comma-separated list of these capabilities: ";
    for (std::size_t i = 0; i < kCapabilityNames.size(); ++i) {
      message += (i == 0 ? "" : ", ") + std::string(kCapabilityNames[i]);
    }
    return unexpected{std::move(message)};
  };
  for (std::size_t start = 0; start <= list.size();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view part = trimmed(list.substr(start, comma - start));
    if (part.empty()) return refuse("has an empty name");
    if (std::ranges::find(kCapabilityNames, part) == kCapabilityNames.end())
      return refuse("names `" + std::string(part) + "`, which is not a capability");
    if (std::ranges::find(required, part) == required.end()) required.emplace_back(part);
    start = comma + 1;
  }
  return required;
}

std::string undeclared(const Capabilities& capabilities, const std::vector<std::string>& required) {
  std::string out;
  for (const std::string& capability : required) {
    if (!declares(capabilities, capability)) out += (out.empty() ? "`" : ", `") + capability + '`';
  }
  return out;
}

std::optional<std::string> unmet_requirement(const CheckRun& report,
                                             const std::vector<std::string>& required,
                                             std::string_view source) {
  if (!left_unproven(report)) return std::nullopt;
  std::string named;
  for (const std::string& capability : required) {
    if (report.reason.find('`' + capability + '`') != std::string::npos)
      named += (named.empty() ? "`" : ", `") + capability + '`';
  }
  if (named.empty()) return std::nullopt;
  return report.id + " (" + report.title + ") " +
         (report.verdict == Verdict::Skip ? "was skipped" : "passed only in part") + ", but " +
         std::string(source) + " requires " + named + ": " + report.reason;
}

}  // namespace thm::conformance
