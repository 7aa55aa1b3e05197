// File: base/file_io.cc
#include "base/file_io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace dcplan {
namespace {

// How a path appears in messages: "-" is standard input or output.
std::string DisplayName(absl::string_view path, bool input) {
  if (path == "-") return input ? "<stdin>" : "<stdout>";
  return std::string(path);
}

std::string LimitText(std::size_t max_bytes) {
  if (max_bytes % (std::size_t{1} << 20) == 0) return absl::StrCat(max_bytes >> 20, " MiB");
  return absl::StrCat(max_bytes, " byte");
}

// Reads all of `fd`, at most max_bytes + 1 bytes (enough to tell that a file is too large).
absl::StatusOr<std::string> ReadAll(int fd, const std::string& name, std::size_t size_hint,
                                    std::size_t max_bytes) {
  std::string data;
  data.reserve(std::min(size_hint, max_bytes) + 1);
  char buffer[1 << 16];
  while (data.size() <= max_bytes) {
    const std::size_t want = std::min(sizeof(buffer), max_bytes + 1 - data.size());
    const ssize_t got = ::read(fd, buffer, want);
    if (got < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      if (error == EISDIR) return absl::InvalidArgumentError(absl::StrCat(name, " is a directory"));
      return absl::ErrnoToStatus(error, absl::StrCat("cannot read ", name));
    }
    if (got == 0) break;
    data.append(buffer, static_cast<std::size_t>(got));
  }
  return data;
}

// Writes all of `data` to `fd`, retrying short writes and interrupts. Returns 0 or an errno value
// (EIO for a write that makes no progress).
int WriteAll(int fd, absl::string_view data) {
  while (!data.empty()) {
    const ssize_t wrote = ::write(fd, data.data(), data.size());
    if (wrote < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (wrote == 0) return EIO;
    data.remove_prefix(static_cast<std::size_t>(wrote));
  }
  return 0;
}

// --- temporaries removed on every signal that ends the process ----------------------------------
// A fixed table the signal handler can read without allocating or locking: a slot is free (0),
// being filled (1) or holds a temporary's path (2).
constexpr int kSlots = 16;
std::atomic<int> g_slot_state[kSlots];
char g_slot_path[kSlots][PATH_MAX + 1];
// Every signal whose default action ends the process and that can be caught (SIGKILL cannot: a
// temporary left by it is the one case not avoided). The real-time signals are added at run time.
constexpr int kFatalSignals[] = {
    SIGHUP,    SIGINT,  SIGQUIT,   SIGILL,  SIGTRAP, SIGABRT, SIGBUS,
    SIGFPE,    SIGUSR1, SIGSEGV,   SIGUSR2, SIGPIPE, SIGALRM, SIGTERM,
    SIGXCPU,   SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,   SIGPWR,  SIGSYS,
#ifdef SIGSTKFLT
    SIGSTKFLT,
#endif
};
constexpr int kMaxSignal = 65;
struct sigaction g_previous[kMaxSignal + 1];

void RemoveTemporariesAndDie(int signal_number) {
  const int saved_errno = errno;
  for (int i = 0; i < kSlots; ++i) {
    if (g_slot_state[i].load() == 2) ::unlink(g_slot_path[i]);
  }
  // Then die of the signal as if it had not been caught (the shell sees 128 + its number).
  if (signal_number > 0 && signal_number <= kMaxSignal) {
    ::sigaction(signal_number, &g_previous[signal_number], nullptr);
  }
  ::raise(signal_number);
  errno = saved_errno;
}

void InstallHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::vector<int> signals(std::begin(kFatalSignals), std::end(kFatalSignals));
    for (int s = SIGRTMIN; s <= SIGRTMAX && s <= kMaxSignal; ++s) signals.push_back(s);
    for (int s : signals) {
      if (s <= 0 || s > kMaxSignal) continue;
      struct sigaction current;
      if (::sigaction(s, nullptr, &current) != 0) continue;
      g_previous[s] = current;
      // A signal the process ignores (nohup, SIGPIPE in the server) or that someone else handles
      // (the sanitizers' SIGSEGV) stays theirs.
      if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
      struct sigaction action;
      std::memset(&action, 0, sizeof(action));
      action.sa_handler = RemoveTemporariesAndDie;
      sigfillset(&action.sa_mask);
      ::sigaction(s, &action, nullptr);
    }
  });
}

// Registers `path` for removal on a fatal signal; -1 when the table is full (the temporary is then
// only removed by the writer itself).
int Register(const std::string& path) {
  if (path.size() > PATH_MAX) return -1;
  InstallHandlers();
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (g_slot_state[i].compare_exchange_strong(expected, 1)) {
      std::memcpy(g_slot_path[i], path.c_str(), path.size() + 1);
      g_slot_state[i].store(2);
      return i;
    }
  }
  return -1;
}

void Unregister(int slot) {
  if (slot >= 0) g_slot_state[slot].store(0);
}

// 16 hex digits no other process can guess (getrandom; the clock and a counter if that fails).
std::string RandomSuffix() {
  std::uint64_t bits = 0;
  if (::getrandom(&bits, sizeof(bits), GRND_NONBLOCK) != static_cast<ssize_t>(sizeof(bits))) {
    static std::atomic<std::uint64_t> counter{0};
    bits = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
           (counter.fetch_add(1) * 0x9E3779B97F4A7C15ULL) ^
           (static_cast<std::uint64_t>(::getpid()) << 32);
  }
  return absl::StrFormat("%016x", bits);
}

// The temporary's name beside `target`: ".<base, at most 32 bytes>.tmp-<16 hex>", at most 55 bytes
// whatever the length of the target's name.
std::string TemporaryName(const std::string& target) {
  const std::size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  return absl::StrCat(dir, ".", base.substr(0, 32), ".tmp-", RandomSuffix());
}

// --- inputs: every file read is protected from being written over
// ---------------------------------
struct FileId {
  dev_t dev;
  ino_t ino;
};
std::mutex g_inputs_mu;
std::vector<FileId>& Inputs() {
  static auto* inputs = new std::vector<FileId>();
  return *inputs;
}

void RememberInput(const struct stat& info) {
  // Only what a rename or a write could destroy: regular files (and not /dev/null and the like).
  if (!S_ISREG(info.st_mode)) return;
  std::lock_guard<std::mutex> lock(g_inputs_mu);
  for (const FileId& f : Inputs()) {
    if (f.dev == info.st_dev && f.ino == info.st_ino) return;
  }
  if (Inputs().size() < 4096) Inputs().push_back({info.st_dev, info.st_ino});
}

bool IsInput(const struct stat& info, const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs) {
    if (input.empty() || input == "-") continue;
    struct stat in;
    if (::stat(input.c_str(), &in) == 0 && in.st_dev == info.st_dev && in.st_ino == info.st_ino) {
      return true;
    }
  }
  std::lock_guard<std::mutex> lock(g_inputs_mu);
  for (const FileId& f : Inputs()) {
    if (f.dev == info.st_dev && f.ino == info.st_ino) return true;
  }
  return false;
}

absl::Status RefuseInput(absl::string_view display) {
  return absl::FailedPreconditionError(
      absl::StrCat("refusing to overwrite the input file ", display));
}

// --- paths through a process's file descriptors
// ----------------------------------------------------- Where a path leads through
// /proc/<pid>/fd/<n>, /proc/self/fd/<n>, /proc/<pid>/task/<tid>/fd/<n> or /dev/fd/<n> (at any step,
// e.g. /dev/stdout -> /proc/self/fd/1, or a user's link to one of them). The links are read here
// only to tell whether such a step exists; where the data goes is left to the kernel.
struct FdReference {
  bool found = false;
  bool own = false;  // a descriptor of this process
  int fd = -1;
};

bool AllDigits(absl::string_view s) {
  return !s.empty() && s.size() < 10 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Whether `parts` (a path's components from the root) name a file-descriptor entry.
FdReference AsFdReference(const std::vector<std::string>& parts) {
  FdReference r;
  const std::size_t n = parts.size();
  if (n == 3 && parts[0] == "dev" && parts[1] == "fd" && AllDigits(parts[2])) {
    r.found = r.own = true;
    r.fd = std::stoi(parts[2]);
    return r;
  }
  if (n < 4 || parts[0] != "proc" || parts[n - 2] != "fd" || !AllDigits(parts[n - 1])) return r;
  if (!(n == 4 || (n == 6 && parts[2] == "task"))) return r;
  const std::string& pid = parts[1];
  r.found = true;
  r.fd = std::stoi(parts[n - 1]);
  r.own = pid == "self" || pid == "thread-self" ||
          (AllDigits(pid) && std::stol(pid) == static_cast<long>(::getpid()));
  return r;
}

FdReference ThroughFdDirectory(const std::string& path) {
  std::vector<std::string> parts;
  if (path.empty() || path.front() != '/') {
    char cwd[PATH_MAX + 1];
    if (::getcwd(cwd, sizeof(cwd)) == nullptr) return {};
    for (absl::string_view p : absl::StrSplit(cwd, '/', absl::SkipEmpty())) {
      parts.emplace_back(p);
    }
  }
  // Components still to walk, the next one last.
  std::vector<std::string> pending;
  auto push_all = [&pending](absl::string_view text) {
    std::vector<std::string> split = absl::StrSplit(text, '/', absl::SkipEmpty());
    for (auto it = split.rbegin(); it != split.rend(); ++it) pending.push_back(*it);
  };
  push_all(path);
  int hops = 0;
  while (!pending.empty()) {
    const std::string part = std::move(pending.back());
    pending.pop_back();
    if (part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
    if (FdReference r = AsFdReference(parts); r.found && pending.empty()) return r;
    const std::string here = absl::StrCat("/", absl::StrJoin(parts, "/"));
    struct stat info;
    if (::lstat(here.c_str(), &info) != 0) return {};  // the rest does not exist yet
    if (!S_ISLNK(info.st_mode)) continue;
    if (++hops > 40) return {};
    char buffer[PATH_MAX + 1];
    const ssize_t n = ::readlink(here.c_str(), buffer, PATH_MAX);
    if (n <= 0) return {};
    const absl::string_view link(buffer, static_cast<std::size_t>(n));
    parts.pop_back();
    if (link.front() == '/') parts.clear();
    push_all(link);
  }
  return {};
}

// --- symlinks another user planted in a shared (sticky) directory
// ----------------------------------- The rule of fs.protected_symlinks, applied whatever the
// sysctl says: a symlink in a sticky directory is followed only when it belongs to the follower or
// to the directory's owner. Every component of the path is checked (the kernel resolves the ones
// before it).
absl::Status CheckNoPlantedLinks(const std::string& path, absl::string_view display) {
  std::size_t end = 0;
  while (end != std::string::npos) {
    end = path.find('/', end + 1);
    const std::string prefix = path.substr(0, end);
    if (prefix.empty() || prefix == "/") continue;
    struct stat link;
    if (::lstat(prefix.c_str(), &link) != 0) return absl::OkStatus();  // nothing further exists
    if (!S_ISLNK(link.st_mode)) continue;
    const std::size_t slash = prefix.rfind('/');
    const std::string dir = slash == std::string::npos ? "."
                            : slash == 0               ? "/"
                                                       : prefix.substr(0, slash);
    struct stat parent;
    if (::stat(dir.c_str(), &parent) != 0) continue;
    if ((parent.st_mode & S_ISVTX) != 0 && link.st_uid != ::geteuid() &&
        link.st_uid != parent.st_uid) {
      return absl::PermissionDeniedError(absl::StrCat(
          "refusing to write ", display, ": ", prefix, " is a symlink owned by another user (uid ",
          link.st_uid, ") in the shared (sticky) directory ", dir));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> ReadFileBounded(absl::string_view path, std::size_t max_bytes) {
  const std::string name = DisplayName(path, /*input=*/true);
  const std::string too_large =
      absl::StrCat(name, " is larger than the ", LimitText(max_bytes), " limit");
  std::string data;
  if (path == "-") {
    // Standard input redirected from a file: that file is an input too.
    struct stat info;
    if (::fstat(STDIN_FILENO, &info) == 0) RememberInput(info);
    absl::StatusOr<std::string> read = ReadAll(STDIN_FILENO, name, 0, max_bytes);
    if (!read.ok()) return read.status();
    data = *std::move(read);
  } else {
    const std::string file(path);
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
      const int error = errno;
      if (error == ENOENT || error == ENOTDIR) {
        return absl::NotFoundError(absl::StrCat(name, " does not exist"));
      }
      if (error == EACCES || error == EPERM) {
        return absl::PermissionDeniedError(
            absl::StrCat(name, " is not readable (permission denied)"));
      }
      return absl::ErrnoToStatus(error, absl::StrCat("cannot open ", name));
    }
    struct stat info;
    if (::fstat(fd, &info) != 0) {
      const int error = errno;
      ::close(fd);
      return absl::ErrnoToStatus(error, absl::StrCat("cannot stat ", name));
    }
    if (S_ISDIR(info.st_mode)) {
      ::close(fd);
      return absl::InvalidArgumentError(absl::StrCat(name, " is a directory"));
    }
    RememberInput(info);
    std::size_t size_hint = 0;
    if (S_ISREG(info.st_mode)) {
      if (static_cast<std::uint64_t>(info.st_size) > max_bytes) {
        ::close(fd);
        return absl::InvalidArgumentError(too_large);
      }
      size_hint = static_cast<std::size_t>(info.st_size);
    }
    absl::StatusOr<std::string> read = ReadAll(fd, name, size_hint, max_bytes);
    ::close(fd);
    if (!read.ok()) return read.status();
    data = *std::move(read);
  }
  if (data.size() > max_bytes) return absl::InvalidArgumentError(too_large);
  if (data.empty()) return absl::InvalidArgumentError(absl::StrCat(name, " is empty"));
  return data;
}

absl::StatusOr<std::unique_ptr<FileWriter>> FileWriter::Open(
    absl::string_view path, const std::vector<std::string>& inputs) {
  if (path.empty()) return absl::InvalidArgumentError("the output path is empty");
  std::unique_ptr<FileWriter> w(new FileWriter());
  w->display_ = DisplayName(path, /*input=*/false);
  if (path == "-") {
    // What was printed through stdio so far goes first.
    std::fflush(stdout);
    w->to_stdout_ = true;
    w->fd_ = STDOUT_FILENO;
    return w;
  }
  if (path.back() == '/') {
    return absl::InvalidArgumentError(absl::StrCat(path, " is a directory"));
  }
  const std::string file(path);
  const std::string cannot = absl::StrCat("cannot write ", path);
  // 1. A link planted by another user in a shared directory is never followed.
  if (absl::Status s = CheckNoPlantedLinks(file, path); !s.ok()) return s;

  // 2. A path through a file-descriptor directory (/dev/stdout, /dev/fd/3, /proc/self/fd/1) is
  //    written through that descriptor: a dup of it keeps its offset and O_APPEND, as the shell's
  //    `>>` asked. Another process's descriptor is opened for appending, never replaced.
  if (const FdReference ref = ThroughFdDirectory(file); ref.found) {
    int fd = -1;
    if (ref.own) {
      const int flags = ::fcntl(ref.fd, F_GETFL);
      if (flags < 0) return absl::ErrnoToStatus(errno, cannot);
      if ((flags & O_ACCMODE) == O_RDONLY) {
        return absl::FailedPreconditionError(
            absl::StrCat(cannot, ": file descriptor ", ref.fd, " is open for reading only"));
      }
      fd = ::fcntl(ref.fd, F_DUPFD_CLOEXEC, 3);
    } else {
      fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
    }
    if (fd < 0) return absl::ErrnoToStatus(errno, cannot);
    struct stat info;
    if (::fstat(fd, &info) == 0 && IsInput(info, inputs)) {
      ::close(fd);
      return RefuseInput(path);
    }
    if (ref.own && (ref.fd == STDOUT_FILENO || ref.fd == STDERR_FILENO)) {
      std::fflush(ref.fd == STDOUT_FILENO ? stdout : stderr);
    }
    w->fd_ = fd;
    return w;
  }

  struct stat existing;
  const bool exists = ::stat(file.c_str(), &existing) == 0;
  if (exists) {
    if (S_ISDIR(existing.st_mode)) {
      return absl::InvalidArgumentError(absl::StrCat(path, " is a directory"));
    }
    if (IsInput(existing, inputs)) return RefuseInput(path);
    // 3. The file standard output (or error) already writes to: written through that descriptor
    //    (`dcplan ... --out=log.txt >>log.txt` appends, as the shell was asked to).
    for (int std_fd : {STDOUT_FILENO, STDERR_FILENO}) {
      struct stat info;
      if (::fstat(std_fd, &info) != 0 || info.st_dev != existing.st_dev ||
          info.st_ino != existing.st_ino) {
        continue;
      }
      const int flags = ::fcntl(std_fd, F_GETFL);
      if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) continue;
      std::fflush(std_fd == STDOUT_FILENO ? stdout : stderr);
      w->fd_ = ::fcntl(std_fd, F_DUPFD_CLOEXEC, 3);
      if (w->fd_ < 0) return absl::ErrnoToStatus(errno, cannot);
      return w;
    }
    if (!S_ISREG(existing.st_mode)) {
      // 4. A device, FIFO or socket cannot be replaced by rename(2) and must not be: write
      //    through, opened by the kernel's rules.
      w->fd_ = ::open(file.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (w->fd_ < 0) return absl::ErrnoToStatus(errno, cannot);
      return w;
    }
  }

  // 5. A regular file, or none yet. A symlink at the end is opened by the kernel (so
  //    fs.protected_symlinks applies, and a dangling link's target is created), and the file it
  //    reached is the one replaced: its name comes from the kernel (/proc/self/fd), not from
  //    reading the links here.
  struct stat own;
  w->target_ = file;
  if (::lstat(file.c_str(), &own) == 0 && S_ISLNK(own.st_mode)) {
    const int probe =
        exists ? ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
               : ::open(file.c_str(), O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0666);
    if (probe < 0) return absl::ErrnoToStatus(errno, cannot);
    struct stat reached;
    char buffer[PATH_MAX + 1];
    const std::string self = absl::StrCat("/proc/self/fd/", probe);
    const ssize_t n = ::readlink(self.c_str(), buffer, PATH_MAX);
    const int error = errno;
    const bool regular = ::fstat(probe, &reached) == 0 && S_ISREG(reached.st_mode);
    ::close(probe);
    if (!regular) {
      return absl::FailedPreconditionError(absl::StrCat(cannot, ": not a regular file"));
    }
    if (IsInput(reached, inputs)) return RefuseInput(path);
    if (n <= 0 || buffer[0] != '/') {
      return absl::ErrnoToStatus(n < 0 ? error : ENOENT,
                                 absl::StrCat(cannot, ": cannot tell where the symlink leads"));
    }
    w->target_.assign(buffer, static_cast<std::size_t>(n));
    if (!exists) w->created_ = w->target_;
    w->has_identity_ = true;
    w->dev_ = reached.st_dev;
    w->ino_ = reached.st_ino;
  } else if (exists) {
    w->has_identity_ = true;
    w->dev_ = existing.st_dev;
    w->ino_ = existing.st_ino;
  }

  int error = 0;
  for (int attempt = 0; attempt < 100 && w->fd_ < 0; ++attempt) {
    w->temporary_ = TemporaryName(w->target_);
    w->slot_ = Register(w->temporary_);
    // O_EXCL and O_NOFOLLOW: a file or symlink planted at the name is an EEXIST, never followed.
    w->fd_ =
        ::open(w->temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    error = errno;
    if (w->fd_ < 0) {
      Unregister(w->slot_);
      w->slot_ = -1;
      if (error != EEXIST) break;
    }
  }
  if (w->fd_ < 0) {
    w->temporary_.clear();
    w->Abandon();
    return absl::ErrnoToStatus(error,
                               absl::StrCat(cannot, ": cannot create a temporary file beside it"));
  }
  // A replaced file keeps its permissions; a new one gets 0666 less the umask, like any new file.
  if (exists) (void)::fchmod(w->fd_, existing.st_mode & 07777);
  return w;
}

FileWriter::~FileWriter() { Abandon(); }

absl::Status FileWriter::Fail(int error) {
  Abandon();
  if (error == EISDIR) return absl::InvalidArgumentError(absl::StrCat(display_, " is a directory"));
  return absl::ErrnoToStatus(error, absl::StrCat("cannot write ", display_));
}

absl::Status FileWriter::Append(absl::string_view data) {
  if (done_) {
    return absl::FailedPreconditionError(absl::StrCat("cannot write ", display_, ": closed"));
  }
  if (!temporary_.empty() && !no_direct_ && !direct_ &&
      written_ + static_cast<int64_t>(data.size()) > kDirectFrom) {
    // The first kDirectFrom bytes through the page cache, the rest staged for direct writes (at
    // offsets that are multiples of 2 MiB, as O_DIRECT needs).
    const size_t head = static_cast<size_t>(kDirectFrom - written_);
    absl::Status head_written = AppendBuffered(data.substr(0, head));
    if (!head_written.ok()) return head_written;
    data.remove_prefix(head);
    staging_ = LargeBuffer(LargeBuffer::kRun);
    const int flags = ::fcntl(fd_, F_GETFL);
    direct_ =
        staging_.data() != nullptr && flags >= 0 && ::fcntl(fd_, F_SETFL, flags | O_DIRECT) == 0;
    no_direct_ = !direct_;
  }
  if (!direct_) return AppendBuffered(data);
  while (!data.empty()) {
    const size_t n = std::min(data.size(), staging_.size() - staged_);
    std::memcpy(staging_.data() + staged_, data.data(), n);
    staged_ += n;
    written_ += static_cast<int64_t>(n);
    data.remove_prefix(n);
    if (staged_ == staging_.size()) {
      const int error = WriteStaged(staged_);
      if (error != 0) return Fail(error);
    }
  }
  return absl::OkStatus();
}

absl::Status FileWriter::AppendBuffered(absl::string_view data) {
  const int error = WriteAll(fd_, data);
  if (error != 0) return Fail(error);
  written_ += static_cast<int64_t>(data.size());
  if (!temporary_.empty() && written_ - started_writeback_ >= kWritebackBytes) {
    // Starts the kernel writing what is written so far (no wait), so that Commit's fsync has
    // little left to do: a large file is otherwise flushed all at the end, serially.
    (void)::sync_file_range(fd_, started_writeback_, written_ - started_writeback_,
                            SYNC_FILE_RANGE_WRITE);
    started_writeback_ = written_;
  }
  return absl::OkStatus();
}

int FileWriter::WriteStaged(size_t bytes) {
  const size_t data = staged_;  // bytes past `data` are the tail's zero padding
  size_t done = 0;
  while (done < bytes) {
    const ssize_t wrote = ::write(fd_, staging_.data() + done, bytes - done);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      if (errno != EINVAL || done != 0) return errno;
      // Direct I/O refused (a file system without it, an alignment it wants larger): the staged
      // data through the page cache, and everything after it.
      const int flags = ::fcntl(fd_, F_GETFL);
      if (flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_DIRECT) != 0) return errno;
      direct_ = false;
      no_direct_ = true;
      staged_ = 0;
      return WriteAll(fd_, absl::string_view(staging_.data(), data));
    }
    if (wrote == 0) return EIO;
    done += static_cast<size_t>(wrote);
  }
  staged_ = 0;
  return 0;
}

absl::Status FileWriter::Commit() {
  if (done_) {
    return absl::FailedPreconditionError(absl::StrCat("cannot write ", display_, ": closed"));
  }
  if (to_stdout_) {
    done_ = true;
    return absl::OkStatus();
  }
  int error = 0;
  if (direct_ && staged_ > 0) {
    // The last run, its length rounded up to 4 KiB (the largest block size O_DIRECT asks of the
    // common file systems) with zeros, which the truncation then cuts off again.
    const size_t padded = (staged_ + 4095) & ~size_t{4095};
    std::memset(staging_.data() + staged_, 0, padded - staged_);
    error = WriteStaged(padded);
    if (error == 0 && direct_ && ::ftruncate(fd_, written_) != 0) error = errno;
  }
  if (error == 0 && !temporary_.empty() && ::fsync(fd_) != 0) error = errno;
  if (::close(fd_) != 0 && error == 0) error = errno;
  fd_ = -1;
  if (error == 0 && !temporary_.empty()) {
    // Only a regular file dcplan may replace is renamed over: the one seen at Open (or nothing,
    // when there was nothing). A name swapped meanwhile for another file, a device or a link is
    // left alone.
    struct stat now;
    if (::lstat(target_.c_str(), &now) == 0) {
      if (!S_ISREG(now.st_mode) || (has_identity_ && (now.st_dev != dev_ || now.st_ino != ino_))) {
        Abandon();
        return absl::FailedPreconditionError(
            absl::StrCat("cannot write ", display_, ": ", target_,
                         " was replaced by another file while dcplan wrote it; left as it is"));
      }
    }
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) error = errno;
  }
  if (error != 0) return Fail(error);
  Unregister(slot_);
  slot_ = -1;
  temporary_.clear();
  created_.clear();
  done_ = true;
  return absl::OkStatus();
}

void FileWriter::Abandon() {
  if (done_) return;
  done_ = true;
  if (fd_ >= 0 && !to_stdout_) ::close(fd_);
  fd_ = -1;
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
  if (!created_.empty()) {
    // The empty file a dangling symlink's open created: removed if it is still that empty file.
    struct stat info;
    if (::lstat(created_.c_str(), &info) == 0 && S_ISREG(info.st_mode) && info.st_size == 0 &&
        info.st_dev == dev_ && info.st_ino == ino_) {
      ::unlink(created_.c_str());
    }
    created_.clear();
  }
  Unregister(slot_);
  slot_ = -1;
  temporary_.clear();
}

absl::Status WriteFileAtomically(absl::string_view path, absl::string_view contents,
                                 const std::vector<std::string>& inputs) {
  absl::StatusOr<std::unique_ptr<FileWriter>> writer = FileWriter::Open(path, inputs);
  if (!writer.ok()) return writer.status();
  if (absl::Status s = (*writer)->Append(contents); !s.ok()) return s;
  return (*writer)->Commit();
}

}  // namespace dcplan
