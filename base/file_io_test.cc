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

TEST(FileWriter, AWriteThatFailsMidwayRemovesTheTemporaryAndKeepsTheOldFile) {
  const std::string dir = MakeTestDir();
  const std::string path = dir + "/out.svg";
  WriteRaw(path, "<svg/>\n");
  // A file size limit of 1 KiB makes writing 4 KiB fail with EFBIG after the temporary was created
  // (SIGXFSZ ignored, so the write returns an error instead of killing the test): a full disk as
  // far as the writer can tell. Nothing may be printed while the limit is in force.
  struct rlimit saved;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto saved_handler = ::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const absl::Status status = WriteFileAtomically(path, std::string(4096, 'x'));
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &saved), 0);
  ::signal(SIGXFSZ, saved_handler);

  EXPECT_THAT(status,
              StatusIs(absl::StatusCode::kOutOfRange, "cannot write " + path + ": File too large"));
  EXPECT_EQ(ReadRaw(path), "<svg/>\n");
  EXPECT_THAT(ListDir(dir), ElementsAre("out.svg"));
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

}  // namespace
}  // namespace dcplan
