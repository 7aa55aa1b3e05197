// File: examples/cli/progress.h
//
// The progress bar the long commands (sweep, scale over many sizes, setup that takes a while) draw
// on stderr: only when stderr is a terminal, and only once the work has run for a second (short
// runs print nothing), redrawn at most ten times a second and erased at the end.
//
// Example:
//   Progress progress("points", sweep.size());
//   for (...) progress.Update(done);
//   progress.Finish();
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

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

}  // namespace dcplan::cli
