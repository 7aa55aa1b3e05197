#include "base/thread_pool.h"

#include <algorithm>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace dcplan {

int ThreadPool::Resolve(int threads) {
  if (threads > 0) return threads;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? static_cast<int>(cores) : 1;
}

ThreadPool::ThreadPool(int threads) {
  const int n = Resolve(threads);
  workers_.reserve(n - 1);
  for (int i = 1; i < n; ++i) {
    try {
      workers_.emplace_back([this] { WorkerLoop(); });
    } catch (const std::system_error& e) {
      status_ = absl::ResourceExhaustedError(
          absl::StrCat("cannot start thread ", i + 1, " of ", n, ": ", e.code().message()));
      break;
    }
  }
}

ThreadPool::~ThreadPool() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  for (std::thread& t : workers_) t.join();
}

int64_t ThreadPool::RunChunks(absl::FunctionRef<void(int64_t, int64_t)> fn, int64_t n,
                              int64_t chunk) {
  int64_t ran = 0;
  while (true) {
    int64_t begin;
    {
      absl::MutexLock lock(&mu_);
      if (next_ >= n) break;
      begin = next_;
      next_ = std::min(n, next_ + chunk);
    }
    fn(begin, std::min(n, begin + chunk));
    ++ran;
    absl::MutexLock lock(&mu_);
    --chunks_left_;
  }
  return ran;
}

void ThreadPool::WorkerLoop() {
  int64_t seen = 0;
  while (true) {
    const absl::FunctionRef<void(int64_t, int64_t)>* fn;
    int64_t n, chunk;
    {
      absl::MutexLock lock(&mu_);
      // Wait for a job this worker has not joined yet (or for the end).
      struct Args {
        ThreadPool* pool;
        int64_t seen;
      } args{this, seen};
      mu_.Await(absl::Condition(
          +[](Args* a) ABSL_NO_THREAD_SAFETY_ANALYSIS {
            return a->pool->stop_ ||
                   (a->pool->generation_ != a->seen && a->pool->next_ < a->pool->n_);
          },
          &args));
      if (stop_) return;
      seen = generation_;
      fn = fn_;
      n = n_;
      chunk = chunk_;
      ++busy_workers_;
    }
    RunChunks(*fn, n, chunk);
    absl::MutexLock lock(&mu_);
    --busy_workers_;
  }
}

void ThreadPool::ParallelFor(int64_t n, int64_t chunk,
                             absl::FunctionRef<void(int64_t, int64_t)> fn) {
  if (n <= 0) return;
  chunk = std::max<int64_t>(chunk, 1);
  if (workers_.empty() || n <= chunk) {
    for (int64_t begin = 0; begin < n; begin += chunk) fn(begin, std::min(n, begin + chunk));
    return;
  }
  absl::MutexLock run_lock(&run_mu_);
  {
    absl::MutexLock lock(&mu_);
    fn_ = &fn;
    n_ = n;
    chunk_ = chunk;
    next_ = 0;
    chunks_left_ = (n + chunk - 1) / chunk;
    ++generation_;
  }
  RunChunks(fn, n, chunk);
  // Every chunk finished, and no worker still holds `fn` (it lives on this frame).
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](ThreadPool* p)
           ABSL_NO_THREAD_SAFETY_ANALYSIS { return p->chunks_left_ == 0 && p->busy_workers_ == 0; },
      this));
  fn_ = nullptr;
}

}  // namespace dcplan
