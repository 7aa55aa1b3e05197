// File: base/test_files.h
//
// Test helpers for code that reads and writes files: a fresh folder per test under TEST_TMPDIR,
// raw reads and writes that bypass the code under test, and a folder's listing (to check that no
// temporary file is left behind).
//
// Example:
//   const std::string dir = dcplan::testing::MakeTestDir();
//   dcplan::testing::WriteRaw(dir + "/a.json", "{}");
//   EXPECT_THAT(dcplan::testing::ListDir(dir), ElementsAre("a.json"));
#pragma once

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace dcplan::testing {

// A fresh, empty directory for one test, under the test's TEST_TMPDIR.
inline std::string MakeTestDir() {
  const char* root = std::getenv("TEST_TMPDIR");
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string dir = absl::StrCat(root != nullptr ? root : "/tmp", "/",
                                       info->test_suite_name(), ".", info->name());
  EXPECT_EQ(::mkdir(dir.c_str(), 0755), 0) << dir;
  return dir;
}

inline void WriteRaw(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  ASSERT_TRUE(out.good()) << path;
}

inline std::string ReadRaw(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The names in `dir`, without "." and "..", sorted.
inline std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (const dirent* entry = ::readdir(d)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace dcplan::testing
