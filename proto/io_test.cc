// File: proto/io_test.cc
#include "proto/io.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_matchers.h"
#include "base/test_files.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "proto/plan.pb.h"
#include "proto/request.pb.h"

namespace dcplan {
namespace {

using ::dcplan::testing::IsOk;
using ::dcplan::testing::ListDir;
using ::dcplan::testing::MakeTestDir;
using ::dcplan::testing::ReadRaw;
using ::dcplan::testing::StatusIs;
using ::dcplan::testing::WriteRaw;
using ::google::protobuf::util::MessageDifferencer;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr Encoding kAllEncodings[] = {Encoding::kText, Encoding::kJson, Encoding::kBinary};

// A request touching every kind of field: strings (one with non-ASCII UTF-8), doubles,
// uint32/uint64, enums, an `optional` field, a oneof and a repeated message.
constexpr char kRequestText[] = R"pb(
  schema_version: SCHEMA_VERSION_1
  name: "H100 café — 50 MW"
  hardware {
    accelerator { name: "H100 SXM5" peak_flops_per_second: 9.89e14 tdp_watts: 700 }
    server { name: "DGX H100" gpus_per_server: 8 overhead_watts: 4600 }
    rack { max_servers_per_rack: 4 power_limit_watts: 41000 }
    network { nics_per_gpu: 1 switch_radix: 64 leaf_oversubscription: 1.5 }
  }
  site {
    pue: 1.25
    substation { transformer_rating_va: 1e8 redundancy: REDUNDANCY_N_PLUS_1 }
  }
  efficiency {
    table {
      points { gpus: 8 mfu: 0.6 }
      points { gpus: 16384 mfu: 0.4 }
    }
  }
  constraints { power_cap_watts: 5e7 max_gpus: 100000 }
)pb";

// A plan with a zero count (gpu_count), a repeated scalar, optional headroom and notes.
constexpr char kPlanText[] = R"pb(
  schema_version: SCHEMA_VERSION_1
  name: "empty site"
  counts { gpu_count: 0 server_count: 0 servers_per_rack: 4 }
  network { tiers: 2 switches_per_tier: 32 switches_per_tier: 16 }
  binding_constraint: BINDING_CONSTRAINT_FACILITY_POWER
  headroom { facility_power_watts: 0 gpus: 7 }
  notes: "no server fits under the cap"
)pb";

PlanRequest TestRequest() {
  PlanRequest request;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kRequestText, &request));
  return request;
}

Plan TestPlan() {
  Plan plan;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kPlanText, &plan));
  return plan;
}

TEST(EncodingName, NamesEveryEncoding) {
  EXPECT_EQ(EncodingName(Encoding::kText), "text");
  EXPECT_EQ(EncodingName(Encoding::kJson), "json");
  EXPECT_EQ(EncodingName(Encoding::kBinary), "binary");
}

TEST(ParseEncodingName, AcceptsNamesAndAliases) {
  EXPECT_EQ(*ParseEncodingName("text"), Encoding::kText);
  EXPECT_EQ(*ParseEncodingName("textproto"), Encoding::kText);
  EXPECT_EQ(*ParseEncodingName("json"), Encoding::kJson);
  EXPECT_EQ(*ParseEncodingName("binary"), Encoding::kBinary);
  EXPECT_EQ(*ParseEncodingName("pb"), Encoding::kBinary);
  EXPECT_EQ(*ParseEncodingName("JSON"), Encoding::kJson);
}

TEST(ParseEncodingName, RejectsUnknownNamesListingTheKnownOnes) {
  EXPECT_THAT(
      ParseEncodingName("yaml"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("\"yaml\""), HasSubstr("text, textproto, json, binary, pb"))));
  EXPECT_THAT(ParseEncodingName(""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("\"\"")));
}

TEST(EncodingFromPath, MapsEveryKnownExtension) {
  for (const char* path : {"a.textproto", "dir/a.txtpb", "/abs/a.pbtxt", "a.txt", "A.TEXTPROTO"}) {
    EXPECT_EQ(*EncodingFromPath(path), Encoding::kText) << path;
  }
  for (const char* path : {"plan.json", "x/y.z.json"}) {
    EXPECT_EQ(*EncodingFromPath(path), Encoding::kJson) << path;
  }
  for (const char* path : {"a.pb", "a.binpb", "a.bin"}) {
    EXPECT_EQ(*EncodingFromPath(path), Encoding::kBinary) << path;
  }
}

TEST(EncodingFromPath, RejectsUnknownExtensionsNamingThePathAndTheKnownOnes) {
  for (const char* path : {"request.yaml", "noextension", "dir.json/file", "-"}) {
    EXPECT_THAT(EncodingFromPath(path),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr(absl::StrCat("\"", path, "\"")), HasSubstr(".textproto"),
                               HasSubstr(".pbtxt"), HasSubstr(".json"), HasSubstr(".binpb"))))
        << path;
  }
}

TEST(SerializeMessage, RoundTripsARequestInEveryEncoding) {
  const PlanRequest request = TestRequest();
  for (Encoding encoding : kAllEncodings) {
    absl::StatusOr<std::string> data = SerializeMessage(request, encoding);
    ASSERT_THAT(data, IsOk());
    PlanRequest parsed;
    ASSERT_THAT(ParseMessage(*data, encoding, &parsed), IsOk()) << *data;
    EXPECT_TRUE(MessageDifferencer::Equals(parsed, request)) << EncodingName(encoding) << ":\n"
                                                             << parsed.DebugString();
  }
}

TEST(SerializeMessage, RoundTripsAPlanInEveryEncoding) {
  const Plan plan = TestPlan();
  for (Encoding encoding : kAllEncodings) {
    absl::StatusOr<std::string> data = SerializeMessage(plan, encoding);
    ASSERT_THAT(data, IsOk());
    Plan parsed;
    ASSERT_THAT(ParseMessage(*data, encoding, &parsed), IsOk()) << *data;
    EXPECT_TRUE(MessageDifferencer::Equals(parsed, plan)) << EncodingName(encoding) << ":\n"
                                                          << parsed.DebugString();
    // Explicit presence survives: the zero facility headroom is still set, the unset budget is not.
    EXPECT_TRUE(parsed.headroom().has_facility_power_watts()) << EncodingName(encoding);
    EXPECT_FALSE(parsed.headroom().has_budget_usd()) << EncodingName(encoding);
  }
}

TEST(SerializeMessage, TextKeepsUtf8Unescaped) {
  const absl::StatusOr<std::string> text = SerializeMessage(TestRequest(), Encoding::kText);
  ASSERT_THAT(text, IsOk());
  EXPECT_THAT(*text, HasSubstr("name: \"H100 café — 50 MW\""));
}

TEST(SerializeMessage, JsonUsesOriginalFieldNamesAndPrintsZeros) {
  const absl::StatusOr<std::string> request_json = SerializeMessage(TestRequest(), Encoding::kJson);
  ASSERT_THAT(request_json, IsOk());
  EXPECT_THAT(*request_json, HasSubstr("\"gpus_per_server\": 8"));
  EXPECT_THAT(*request_json, Not(HasSubstr("gpusPerServer")));

  const absl::StatusOr<std::string> plan_json = SerializeMessage(TestPlan(), Encoding::kJson);
  ASSERT_THAT(plan_json, IsOk());
  // uint64 is a string in proto3 JSON; the zero count is printed although it is the default. uint32
  // stays a number.
  EXPECT_THAT(*plan_json, HasSubstr("\"gpu_count\": \"0\""));
  EXPECT_THAT(*plan_json, HasSubstr("\"servers_per_rack\": 4"));
  EXPECT_THAT(*plan_json, HasSubstr("\"switches_per_tier\": [\n"));
  EXPECT_THAT(*plan_json,
              HasSubstr("\"binding_constraint\": \"BINDING_CONSTRAINT_FACILITY_POWER\""));
  ASSERT_FALSE(plan_json->empty());
  EXPECT_EQ(plan_json->back(), '\n');
}

TEST(ParseMessage, AcceptsLowerCamelCaseJson) {
  PlanRequest request;
  ASSERT_THAT(ParseMessage(R"({"hardware": {"server": {"gpusPerServer": 8},
                               "rack": {"max_servers_per_rack": 4}},
                               "site": {"maxBuildings": 2}})",
                           Encoding::kJson, &request),
              IsOk());
  EXPECT_EQ(request.hardware().server().gpus_per_server(), 8u);
  EXPECT_EQ(request.hardware().rack().max_servers_per_rack(), 4u);
  EXPECT_EQ(request.site().max_buildings(), 2u);
}

TEST(ParseMessage, RejectsUnknownJsonFields) {
  PlanRequest request;
  EXPECT_THAT(
      ParseMessage(R"({"hardware": {"server": {"gpus_per_rack": 8}}})", Encoding::kJson, &request),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("dcplan.PlanRequest"), HasSubstr("gpus_per_rack"))));
}

TEST(ParseMessage, RejectsJsonWithAKeyGivenTwice) {
  // The proto3 JSON parser keeps the last of two values silently; the text format refuses a field
  // given twice, and so does JSON now, naming the field's path. "powerCapWatts" is the same field
  // as "power_cap_watts" (its json_name); an array element's keys are their own object's.
  const std::pair<const char*, const char*> cases[] = {
      {R"({"name": "a", "name": "b"})", "name"},
      {R"({"constraints": {"power_cap_watts": 1, "powerCapWatts": 2}})",
       "constraints.powerCapWatts"},
      {R"({"site": {"pue": 1.2}, "site": {"pue": 1.5}})", "site"},
      {R"({"efficiency": {"table": {"points": [{"gpus": 1, "mfu": 0.5}, {"gpus": 8, "gpus": 9}]}}})",
       "efficiency.table.points[1].gpus"},
      {R"({"n\u0061me": "a", "name": "b"})", "name"},
  };
  for (const auto& [json, path] : cases) {
    PlanRequest request;
    EXPECT_THAT(
        ParseMessage(json, Encoding::kJson, &request),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 absl::StrCat("invalid JSON for dcplan.PlanRequest: ", path, " is given twice")))
        << json;
  }
  // The same key in two different objects, and in two array elements, is no repetition.
  PlanRequest request;
  EXPECT_THAT(ParseMessage(R"({"name": "x", "hardware": {"accelerator": {"name": "y"}},
                                "efficiency": {"table": {"points": [{"gpus": 1, "mfu": 0.5},
                                                                    {"gpus": 8, "mfu": 0.4}]}}})",
                           Encoding::kJson, &request),
              IsOk());
}

TEST(ParseMessage, RejectsMalformedJsonOnOneLine) {
  PlanRequest request;
  // A comma is missing after "x". The parser's message is followed by an excerpt of the input up to
  // the error, escaped (the newline becomes \n), so no newline is left in the message.
  const absl::Status status =
      ParseMessage("{\"name\": \"x\"\n \"site\": {}}", Encoding::kJson, &request);
  EXPECT_THAT(status,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(R"(invalid JSON for dcplan.PlanRequest: Expected , or } after )"
                                 R"(key:value pair near "{\"name\": \"x\"\n \"site\")")));
  EXPECT_THAT(std::string(status.message()), Not(HasSubstr("\n")));
  EXPECT_THAT(ParseMessage("{\"name\": \"x\",", Encoding::kJson, &request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid JSON")));
}

TEST(ParseMessage, RejectsJsonValuesOfTheWrongTypeNamingTheField) {
  PlanRequest request;
  EXPECT_THAT(ParseMessage(R"({"site": {"max_buildings": -3}})", Encoding::kJson, &request),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("(site.max_buildings): invalid value -3 for type TYPE_UINT32")));
}

TEST(ParseMessage, TextErrorsCarryLineAndColumn) {
  PlanRequest request;
  // The parser reports the position after the unknown name, where it looked for the ':': line 3,
  // column 25 (1-based) = 2 spaces + "server { " (9) + "gpus_per_rack" (13) + 1.
  EXPECT_THAT(ParseMessage("name: \"x\"\n"
                           "hardware {\n"
                           "  server { gpus_per_rack: 8 }\n"
                           "}\n",
                           Encoding::kText, &request),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("3:25: "), HasSubstr("no field named \"gpus_per_rack\""))));
}

TEST(ParseMessage, ClearsTheMessageFirst) {
  PlanRequest request;
  request.set_name("old");
  request.mutable_site()->set_max_buildings(3);
  ASSERT_THAT(ParseMessage("site { pue: 1.2 }", Encoding::kText, &request), IsOk());
  EXPECT_EQ(request.name(), "");
  EXPECT_EQ(request.site().max_buildings(), 0u);
  EXPECT_DOUBLE_EQ(request.site().pue(), 1.2);
}

TEST(ParseMessage, RejectsTruncatedBinary) {
  const absl::StatusOr<std::string> data = SerializeMessage(TestRequest(), Encoding::kBinary);
  ASSERT_THAT(data, IsOk());
  PlanRequest request;
  // The last field written is constraints (field 6, a length-delimited submessage): cutting its
  // last byte leaves a length prefix promising more bytes than there are.
  EXPECT_THAT(ParseMessage(data->substr(0, data->size() - 1), Encoding::kBinary, &request),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("not a valid binary dcplan.PlanRequest")));
}

TEST(ParseMessage, SurvivesEveryPrefixOfEveryEncoding) {
  // Under ASan this checks that no prefix reads out of bounds; without, that none crashes.
  const PlanRequest full = TestRequest();
  for (Encoding encoding : kAllEncodings) {
    const absl::StatusOr<std::string> data = SerializeMessage(full, encoding);
    ASSERT_THAT(data, IsOk());
    for (std::size_t n = 0; n <= data->size(); ++n) {
      PlanRequest request;
      const absl::Status status = ParseMessage(data->substr(0, n), encoding, &request);
      if (n == data->size()) {
        EXPECT_THAT(status, IsOk()) << EncodingName(encoding);
      }
    }
  }
}

TEST(ParseMessage, RejectsArbitraryBytesWithoutCrashing) {
  const std::string garbage("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x00\x7f{[\"", 16);
  for (Encoding encoding : kAllEncodings) {
    PlanRequest request;
    EXPECT_THAT(ParseMessage(garbage, encoding, &request),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("dcplan.PlanRequest")))
        << EncodingName(encoding);
  }
}

TEST(ParseMessage, RejectsDeepNestingWithoutOverflowingTheStack) {
  // google.protobuf.Value nests without bound; 100000 levels are far past every parser's recursion
  // limit (100), so each must refuse rather than recurse.
  constexpr int kDepth = 100000;
  std::string json;
  for (int i = 0; i < kDepth; ++i) json += "[";
  std::string text;
  for (int i = 0; i < kDepth; ++i) text += "list_value { values { ";
  // Tag 0x7B = (15 << 3) | 3: a start-group of the unknown field 15; unknown groups nest as deep as
  // their tags go.
  const std::string binary(kDepth, '\x7b');
  for (const auto& [encoding, data] :
       {std::make_pair(Encoding::kJson, json), std::make_pair(Encoding::kText, text),
        std::make_pair(Encoding::kBinary, binary)}) {
    google::protobuf::Value value;
    EXPECT_THAT(ParseMessage(data, encoding, &value),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("google.protobuf.Value")))
        << EncodingName(encoding);
  }
}

TEST(ParseMessage, RejectsInvalidUtf8InBinaryStringsSilently) {
  // Field 2 (name), length-delimited (tag 0x12), 2 bytes: 0xC3 0x28 is an invalid UTF-8 sequence,
  // which proto3 string fields refuse.
  const std::string data("\x12\x02\xc3\x28", 4);
  PlanRequest request;
  ::testing::internal::CaptureStderr();
  const absl::Status status = ParseMessage(data, Encoding::kBinary, &request);
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                               HasSubstr("not a valid binary dcplan.PlanRequest")));
  EXPECT_EQ(printed, "");
}

TEST(ReadMessageFile, ReadsEveryEncodingByExtension) {
  const std::string dir = MakeTestDir();
  const PlanRequest request = TestRequest();
  for (const char* name : {"r.textproto", "r.json", "r.pb"}) {
    const std::string path = absl::StrCat(dir, "/", name);
    ASSERT_THAT(WriteMessageFile(path, *EncodingFromPath(path), request), IsOk());
    PlanRequest read;
    ASSERT_THAT(ReadMessageFile(path, std::nullopt, &read), IsOk()) << name;
    EXPECT_TRUE(MessageDifferencer::Equals(read, request)) << name;
  }
}

TEST(ReadMessageFile, AnExplicitEncodingOverridesTheExtension) {
  const std::string dir = MakeTestDir();
  const std::string path = dir + "/request.data";
  WriteRaw(path, R"({"name": "from json"})");
  PlanRequest request;
  EXPECT_THAT(ReadMessageFile(path, std::nullopt, &request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(path)));
  ASSERT_THAT(ReadMessageFile(path, Encoding::kJson, &request), IsOk());
  EXPECT_EQ(request.name(), "from json");
}

TEST(ReadMessageFile, ReadsStandardInputGivenAnEncoding) {
  const std::string dir = MakeTestDir();
  const std::string path = dir + "/stdin.textproto";
  WriteRaw(path, "name: \"piped\"\n");
  const int saved = ::dup(STDIN_FILENO);
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::dup2(fd, STDIN_FILENO), STDIN_FILENO);
  ::close(fd);
  PlanRequest request;
  const absl::Status without_encoding = ReadMessageFile("-", std::nullopt, &request);
  const absl::Status with_encoding = ReadMessageFile("-", Encoding::kText, &request);
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
  EXPECT_THAT(without_encoding, StatusIs(absl::StatusCode::kInvalidArgument,
                                         HasSubstr("needs an explicit encoding")));
  ASSERT_THAT(with_encoding, IsOk());
  EXPECT_EQ(request.name(), "piped");
}

TEST(ReadMessageFile, ReportsAMissingFile) {
  const std::string dir = MakeTestDir();
  const std::string path = dir + "/missing.textproto";
  PlanRequest request;
  EXPECT_THAT(ReadMessageFile(path, std::nullopt, &request),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(path + " does not exist")));
}

TEST(ReadMessageFile, ReportsADirectory) {
  const std::string dir = MakeTestDir();
  const std::string path = dir + "/sub.json";
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  PlanRequest request;
  EXPECT_THAT(ReadMessageFile(path, std::nullopt, &request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(path + " is a directory")));
}

TEST(ReadMessageFile, ReportsAnUnreadableFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads files whatever their permissions";
  const std::string dir = MakeTestDir();
  const std::string path = dir + "/secret.textproto";
  WriteRaw(path, "name: \"x\"");
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  PlanRequest request;
  EXPECT_THAT(ReadMessageFile(path, std::nullopt, &request),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr(path + " is not readable")));
}

TEST(ReadMessageFile, ReportsAnEmptyFile) {
  const std::string dir = MakeTestDir();
  const std::string path = dir + "/empty.textproto";
  WriteRaw(path, "");
  PlanRequest request;
  EXPECT_THAT(ReadMessageFile(path, std::nullopt, &request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(path + " is empty")));
}

TEST(ReadMessageFile, ReportsAFileOverTheSizeLimit) {
  const std::string dir = MakeTestDir();
  // Sparse files: exactly the limit passes the size check (and then fails to parse, as zero bytes
  // are not a valid binary proto: field number 0); one byte more is refused before parsing.
  const std::string at_limit = dir + "/at_limit.pb";
  const std::string over_limit = dir + "/over_limit.pb";
  for (const auto& [path, size] :
       {std::make_pair(at_limit, kMaxInputBytes), std::make_pair(over_limit, kMaxInputBytes + 1)}) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0);
    ::close(fd);
  }
  PlanRequest request;
  EXPECT_THAT(ReadMessageFile(at_limit, std::nullopt, &request),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(at_limit + ": not a valid binary dcplan.PlanRequest")));
  EXPECT_THAT(ReadMessageFile(over_limit, std::nullopt, &request),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(over_limit + " is larger than the 64 MiB limit")));
}

TEST(ReadMessageFile, PrefixesParseErrorsWithThePath) {
  const std::string dir = MakeTestDir();
  const std::string path = dir + "/bad.textproto";
  WriteRaw(path, "name: \"x\"\nsite { pue: \"high\" }\n");
  PlanRequest request;
  EXPECT_THAT(ReadMessageFile(path, std::nullopt, &request),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       // Line 2, column 13 (1-based) is the string's opening quote:
                       // "site { pue: " is 12 characters.
                       HasSubstr(path + ": invalid text-format dcplan.PlanRequest: 2:13: "
                                        "Expected double, got: \"high\"")));
}

// The writer itself (devices, FIFOs, symlinks, temporaries, full disks, signals) is tested in
// base/file_io_test.cc; WriteTextFile and WriteMessageFile are that writer.
TEST(WriteTextFile, IsTheOneAtomicWriter) {
  const std::string dir = MakeTestDir();
  WriteRaw(dir + "/out.csv", "old\n");
  ASSERT_THAT(WriteTextFile(dir + "/out.csv", "a,b\n"), IsOk());
  EXPECT_EQ(ReadRaw(dir + "/out.csv"), "a,b\n");
  EXPECT_THAT(WriteTextFile("/dev/full", "x"),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       "cannot write /dev/full: No space left on device"));
  EXPECT_THAT(ListDir(dir), ElementsAre("out.csv"));
}

TEST(WriteMessageFile, RefusesToOverwriteAnInput) {
  const std::string dir = MakeTestDir();
  const std::string input = dir + "/request.textproto";
  const std::string original = "name: \"original\"\n";
  WriteRaw(input, original);
  const std::string link = dir + "/link.textproto";
  ASSERT_EQ(::symlink(input.c_str(), link.c_str()), 0);
  const std::string hard_link = dir + "/hard.textproto";
  ASSERT_EQ(::link(input.c_str(), hard_link.c_str()), 0);

  PlanRequest request;
  request.set_name("replacement");
  // The same file by its own name, with a redundant "./", through a symlink and through a hard
  // link.
  for (const std::string& out : {input, dir + "/./request.textproto", link, hard_link}) {
    EXPECT_THAT(WriteMessageFile(out, Encoding::kText, request, {"unrelated.json", input}),
                StatusIs(absl::StatusCode::kFailedPrecondition,
                         HasSubstr("refusing to overwrite the input file " + out)))
        << out;
  }
  EXPECT_EQ(ReadRaw(input), original);
  EXPECT_THAT(ListDir(dir), ElementsAre("hard.textproto", "link.textproto", "request.textproto"));
}

TEST(WriteMessageFile, AFailedWriteLeavesNothingBehind) {
  const std::string dir = MakeTestDir();
  PlanRequest request;
  request.set_name("x");
  // Into a directory that does not exist.
  EXPECT_THAT(WriteMessageFile(dir + "/missing/plan.json", Encoding::kJson, request),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(dir + "/missing/plan.json")));
  // Over a directory: refused before anything is written.
  ASSERT_EQ(::mkdir((dir + "/sub").c_str(), 0755), 0);
  EXPECT_THAT(WriteMessageFile(dir + "/sub", Encoding::kJson, request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(dir + "/sub is a directory")));
  EXPECT_THAT(ListDir(dir), ElementsAre("sub"));
  EXPECT_THAT(ListDir(dir + "/sub"), IsEmpty());
}

}  // namespace
}  // namespace dcplan
