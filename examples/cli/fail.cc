#include <iostream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "examples/cli/commands.h"
#include "examples/cli/flags.h"

namespace dcplan::cli {

int Fail(const absl::Status& status) {
  std::string message = UserMessage(status);
  // The library names fields; the command line has flags for the caps.
  if (absl::StartsWith(message, "no cap to solve under")) {
    absl::StrAppend(&message, " (flags: --power=50MW, --budget='$2B', --max_gpus=N)");
  }
  std::cerr << "dcplan: " << ForTerminal(message) << "\n";
  return 1;
}

}  // namespace dcplan::cli
