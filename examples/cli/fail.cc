#include <iostream>

#include "examples/cli/commands.h"
#include "examples/cli/flags.h"

namespace dcplan::cli {

int Fail(const absl::Status& status) {
  std::cerr << "dcplan: " << ForTerminal(status.message()) << "\n";
  return 1;
}

}  // namespace dcplan::cli
