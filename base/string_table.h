// File: base/string_table.h
//
// A fixed set of strings (field paths) looked up by value, faster than a general hash map for the
// lookups a plan makes by the hundred: validating a preset's ~65 sources and finding each in the
// ledger hashed ~40-byte paths with absl's string hash (~100 instructions) and probed a
// flat_hash_map (~100 more). This hashes the length and three 8-byte words (first, middle, last:
// paths that share a prefix and a suffix still differ in the middle or in length), then probes an
// open-addressed table at most half full and compares the whole string on a hash match: ~40
// instructions and one memcmp. A key that collides with another only costs another probe: every
// answer is exact.
//
// Example:
//   StringTable table;
//   table.Insert("site.pue", 7);
//   table.Find("site.pue");    // 7
//   table.Find("site.pues");   // -1
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace dcplan {

class StringTable {
 public:
  // Adds `key` with `value` >= 0 (the key is copied); a key already present keeps its value.
  void Insert(absl::string_view key, int value);

  // The value of `key`, or -1 when it was never inserted.
  int Find(absl::string_view key) const {
    if (slots_.empty()) return -1;
    const uint64_t h = Hash(key);
    const size_t mask = slots_.size() - 1;
    for (size_t i = static_cast<size_t>(h) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.value < 0) return -1;
      if (s.hash == h && s.size == key.size() &&
          std::memcmp(chars_.data() + s.offset, key.data(), key.size()) == 0) {
        return s.value;
      }
    }
  }

  size_t size() const { return count_; }

  // The hash of `key`: its length and its first, middle and last eight bytes (the bytes it has,
  // when it is shorter), mixed by multiplications. Public for the tests of its spread.
  static uint64_t Hash(absl::string_view key) {
    const size_t n = key.size();
    const char* p = key.data();
    uint64_t a = 0, b = 0, c = 0;
    if (n >= 8) {
      std::memcpy(&a, p, 8);
      std::memcpy(&b, p + n - 8, 8);
      std::memcpy(&c, p + n / 2 - 4, 8);
    } else if (n > 0) {
      std::memcpy(&a, p, n);
    }
    uint64_t h = (a ^ (n * 0x9E3779B97F4A7C15ULL)) * 0xBF58476D1CE4E5B9ULL;
    h ^= (b + (h >> 31)) * 0x94D049BB133111EBULL;
    h ^= (c + (h >> 29)) * 0xD6E8FEB86659FD93ULL;
    return h ^ (h >> 32);
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t offset = 0;  // where the key starts in chars_
    uint32_t size = 0;
    int value = -1;  // -1: empty
  };
  void Place(const Slot& slot);

  std::vector<Slot> slots_;  // a power of two, at most half full
  std::string chars_;        // every key, back to back
  size_t count_ = 0;
};

}  // namespace dcplan
