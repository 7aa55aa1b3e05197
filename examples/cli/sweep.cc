// dcplan sweep: one request solved over a grid of field values, one CSV row (or JSON line) per
// point in grid order, or a chart (--format=svg). The planner's Sweep does the solving on every
// core; this file parses --vary, formats the rows (in parallel, on the same threads), streams them
// out, draws the progress bar and reports the rate on stderr.
#include "planner/sweep/sweep.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/file_io.h"
#include "base/json.h"
#include "base/large_buffer.h"
#include "base/numbers.h"
#include "base/shortest_double.h"
#include "base/status_macros.h"
#include "base/thread_pool.h"
#include "examples/cli/charts.h"
#include "examples/cli/commands.h"
#include "examples/cli/flags.h"
#include "examples/cli/progress.h"
#include "examples/cli/uncertainty.h"
#include "planner/presets/presets.h"
#include "planner/sweep/headline.h"
#include "proto/io.h"
#include "units/format.h"

namespace dcplan::cli {
namespace {

// --vary may be given several times, one axis each. Abseil keeps only a flag's last value, so each
// parse also appends the text here, in command-line order.
std::vector<std::string>& VarySpecs() {
  static auto* specs = new std::vector<std::string>;
  return *specs;
}

}  // namespace

// The type of --vary: its last value; every value given is in VarySpecs().
struct VaryFlag {
  std::string last;
};

bool AbslParseFlag(absl::string_view text, VaryFlag* flag, std::string*) {
  flag->last = std::string(text);
  // Abseil also parses the default's text ("") once, to check that it round-trips.
  if (!text.empty()) VarySpecs().push_back(flag->last);
  return true;
}

std::string AbslUnparseFlag(const VaryFlag& flag) { return flag.last; }

}  // namespace dcplan::cli

ABSL_FLAG(dcplan::cli::VaryFlag, vary, dcplan::cli::VaryFlag{},
          "an axis of the sweep, FIELD=VALUES (repeat for more axes): power=10MW:500MW:log20, "
          "site.pue=1.1:1.6:0.05, budget=$1B,$2B, preset=h100-dgx,b200-dgx");
ABSL_FLAG(int, threads, 0, "threads for sweep (0 = one per core)");

namespace dcplan::cli {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// A CSV field: quoted when it holds a comma, quote or newline.
void AppendCsvText(std::string* out, absl::string_view text) {
  if (text.find_first_of(",\"\n\r") == absl::string_view::npos) {
    out->append(text.data(), text.size());
    return;
  }
  out->push_back('"');
  for (char c : text) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

// The result columns after the axes: the headline row (planner/sweep/headline.h), then the error.
std::string CsvHeader(const dcplan::Sweep& sweep) {
  std::string s;
  for (const SweepAxis& a : sweep.axes()) absl::StrAppend(&s, a.path, ",");
  absl::StrAppend(&s, HeadlineCsvHeader(), ",error\n");
  return s;
}

// The shortest text of a double (WriteShortestDouble, base/shortest_double.h, std::to_chars'
// bytes), or of a count as an integer, for one column, which remembers where its last value's text
// is in the chunk's text: a column of a sweep repeats its value across neighbouring rows (every
// point of the inner axes that lands on the same GPU count has the same power, compute and capex;
// an outer axis' value stays for a whole inner run), so a repeat is a copy from an earlier row
// (written long before, unlike a copy of the text just written, whose read back would wait on its
// stores). Values are compared bit for bit (0.0 and -0.0 print apart; a NaN matches only its own
// bits). Across rows, the by_cluster columns' text is kept by ClusterTexts below.
class DoubleText {
 public:
  // Writes the text at `p` in the chunk's text that starts at `base` (`p` has room for kRoom
  // bytes); returns its end.
  static constexpr size_t kRoom = kShortestDoubleRoom;
  char* Write(double v, const char* base, char* p) { return WriteAs<false>(v, base, p); }
  // The same for a count (a whole number held as a double), written as an integer.
  char* WriteCount(double v, const char* base, char* p) { return WriteAs<true>(v, base, p); }

 private:
  template <bool kCount>
  char* WriteAs(double v, const char* base, char* p) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    if (size_ != 0 && bits == bits_) {
      CopyText(base + at_, size_, p);
      return p + size_;
    }
    char* end = kCount ? WriteInteger(static_cast<int64_t>(v), p) : WriteShortestDouble(v, p);
    bits_ = bits;
    at_ = static_cast<size_t>(p - base);
    size_ = static_cast<size_t>(end - p);
    return end;
  }

  // Copies the `size` (1 to 24) bytes at `from` to `to`, reading no byte past them.
  static void CopyText(const char* from, size_t size, char* to) {
    if (size >= 16) {
      std::memcpy(to, from, 16);
      std::memcpy(to + size - 16, from + size - 16, 16);
    } else if (size >= 8) {
      std::memcpy(to, from, 8);
      std::memcpy(to + size - 8, from + size - 8, 8);
    } else if (size >= 4) {
      std::memcpy(to, from, 4);
      std::memcpy(to + size - 4, from + size - 4, 4);
    } else {
      for (size_t i = 0; i < size; ++i) to[i] = from[i];
    }
  }

  uint64_t bits_ = 0;
  size_t at_ = 0;    // the last value's text, from the chunk's start
  size_t size_ = 0;  // 0: none yet
};

// Zeroed memory for the CLI's tables and pieces, sized by the sweep: a LargeBuffer (2 MiB pages,
// base/large_buffer.h) from 2 MiB up, calloc's below (4 KiB pages, faulted in as they are first
// touched): a small sweep would otherwise zero a whole 2 MiB page for every table it touches
// (a 2-point sweep zeroed ~16 MB: its peak memory 14 -> 8.7 MB, and up to 40% of its time in a
// minute when this machine's fresh pages are slow).
class ZeroedBytes {
 public:
  explicit ZeroedBytes(size_t bytes) {
    if (LargeAllocator<char>::Large(bytes)) {  // the size rule LargeAllocator's vectors follow
      large_ = LargeBuffer(bytes);
    } else if (bytes > 0) {
      small_.reset(static_cast<char*>(std::calloc(bytes, 1)));
    }
  }
  char* data() const { return large_.data() != nullptr ? large_.data() : small_.get(); }

 private:
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  LargeBuffer large_;
  std::unique_ptr<char, Free> small_;
};

// The text of the by_cluster columns (planner/sweep/headline.h) of the clusters a thread has
// written, by server count: while caps, the PUE or prices move, a sweep lands on the same clusters
// again and again (a 1,000 x 1,000 power x PUE grid has ~40,000 clusters and 1,000,000 rows, and
// after its first row's PUE run at a power most clusters are met again at the next), so their
// counts, IT power, compute and capex need formatting once per cluster, not once per row. A slot
// per server count (modulo the table's size) holds, for each run of neighbouring by_cluster
// columns in the row (RowLayout::Run: the counts and IT power; the peak, MFU, realized compute and
// capex), the run's values and where its whole text (separators and keys included) is in the
// thread's arena of texts: a row on a cluster met before compares a run's values bit for bit and
// copies its text at once, instead of going column by column. A run whose values differ gets
// new text, so the text is always the values' own whatever lands where.
//
// The texts are packed one after another (a CSV's ~110 bytes a cluster, not the most a run could
// take): a grid's clusters fit in a few MB a thread, each of them fresh pages the kernel faults in
// and zeroes. When the arena is full it starts again, and every slot's texts are forgotten: a
// slot holds the epoch it was written in, and one of another epoch holds nothing.
class ClusterTexts {
 public:
  // The most slots and arena bytes: a sweep of fewer points gets fewer (Sized).
  static constexpr size_t kSlots = size_t{1} << 16;
  static constexpr size_t kArenaBytes = size_t{8} << 20;
  // A text is copied out 32 bytes at a time: the arena has that much past its end.
  static constexpr size_t kOverhang = 32;

  // The slots (a power of two) and arena bytes for a sweep of `points` points: as many slots as
  // points (a sweep has no more clusters), and 256 bytes of text a point, at least 64 KiB.
  struct Size {
    size_t slots;
    size_t arena_bytes;
  };
  static Size Sized(int64_t points) {
    size_t slots = 1;
    while (slots < kSlots && static_cast<int64_t>(slots) < points) slots *= 2;
    const size_t arena = static_cast<size_t>(std::max<int64_t>(points, 256)) * 256;
    return {slots, std::min(arena, kArenaBytes)};
  }

  // A slot: its epoch (uint32_t), then per kept run (RowLayout::Run::at) the text's place in the
  // arena (uint32_t) and size (uint32_t, 0: none), then the run's values' bits.
  // Zeroed by the kernel as they are first touched, in huge pages from 2 MiB up (ZeroedBytes): a
  // large grid touches most of the table, and its lookups land anywhere in it (a TLB miss each in
  // small pages). `slot_bytes` as the sweep's RowLayout lays a slot out, `layout` its number.
  ClusterTexts(size_t slot_bytes, uint64_t layout, Size size)
      : slot_bytes_(slot_bytes),
        layout_(layout),
        slot_mask_(size.slots - 1),
        arena_bytes_(size.arena_bytes),
        slots_(size.slots * slot_bytes),
        arena_(size.arena_bytes + kOverhang) {
    if (slots_.data() == nullptr || arena_.data() == nullptr) throw std::bad_alloc();
  }

  uint64_t layout() const { return layout_; }

  // The slot of clusters of `servers` servers, made current (its texts forgotten when it was
  // written in another epoch).
  char* For(int64_t servers) {
    char* slot = Slot(servers);
    if (!Current(slot)) Renew(slot);
    return slot;
  }
  void Prefetch(int64_t servers) {
    const char* slot = Slot(servers);
    for (size_t at = 0; at < slot_bytes_; at += 64) __builtin_prefetch(slot + at);
  }
  // Prefetches the texts the slot of `servers` keeps for the runs at `runs` (its slot fetched by
  // now): a text's place is known only once its slot is read.
  void PrefetchTexts(int64_t servers, absl::Span<const uint32_t> runs) {
    const char* slot = Slot(servers);
    if (!Current(slot)) return;
    for (const uint32_t run : runs) {
      uint32_t at;
      std::memcpy(&at, slot + run, sizeof(at));
      __builtin_prefetch(arena_.data() + at);
    }
  }

  // A kept text's bytes (with kOverhang readable bytes past its end).
  const char* Text(uint32_t at) const { return arena_.data() + at; }

  // Keeps `size` bytes at `text` as the text of the run at `run` in `slot` (current); its values'
  // bits are the caller's to set. When the arena is full it starts again: every other slot's texts
  // are forgotten, and this slot's other runs too. A text longer than the whole arena is not kept
  // (the run holds none).
  void Keep(char* slot, size_t run, const char* text, uint32_t size) {
    if (size > arena_bytes_) {
      const uint32_t none = 0;
      std::memcpy(slot + run + 4, &none, sizeof(none));
      return;
    }
    if (used_ + size > arena_bytes_) {
      ++epoch_;
      used_ = 0;
      Renew(slot);
    }
    std::memcpy(arena_.data() + used_, text, size);
    const uint32_t at = static_cast<uint32_t>(used_);
    std::memcpy(slot + run, &at, sizeof(at));
    std::memcpy(slot + run + 4, &size, sizeof(size));
    used_ += size;
  }

 private:
  char* Slot(int64_t servers) {
    return slots_.data() + (static_cast<uint64_t>(servers) & slot_mask_) * slot_bytes_;
  }
  // Whether `slot` was written in this epoch (else it holds nothing).
  bool Current(const char* slot) const {
    uint32_t epoch;
    std::memcpy(&epoch, slot, sizeof(epoch));
    return epoch == epoch_;
  }
  // Makes `slot` current with no texts: its epoch set, every run's size 0 (the bits are left:
  // a size of 0 matches nothing).
  void Renew(char* slot) {
    std::memset(slot, 0, slot_bytes_);
    std::memcpy(slot, &epoch_, sizeof(epoch_));
  }

  size_t slot_bytes_;
  uint64_t layout_;
  uint64_t slot_mask_;  // slots - 1
  size_t arena_bytes_;
  ZeroedBytes slots_;
  ZeroedBytes arena_;
  size_t used_ = 0;     // bytes of the arena holding texts of this epoch
  uint32_t epoch_ = 1;  // zeroed slots (epoch 0) hold nothing
};

// Whether two solved rows have the same results, bit for bit (then their columns after the axes
// are the same text).
template <typename T>
bool SameBits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
bool SameResults(const SweepRow& a, const SweepRow& b) {
  return a.gpus == b.gpus && a.servers == b.servers && a.racks == b.racks && a.pods == b.pods &&
         a.buildings == b.buildings && a.binding == b.binding && SameBits(a.it_power, b.it_power) &&
         SameBits(a.facility_power, b.facility_power) && SameBits(a.peak, b.peak) &&
         SameBits(a.mfu, b.mfu) && SameBits(a.realized, b.realized) && SameBits(a.capex, b.capex) &&
         SameBits(a.opex_rate, b.opex_rate) && SameBits(a.tco, b.tco);
}

// A growable run of bytes written through a pointer: a row makes room for the most it can take
// (Room), writes with plain stores and copies, and ends itself (Commit). A std::string would check
// its capacity and length at each of a row's ~30 appends.
class TextBuffer {
 public:
  // Writes into `storage` (`capacity` bytes, kept alive by the caller) until a row needs more,
  // then into a copy of its own: the ChunkWriter's pieces share one buffer.
  void Borrow(char* storage, size_t capacity) {
    owned_.reset();
    data_ = storage;
    capacity_ = capacity;
    size_ = 0;
  }
  void Clear() { size_ = 0; }
  void Reserve(size_t n) {
    if (n > capacity_) Grow(n);
  }
  // Room for `n` bytes after the end; returns where they start.
  char* Room(size_t n) {
    if (capacity_ - size_ < n) Grow(std::max(size_ + n, 2 * capacity_));
    return data_ + size_;
  }
  // The end is now `end` (within the room made).
  void Commit(const char* end) { size_ = static_cast<size_t>(end - data_); }
  const char* data() const { return data_; }
  size_t size() const { return size_; }
  absl::string_view view() const { return absl::string_view(data_, size_); }

 private:
  void Grow(size_t capacity) {
    std::unique_ptr<char[]> grown(new char[capacity]);  // not zeroed: every byte is written
    if (size_ > 0) std::memcpy(grown.get(), data_, size_);
    owned_ = std::move(grown);
    data_ = owned_.get();
    capacity_ = capacity;
  }

  std::unique_ptr<char[]> owned_;  // null while the storage is borrowed
  char* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// A text of at most kRoom bytes kept padded to kRoom, so that it is written with one copy of a
// fixed size (a copy of a run-time length is a call to memcpy: ~15 of them a row); the bytes past
// its end land in the row's room and are written over by what follows.
struct ShortText {
  static constexpr size_t kRoom = 32;
  static bool Fits(absl::string_view text) { return text.size() <= kRoom; }
  explicit ShortText(absl::string_view text = "") : size(static_cast<uint8_t>(text.size())) {
    std::memcpy(bytes, text.data(), text.size());
  }
  char* Write(char* p) const {
    std::memcpy(p, bytes, kRoom);
    return p + size;
  }
  char bytes[kRoom] = {};
  uint8_t size;
};

// The fixed text of a sweep's rows, worked out once per sweep: each axis' key (JSON) and its
// presets' quoted names or its numbers' text, each headline column's key (JSON) or separator
// (CSV), and the most bytes a solved row can take.
struct RowLayout {
  // A numeric axis of up to this many values has their text made once (an inner axis' values
  // come back every run of it); a longer one is formatted row by row.
  static constexpr size_t kMaxAxisTexts = size_t{1} << 16;

  // One headline column as AppendRow writes it, all in one place: its key (padded) or separator,
  // what it holds and which of the row's values (HeadlineRowValues) it is.
  struct ColumnOp {
    ShortText key;
    const std::string* long_key = nullptr;  // the key when it does not fit a ShortText
    HeadlineColumn::Kind kind = HeadlineColumn::Kind::kNumber;
    uint8_t column = 0;  // its index among the headline columns
  };

  // Neighbouring columns written together: a run of by_cluster columns (up to kMaxRun) whose
  // values and text a ClusterTexts slot keeps at `at`, or a column of its own.
  static constexpr size_t kMaxRun = 8;
  struct Run {
    const ColumnOp* ops = nullptr;  // its columns: ops[0 .. count - 1], from ops[first]
    uint8_t first = 0;
    uint8_t count = 1;
    bool kept = false;  // by_cluster: kept in the slots
    uint32_t at = 0;
  };

  RowLayout(const dcplan::Sweep& sweep, bool json_lines) : json(json_lines), points(sweep.size()) {
    const std::vector<SweepAxis>& axes = sweep.axes();
    bound = 4 + ShortText::kRoom;  // '{', '}', ',' and '\n' at most; a padded copy's overhang
    for (size_t a = 0; a < axes.size(); ++a) {
      std::string key;
      if (json) {
        if (a) key.push_back(',');
        AppendJsonString(axes[a].path, &key);
        key.push_back(':');
      }
      size_t value = DoubleText::kRoom;
      std::vector<std::string> names;
      for (const std::string& preset : axes[a].presets) {
        std::string text;
        if (json) {
          AppendJsonString(preset, &text);
        } else {
          AppendCsvText(&text, preset);
        }
        value = std::max(value, text.size());
        names.push_back(std::move(text));
      }
      std::vector<ShortText> numbers;
      if (!axes[a].is_preset() && axes[a].values.size() <= kMaxAxisTexts) {
        char text[kShortestDoubleRoom];
        for (double v : axes[a].values) {
          numbers.emplace_back(absl::string_view(text, WriteShortestDouble(v, text) - text));
        }
      }
      bound += key.size() + value + 1;
      is_preset.push_back(axes[a].is_preset() ? 1 : 0);
      short_axis_keys.push_back(ShortText::Fits(key) ? ShortText(key) : ShortText());
      axis_keys.push_back(std::move(key));
      preset_texts.push_back(std::move(names));
      number_texts.push_back(std::move(numbers));
    }
    size_t k = 0;
    size_t binding = 0;
    const google::protobuf::EnumDescriptor* bindings = BindingConstraint_descriptor();
    for (int i = 0; i < bindings->value_count(); ++i) {
      const int number = bindings->value(i)->number();
      const absl::string_view text = BindingText(static_cast<BindingConstraint>(number));
      binding = std::max(binding, text.size());
      if (number < 0 || number >= kBindingTexts || text.size() + 2 > sizeof(BindingCell::bytes)) {
        continue;  // written from BindingText
      }
      BindingCell& cell = binding_texts[number];
      size_t n = 0;
      if (json) cell.bytes[n++] = '"';
      std::memcpy(cell.bytes + n, text.data(), text.size());
      n += text.size();
      if (json) cell.bytes[n++] = '"';
      cell.size = static_cast<uint8_t>(n);
    }
    const absl::Span<const HeadlineColumn> columns = HeadlineColumns();
    for (const HeadlineColumn& c : columns) {
      std::string key = json ? absl::StrCat(",\"", c.name, "\":") : (k > 0 ? "," : "");
      bound += key.size() + std::max(DoubleText::kRoom, binding + 2);
      ColumnOp op;
      op.kind = c.kind;
      op.column = static_cast<uint8_t>(k);
      if (ShortText::Fits(key)) op.key = ShortText(key);
      const bool kept = c.by_cluster && c.kind != HeadlineColumn::Kind::kBinding;
      // A kept column joins the run before it, if that is kept and not full.
      if (kept && !runs.empty() && runs.back().kept && runs.back().count < kMaxRun &&
          runs.back().first + runs.back().count == k) {
        ++runs.back().count;
      } else {
        Run run;
        run.first = static_cast<uint8_t>(k);
        run.kept = kept;
        runs.push_back(run);
      }
      column_keys.push_back(std::move(key));
      ops.push_back(op);
      ++k;
    }
    // Each kept run's place in a ClusterTexts slot, after the slot's epoch: the text's place and
    // size, then the values' bits.
    slot_bytes = 0;
    for (Run& run : runs) {
      if (!run.kept) continue;
      if (slot_bytes == 0) slot_bytes = 8;
      run.at = static_cast<uint32_t>(slot_bytes);
      kept_runs.push_back(run.at);
      slot_bytes += 8 + 8 * run.count;
    }
    for (size_t i = 0; i < ops.size(); ++i) {
      if (!ShortText::Fits(column_keys[i])) ops[i].long_key = &column_keys[i];
    }
    for (Run& run : runs) run.ops = &ops[run.first];
    static std::atomic<uint64_t> layouts{0};
    number = ++layouts;
  }

  // Not copied: ops point into column_keys.
  RowLayout(const RowLayout&) = delete;
  RowLayout& operator=(const RowLayout&) = delete;

  bool json;
  std::vector<std::string> axis_keys;
  // Per axis, its key padded when it fits (a CSV's: empty), else empty and the key is long.
  std::vector<ShortText> short_axis_keys;
  std::vector<uint8_t> is_preset;  // per axis (SweepAxis::is_preset compares its path)
  std::vector<std::vector<std::string>> preset_texts;  // empty for a numeric axis
  // Per axis, the text of each value (empty for a preset axis and for a long one).
  std::vector<std::vector<ShortText>> number_texts;
  std::vector<std::string> column_keys;
  // Each binding constraint's text as the row writes it (quoted in JSON), by its number, padded
  // to be written with one fixed-size copy; size 0: BindingText at each row.
  struct BindingCell {
    char bytes[48] = {};
    uint8_t size = 0;
  };
  static constexpr int kBindingTexts = 32;
  BindingCell binding_texts[kBindingTexts];
  std::vector<ColumnOp> ops;        // per headline column, in order
  std::vector<Run> runs;            // the columns in runs, in order
  std::vector<uint32_t> kept_runs;  // the kept runs' places in a slot (Run::at)
  size_t slot_bytes;                // a ClusterTexts slot's, for the kept runs (0: none)
  int64_t points;                   // the sweep's (its ClusterTexts are sized by them)
  uint64_t number;                  // this layout's, among the process' (a ClusterTexts is for one)
  size_t bound;  // bytes of a solved row at most (a failed one adds its quoted error)
};

// The calling thread's ClusterTexts for `layout`: made at its first sweep chunk, kept for the
// next ones (and made again for another sweep's layout).
ClusterTexts* ThreadClusterTexts(const RowLayout& layout) {
  thread_local std::unique_ptr<ClusterTexts> texts;
  if (layout.slot_bytes == 0) return nullptr;
  if (texts == nullptr || texts->layout() != layout.number) {
    texts.reset();
    texts = std::make_unique<ClusterTexts>(layout.slot_bytes, layout.number,
                                           ClusterTexts::Sized(layout.points));
  }
  return texts.get();
}

// What one thread keeps while it formats a chunk of rows: the last text of each axis' value and of
// each numeric column, and where the last solved row's result columns (everything after the axes,
// a function of the row alone) are in the chunk's text: a fine axis over a cap gives runs of rows
// with the same cluster, whose results are then one copy.
struct RowFormatter {
  RowFormatter(size_t axes, ClusterTexts* texts) : axis_text(axes), cluster_texts(texts) {}
  std::vector<DoubleText> axis_text;
  ClusterTexts* cluster_texts;                   // the thread's (null: no kept runs)
  DoubleText number_text[kHeadlineColumnCount];  // per headline column
  const SweepRow* results_row = nullptr;         // the last solved row, its results at `results_at`
  size_t results_at = 0, results_size = 0;
  std::string error;  // a failed row's quoted message, before it is copied in
};

inline char* Copy(absl::string_view text, char* p) {
  std::memcpy(p, text.data(), text.size());
  return p + text.size();
}

// The row of the point at index idx[a] along each axis a, as CSV or as one JSON object
// (layout.json), at the end of `out`.
void AppendRow(const dcplan::Sweep& sweep, const RowLayout& layout, const int64_t* idx,
               const SweepRow& r, RowFormatter& f, TextBuffer* out) {
  const bool json = layout.json;
  const bool ok = r.status.ok();
  size_t room = layout.bound;
  if (!ok) {
    f.error.clear();
    if (json) {
      f.error.append(",\"error\":");
      AppendJsonString(r.status.message(), &f.error);
    } else {
      AppendCsvText(&f.error, r.status.message());
    }
    room += f.error.size();
  }
  char* q = out->Room(room);
  const char* const base = out->data();  // after Room, which may move the text
  const std::vector<SweepAxis>& axes = sweep.axes();
  if (json) *q++ = '{';
  for (size_t a = 0; a < axes.size(); ++a) {
    const int64_t i = idx[a];
    q = layout.short_axis_keys[a].size == layout.axis_keys[a].size()
            ? layout.short_axis_keys[a].Write(q)
            : Copy(layout.axis_keys[a], q);
    if (layout.is_preset[a]) {
      q = Copy(layout.preset_texts[a][static_cast<size_t>(i)], q);
    } else if (!layout.number_texts[a].empty()) {
      q = layout.number_texts[a][static_cast<size_t>(i)].Write(q);
    } else {
      q = f.axis_text[a].Write(axes[a].values[i], base, q);
    }
    if (!json) *q++ = ',';
  }
  if (ok && f.results_row != nullptr && SameResults(r, *f.results_row)) {
    // From earlier in the chunk's own text (the room made above is past it).
    std::memcpy(q, out->data() + f.results_at, f.results_size);
    out->Commit(q + f.results_size);
    return;
  }
  const size_t results_start = static_cast<size_t>(q - out->data());
  char* const slot = ok && f.cluster_texts != nullptr ? f.cluster_texts->For(r.servers) : nullptr;
  // The headline columns, read from the row at once, written a kept run at a time.
  double values[kHeadlineColumnCount];
  HeadlineRowValues(r, values);
  DoubleText* const last_text = f.number_text;
  for (const RowLayout::Run& run : layout.runs) {
    const RowLayout::ColumnOp* const first = run.ops;
    if (run.kept && slot != nullptr) {
      // The run's values against those the slot keeps, bit for bit.
      char* const kept = slot + run.at;
      const double* const run_values = values + run.first;
      uint64_t differ = 0;
      for (size_t i = 0; i < run.count; ++i) {
        uint64_t now, was;
        std::memcpy(&now, run_values + i, sizeof(now));
        std::memcpy(&was, kept + 8 + 8 * i, sizeof(was));
        differ |= now ^ was;
      }
      uint32_t at, size;
      std::memcpy(&at, kept, sizeof(at));
      std::memcpy(&size, kept + 4, sizeof(size));
      if (size != 0 && differ == 0) {
        // 32 bytes at a time: the arena and the row's room have an overhang of 32.
        const char* const text = f.cluster_texts->Text(at);
        for (uint32_t i = 0; i < size; i += 32) std::memcpy(q + i, text + i, 32);
        q += size;
        continue;
      }
      char* const start = q;
      for (size_t i = 0; i < run.count; ++i) {
        const RowLayout::ColumnOp& op = first[i];
        q = op.long_key == nullptr ? op.key.Write(q) : Copy(*op.long_key, q);
        const double v = run_values[i];
        q = op.kind == HeadlineColumn::Kind::kCount ? WriteInteger(static_cast<int64_t>(v), q)
                                                    : WriteShortestDouble(v, q);
      }
      f.cluster_texts->Keep(slot, run.at, start, static_cast<uint32_t>(q - start));
      std::memcpy(kept + 8, run_values, 8 * run.count);
      continue;
    }
    for (const RowLayout::ColumnOp *op = first, *end = first + run.count; op != end; ++op) {
      q = op->long_key == nullptr ? op->key.Write(q) : Copy(*op->long_key, q);
      switch (op->kind) {
        case HeadlineColumn::Kind::kCount:
          q = last_text[op->column].WriteCount(values[op->column], base, q);
          break;
        case HeadlineColumn::Kind::kNumber:
          q = last_text[op->column].Write(values[op->column], base, q);
          break;
        case HeadlineColumn::Kind::kBinding: {
          const int number = static_cast<int>(r.binding);
          if (ok && number >= 0 && number < RowLayout::kBindingTexts &&
              layout.binding_texts[number].size != 0) {
            const RowLayout::BindingCell& cell = layout.binding_texts[number];
            std::memcpy(q, cell.bytes, sizeof(cell.bytes));
            q += cell.size;
            break;
          }
          const absl::string_view binding = ok ? BindingText(r.binding) : "";
          if (json) *q++ = '"';
          q = Copy(binding, q);
          if (json) *q++ = '"';
          break;
        }
      }
    }
  }
  if (json) {
    if (!ok) q = Copy(f.error, q);
    *q++ = '}';
  } else {
    *q++ = ',';
    if (!ok) q = Copy(f.error, q);
  }
  *q++ = '\n';
  out->Commit(q);
  if (ok) {
    f.results_row = &r;
    f.results_at = results_start;
    f.results_size = out->size() - results_start;
  }
}

// The grid --vary spans over `*base`, which is set to the request the other flags make (the axes
// are checked first, so their errors come first).
absl::StatusOr<dcplan::Sweep> SweepFromFlags(PlanRequest* base) {
  absl::StatusOr<std::vector<SweepAxis>> parsed = ParseSweepAxes(VarySpecs());
  if (!parsed.ok()) {
    // The library names the axis; the flag is the CLI's to name.
    return absl::Status(parsed.status().code(),
                        absl::StrCat("--vary: ", parsed.status().message()));
  }
  DCPLAN_ASSIGN_OR_RETURN(*base, RequestFromFlags());
  // A preset axis loads each preset with the same flag overrides as --preset.
  auto load = [](absl::string_view name) -> absl::StatusOr<PlanRequest> {
    DCPLAN_ASSIGN_OR_RETURN(PlanRequest r, LoadPreset(name));
    DCPLAN_RETURN_IF_ERROR(ApplyOverrides(&r));
    DCPLAN_RETURN_IF_ERROR(CheckFlagsMatter(r));
    return r;
  };
  return dcplan::Sweep::Create(*base, *std::move(parsed), load);
}

// The room a chunk of `rows` rows reserves before it is written: the most a row can take, up to
// 256 bytes a row (a longer one makes more room as it goes).
size_t PieceBytes(const RowLayout& layout, size_t rows) {
  return rows * std::min<size_t>(layout.bound, 256);
}

// Points `first` .. first + rows.size() - 1 as CSV or JSON lines into `piece` (emptied first; its
// capacity kept from one chunk it holds to the next: no allocation, no fresh pages). Called on the
// thread that solved the rows, right after (SweepOptions::on_chunk), so that they are read while in
// its cache and no thread waits for a whole block's solving before formatting.
void FormatChunk(const dcplan::Sweep& sweep, const RowLayout& layout, int64_t first,
                 absl::Span<const SweepRow> rows, TextBuffer* piece) {
  piece->Clear();
  piece->Reserve(PieceBytes(layout, rows.size()));
  ClusterTexts* texts = ThreadClusterTexts(layout);
  const std::vector<SweepAxis>& axes = sweep.axes();
  RowFormatter formatter(axes.size(), texts);
  // Each axis' index at the row, moved along as the rows go (the last axis fastest), not divided
  // out of the point's number at every row.
  std::vector<int64_t> idx(axes.size()), sizes(axes.size());
  for (size_t a = 0; a < axes.size(); ++a) {
    idx[a] = sweep.IndexAlong(first, static_cast<int>(a));
    sizes[a] = axes[a].size();
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    // The slot two rows on and the next row's texts, on their way while this row is written (a
    // slot and its texts are misses in the caches at most clusters of a large grid).
    if (texts != nullptr) {
      if (i + 2 < rows.size()) texts->Prefetch(rows[i + 2].servers);
      if (i + 1 < rows.size()) texts->PrefetchTexts(rows[i + 1].servers, layout.kept_runs);
    }
    AppendRow(sweep, layout, idx.data(), rows[i], formatter, piece);
    for (size_t a = axes.size(); a-- > 0;) {
      if (++idx[a] < sizes[a]) break;
      idx[a] = 0;
    }
  }
}

// Writes the formatted chunks on a thread of its own, in grid order, each as soon as it and those
// before it are formatted: the kernel's copy of a chunk into the file overlaps the solving and
// formatting of the chunks after it, reads text still in the caches, and the last one is written
// right after it is formatted (writing a whole 64K-point block at a time left the last block's
// ~14 MB to be written alone at the end, one core idle, and held two blocks' text: ~30 MB of
// pages to fault in and zero). A ring of kPieces pieces in one buffer: chunk c (its first
// point over the chunk size) is formatted into piece c % kPieces once chunk c - kPieces, which was
// there before, is written. Chunks are claimed in grid order by the pool (base/thread_pool.h), so
// the lowest chunk not yet formatted never waits: no thread waits forever.
class ChunkWriter {
 public:
  static constexpr int64_t kPieces = 16;

  // Writes `chunks` chunks to `out`; each piece starts with `piece_bytes` of room (the room a
  // chunk's rows reserve).
  ChunkWriter(FileWriter* out, int64_t chunks, size_t piece_bytes)
      : out_(out),
        chunks_(chunks),
        memory_(static_cast<size_t>(std::min(chunks, kPieces)) * piece_bytes),
        pieces_(kPieces) {
    for (int64_t i = 0; i < kPieces; ++i) {
      ready_[i] = -1;
      // Without the buffer (no memory, or a piece no chunk uses), each piece grows its own.
      if (memory_.data() != nullptr && i < chunks) {
        pieces_[i].Borrow(memory_.data() + static_cast<size_t>(i) * piece_bytes, piece_bytes);
      }
    }
    thread_ = std::thread([this] { Loop(); });
  }
  ~ChunkWriter() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    chunk_ready_.notify_all();
    thread_.join();
  }
  ChunkWriter(const ChunkWriter&) = delete;
  ChunkWriter& operator=(const ChunkWriter&) = delete;

  // The piece to format chunk `c` into, once the chunk before it there is written; null when
  // writing has failed (nothing more is written: the chunk need not be formatted).
  TextBuffer* Acquire(int64_t c) {
    std::unique_lock<std::mutex> lock(mu_);
    piece_written_.wait(lock, [&] { return written_ > c - kPieces || !error_.ok(); });
    return error_.ok() ? &pieces_[static_cast<size_t>(c % kPieces)] : nullptr;
  }
  // Chunk `c` is formatted in its piece.
  void Ready(int64_t c) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ready_[c % kPieces] = c;
    }
    chunk_ready_.notify_one();
  }
  // The first error of writing so far, without waiting.
  absl::Status status() {
    std::lock_guard<std::mutex> lock(mu_);
    return error_;
  }
  // Waits until every chunk is written (or writing failed); the first error.
  absl::Status Finish() {
    std::unique_lock<std::mutex> lock(mu_);
    piece_written_.wait(lock, [&] { return written_ == chunks_ || !error_.ok(); });
    return error_;
  }

 private:
  void Loop() {
    for (int64_t c = 0; c < chunks_; ++c) {
      const size_t i = static_cast<size_t>(c % kPieces);
      {
        std::unique_lock<std::mutex> lock(mu_);
        chunk_ready_.wait(lock, [&] { return ready_[i] == c || stop_; });
        if (ready_[i] != c) return;  // stopped: the run ended early
      }
      absl::Status written = out_->Append(pieces_[i].view());
      const bool ok = written.ok();
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (ok) {
          written_ = c + 1;
        } else {
          error_ = std::move(written);
        }
      }
      piece_written_.notify_all();
      if (!ok) return;
    }
  }

  FileWriter* out_;
  const int64_t chunks_;
  ZeroedBytes memory_;  // before the pieces that borrow it
  std::vector<TextBuffer> pieces_;
  std::mutex mu_;
  std::condition_variable chunk_ready_;    // the writer waits on it
  std::condition_variable piece_written_;  // the formatters and Finish wait on it
  int64_t ready_[kPieces];                 // per piece, the chunk formatted in it (-1: none yet)
  int64_t written_ = 0;                    // chunks 0 .. written_ - 1 are in the file
  bool stop_ = false;
  absl::Status error_;
  std::thread thread_;  // last: started once the rest is set up
};

// The closing lines on stderr: points, time, threads and rates; how many points failed.
void ReportOnStderr(const dcplan::Sweep& sweep, double total, Clock::duration writing, int threads,
                    int64_t failed, OutputFormat format) {
  const double solving = std::max(total - Seconds(writing), 1e-9);
  const double points = static_cast<double>(sweep.size());
  std::fprintf(stderr,
               "dcplan sweep: %s points in %.3f s on %d thread%s: %.2fM points/s solved, %.2fM "
               "points/s with output\n",
               units::FormatCount(sweep.size()).c_str(), total, threads, threads == 1 ? "" : "s",
               points / solving / 1e6, points / std::max(total, 1e-9) / 1e6);
  if (failed > 0) {
    std::fprintf(stderr, "dcplan sweep: %s of %s points failed (%s)\n",
                 units::FormatCount(failed).c_str(), units::FormatCount(sweep.size()).c_str(),
                 format == OutputFormat::kSvg ? "not drawn; --format=csv says why"
                                              : "their error column says why");
  }
}

absl::Status SweepTo(OutputFormat format) {
  if (VarySpecs().empty()) {
    return absl::InvalidArgumentError(
        "sweep needs at least one --vary=FIELD=VALUES, e.g. --vary=power=10MW:500MW:log20");
  }
  // Making and checking the values of long axes, and loading presets, can take seconds.
  std::optional<SetupNotice> setup(std::in_place, "dcplan sweep: making the grid");
  PlanRequest base;
  DCPLAN_ASSIGN_OR_RETURN(dcplan::Sweep sweep, SweepFromFlags(&base));
  if (HasUncertainty(base)) {
    setup.reset();
    return WriteUncertainSweep(sweep, base, format);  // examples/cli/sweep_uncertain.cc
  }

  const int threads = absl::GetFlag(FLAGS_threads);
  if (threads < 0 || threads > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("--threads must be in [0, 1024] (0 = one per core), got ", threads));
  }
  if (format == OutputFormat::kSvg && sweep.size() > 1'000'000) {
    return absl::InvalidArgumentError(
        absl::StrCat("--format=svg draws at most 1,000,000 points, the grid has ", sweep.size()));
  }
  // More threads than cores only adds switching: --threads is clamped to the machine's cores.
  ThreadPool pool(
      std::min(threads == 0 ? ThreadPool::Resolve(0) : threads, ThreadPool::Resolve(0)));
  DCPLAN_RETURN_IF_ERROR(pool.status());
  SweepOptions options;
  options.pool = &pool;

  std::unique_ptr<FileWriter> out;  // --out (or stdout), through the one atomic writer
  const Clock::time_point start = Clock::now();
  std::optional<Progress> progress;  // drawn once the setup is over
  int64_t failed = 0;                // points without a plan
  absl::Status first_failure;
  Clock::duration writing{};
  std::vector<SweepRow> kept;  // the SVG needs every row
  if (format != OutputFormat::kSvg) {
    const std::string path = absl::GetFlag(FLAGS_out);
    DCPLAN_ASSIGN_OR_RETURN(out, FileWriter::Open(path.empty() ? "-" : path, InputFiles()));
    if (format == OutputFormat::kCsv) DCPLAN_RETURN_IF_ERROR(out->Append(CsvHeader(sweep)));
  }
  std::optional<ChunkWriter> writer;  // destroyed (its thread joined) before `out`
  // Rows become text on the threads that solve them, a chunk at a time, into the writer's ring
  // of pieces, which it writes in grid order as they are ready. A block is a whole number of
  // chunks (SweepOptions' 65,536 points are 32), so chunk c starts at point c x chunk.
  const int64_t chunk = 2048;
  options.block_points = (options.block_points + chunk - 1) / chunk * chunk;
  std::optional<RowLayout> layout;        // the rows' fixed text, worked out once
  std::atomic<int64_t> formatting_ns{0};  // CPU time spent making text, over every thread
  if (out != nullptr) {
    layout.emplace(sweep, format == OutputFormat::kJsonLines);
    writer.emplace(out.get(), (sweep.size() + chunk - 1) / chunk,
                   PieceBytes(*layout, static_cast<size_t>(std::min(chunk, sweep.size()))));
    options.chunk_points = chunk;
    options.on_chunk = [&](int64_t first, int, absl::Span<const SweepRow> rows) {
      const Clock::time_point t0 = Clock::now();
      const int64_t c = first / chunk;
      TextBuffer* piece = writer->Acquire(c);
      if (piece == nullptr) return;  // writing failed: the block's consumer reports it
      FormatChunk(sweep, *layout, first, rows, piece);
      writer->Ready(c);
      formatting_ns.fetch_add(
          std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count(),
          std::memory_order_relaxed);
    };
  }
  absl::Status run = sweep.Run(options, [&](int64_t first, absl::Span<const SweepRow> rows) {
    if (!progress.has_value()) {
      setup.reset();
      progress.emplace("points", sweep.size());
    }
    for (const SweepRow& row : rows) {
      if (row.status.ok()) continue;
      if (failed++ == 0) first_failure = row.status;
    }
    const Clock::time_point t0 = Clock::now();
    if (format == OutputFormat::kSvg) {
      kept.insert(kept.end(), rows.begin(), rows.end());
    } else {
      DCPLAN_RETURN_IF_ERROR(writer->status());
    }
    writing += Clock::now() - t0;
    progress->Update(first + static_cast<int64_t>(rows.size()));
    return absl::OkStatus();
  });
  if (writer.has_value() && run.ok()) run = writer->Finish();
  setup.reset();
  if (progress.has_value()) progress->Finish();
  if (!run.ok()) return run;  // `out` is abandoned: the previous output stays, no temporary
  // A sweep in which every point failed answered nothing: an error, and no output is written.
  if (failed == sweep.size()) {
    return absl::Status(
        first_failure.code(),
        failed == 1 ? absl::StrCat("the sweep's only point failed: ", first_failure.message())
                    : absl::StrCat("every one of the ", units::FormatCount(failed),
                                   " points failed; the first: ", first_failure.message()));
  }
  if (format == OutputFormat::kSvg) {
    DCPLAN_ASSIGN_OR_RETURN(std::string svg, SweepChartSvg(sweep, base, kept));
    DCPLAN_RETURN_IF_ERROR(WriteOutput(svg));
  } else {
    DCPLAN_RETURN_IF_ERROR(out->Commit());
  }
  // Text made on the solving threads counts as output, spread over them.
  writing += std::chrono::nanoseconds(formatting_ns.load() / std::max(1, pool.size()));
  ReportOnStderr(sweep, Seconds(Clock::now() - start), writing, pool.size(), failed, format);
  return absl::OkStatus();
}

}  // namespace

absl::Status RunSweep() {
  auto format = FormatFlag({"table", "csv", "jsonl", "svg"});
  if (!format.ok()) return format.status();
  // A sweep's table is a spreadsheet: CSV.
  const OutputFormat f = *format == OutputFormat::kTable ? OutputFormat::kCsv : *format;
  absl::Status status = SweepTo(f);
  return status;
}

}  // namespace dcplan::cli
