// File: examples/cli/progress.h
//
// The progress bar the long commands (sweep, scale over many sizes, setup that takes a while) draw
// on stderr: only when stderr is a terminal, and only once the work has run for a second (short
// runs print nothing), redrawn at most ten times a second and erased at the end.
//
// Example:
//   SetupNotice notice("dcplan sweep: making 10,000,000 values");   // until it goes out of scope
//   Progress progress("points", sweep.size());
//   for (...) progress.Update(done);
//   progress.Finish();
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"

namespace dcplan::cli {

class Progress {
 public:
  // `what` names the units counted ("points", "sizes", "values checked").
  Progress(std::string what, int64_t total);
  ~Progress() { Finish(); }

  void Update(int64_t done);
  // Erases the bar if it was drawn.
  void Finish();

 private:
  using Clock = std::chrono::steady_clock;
  std::string what_;
  int64_t total_;
  Clock::time_point start_, last_;
  bool tty_;
  bool shown_ = false;
};

// For setup whose steps cannot be counted (making and checking a sweep's values, loading presets,
// searching a workload's parallelism): while it lives, after a second, "dcplan sweep: <what>... 3
// s" on a terminal's stderr, updated twice a second, erased at the end. Nothing when stderr is not
// a terminal, or when no thread can be started for it.
class SetupNotice {
 public:
  explicit SetupNotice(std::string what);
  ~SetupNotice();

 private:
  void Run();

  std::string what_;
  absl::Mutex mu_;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  std::unique_ptr<std::thread> thread_;
};

}  // namespace dcplan::cli
