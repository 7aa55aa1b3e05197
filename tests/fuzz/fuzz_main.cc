// File: tests/fuzz/fuzz_main.cc
//
// A main() for fuzz harnesses built without libFuzzer (gcc, the normal test suite): it runs
// LLVMFuzzerTestOneInput once on every file named on the command line, and on every file under each
// directory named, in sorted order. The replay tests use it to run each harness over its seed
// corpus and every reproducer a fuzz run ever found, so a finding, once fixed, stays fixed in
// `bazel test //...`. Fails (exit 1) when an argument cannot be read or names no input at all; a
// harness that finds a problem aborts.
//
// Example:
//   bazel-bin/tests/fuzz/text_request_fuzzer_replay tests/fuzz/corpus/text crash-1234
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

bool Collect(const std::filesystem::path& path, std::vector<std::filesystem::path>* files) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    for (auto it = std::filesystem::recursive_directory_iterator(path, error);
         !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      if (it->is_regular_file(error)) files->push_back(it->path());
    }
  } else if (std::filesystem::is_regular_file(path, error)) {
    files->push_back(path);
  } else {
    std::cerr << "fuzz_main: cannot read " << path << "\n";
    return false;
  }
  return !error;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    if (!Collect(argv[i], &files)) return 1;
  }
  if (files.empty()) {
    std::cerr << "fuzz_main: no input to replay; name files or directories\n";
    return 1;
  }
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::cerr << "fuzz_main: cannot read " << file << "\n";
      return 1;
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  }
  std::cout << "replayed " << files.size() << " inputs without a finding\n";
  return 0;
}
