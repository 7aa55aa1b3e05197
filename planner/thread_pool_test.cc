#include "planner/thread_pool.h"

#include <atomic>
#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"

namespace dcplan {
namespace {

TEST(ThreadPool, CoversEveryIndexExactlyOnce) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.size(), threads);
    // 100,003 indices in chunks of 1,000: 101 chunks, the last of 3.
    std::vector<int> hits(100003, 0);
    pool.ParallelFor(100003, 1000, [&](int64_t begin, int64_t end) {
      EXPECT_LE(end - begin, 1000);
      for (int64_t i = begin; i < end; ++i) ++hits[i];
    });
    for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i], 1) << "index " << i;
  }
}

TEST(ThreadPool, RunsManyLoopsInARowOnTheSameThreads) {
  ThreadPool pool(3);
  int64_t total = 0;
  for (int round = 1; round <= 200; ++round) {
    std::atomic<int64_t> sum{0};
    pool.ParallelFor(round, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) sum += i + 1;
    });
    // 1 + 2 + ... + round.
    ASSERT_EQ(sum.load(), int64_t{round} * (round + 1) / 2);
    total += sum.load();
  }
  EXPECT_EQ(total, 1353400);  // sum of r(r+1)/2 for r = 1..200 = 200 x 201 x 202 / 6
}

TEST(ThreadPool, SpreadsChunksOverSeveralThreads) {
  ThreadPool pool(2);
  absl::Mutex mu;
  std::set<std::thread::id> seen;
  // Chunks that wait for a second thread to turn up cannot all run on one thread.
  std::atomic<int> inside{0};
  pool.ParallelFor(2, 1, [&](int64_t, int64_t) {
    ++inside;
    while (inside.load() < 2) std::this_thread::yield();
    absl::MutexLock lock(&mu);
    seen.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(seen.size(), 2u);
}

TEST(ThreadPool, ZeroThreadsMeansOnePerCore) {
  const unsigned cores = std::thread::hardware_concurrency();
  EXPECT_EQ(ThreadPool::Resolve(0), cores > 0 ? static_cast<int>(cores) : 1);
  EXPECT_EQ(ThreadPool::Resolve(3), 3);
}

TEST(ThreadPool, EmptyLoopCallsNothing) {
  ThreadPool pool(2);
  bool called = false;
  pool.ParallelFor(0, 10, [&](int64_t, int64_t) { called = true; });
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace dcplan
