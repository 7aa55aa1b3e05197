// File: base/thread_pool.h
//
// A small fixed pool of worker threads for data-parallel loops: ParallelFor splits [0, n) into
// chunks and runs them on the workers and on the calling thread, returning when every chunk is
// done. Sweeps use it to solve blocks of grid points, each chunk writing into its own slots of a
// pre-sized vector, so the results come out in index order whatever the thread count. Built on
// absl::Mutex and std::thread only.
//
// A pool runs one ParallelFor at a time (calls from several threads take turns); `fn` must not call
// ParallelFor on the same pool.
//
// Example:
//   ThreadPool pool(/*threads=*/0);   // every core
//   std::vector<double> out(n);
//   pool.ParallelFor(n, /*chunk=*/4096, [&](int64_t begin, int64_t end) {
//     for (int64_t i = begin; i < end; ++i) out[i] = f(i);
//   });
#pragma once

#include <cstdint>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace dcplan {

class ThreadPool {
 public:
  // A pool of `threads` threads in all, the caller's included (so threads - 1 workers are started).
  // 0 = one per core (std::thread::hardware_concurrency); 1 = run everything on the calling thread.
  // A thread the system refuses to start (EAGAIN: a process or memory limit) is not fatal: the pool
  // keeps the threads it has, and status() says what happened, for callers that must not go on
  // with fewer threads than they asked for.
  explicit ThreadPool(int threads);
  ~ThreadPool();

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads that run a ParallelFor, the caller's included.
  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // OK, or ResourceExhausted "cannot start thread 3 of 8: Resource temporarily unavailable".
  const absl::Status& status() const { return status_; }

  // Calls fn(begin, end) for consecutive chunks [begin, end) of at most `chunk` (>= 1) indices that
  // together cover [0, n), each exactly once, spread over the pool; returns when all have returned.
  void ParallelFor(int64_t n, int64_t chunk, absl::FunctionRef<void(int64_t, int64_t)> fn);

  // The number of threads `threads` (as given to the constructor) stands for.
  static int Resolve(int threads);

 private:
  // Runs chunks of the current job until none is left; returns how many it ran.
  int64_t RunChunks(absl::FunctionRef<void(int64_t, int64_t)> fn, int64_t n, int64_t chunk);
  void WorkerLoop();

  absl::Mutex run_mu_;  // one ParallelFor at a time
  absl::Mutex mu_;
  // The current job; `generation_` changes when a new one starts.
  int64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
  const absl::FunctionRef<void(int64_t, int64_t)>* fn_ ABSL_GUARDED_BY(mu_) = nullptr;
  int64_t n_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t chunk_ ABSL_GUARDED_BY(mu_) = 1;
  int64_t next_ ABSL_GUARDED_BY(mu_) = 0;         // first index not yet handed out
  int64_t chunks_left_ ABSL_GUARDED_BY(mu_) = 0;  // chunks handed out or not, not yet finished
  int busy_workers_ ABSL_GUARDED_BY(mu_) = 0;     // workers inside the current job
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;
  absl::Status status_;
};

}  // namespace dcplan
