#pragma once
/// \file
/// `thm::conformance::TemporaryDirectory`: a new directory under the system's temporary
/// directory, removed with everything in it when the object goes; where a harness whose store
/// is a file (the SQLite harness, its mutants) keeps that file.

#include <string>

namespace thm::conformance {

/// A directory made by `mkdtemp` from `<temporary directory>/<prefix>-XXXXXX`. Moves only.
class TemporaryDirectory {
 public:
  /// Makes the directory; throws `std::runtime_error` when it cannot.
  explicit TemporaryDirectory(const std::string& prefix);
  TemporaryDirectory(TemporaryDirectory&& other) noexcept;
  TemporaryDirectory& operator=(TemporaryDirectory&&) = delete;
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  /// Removes the directory and everything in it, ignoring errors.
  ~TemporaryDirectory();

  /// The directory (empty once moved from).
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

}  // namespace thm::conformance
