// File: base/file_io.h
//
// Every file dcplan reads or writes goes through here: one bounded reader and one atomic writer,
// for every command and format (plans, CSV, JSON lines, SVG, text).
//
// The writer never leaves a partial or damaged file:
//   - a regular file (or a new name) is written into a temporary file in the same folder, created
//     exclusively (O_CREAT | O_EXCL | O_NOFOLLOW) under an unpredictable short name
//     (".<name, at most 32 bytes>.tmp-<16 random hex digits>", so a planted symlink is never
//     followed and a name near NAME_MAX still has a temporary that fits), synced and renamed over
//     the target;
//   - an existing character device, FIFO or socket (/dev/null, /dev/stdout, a pipe) is written
//     through in place, never replaced;
//   - a symlink is followed to its target (even a dangling one), and the link is kept;
//   - a short write, a full disk (ENOSPC, EFBIG, EIO) is an error, and the temporary is removed;
//   - on SIGINT, SIGTERM or SIGHUP while a temporary exists, it is removed before the process dies
//     (the previous output stays as it was);
//   - the target may not be one of the run's input files (same device and inode, so symlinks and
//     hard links are caught).
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

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dcplan {

// The largest file ReadFileBounded accepts by default: 64 MiB.
inline constexpr std::size_t kMaxInputBytes = std::size_t{64} << 20;

// Reads the whole file at `path` ("-" is standard input), at most `max_bytes`. Every error names
// the file: it does not exist (NotFound), is a directory, is not readable (PermissionDenied), is
// empty ("<path> is empty"), is larger than the limit ("<path> is larger than the 64 MiB limit").
// Pipes, devices and files that grow while read are held to the same limit while reading.
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

  std::string display_;    // the path as the user gave it, for messages
  std::string target_;     // where the data goes (symlinks resolved)
  std::string temporary_;  // empty when writing in place
  int fd_ = -1;
  int slot_ = -1;  // the temporary's slot in the signal handler's list
  bool to_stdout_ = false;
  bool done_ = false;
};

// Open + Append(contents) + Commit: the whole of `contents` at `path` atomically.
absl::Status WriteFileAtomically(absl::string_view path, absl::string_view contents,
                                 const std::vector<std::string>& inputs = {});

}  // namespace dcplan
