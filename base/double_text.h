// File: base/double_text.h
//
// The shortest text of a double (AppendShortestDouble, base/numbers.h) remembered by the double's
// bits, for writers that print the same values many times over: a sweep's rows repeat a cluster's
// power, compute and capex at every point that lands on the same GPU count (a million rows of
// h100-dgx over power x PUE hold 36,536 distinct values in each such column), and its axes'
// values repeat by construction. Formatting a double (std::to_chars, Ryu) costs tens of
// nanoseconds; a hit here is a hash, a load and a copy.
//
// DoubleTextCache is direct-mapped: 2^14 slots of 40 bytes (640 KB, allocated and zeroed on first
// use), each holding the last value that hashed to it. A value evicts the one before it in its
// slot, and the text is the same either way: the cache only saves formatting. One per thread (it
// has no lock).
//
// Example:
//   thread_local DoubleTextCache cache;
//   cache.Append(9085491.840000002, &row);  // "9085491.840000002", formatted once per value
#pragma once

#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

namespace dcplan {

class DoubleTextCache {
 public:
  static constexpr int kSlotBits = 14;
  static constexpr size_t kSlots = size_t{1} << kSlotBits;

  // Appends the shortest text that reads back as exactly `v` (NaN and infinities as
  // AppendShortestDouble writes them). Values are told apart by their bits: 0.0 and -0.0 print
  // apart, a NaN matches only its own bits.
  void Append(double v, std::string* out) {
    const Slot& slot = Find(v);
    out->append(slot.text, slot.size);
  }

  // The same text, written at `p`, which must have 31 bytes of room (fixed-size copies); returns
  // the end of the text.
  char* Write(double v, char* p) { return Find(v).Write(p); }

  struct Slot {
    uint64_t bits = 0;
    uint8_t size = 0;  // 0: empty (every text has at least one character)
    char text[31];     // the longest shortest double has 24 characters (base/numbers.h)

    // The text at `p` (31 bytes of room); its end.
    char* Write(char* p) const {
      std::memcpy(p, text, 16);  // two fixed 16-byte copies, bytes 0-15 and 15-30
      std::memcpy(p + 15, text + 15, 16);
      return p + size;
    }
  };

  // The slot holding v's text (formatted into it unless it was there): valid until another value
  // that hashes to it is looked up.
  const Slot& Find(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    if (slots_ == nullptr) slots_ = std::make_unique<Slot[]>(kSlots);
    Slot& slot = slots_[(bits * 0x9E3779B97F4A7C15ull) >> (64 - kSlotBits)];
    if (slot.size == 0 || slot.bits != bits) {
      const std::to_chars_result printed =
          std::to_chars(slot.text, slot.text + sizeof(slot.text), v);
      slot.size = static_cast<uint8_t>(printed.ptr - slot.text);
      slot.bits = bits;
    }
    return slot;
  }

 private:
  std::unique_ptr<Slot[]> slots_;
};

}  // namespace dcplan
