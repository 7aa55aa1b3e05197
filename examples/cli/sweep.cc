// dcplan sweep: one request solved over a grid of field values, one CSV row (or JSON line) per
// point in grid order, or a chart (--format=svg). The planner's Sweep does the solving on every
// core; this file parses --vary, formats the rows (in parallel, on the same threads), streams them
// out, draws the progress bar and reports the rate on stderr.
#include "planner/sweep/sweep.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>
#include <memory>
#include <new>
#include <optional>
#include <string>
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

// The text of the by_cluster columns (planner/sweep/headline.h) of the clusters a thread has
// written, by server count: while caps, the PUE or prices move, a sweep lands on the same clusters
// again and again (a 1,000 x 1,000 power x PUE grid has ~40,000 clusters and 1,000,000 rows, and
// after its first row's PUE run at a power most clusters are met again at the next), so their IT
// power, compute and capex need formatting once per cluster, not once per row. A slot per server
// count (modulo the table's size), overwritten when its values differ: each value is compared bit
// for bit before its text is reused, so the text is always the value's own whatever lands where.
class ClusterTexts {
 public:
  static constexpr size_t kColumns = 5;  // by_cluster columns kept (any more: DoubleText)
  static constexpr size_t kSlots = size_t{1} << 16;
  static constexpr size_t kText = 24;  // a double's text is at most 24 bytes

  struct Slot {
    uint64_t bits[kColumns];
    uint8_t size[kColumns];  // 0: nothing kept
    char text[kColumns][kText];
  };

  // Zeroed pages from the kernel as they are first touched, in huge pages (base/large_buffer.h):
  // a large grid touches most of the 11 MB, ~2,700 faults of 4 KiB pages a thread otherwise, and
  // its lookups land anywhere in it (a TLB miss each in small pages).
  ClusterTexts() : memory_(kSlots * sizeof(Slot)), slots_(reinterpret_cast<Slot*>(memory_.data())) {
    if (slots_ == nullptr) throw std::bad_alloc();
  }

  Slot& For(int64_t servers) { return slots_[static_cast<uint64_t>(servers) & (kSlots - 1)]; }
  void Prefetch(int64_t servers) {
    const char* slot = reinterpret_cast<const char*>(&For(servers));
    for (size_t at = 0; at < sizeof(Slot); at += 64) __builtin_prefetch(slot + at);
  }

  // Writes column `i`'s value `v` at `p` (room for kText bytes) from the slot, or formats it and
  // keeps the text there; returns its end.
  static char* Write(Slot& slot, size_t i, double v, char* p) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    if (slot.size[i] != 0 && slot.bits[i] == bits) {
      std::memcpy(p, slot.text[i], kText);
      return p + slot.size[i];
    }
    char* end = WriteShortestDouble(v, p);
    slot.bits[i] = bits;
    slot.size[i] = static_cast<uint8_t>(end - p);
    std::memcpy(slot.text[i], p, kText);
    return end;
  }

 private:
  LargeBuffer memory_;
  Slot* slots_;
};

// The calling thread's ClusterTexts: made at its first sweep chunk, kept for the next ones.
ClusterTexts& ThreadClusterTexts() {
  thread_local std::unique_ptr<ClusterTexts> texts = std::make_unique<ClusterTexts>();
  return *texts;
}

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
  // then into a copy of its own: a block's pieces share one LargeBuffer.
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
  // what it holds and where its value comes from.
  struct ColumnOp {
    ShortText key;
    const std::string* long_key = nullptr;  // the key when it does not fit a ShortText
    double (*from_row)(const SweepRow&) = nullptr;
    HeadlineColumn::Kind kind = HeadlineColumn::Kind::kNumber;
    int8_t cluster = -1;  // its place in a ClusterTexts slot, or -1
    uint8_t column = 0;   // its index among the headline columns
  };

  RowLayout(const dcplan::Sweep& sweep, bool json_lines) : json(json_lines) {
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
      is_preset.push_back(axes[a].is_preset());
      axis_keys.push_back(std::move(key));
      preset_texts.push_back(std::move(names));
      number_texts.push_back(std::move(numbers));
    }
    size_t k = 0;
    size_t binding = 0;
    const google::protobuf::EnumDescriptor* bindings = BindingConstraint_descriptor();
    for (int i = 0; i < bindings->value_count(); ++i) {
      binding = std::max(
          binding,
          BindingText(static_cast<BindingConstraint>(bindings->value(i)->number())).size());
    }
    size_t cached = 0;
    for (const HeadlineColumn& c : HeadlineColumns()) {
      std::string key = json ? absl::StrCat(",\"", c.name, "\":") : (k > 0 ? "," : "");
      bound += key.size() + std::max(DoubleText::kRoom, binding + 2);
      ColumnOp op;
      op.kind = c.kind;
      op.from_row = c.from_row;
      op.column = static_cast<uint8_t>(k);
      const bool by_cluster = c.by_cluster && c.kind == HeadlineColumn::Kind::kNumber &&
                              cached < ClusterTexts::kColumns;
      op.cluster = by_cluster ? static_cast<int8_t>(cached++) : -1;
      if (ShortText::Fits(key)) op.key = ShortText(key);
      column_keys.push_back(std::move(key));
      ops.push_back(op);
      ++k;
    }
    for (size_t i = 0; i < ops.size(); ++i) {
      if (!ShortText::Fits(column_keys[i])) ops[i].long_key = &column_keys[i];
    }
  }

  // Not copied: ops point into column_keys.
  RowLayout(const RowLayout&) = delete;
  RowLayout& operator=(const RowLayout&) = delete;

  bool json;
  std::vector<std::string> axis_keys;
  std::vector<bool> is_preset;  // per axis (SweepAxis::is_preset compares its path)
  std::vector<std::vector<std::string>> preset_texts;  // empty for a numeric axis
  // Per axis, the text of each value (empty for a preset axis and for a long one).
  std::vector<std::vector<ShortText>> number_texts;
  std::vector<std::string> column_keys;
  std::vector<ColumnOp> ops;  // per headline column, in order
  size_t bound;               // bytes of a solved row at most (a failed one adds its quoted error)
};

// What one thread keeps while it formats a chunk of rows: the last text of each axis' value and of
// each numeric column, and where the last solved row's result columns (everything after the axes,
// a function of the row alone) are in the chunk's text: a fine axis over a cap gives runs of rows
// with the same cluster, whose results are then one copy.
struct RowFormatter {
  RowFormatter(size_t axes, ClusterTexts* texts) : axis_text(axes), cluster_texts(texts) {}
  std::vector<DoubleText> axis_text;
  ClusterTexts* cluster_texts;            // the thread's
  DoubleText number_text[32];             // per headline column
  const SweepRow* results_row = nullptr;  // the last solved row, its results at `results_at`
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
    q = Copy(layout.axis_keys[a], q);
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
  ClusterTexts::Slot* slot = ok ? &f.cluster_texts->For(r.servers) : nullptr;
  // The headline columns, each read from the row as the table says.
  DoubleText* const last_text = f.number_text;
  for (const RowLayout::ColumnOp *op = layout.ops.data(), *end = op + layout.ops.size(); op != end;
       ++op) {
    q = op->long_key == nullptr ? op->key.Write(q) : Copy(*op->long_key, q);
    switch (op->kind) {
      case HeadlineColumn::Kind::kCount:
        q = last_text[op->column].WriteCount(op->from_row(r), base, q);
        break;
      case HeadlineColumn::Kind::kNumber: {
        const double v = op->from_row(r);
        q = slot != nullptr && op->cluster >= 0
                ? ClusterTexts::Write(*slot, static_cast<size_t>(op->cluster), v, q)
                : last_text[op->column].Write(v, base, q);
        break;
      }
      case HeadlineColumn::Kind::kBinding: {
        const absl::string_view binding = ok ? BindingText(r.binding) : "";
        if (json) *q++ = '"';
        q = Copy(binding, q);
        if (json) *q++ = '"';
        break;
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
// capacity kept from one block to the next: no allocation, no fresh pages). Called on the thread
// that solved the rows, right after (SweepOptions::on_chunk), so that they are read while in its
// cache and no thread waits for a whole block's solving before formatting.
void FormatChunk(const dcplan::Sweep& sweep, const RowLayout& layout, int64_t first,
                 absl::Span<const SweepRow> rows, TextBuffer* piece) {
  piece->Clear();
  piece->Reserve(PieceBytes(layout, rows.size()));
  ClusterTexts& texts = ThreadClusterTexts();
  const std::vector<SweepAxis>& axes = sweep.axes();
  RowFormatter formatter(axes.size(), &texts);
  // Each axis' index at the row, moved along as the rows go (the last axis fastest), not divided
  // out of the point's number at every row.
  std::vector<int64_t> idx(axes.size()), sizes(axes.size());
  for (size_t a = 0; a < axes.size(); ++a) {
    idx[a] = sweep.IndexAlong(first, static_cast<int>(a));
    sizes[a] = axes[a].size();
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    // The next row's slot, on its way while this row is written (a slot is a miss in the caches
    // at most clusters of a large grid).
    if (i + 1 < rows.size()) texts.Prefetch(rows[i + 1].servers);
    AppendRow(sweep, layout, idx.data(), rows[i], formatter, piece);
    for (size_t a = axes.size(); a-- > 0;) {
      if (++idx[a] < sizes[a]) break;
      idx[a] = 0;
    }
  }
}

// Writes the formatted blocks on a thread of its own, so that the kernel's copy of block k into
// the file overlaps the solving and formatting of block k + 1 (writing 200 MB is otherwise a
// serial fifth of a large sweep). Two sets of `pieces` pieces take turns: one being written, one
// being filled. Blocks reach the file in the order they are started.
class BlockWriter {
 public:
  // Each piece starts with `piece_bytes` of room in its set's LargeBuffer (the room a chunk's
  // rows reserve): the ~30 MB the two sets write are faulted in as a few huge pages.
  BlockWriter(FileWriter* out, size_t pieces, size_t piece_bytes) : out_(out) {
    for (int set = 0; set < 2; ++set) {
      pieces_[set].resize(pieces);
      memory_[set] = LargeBuffer(pieces * piece_bytes);
      if (memory_[set].data() == nullptr) continue;  // each piece grows its own
      for (size_t i = 0; i < pieces; ++i) {
        pieces_[set][i].Borrow(memory_[set].data() + i * piece_bytes, piece_bytes);
      }
    }
  }
  ~BlockWriter() { (void)Wait(); }
  BlockWriter(const BlockWriter&) = delete;
  BlockWriter& operator=(const BlockWriter&) = delete;

  // The pieces to fill next (not being written).
  std::vector<TextBuffer>* Free() { return &pieces_[next_]; }

  // Waits for the previous block, then writes the first `count` of Free() in the background.
  absl::Status Start(size_t count) {
    DCPLAN_RETURN_IF_ERROR(Wait());
    const std::vector<TextBuffer>* pieces = &pieces_[next_];
    pending_ = std::async(std::launch::async, [this, pieces, count]() -> absl::Status {
      for (size_t i = 0; i < count; ++i) DCPLAN_RETURN_IF_ERROR(out_->Append((*pieces)[i].view()));
      return absl::OkStatus();
    });
    next_ ^= 1;
    return absl::OkStatus();
  }

  // Waits for the block being written; its error, if any.
  absl::Status Wait() {
    if (!pending_.valid()) return absl::OkStatus();
    return pending_.get();
  }

 private:
  FileWriter* out_;
  LargeBuffer memory_[2];  // before the pieces that borrow it
  std::vector<TextBuffer> pieces_[2];
  int next_ = 0;
  std::future<absl::Status> pending_;
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
  std::optional<BlockWriter> writer;  // destroyed (its last write joined) before `out`
  // Rows become text on the threads that solve them, a chunk at a time, into the writer's free
  // set of pieces (one per chunk of a block); the block's consumer hands the set to the writer.
  const int64_t chunk = 2048;
  std::optional<RowLayout> layout;        // the rows' fixed text, worked out once
  std::atomic<int64_t> formatting_ns{0};  // CPU time spent making text, over every thread
  if (out != nullptr) {
    layout.emplace(sweep, format == OutputFormat::kJsonLines);
    writer.emplace(out.get(), static_cast<size_t>((options.block_points + chunk - 1) / chunk),
                   PieceBytes(*layout, static_cast<size_t>(chunk)));
    options.chunk_points = chunk;
    options.on_chunk = [&](int64_t first, int index, absl::Span<const SweepRow> rows) {
      const Clock::time_point t0 = Clock::now();
      FormatChunk(sweep, *layout, first, rows, &(*writer->Free())[static_cast<size_t>(index)]);
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
      DCPLAN_RETURN_IF_ERROR(writer->Start(
          static_cast<size_t>((static_cast<int64_t>(rows.size()) + chunk - 1) / chunk)));
    }
    writing += Clock::now() - t0;
    progress->Update(first + static_cast<int64_t>(rows.size()));
    return absl::OkStatus();
  });
  if (writer.has_value() && run.ok()) run = writer->Wait();
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
