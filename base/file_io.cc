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

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

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

// --- temporaries removed on SIGINT, SIGTERM and SIGHUP
// --------------------------------------------- A fixed table the signal handler can read without
// allocating or locking: a slot is free (0), being filled (1) or holds a temporary's path (2).
constexpr int kSlots = 16;
std::atomic<int> g_slot_state[kSlots];
char g_slot_path[kSlots][PATH_MAX + 1];
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction g_previous[std::size(kSignals)];

void RemoveTemporariesAndDie(int signal_number) {
  for (int i = 0; i < kSlots; ++i) {
    if (g_slot_state[i].load() == 2) ::unlink(g_slot_path[i]);
  }
  // Then die of the signal as if it had not been caught (the shell sees 128 + its number).
  for (std::size_t k = 0; k < std::size(kSignals); ++k) {
    if (kSignals[k] == signal_number) ::sigaction(signal_number, &g_previous[k], nullptr);
  }
  ::raise(signal_number);
}

void InstallHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (std::size_t k = 0; k < std::size(kSignals); ++k) {
      struct sigaction current;
      if (::sigaction(kSignals[k], nullptr, &current) != 0) continue;
      g_previous[k] = current;
      // A signal the process ignores (nohup) or that someone else handles stays theirs.
      if (current.sa_handler != SIG_DFL) continue;
      struct sigaction action;
      std::memset(&action, 0, sizeof(action));
      action.sa_handler = RemoveTemporariesAndDie;
      sigemptyset(&action.sa_mask);
      for (int s : kSignals) sigaddset(&action.sa_mask, s);
      ::sigaction(kSignals[k], &action, nullptr);
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

// `path` with every symlink at its end followed (a dangling one too: its target is created).
absl::StatusOr<std::string> FollowLinks(std::string path, const std::string& display) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat info;
    if (::lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return path;
    char buffer[PATH_MAX + 1];
    const ssize_t n = ::readlink(path.c_str(), buffer, PATH_MAX);
    if (n < 0) return absl::ErrnoToStatus(errno, absl::StrCat("cannot write ", display));
    std::string link(buffer, static_cast<std::size_t>(n));
    if (link.empty()) return path;
    if (link.front() != '/') {
      const std::size_t slash = path.rfind('/');
      if (slash != std::string::npos) link = absl::StrCat(path.substr(0, slash + 1), link);
    }
    path = std::move(link);
  }
  return absl::ErrnoToStatus(ELOOP, absl::StrCat("cannot write ", display));
}

}  // namespace

absl::StatusOr<std::string> ReadFileBounded(absl::string_view path, std::size_t max_bytes) {
  const std::string name = DisplayName(path, /*input=*/true);
  const std::string too_large =
      absl::StrCat(name, " is larger than the ", LimitText(max_bytes), " limit");
  std::string data;
  if (path == "-") {
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
  struct stat existing;
  const bool exists = ::stat(file.c_str(), &existing) == 0;
  if (exists) {
    if (S_ISDIR(existing.st_mode)) {
      return absl::InvalidArgumentError(absl::StrCat(path, " is a directory"));
    }
    for (const std::string& input : inputs) {
      if (input.empty() || input == "-") continue;
      struct stat in;
      if (::stat(input.c_str(), &in) == 0 && in.st_dev == existing.st_dev &&
          in.st_ino == existing.st_ino) {
        return absl::FailedPreconditionError(
            absl::StrCat("refusing to overwrite the input file ", path));
      }
    }
    if (!S_ISREG(existing.st_mode)) {
      // A device, FIFO or socket cannot be replaced by rename(2) and must not be: write through,
      // opened by the name given (so /dev/stdout reaches whatever standard output is).
      w->fd_ = ::open(file.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (w->fd_ < 0) return absl::ErrnoToStatus(errno, absl::StrCat("cannot write ", path));
      return w;
    }
  }
  // A regular file, or none yet: the temporary goes beside the file the symlinks lead to.
  absl::StatusOr<std::string> target = FollowLinks(file, w->display_);
  if (!target.ok()) return target.status();
  w->target_ = *std::move(target);

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
    w->done_ = true;
    return absl::ErrnoToStatus(
        error, absl::StrCat("cannot write ", path, ": cannot create a temporary file beside it"));
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
  const int error = WriteAll(fd_, data);
  return error == 0 ? absl::OkStatus() : Fail(error);
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
  if (!temporary_.empty() && ::fsync(fd_) != 0) error = errno;
  if (::close(fd_) != 0 && error == 0) error = errno;
  fd_ = -1;
  if (error == 0 && !temporary_.empty() && ::rename(temporary_.c_str(), target_.c_str()) != 0) {
    error = errno;
  }
  if (error != 0) return Fail(error);
  Unregister(slot_);
  slot_ = -1;
  temporary_.clear();
  done_ = true;
  return absl::OkStatus();
}

void FileWriter::Abandon() {
  if (done_) return;
  done_ = true;
  if (fd_ >= 0 && !to_stdout_) ::close(fd_);
  fd_ = -1;
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
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
