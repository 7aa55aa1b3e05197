// File: base/large_buffer.h
//
// Zeroed memory for large, long-lived buffers (megabytes: a sweep's output pieces, its tables of
// formatted texts), mapped in whole 2 MiB runs with transparent huge pages asked for
// (madvise(MADV_HUGEPAGE), which Debian's default "madvise" setting honours). A 4 KiB page costs a
// fault (~2 us) at first touch: tens of megabytes written once cost thousands of them, a large
// share of a million-row sweep's time; in 2 MiB pages they are a few dozen. Where the kernel gives
// no huge pages the memory is ordinary zeroed pages, as from calloc.
//
// Example:
//   LargeBuffer buffer(size_t{16} << 20);
//   if (buffer.data() == nullptr) { /* out of memory */ }
//   std::memcpy(buffer.data(), text, n);
#pragma once

#include <cstddef>
#include <memory>
#include <new>

namespace dcplan {

class LargeBuffer {
 public:
  LargeBuffer() = default;
  // `bytes` zeroed bytes (rounded up to whole 2 MiB runs), or none (data() null) when the mapping
  // fails or `bytes` is 0.
  explicit LargeBuffer(size_t bytes);
  ~LargeBuffer();
  LargeBuffer(LargeBuffer&& other) noexcept;
  LargeBuffer& operator=(LargeBuffer&& other) noexcept;
  LargeBuffer(const LargeBuffer&) = delete;
  LargeBuffer& operator=(const LargeBuffer&) = delete;

  char* data() const { return data_; }
  // The bytes usable at data(): at least what was asked for, 0 without a mapping.
  size_t size() const { return size_; }

  // The run the mappings come in (and are aligned to).
  static constexpr size_t kRun = size_t{2} << 20;

 private:
  void Release();

  char* data_ = nullptr;
  size_t size_ = 0;
};

// The same memory for a std::vector that holds megabytes (a sweep's block of rows): arrays of at
// least LargeBuffer::kRun bytes are mapped as LargeBuffer maps them, smaller ones come from
// std::allocator.
//   std::vector<Row, LargeAllocator<Row>> rows(65536);
void* MapLarge(size_t bytes);            // null when the mapping fails
void UnmapLarge(void* p, size_t bytes);  // `bytes` as given to MapLarge

template <typename T>
struct LargeAllocator {
  using value_type = T;
  LargeAllocator() = default;
  template <typename U>
  LargeAllocator(const LargeAllocator<U>&) {}  // NOLINT(google-explicit-constructor)

  static bool Large(size_t n) { return n * sizeof(T) >= LargeBuffer::kRun; }
  T* allocate(size_t n) {
    if (!Large(n)) return std::allocator<T>().allocate(n);
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    void* p = MapLarge(n * sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    if (!Large(n)) return std::allocator<T>().deallocate(p, n);
    UnmapLarge(p, n * sizeof(T));
  }
  template <typename U>
  bool operator==(const LargeAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const LargeAllocator<U>&) const {
    return false;
  }
};

}  // namespace dcplan
