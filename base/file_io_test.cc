// File: base/file_io_test.cc
//
// The reader and the writer against real files, devices, FIFOs and symlinks made in the test's
// own temporary folder. Tests run as root here: a writer that replaced /dev/null would be a
// disaster, which is why the device cases check the device is still one afterwards.
#include "base/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_matchers.h"
#include "base/test_files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::dcplan::testing::ListDir;
using ::dcplan::testing::MakeTestDir;
using ::dcplan::testing::ReadRaw;
using ::dcplan::testing::StatusIs;
using ::dcplan::testing::WriteRaw;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MatchesRegex;
using ::testing::SizeIs;

// --- ReadFileBounded
// ----------------------------------------------------------------------------------

TEST(ReadFileBounded, ReadsAFileWhole) {
  const std::string dir = MakeTestDir();
  WriteRaw(dir + "/a.txt", "power: 5e7\n");
  EXPECT_THAT(ReadFileBounded(dir + "/a.txt"), IsOk());
  EXPECT_EQ(*ReadFileBounded(dir + "/a.txt"), "power: 5e7\n");
}

TEST(ReadFileBounded, NamesTheFileInEveryError) {
  const std::string dir = MakeTestDir();
  WriteRaw(dir + "/empty.txt", "");
  WriteRaw(dir + "/big.txt", std::string(101, 'x'));
  EXPECT_THAT(ReadFileBounded(dir + "/nope.txt"),
              StatusIs(absl::StatusCode::kNotFound, dir + "/nope.txt does not exist"));
  EXPECT_THAT(ReadFileBounded(dir),
              StatusIs(absl::StatusCode::kInvalidArgument, dir + " is a directory"));
  EXPECT_THAT(ReadFileBounded(dir + "/empty.txt"),
              StatusIs(absl::StatusCode::kInvalidArgument, dir + "/empty.txt is empty"));
  // 101 bytes against a limit of 100: one too many.
  EXPECT_THAT(ReadFileBounded(dir + "/big.txt", 100),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       dir + "/big.txt is larger than the 100 byte limit"));
  EXPECT_THAT(ReadFileBounded(dir + "/big.txt", 101), IsOk());
}

TEST(ReadFileBounded, StopsReadingAnEndlessDeviceAtTheLimit) {
  // /dev/zero never ends and has no size: the limit must hold while reading.
  EXPECT_THAT(
      ReadFileBounded("/dev/zero", 1 << 20),
      StatusIs(absl::StatusCode::kInvalidArgument, "/dev/zero is larger than the 1 MiB limit"));
}

TEST(ReadFileBounded, ReadsAFifo) {
  const std::string dir = MakeTestDir();
  const std::string fifo = dir + "/in.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, "abc", 3), 3);
    ::close(fd);
  });
  absl::StatusOr<std::string> read = ReadFileBounded(fifo);
  writer.join();
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(*read, "abc");
}

// --- FileWriter
// -------------------------------------------------------------------------------------

TEST(WriteFileAtomically, CreatesANewFileAndLeavesNothingElse) {
  const std::string dir = MakeTestDir();
  ASSERT_THAT(WriteFileAtomically(dir + "/out.csv", "a,b\n"), IsOk());
  EXPECT_EQ(ReadRaw(dir + "/out.csv"), "a,b\n");
  EXPECT_THAT(ListDir(dir), ElementsAre("out.csv"));
}

TEST(WriteFileAtomically, ReplacesAnExistingFileAndKeepsItsPermissions) {
  const std::string dir = MakeTestDir();
  const std::string path = dir + "/out.csv";
  WriteRaw(path, "old,contents,that,are,longer\n");
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  ASSERT_THAT(WriteFileAtomically(path, "a,b\n"), IsOk());
  EXPECT_EQ(ReadRaw(path), "a,b\n");
  struct stat info;
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0640u);
  EXPECT_THAT(ListDir(dir), ElementsAre("out.csv"));
}

TEST(WriteFileAtomically, FollowsASymlinkAndKeepsIt) {
  const std::string dir = MakeTestDir();
  WriteRaw(dir + "/target.csv", "old\n");
  ASSERT_EQ(::symlink("target.csv", (dir + "/link.csv").c_str()), 0);
  ASSERT_THAT(WriteFileAtomically(dir + "/link.csv", "new\n"), IsOk());
  EXPECT_EQ(ReadRaw(dir + "/target.csv"), "new\n");
  struct stat info;
  ASSERT_EQ(::lstat((dir + "/link.csv").c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
  EXPECT_THAT(ListDir(dir), ElementsAre("link.csv", "target.csv"));
}

TEST(WriteFileAtomically, FollowsADanglingSymlinkAndAChainOfThem) {
  const std::string dir = MakeTestDir();
  // link1 -> link2 -> made.csv, which does not exist yet: it is created, both links stay.
  ASSERT_EQ(::symlink("link2", (dir + "/link1").c_str()), 0);
  ASSERT_EQ(::symlink("made.csv", (dir + "/link2").c_str()), 0);
  ASSERT_THAT(WriteFileAtomically(dir + "/link1", "x\n"), IsOk());
  EXPECT_EQ(ReadRaw(dir + "/made.csv"), "x\n");
  EXPECT_THAT(ListDir(dir), ElementsAre("link1", "link2", "made.csv"));
  struct stat info;
  ASSERT_EQ(::lstat((dir + "/link1").c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
}

TEST(WriteFileAtomically, RefusesASymlinkLoop) {
  const std::string dir = MakeTestDir();
  ASSERT_EQ(::symlink("b", (dir + "/a").c_str()), 0);
  ASSERT_EQ(::symlink("a", (dir + "/b").c_str()), 0);
  EXPECT_THAT(WriteFileAtomically(dir + "/a", "x\n"),
              StatusIs(absl::StatusCode::kUnknown,
                       HasSubstr("cannot write " + dir + "/a: Too many levels of symbolic links")));
  EXPECT_THAT(ListDir(dir), ElementsAre("a", "b"));
}

TEST(WriteFileAtomically, WritesThroughCharacterDevicesWithoutReplacingThem) {
  ASSERT_THAT(WriteFileAtomically("/dev/null", "discarded\n"), IsOk());
  struct stat info;
  ASSERT_EQ(::stat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
}

TEST(WriteFileAtomically, AFullDeviceIsAnError) {
  // /dev/full fails every write with ENOSPC: what a full disk does.
  EXPECT_THAT(WriteFileAtomically("/dev/full", "lost\n"),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       "cannot write /dev/full: No space left on device"));
  struct stat info;
  ASSERT_EQ(::stat("/dev/full", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
}

TEST(WriteFileAtomically, WritesIntoAFifoWithAReader) {
  const std::string dir = MakeTestDir();
  const std::string fifo = dir + "/out.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    const int fd = ::open(fifo.c_str(), O_RDONLY);
    char buffer[256];
    ssize_t n;
    while ((n = ::read(fd, buffer, sizeof(buffer))) > 0) got.append(buffer, n);
    ::close(fd);
  });
  const absl::Status written = WriteFileAtomically(fifo, "through the pipe\n");
  reader.join();
  ASSERT_THAT(written, IsOk());
  EXPECT_EQ(got, "through the pipe\n");
  struct stat info;
  ASSERT_EQ(::lstat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));  // still the FIFO, not a file renamed over it
  EXPECT_THAT(ListDir(dir), ElementsAre("out.fifo"));
}

TEST(WriteFileAtomically, RefusesADirectoryAndAnInput) {
  const std::string dir = MakeTestDir();
  WriteRaw(dir + "/in.textproto", "name: \"x\"\n");
  ASSERT_EQ(::link((dir + "/in.textproto").c_str(), (dir + "/hard.textproto").c_str()), 0);
  EXPECT_THAT(WriteFileAtomically(dir, "x"),
              StatusIs(absl::StatusCode::kInvalidArgument, dir + " is a directory"));
  EXPECT_THAT(WriteFileAtomically(dir + "/", "x"),
              StatusIs(absl::StatusCode::kInvalidArgument, dir + "/ is a directory"));
  EXPECT_THAT(WriteFileAtomically(dir + "/hard.textproto", "x", {dir + "/in.textproto"}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "refusing to overwrite the input file " + dir + "/hard.textproto"));
  EXPECT_EQ(ReadRaw(dir + "/in.textproto"), "name: \"x\"\n");
  EXPECT_THAT(ListDir(dir), ElementsAre("hard.textproto", "in.textproto"));
}

TEST(FileWriter, TheTemporaryIsShortRandomAndBesideTheTarget) {
  const std::string dir = MakeTestDir();
  // A 255-byte name (NAME_MAX): the temporary's name must fit too.
  const std::string name(255, 'n');
  absl::StatusOr<std::unique_ptr<FileWriter>> a = FileWriter::Open(dir + "/" + name, {});
  absl::StatusOr<std::unique_ptr<FileWriter>> b = FileWriter::Open(dir + "/" + name, {});
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  const std::vector<std::string> during = ListDir(dir);
  ASSERT_THAT(during, SizeIs(2));
  for (const std::string& temporary : during) {
    // "." + 32 bytes of the name + ".tmp-" + 16 hex digits = 54 bytes.
    EXPECT_THAT(temporary, MatchesRegex("\\.n{32}\\.tmp-[0-9a-f]{16}"));
  }
  EXPECT_NE(during[0], during[1]);
  ASSERT_THAT((*a)->Append("first\n"), IsOk());
  ASSERT_THAT((*a)->Commit(), IsOk());
  EXPECT_EQ(ReadRaw(dir + "/" + name), "first\n");
  (*b)->Abandon();
  EXPECT_THAT(ListDir(dir), ElementsAre(name));
}

TEST(FileWriter, WithoutCommitTheTargetIsUntouched) {
  const std::string dir = MakeTestDir();
  WriteRaw(dir + "/out.csv", "previous\n");
  {
    absl::StatusOr<std::unique_ptr<FileWriter>> w = FileWriter::Open(dir + "/out.csv", {});
    ASSERT_THAT(w, IsOk());
    ASSERT_THAT((*w)->Append("half a fi"), IsOk());
    EXPECT_THAT(ListDir(dir), SizeIs(2));
  }  // destroyed without Commit: a failed run
  EXPECT_EQ(ReadRaw(dir + "/out.csv"), "previous\n");
  EXPECT_THAT(ListDir(dir), ElementsAre("out.csv"));
}

// WriteFileAtomically(path, contents) under a file size limit of `limit` bytes, with SIGXFSZ
// ignored so that a write past the limit returns EFBIG instead of killing the test: a full disk as
// far as the writer can tell. Nothing may be printed while the limit is in force.
absl::Status WriteUnderFileSizeLimit(const std::string& path, const std::string& contents,
                                     rlim_t limit) {
  struct rlimit saved;
  if (::getrlimit(RLIMIT_FSIZE, &saved) != 0) return absl::InternalError("getrlimit failed");
  const auto saved_handler = ::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = limit;
  absl::Status status = absl::InternalError("setrlimit failed");
  if (::setrlimit(RLIMIT_FSIZE, &small) == 0) {
    status = WriteFileAtomically(path, contents);
    if (::setrlimit(RLIMIT_FSIZE, &saved) != 0) status = absl::InternalError("restoring failed");
  }
  ::signal(SIGXFSZ, saved_handler);
  return status;
}

TEST(FileWriter, AWriteThatFailsMidwayRemovesTheTemporaryAndKeepsTheOldFile) {
  const std::string dir = MakeTestDir();
  const std::string path = dir + "/out.svg";
  WriteRaw(path, "<svg/>\n");
  // A file size limit of 1 KiB makes writing 4 KiB fail after the temporary was created.
  const absl::Status status = WriteUnderFileSizeLimit(path, std::string(4096, 'x'), 1024);
  EXPECT_THAT(status,
              StatusIs(absl::StatusCode::kOutOfRange, "cannot write " + path + ": File too large"));
  EXPECT_EQ(ReadRaw(path), "<svg/>\n");
  EXPECT_THAT(ListDir(dir), ElementsAre("out.svg"));
}

// Past its first 4 MiB a temporary file is written with direct I/O in 2 MiB runs, its last run
// padded to 4 KiB and cut back (FileWriter::kDirectFrom). Files that end before, at and just past
// the switch, on a run's edge and mid-run, appended in pieces that straddle every edge, read back
// byte for byte at their own length. (Expected contents: the pattern below, generated again.)
TEST(FileWriter, LargeFilesPastTheDirectSwitchReadBackByteForByte) {
  const std::string dir = MakeTestDir();
  const size_t kMiB = size_t{1} << 20;
  for (const size_t size :
       {4 * kMiB - 1, 4 * kMiB, 4 * kMiB + 1, 6 * kMiB, 6 * kMiB + 4096, 9 * kMiB + 12345}) {
    std::string expected(size, '\0');
    for (size_t i = 0; i < size; ++i)
      expected[i] = static_cast<char>('a' + (i * 7 + i / 4099) % 26);
    const std::string path = absl::StrCat(dir, "/out-", size, ".csv");
    {
      absl::StatusOr<std::unique_ptr<FileWriter>> w = FileWriter::Open(path, {});
      ASSERT_THAT(w, IsOk());
      // Pieces of 1 byte to ~1.3 MiB, so that appends cross the switch and the runs' edges.
      size_t at = 0;
      for (size_t piece = 1; at < size; piece = piece * 3 + 1) {
        if (piece > 1400000) piece = 5;
        const size_t n = std::min(piece, size - at);
        ASSERT_THAT((*w)->Append(absl::string_view(expected).substr(at, n)), IsOk());
        at += n;
      }
      ASSERT_THAT((*w)->Commit(), IsOk());
    }
    const std::string got = ReadRaw(path);
    ASSERT_EQ(got.size(), size);
    EXPECT_TRUE(got == expected) << "contents differ for a file of " << size << " bytes";
  }
  EXPECT_THAT(ListDir(dir), SizeIs(6));  // no temporaries left
}

// A limit on the file size met by a direct write (the 5th MiB of an 8 MiB file): the same error
// as through the page cache, the temporary removed, the previous file kept.
TEST(FileWriter, ADirectWriteThatFailsRemovesTheTemporaryAndKeepsTheOldFile) {
  const std::string dir = MakeTestDir();
  const std::string path = dir + "/out.csv";
  WriteRaw(path, "previous\n");
  const absl::Status status = WriteUnderFileSizeLimit(path, std::string(8 << 20, 'x'), 5 << 20);
  EXPECT_THAT(status,
              StatusIs(absl::StatusCode::kOutOfRange, "cannot write " + path + ": File too large"));
  EXPECT_EQ(ReadRaw(path), "previous\n");
  EXPECT_THAT(ListDir(dir), ElementsAre("out.csv"));
}

TEST(FileWriter, ASymlinkPlantedAtATemporaryNameIsNeverFollowed) {
  const std::string dir = MakeTestDir();
  WriteRaw(dir + "/victim", "precious\n");
  // Whatever name an attacker plants, the writer's O_EXCL | O_NOFOLLOW open refuses to use it; here
  // every old-style predictable name (".out.csv.tmp-<pid>-*", "out.csv.tmp-<pid>") is planted.
  const std::string pid = std::to_string(::getpid());
  for (const std::string& planted : {"out.csv.tmp-" + pid, ".out.csv.tmp-" + pid}) {
    ASSERT_EQ(::symlink("victim", (dir + "/" + planted).c_str()), 0);
  }
  ASSERT_THAT(WriteFileAtomically(dir + "/out.csv", "rows\n"), IsOk());
  EXPECT_EQ(ReadRaw(dir + "/victim"), "precious\n");
  EXPECT_EQ(ReadRaw(dir + "/out.csv"), "rows\n");
  EXPECT_THAT(ListDir(dir), SizeIs(4));
}

TEST(FileWriter, SigintRemovesTheTemporaryAndKeepsThePreviousOutput) {
  const std::string dir = MakeTestDir();
  WriteRaw(dir + "/out.csv", "previous\n");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child writes half a file, then is interrupted as a user's ^C would.
    absl::StatusOr<std::unique_ptr<FileWriter>> w = FileWriter::Open(dir + "/out.csv", {});
    if (!w.ok() || !(*w)->Append("half").ok()) ::_exit(3);
    ::raise(SIGINT);
    ::_exit(4);  // not reached: SIGINT's default action ends the process
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << status;
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  EXPECT_EQ(ReadRaw(dir + "/out.csv"), "previous\n");
  EXPECT_THAT(ListDir(dir), ElementsAre("out.csv"));
}

TEST(FileWriter, DashWritesToStandardOutput) {
  ::testing::internal::CaptureStdout();
  const absl::Status status = WriteFileAtomically("-", "gpus,mfu\n8,0.6\n");
  const std::string printed = ::testing::internal::GetCapturedStdout();
  ASSERT_THAT(status, IsOk());
  EXPECT_EQ(printed, "gpus,mfu\n8,0.6\n");
}

TEST(FileWriter, AnEmptyPathIsRefused) {
  EXPECT_THAT(FileWriter::Open("", {}),
              StatusIs(absl::StatusCode::kInvalidArgument, "the output path is empty"));
  EXPECT_THAT(ListDir(MakeTestDir()), IsEmpty());
}

// --- outputs that must never be renamed over
// -------------------------------------------------------

// Runs `body` in a child whose standard output is `path` opened with `flags` (O_APPEND for the
// shell's `>>`), and returns the child's exit code (0 when `body` returned true).
template <typename Body>
int InChildWithStdout(const std::string& path, int flags, Body body) {
  const pid_t child = ::fork();
  if (child == 0) {
    const int fd = ::open(path.c_str(), flags | O_WRONLY | O_CREAT, 0644);
    if (fd < 0 || ::dup2(fd, STDOUT_FILENO) < 0) ::_exit(5);
    ::close(fd);
    ::_exit(body() ? 0 : 6);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

ino_t InodeOf(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 ? info.st_ino : 0;
}

TEST(FileWriter, DevStdoutAppendingToAFileAppends) {
  // printf 'old\n' > log.txt; dcplan ... --out=/dev/stdout >> log.txt: the plan goes after "old",
  // into the same file (same inode), nothing renamed over it.
  const std::string dir = MakeTestDir();
  const std::string log = dir + "/log.txt";
  WriteRaw(log, "old\n");
  const ino_t before = InodeOf(log);
  for (const std::string& out :
       {std::string("/dev/stdout"), std::string("/proc/self/fd/1"), std::string("/dev/fd/1"),
        absl::StrCat("/proc/", ::getpid(), "/fd/1"), log}) {
    EXPECT_EQ(
        InChildWithStdout(log, O_APPEND, [&] { return WriteFileAtomically(out, "plan\n").ok(); }),
        0)
        << out;
  }
  // /proc/<pid>/fd/1 names the parent's (the test's) descriptor from the child: another process's,
  // opened for appending and written through, never replaced. The test's stdout is not log.txt, so
  // that one line went there; the four others were appended.
  EXPECT_EQ(ReadRaw(log), "old\nplan\nplan\nplan\nplan\n");
  EXPECT_EQ(InodeOf(log), before);
  EXPECT_THAT(ListDir(dir), ElementsAre("log.txt"));
}

TEST(FileWriter, ALinkToAFileDescriptorIsWrittenThrough) {
  const std::string dir = MakeTestDir();
  const std::string log = dir + "/log.txt";
  WriteRaw(log, "old\n");
  const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  // A user's link to /dev/fd/<fd>, itself a link to /proc/self/fd: resolved at a later step.
  ASSERT_EQ(::symlink(absl::StrCat("/dev/fd/", fd).c_str(), (dir + "/link").c_str()), 0);
  EXPECT_THAT(WriteFileAtomically(dir + "/link", "one\n"), IsOk());
  EXPECT_THAT(WriteFileAtomically(absl::StrCat("/dev/fd/", fd), "two\n"), IsOk());
  ::close(fd);
  EXPECT_EQ(ReadRaw(log), "old\none\ntwo\n");
  EXPECT_THAT(ListDir(dir), ElementsAre("link", "log.txt"));
  // A descriptor open for reading only, or not open at all, is an error, never a rename.
  const int ro = ::open(log.c_str(), O_RDONLY);
  EXPECT_THAT(WriteFileAtomically(absl::StrCat("/proc/self/fd/", ro), "x"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("reading only")));
  ::close(ro);
  EXPECT_THAT(WriteFileAtomically("/dev/fd/987", "x"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "cannot write /dev/fd/987: Bad file descriptor"));
  EXPECT_EQ(ReadRaw(log), "old\none\ntwo\n");
}

TEST(FileWriter, ALinkPlantedByAnotherUserInAStickyDirectoryIsRefused) {
  // /tmp-like: sticky and world-writable. Another user (nobody, 65534) plants out.json -> victim;
  // a run (as root here) must not replace the victim, at the last step or an earlier one.
  const std::string dir = MakeTestDir();
  const std::string shared = dir + "/shared";
  ASSERT_EQ(::mkdir(shared.c_str(), 01777), 0);
  ASSERT_EQ(::chmod(shared.c_str(), 01777), 0);
  WriteRaw(dir + "/victim", "precious\n");
  ASSERT_EQ(::mkdir((dir + "/victims").c_str(), 0755), 0);
  ASSERT_EQ(::symlink((dir + "/victim").c_str(), (shared + "/out.json").c_str()), 0);
  ASSERT_EQ(::symlink((dir + "/victims").c_str(), (shared + "/d").c_str()), 0);
  if (::lchown((shared + "/out.json").c_str(), 65534, 65534) != 0 ||
      ::lchown((shared + "/d").c_str(), 65534, 65534) != 0) {
    GTEST_SKIP() << "cannot give a link to another user here (not root)";
  }
  EXPECT_THAT(WriteFileAtomically(shared + "/out.json", "plan\n"),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       "refusing to write " + shared + "/out.json: " + shared +
                           "/out.json is a symlink owned by another user (uid 65534) in the "
                           "shared (sticky) directory " +
                           shared));
  EXPECT_THAT(WriteFileAtomically(shared + "/d/new.json", "plan\n"),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr(shared + "/d is a symlink")));
  EXPECT_EQ(ReadRaw(dir + "/victim"), "precious\n");
  EXPECT_THAT(ListDir(dir + "/victims"), IsEmpty());
  // The same link owned by the writer is its own: followed.
  ASSERT_EQ(::lchown((shared + "/out.json").c_str(), ::geteuid(), ::getegid()), 0);
  EXPECT_THAT(WriteFileAtomically(shared + "/out.json", "plan\n"), IsOk());
  EXPECT_EQ(ReadRaw(dir + "/victim"), "plan\n");
}

TEST(FileWriter, EveryFileReadIsProtectedWithoutBeingNamed) {
  const std::string dir = MakeTestDir();
  WriteRaw(dir + "/workload.textproto", "layers: 2\n");
  ASSERT_EQ(::symlink("workload.textproto", (dir + "/alias").c_str()), 0);
  ASSERT_THAT(ReadFileBounded(dir + "/workload.textproto"), IsOk());
  EXPECT_THAT(WriteFileAtomically(dir + "/workload.textproto", "x", {}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "refusing to overwrite the input file " + dir + "/workload.textproto"));
  EXPECT_THAT(WriteFileAtomically(dir + "/alias", "x", {}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("input file")));
  EXPECT_EQ(ReadRaw(dir + "/workload.textproto"), "layers: 2\n");
}

TEST(FileWriter, EveryFatalSignalRemovesTheTemporary) {
  const std::string top = MakeTestDir();
  for (int sig : {SIGQUIT, SIGXFSZ, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGHUP, SIGRTMIN + 3}) {
    const std::string dir = absl::StrCat(top, "/", sig);
    ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
    WriteRaw(dir + "/out.csv", "previous\n");
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      struct rlimit no_core = {0, 0};
      ::setrlimit(RLIMIT_CORE, &no_core);
      absl::StatusOr<std::unique_ptr<FileWriter>> w = FileWriter::Open(dir + "/out.csv", {});
      if (!w.ok() || !(*w)->Append("half").ok()) ::_exit(3);
      ::raise(sig);
      ::_exit(4);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "signal " << sig << ": exit status " << status;
    EXPECT_EQ(WTERMSIG(status), sig);
    EXPECT_EQ(ReadRaw(dir + "/out.csv"), "previous\n");
    EXPECT_THAT(ListDir(dir), ElementsAre("out.csv")) << "signal " << sig;
  }
}

TEST(FileWriter, ADanglingLinksTargetIsRemovedWhenTheRunFails) {
  const std::string dir = MakeTestDir();
  ASSERT_EQ(::symlink("made.csv", (dir + "/link.csv").c_str()), 0);
  {
    absl::StatusOr<std::unique_ptr<FileWriter>> w = FileWriter::Open(dir + "/link.csv", {});
    ASSERT_THAT(w, IsOk());
  }  // no Commit
  EXPECT_THAT(ListDir(dir), ElementsAre("link.csv"));
}

TEST(FileWriter, ATargetSwappedForAnotherFileMeanwhileIsLeftAlone) {
  // Between Open and Commit the name is made to hold another file (an attacker's rename, another
  // run): only the file seen at Open may be replaced.
  const std::string dir = MakeTestDir();
  WriteRaw(dir + "/out.csv", "seen at open\n");
  absl::StatusOr<std::unique_ptr<FileWriter>> w = FileWriter::Open(dir + "/out.csv", {});
  ASSERT_THAT(w, IsOk());
  ASSERT_THAT((*w)->Append("rows\n"), IsOk());
  WriteRaw(dir + "/other", "someone else's\n");
  ASSERT_EQ(::rename((dir + "/other").c_str(), (dir + "/out.csv").c_str()), 0);
  EXPECT_THAT((*w)->Commit(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                       HasSubstr("was replaced by another file while dcplan wrote "
                                                 "it; left as it is")));
  EXPECT_EQ(ReadRaw(dir + "/out.csv"), "someone else's\n");
  EXPECT_THAT(ListDir(dir), ElementsAre("out.csv"));
}

}  // namespace
}  // namespace dcplan
