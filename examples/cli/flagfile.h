// File: examples/cli/flagfile.h
//
// Bounds on absl's --flagfile, checked before absl reads any: absl reads a flag file whole, however
// large (--flagfile=/dev/zero never ends), and follows one that names itself forever. Each flag
// file (and each one it names, recursively) is read here with ReadFileBounded, which also makes it
// an input of the run: --out can never replace it.
//
// Example (in main, before absl::ParseCommandLine):
//   if (absl::Status s = dcplan::cli::CheckFlagFiles(argc, argv); !s.ok()) return Fail(s);
#pragma once

#include <cstddef>

#include "absl/status/status.h"

namespace dcplan::cli {

// The largest flag file: 4 MiB (--gpus with the 100,000 sizes scale takes, each up to 10^12, is
// 1.4 MB).
inline constexpr std::size_t kMaxFlagFileBytes = std::size_t{4} << 20;
// The deepest chain of flag files naming flag files.
inline constexpr int kMaxFlagFileDepth = 8;
// The most flag files one command line may read in all.
inline constexpr int kMaxFlagFiles = 64;

// Checks every --flagfile=A[,B...] (also -flagfile and `--flagfile A`) in argv and the flag files
// they name: each readable, at most kMaxFlagFileBytes, at most kMaxFlagFileDepth deep, at most
// kMaxFlagFiles in all, and none naming itself directly or through others. Errors start with
// "--flagfile: " and name the file (and the chain that leads back to it).
absl::Status CheckFlagFiles(int argc, char** argv);

}  // namespace dcplan::cli
