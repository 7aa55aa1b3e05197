#include "base/thread_pool.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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

TEST(ThreadPool, AThreadTheSystemRefusesIsAStatusNotATermination) {
  // In a child: as an ordinary user (root ignores RLIMIT_NPROC) allowed one task, which the child
  // itself is, so the pool's first worker cannot start. The pool must say so and still run loops
  // on the calling thread; std::thread's exception escaping would end the child with SIGABRT.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::getuid() == 0 && ::setuid(65534) != 0) ::_exit(10);
    const struct rlimit one = {1, 1};
    if (::setrlimit(RLIMIT_NPROC, &one) != 0) ::_exit(11);
    ThreadPool pool(4);
    if (pool.status().ok()) ::_exit(12);
    if (pool.status().message() != "cannot start thread 2 of 4: Resource temporarily unavailable") {
      ::_exit(13);
    }
    if (pool.size() != 1) ::_exit(14);
    int64_t sum = 0;
    pool.ParallelFor(100, 7, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) sum += i;
    });
    ::_exit(sum == 4950 ? 0 : 15);  // 0 + 1 + ... + 99
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  // In a user namespace that maps only root (some sandboxes), there is no ordinary user to become;
  // tests/bad_inputs_test.sh checks the same through the CLI where setpriv can.
  if (WEXITSTATUS(status) == 10) GTEST_SKIP() << "cannot become an ordinary user here";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(ThreadPool, EmptyLoopCallsNothing) {
  ThreadPool pool(2);
  bool called = false;
  pool.ParallelFor(0, 10, [&](int64_t, int64_t) { called = true; });
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace dcplan
