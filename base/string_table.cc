#include "base/string_table.h"

#include <utility>

namespace dcplan {

void StringTable::Insert(absl::string_view key, int value) {
  if (value < 0 || Find(key) >= 0) return;
  if (2 * (count_ + 1) > slots_.size()) {
    // Twice as many slots (16 at first), every key placed again.
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : 2 * old.size(), Slot());
    for (const Slot& s : old) {
      if (s.value >= 0) Place(s);
    }
  }
  Slot slot;
  slot.hash = Hash(key);
  slot.offset = static_cast<uint32_t>(chars_.size());
  slot.size = static_cast<uint32_t>(key.size());
  slot.value = value;
  chars_.append(key.data(), key.size());
  Place(slot);
  ++count_;
}

void StringTable::Place(const Slot& slot) {
  const size_t mask = slots_.size() - 1;
  size_t i = static_cast<size_t>(slot.hash) & mask;
  while (slots_[i].value >= 0) i = (i + 1) & mask;
  slots_[i] = slot;
}

}  // namespace dcplan
