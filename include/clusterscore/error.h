// Errors raised by clusterscore for bad user input.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace clusterscore {

// Thrown for input a user can fix (duplicate ids, bad weights, no overlap...).
// `source` names the input ("truth", "actual", "items", ...) and `row` the
// 0-based row of that input where the problem is, or -1 when no row applies;
// `first_row`, where the problem is a repeat, the row it repeats (else -1).
// Python sees it as ValueError; the CLI maps source/rows to a file's lines.
class InputError : public std::invalid_argument {
 public:
  InputError(std::string source, int64_t row, const std::string& message, int64_t first_row = -1)
      : std::invalid_argument(message),
        source_(std::move(source)),
        row_(row),
        first_row_(first_row) {}
  const std::string& source() const noexcept { return source_; }
  int64_t row() const noexcept { return row_; }
  int64_t first_row() const noexcept { return first_row_; }

 private:
  std::string source_;
  int64_t row_;
  int64_t first_row_;
};

}  // namespace clusterscore
