#include "base/large_buffer.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace dcplan {
namespace {

TEST(LargeBuffer, IsZeroedAlignedAndWholeRuns) {
  // 5 MB asked for: three 2 MiB runs (6,291,456 bytes), starting on a 2 MiB boundary, all zero.
  LargeBuffer b(5'000'000);
  ASSERT_NE(b.data(), nullptr);
  EXPECT_EQ(b.size(), size_t{3} << 21);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % LargeBuffer::kRun, 0u);
  size_t nonzero = 0;
  for (size_t i = 0; i < b.size(); i += 4093) nonzero += b.data()[i] != 0;
  EXPECT_EQ(nonzero, 0u);
  // Every byte writable, the last one too.
  b.data()[0] = 'a';
  b.data()[b.size() - 1] = 'z';
  EXPECT_EQ(b.data()[b.size() - 1], 'z');
}

TEST(LargeBuffer, MovesOwnershipAndHasNoneForNothing) {
  LargeBuffer empty(0);
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_EQ(empty.size(), 0u);
  // More than any address space: no mapping, no crash.
  LargeBuffer huge(size_t{1} << 62);
  EXPECT_EQ(huge.data(), nullptr);

  LargeBuffer a(1);
  ASSERT_NE(a.data(), nullptr);
  EXPECT_EQ(a.size(), LargeBuffer::kRun);  // one byte asked: one run
  char* const at = a.data();
  at[7] = 'x';
  LargeBuffer b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(b.data(), at);
  EXPECT_EQ(b.data()[7], 'x');
  LargeBuffer c;
  c = std::move(b);
  EXPECT_EQ(c.data(), at);
  EXPECT_EQ(b.size(), 0u);  // NOLINT(bugprone-use-after-move)
}

TEST(LargeAllocator, HoldsSmallAndLargeVectors) {
  // 3 doubles come from std::allocator; 1,000,000 (8 MB) are mapped in runs, aligned to 2 MiB;
  // growing past that moves every element.
  std::vector<double, LargeAllocator<double>> small = {1.0, 2.0, 3.0};
  EXPECT_EQ(small[2], 3.0);
  std::vector<double, LargeAllocator<double>> big(1'000'000, 0.5);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big.data()) % LargeBuffer::kRun, 0u);
  big[999'999] = 7.0;
  big.push_back(8.0);
  EXPECT_EQ(big.size(), 1'000'001u);
  EXPECT_EQ(big[0], 0.5);
  EXPECT_EQ(big[999'999], 7.0);
  EXPECT_EQ(big.back(), 8.0);
  big.clear();
  big.shrink_to_fit();
  EXPECT_EQ(big.capacity(), 0u);
}

}  // namespace
}  // namespace dcplan
