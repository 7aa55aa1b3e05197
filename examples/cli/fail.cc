#include <iostream>

#include "examples/cli/commands.h"

namespace dcplan::cli {

int Fail(const absl::Status& status) {
  std::cerr << "dcplan: " << status.message() << "\n";
  return 1;
}

}  // namespace dcplan::cli
