// File: examples/cli/progress.cc
#include "examples/cli/progress.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

#include "units/format.h"

namespace dcplan::cli {

Progress::Progress(std::string what, int64_t total)
    : what_(std::move(what)),
      total_(total),
      start_(Clock::now()),
      tty_(isatty(STDERR_FILENO) != 0) {}

void Progress::Update(int64_t done) {
  if (!tty_ || total_ <= 0) return;
  const Clock::time_point now = Clock::now();
  if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(100)) {
    return;
  }
  last_ = now;
  shown_ = true;
  const double f = static_cast<double>(done) / static_cast<double>(total_);
  const int width = 40, filled = static_cast<int>(f * width);
  const double rate =
      static_cast<double>(done) / std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr, "\r[%s%s] %5.1f%%  %s / %s %s  %.2fM %s/s ",
               std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(), 100 * f,
               units::FormatCount(done).c_str(), units::FormatCount(total_).c_str(), what_.c_str(),
               rate / 1e6, what_.c_str());
  std::fflush(stderr);
}

void Progress::Finish() {
  if (shown_) std::fprintf(stderr, "\r%s\r", std::string(110, ' ').c_str());
  shown_ = false;
}

}  // namespace dcplan::cli
