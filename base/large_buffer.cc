// File: base/large_buffer.cc
#include "base/large_buffer.h"

#include <sys/mman.h>

#include <cstdint>
#include <utility>

namespace dcplan {

namespace {

// Whole runs for `bytes`.
size_t RunsFor(size_t bytes) {
  return (bytes + LargeBuffer::kRun - 1) / LargeBuffer::kRun * LargeBuffer::kRun;
}

}  // namespace

void* MapLarge(size_t bytes) {
  constexpr size_t kRun = LargeBuffer::kRun;
  if (bytes == 0 || bytes > (size_t{1} << 46)) return nullptr;
  const size_t size = RunsFor(bytes);
  // One run more than needed, so that an aligned start lies within; the ends are given back.
  const size_t mapped = size + kRun;
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  const uintptr_t start = reinterpret_cast<uintptr_t>(p);
  const uintptr_t aligned = (start + kRun - 1) / kRun * kRun;
  if (aligned > start) munmap(p, aligned - start);
  const uintptr_t end = start + mapped;
  if (end > aligned + size) munmap(reinterpret_cast<void*>(aligned + size), end - aligned - size);
  void* data = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
  (void)madvise(data, size, MADV_HUGEPAGE);  // a hint: without huge pages, small ones
#endif
  return data;
}

void UnmapLarge(void* p, size_t bytes) {
  if (p != nullptr) munmap(p, RunsFor(bytes));
}

LargeBuffer::LargeBuffer(size_t bytes) : data_(static_cast<char*>(MapLarge(bytes))) {
  if (data_ != nullptr) size_ = RunsFor(bytes);
}

LargeBuffer::~LargeBuffer() { Release(); }

LargeBuffer::LargeBuffer(LargeBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

LargeBuffer& LargeBuffer::operator=(LargeBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void LargeBuffer::Release() {
  UnmapLarge(data_, size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace dcplan
