// File: examples/cli/flagfile.cc
#include "examples/cli/flagfile.h"

#include <sys/stat.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "base/file_io.h"

namespace dcplan::cli {
namespace {

struct Walk {
  std::vector<std::pair<dev_t, ino_t>> chain_ids;  // the files being read, outermost first
  std::vector<std::string> chain;                  // their names, for messages
  int files = 0;
};

// The file names of one --flagfile value ("a,b" names two, as absl reads it).
std::vector<std::string> Names(absl::string_view value) {
  return absl::StrSplit(value, ',', absl::SkipWhitespace());
}

absl::Status Check(const std::string& name, Walk* walk) {
  const std::string where =
      walk->chain.empty() ? ""
                          : absl::StrCat(" (named by ", absl::StrJoin(walk->chain, " -> "), ")");
  if (++walk->files > kMaxFlagFiles) {
    return absl::OutOfRangeError(absl::StrCat("--flagfile: more than ", kMaxFlagFiles,
                                              " flag files in all, at ", name, where));
  }
  if (static_cast<int>(walk->chain.size()) >= kMaxFlagFileDepth) {
    return absl::OutOfRangeError(absl::StrCat("--flagfile: flag files nested more than ",
                                              kMaxFlagFileDepth, " deep, at ", name, where));
  }
  struct stat info;
  if (::stat(name.c_str(), &info) == 0) {
    for (const auto& [dev, ino] : walk->chain_ids) {
      if (dev == info.st_dev && ino == info.st_ino) {
        return absl::InvalidArgumentError(
            absl::StrCat("--flagfile: ", name, " names itself", where));
      }
    }
  }
  absl::StatusOr<std::string> text = ReadFileBounded(name, kMaxFlagFileBytes);
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        absl::StrCat("--flagfile: ", text.status().message(), where));
  }
  walk->chain.push_back(name);
  walk->chain_ids.emplace_back(info.st_dev, info.st_ino);
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!absl::ConsumePrefix(&line, "--flagfile=") && !absl::ConsumePrefix(&line, "-flagfile=")) {
      continue;
    }
    for (const std::string& nested : Names(line)) {
      if (absl::Status s = Check(nested, walk); !s.ok()) return s;
    }
  }
  walk->chain.pop_back();
  walk->chain_ids.pop_back();
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckFlagFiles(int argc, char** argv) {
  Walk walk;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--") break;  // absl's end of flags
    std::string value;
    if (absl::ConsumePrefix(&arg, "--flagfile=") || absl::ConsumePrefix(&arg, "-flagfile=")) {
      value = std::string(arg);
    } else if ((arg == "--flagfile" || arg == "-flagfile") && i + 1 < argc) {
      value = argv[++i];
    } else {
      continue;
    }
    for (const std::string& name : Names(value)) {
      if (absl::Status s = Check(name, &walk); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace dcplan::cli
