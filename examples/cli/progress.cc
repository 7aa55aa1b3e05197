// File: examples/cli/progress.cc
#include "examples/cli/progress.h"

#include <unistd.h>

#include <cstdio>
#include <system_error>
#include <utility>

#include "absl/time/time.h"
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

SetupNotice::SetupNotice(std::string what) : what_(std::move(what)) {
  if (isatty(STDERR_FILENO) == 0) return;
  try {
    thread_ = std::make_unique<std::thread>([this] { Run(); });
  } catch (const std::system_error&) {
    // No thread, no notice: the work itself goes on.
  }
}

SetupNotice::~SetupNotice() {
  {
    absl::MutexLock lock(&mu_);
    done_ = true;
  }
  if (thread_ != nullptr) thread_->join();
}

void SetupNotice::Run() {
  const auto start = std::chrono::steady_clock::now();
  bool shown = false;
  absl::MutexLock lock(&mu_);
  // Wake every half second (the first time after one), or at once when the setup is done.
  for (absl::Duration wait = absl::Seconds(1); !mu_.AwaitWithTimeout(absl::Condition(&done_), wait);
       wait = absl::Milliseconds(500)) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "\r%s... %.0f s ", what_.c_str(), seconds);
    std::fflush(stderr);
    shown = true;
  }
  if (shown) std::fprintf(stderr, "\r%s\r", std::string(what_.size() + 16, ' ').c_str());
}

}  // namespace dcplan::cli
