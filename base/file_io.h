// File: base/file_io.h
//
// Every file dcplan reads or writes goes through here: one bounded reader and one atomic writer,
// for every command and format (plans, CSV, JSON lines, SVG, text).
//
// The writer never leaves a partial or damaged file, and never replaces what is not its to replace:
//   - a regular file (or a new name) is written into a temporary file in the same folder, created
//     exclusively (O_CREAT | O_EXCL | O_NOFOLLOW) under an unpredictable short name
//     (".<name, at most 32 bytes>.tmp-<16 random hex digits>", so a planted symlink is never
//     followed and a name near NAME_MAX still has a temporary that fits), synced and renamed over
//     the target, if the target is still the regular file seen at Open; its bytes past the first
//     4 MiB go to the disk with direct I/O (O_DIRECT: nothing copied into the page cache), through
//     the page cache where the file system refuses that;
//   - a path that leads (at any step) through a file-descriptor directory (/dev/stdout, /dev/fd/3,
//     /proc/self/fd/1, a link to one of them), or to the file standard output or error already
//     writes to, is written through that descriptor: a `>>` redirection keeps appending, and the
//     file is never renamed over;
//   - an existing character device, FIFO or socket (/dev/null, a pipe) is written through in place;
//   - a symlink is opened by the kernel (fs.protected_symlinks applies; a dangling link's target is
//     created, and removed again if the run fails), and the file it reaches is replaced, the link
//     kept; links are never read and joined by hand to choose where to write;
//   - a symlink owned by another user in a sticky directory (/tmp), at any step of the path, is
//     refused (PermissionDenied), whatever fs.protected_symlinks says;
//   - a short write, a full disk (ENOSPC, EFBIG, EIO) is an error, and the temporary is removed;
//   - on any catchable signal that ends the process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE,
//     SIGXFSZ, SIGUSR1, SIGUSR2, SIGALRM, the real-time signals, ...) while a temporary exists, it
//     is removed before the process dies (the previous output stays as it was); only SIGKILL can
//     leave one behind;
//   - the target may not be one of the run's input files: those named in `inputs` and every file
//     ReadFileBounded has read in this process (same device and inode, so symlinks and hard links
//     are caught, and so are standard input redirected from a file, workloads, flag files ...).
//
// Example:
//   DCPLAN_ASSIGN_OR_RETURN(std::string text, ReadFileBounded("req.textproto"));
//   DCPLAN_RETURN_IF_ERROR(WriteFileAtomically("plan.json", json, {"req.textproto"}));
//
//   DCPLAN_ASSIGN_OR_RETURN(std::unique_ptr<FileWriter> out, FileWriter::Open("rows.csv", {}));
//   DCPLAN_RETURN_IF_ERROR(out->Append("a,b\n"));   // as many times as needed
//   DCPLAN_RETURN_IF_ERROR(out->Commit());          // rename into place; without it, nothing
//   changes
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/large_buffer.h"

namespace dcplan {

// The largest file ReadFileBounded accepts by default: 64 MiB.
inline constexpr std::size_t kMaxInputBytes = std::size_t{64} << 20;

// Reads the whole file at `path` ("-" is standard input), at most `max_bytes`. Every error names
// the file: it does not exist (NotFound), is a directory, is not readable (PermissionDenied), is
// empty ("<path> is empty"), is larger than the limit ("<path> is larger than the 64 MiB limit").
// Pipes, devices and files that grow while read are held to the same limit while reading. A regular
// file read (standard input included) is remembered: no FileWriter of this process replaces it.
absl::StatusOr<std::string> ReadFileBounded(absl::string_view path,
                                            std::size_t max_bytes = kMaxInputBytes);

// A file being written: Open, Append as often as needed, then Commit. Destroying it without a
// successful Commit (or calling Abandon) leaves the target as it was and removes the temporary.
class FileWriter {
 public:
  // Opens `path` for writing ("-" is standard output). Fails (before anything is written) with
  // FailedPrecondition "refusing to overwrite the input file <path>" when `path` is one of
  // `inputs`, InvalidArgument "<path> is a directory", or the errno of creating the temporary
  // ("cannot write <path>: cannot create a temporary file beside it: ...").
  static absl::StatusOr<std::unique_ptr<FileWriter>> Open(absl::string_view path,
                                                          const std::vector<std::string>& inputs);

  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  // Writes `data` (all of it, retrying short writes). A failure ("cannot write <path>: No space
  // left on device") abandons the file.
  absl::Status Append(absl::string_view data);

  // Makes the written data the file's: syncs and renames the temporary over the target (a regular
  // file), or closes the device or FIFO. A replaced file keeps its permission bits.
  absl::Status Commit();

  // Removes the temporary; the target stays as it was. Safe to call more than once.
  void Abandon();

 private:
  FileWriter() = default;
  absl::Status Fail(int error);

  std::string display_;        // the path as the user gave it, for messages
  std::string target_;         // where the data goes (symlinks resolved)
  std::string temporary_;      // empty when writing in place
  std::string created_;        // a dangling symlink's target created by Open, removed by Abandon
  bool has_identity_ = false;  // the target existed (or was created) at Open: its device and inode
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  int fd_ = -1;
  int slot_ = -1;  // the temporary's slot in the signal handler's list
  // Append's ordinary write (through the page cache), with the writeback started every
  // kWritebackBytes.
  absl::Status AppendBuffered(absl::string_view data);
  // Writes the first `bytes` of staging_ (a whole run, or the tail padded at Commit) with
  // O_DIRECT; falls back to ordinary writes, from then on, when the file system refuses it.
  // Returns an errno, or 0.
  int WriteStaged(size_t bytes);

  // Bytes appended, and where the last writeback started (a temporary file's data is handed to the
  // kernel's writeback every kWritebackBytes, so Commit's fsync does not do it all at the end;
  // every 2 MiB leaves it ~1 ms after a 200 MB sweep, where every 8 MiB left ~3 ms).
  static constexpr int64_t kWritebackBytes = 2 << 20;
  int64_t written_ = 0;
  int64_t started_writeback_ = 0;
  // A temporary file's bytes past the first kDirectFrom go to the disk with direct I/O (O_DIRECT),
  // staged in 2 MiB runs, instead of through the page cache: the kernel then copies nothing and
  // keeps no dirty pages to write back at the fsync. A 200 MB sweep's writes took ~0.06 s of CPU
  // through the page cache (a fifth of the run's, on a third thread beside the two formatting),
  // and the fsync waited 1-50 ms for the writeback's tail; direct writes of 2 MiB ran at ~1.7
  // GB/s on this machine, faster than the rows are made. Smaller files never stage.
  static constexpr int64_t kDirectFrom = 4 << 20;
  bool direct_ = false;     // staging_ in use (O_DIRECT set on fd_)
  bool no_direct_ = false;  // the file system refused it: ordinary writes from then on
  LargeBuffer staging_;
  size_t staged_ = 0;
  bool to_stdout_ = false;
  bool done_ = false;
};

// Open + Append(contents) + Commit: the whole of `contents` at `path` atomically.
absl::Status WriteFileAtomically(absl::string_view path, absl::string_view contents,
                                 const std::vector<std::string>& inputs = {});

}  // namespace dcplan
