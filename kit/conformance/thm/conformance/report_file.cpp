#include <cerrno>
#include <filesystem>

#include "thm/conformance/report.hpp"

namespace thm::conformance {

ReportFile::~ReportFile() { abandon(); }

bool ReportFile::open(const std::string& path) {
  std::error_code resolved;
  const auto target = std::filesystem::weakly_canonical(path, resolved);
  path_ = resolved ? path : target.string();
  std::error_code ignored;
  const auto status = std::filesystem::status(path_, ignored);
  in_place_ = std::filesystem::exists(status) && !std::filesystem::is_regular_file(status);
  written_ = in_place_ ? path_ : path_ + ".partial";
  errno = 0;
  file_.open(written_, in_place_ ? std::ios::binary | std::ios::out
                                 : std::ios::binary | std::ios::out | std::ios::trunc);
  return file_.is_open();
}

void ReportFile::abandon() {
  if (!file_.is_open()) return;
  file_.close();
  if (in_place_) return;
  std::error_code ignored;
  std::filesystem::remove(written_, ignored);
}

bool ReportFile::commit(const std::string& text) {
  file_ << text;
  file_.close();  // flushes: a full disk shows up here, not never
  if (!file_) {
    if (!in_place_) {
      std::error_code ignored;
      std::filesystem::remove(written_, ignored);
    }
    return false;
  }
  if (in_place_) return true;
  std::error_code error;
  std::filesystem::rename(written_, path_, error);
  return !error;
}

}  // namespace thm::conformance
