#include "proto/json_fast.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "proto/plan.pb.h"
#include "proto/plan_json.h"
#include "proto/request.pb.h"
#include "proto/request_json.h"
#include "proto/service.pb.h"
#include "proto/training.pb.h"
#include "proto/workload.pb.h"

namespace dcplan {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// protobuf's own printer with io.h's options: the reference the fast path must equal byte for byte.
std::string ProtobufJson(const Message& m, bool indent) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = indent;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string out;
  EXPECT_TRUE(google::protobuf::util::MessageToJsonString(m, &out, options).ok());
  // protobuf ends indented output with a newline; PrintJsonFast leaves that to the caller.
  if (indent && !out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string Deterministic(const Message& m) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  m.SerializeToCodedStream(&coded);
  return out;
}

int fast_parses = 0;  // how many texts ExpectSameAsProtobuf's fast parser took (not declined)

// Prints `m` both ways with both codecs, and parses each text back with both: all must agree
// (presence included: the binary forms are compared).
void ExpectSameAsProtobuf(const Message& m) {
  for (bool indent : {true, false}) {
    std::string fast;
    ASSERT_TRUE(PrintJsonFast(m, indent, &fast)) << m.DebugString();
    const std::string reference = ProtobufJson(m, indent);
    ASSERT_EQ(fast, reference);
    std::unique_ptr<Message> a(m.New()), b(m.New());
    if (!ParseJsonFast(fast, a.get())) {
      // Declined: only for text with escapes or a negative zero, which it leaves to protobuf.
      bool negative_zero = false;
      for (const char* z : {"-0,", "-0\n", "-0}", "-0]"}) {
        negative_zero = negative_zero || fast.find(z) != std::string::npos;
      }
      EXPECT_TRUE(fast.find('\\') != std::string::npos || negative_zero) << fast;
      continue;
    }
    ++fast_parses;
    google::protobuf::util::JsonParseOptions options;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(fast, b.get(), options).ok());
    EXPECT_EQ(Deterministic(*a), Deterministic(*b)) << fast << "\nfast:\n"
                                                    << a->DebugString() << "\nprotobuf:\n"
                                                    << b->DebugString();
  }
}

// Sets every field of `m` (recursively, `depth` levels) to random values of its type, repeated
// fields to 0-3 elements, leaving some unset: what the schema allows, extremes included.
void Randomize(Message* m, std::mt19937_64& rng, int depth) {
  const Reflection* r = m->GetReflection();
  const google::protobuf::Descriptor* d = m->GetDescriptor();
  std::uniform_int_distribution<int> coin(0, 3);
  const double doubles[] = {0.0,
                            -0.0,
                            1.0,
                            0.1,
                            1.0 / 3.0,
                            45.9e6,
                            1e15,
                            2.25e15,
                            1e-310,
                            1e308,
                            -7.5,
                            1e21,
                            123456789.123,
                            std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::infinity(),
                            5e-324,
                            0.31998591461977505};
  const char* strings[] = {"", "h100-dgx", "H100 SXM5 80GB",
                           "a \"quoted\" <name> & \\ \t\n\x01\x7f"};
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (coin(rng) == 0) continue;
    if (f->real_containing_oneof() != nullptr && coin(rng) < 2) continue;
    const int n = f->is_repeated() ? coin(rng) : 1;
    for (int k = 0; k < n; ++k) {
      const bool rep = f->is_repeated();
      switch (f->cpp_type()) {
        case FieldDescriptor::CPPTYPE_MESSAGE:
          if (depth <= 0) break;
          Randomize(rep ? r->AddMessage(m, f) : r->MutableMessage(m, f), rng, depth - 1);
          break;
        case FieldDescriptor::CPPTYPE_DOUBLE: {
          const double v = doubles[rng() % std::size(doubles)] * (coin(rng) == 0 ? -1 : 1);
          rep ? r->AddDouble(m, f, v) : r->SetDouble(m, f, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_UINT32: {
          const uint32_t v = coin(rng) == 0 ? 4294967295u : static_cast<uint32_t>(rng() % 1000);
          rep ? r->AddUInt32(m, f, v) : r->SetUInt32(m, f, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_UINT64: {
          const uint64_t v = coin(rng) == 0 ? ~uint64_t{0} : rng() % 100000;
          rep ? r->AddUInt64(m, f, v) : r->SetUInt64(m, f, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_INT32: {
          const int32_t v = coin(rng) == 0 ? std::numeric_limits<int32_t>::min()
                                           : static_cast<int32_t>(rng() % 2000) - 1000;
          rep ? r->AddInt32(m, f, v) : r->SetInt32(m, f, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_INT64: {
          const int64_t v = coin(rng) == 0 ? std::numeric_limits<int64_t>::min()
                                           : static_cast<int64_t>(rng() % 2000) - 1000;
          rep ? r->AddInt64(m, f, v) : r->SetInt64(m, f, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_BOOL:
          rep ? r->AddBool(m, f, coin(rng) < 2) : r->SetBool(m, f, coin(rng) < 2);
          break;
        case FieldDescriptor::CPPTYPE_ENUM: {
          const auto* e = f->enum_type();
          const int v = e->value(static_cast<int>(rng() % e->value_count()))->number();
          rep ? r->AddEnumValue(m, f, v) : r->SetEnumValue(m, f, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_STRING: {
          const std::string v = strings[rng() % std::size(strings)];
          rep ? r->AddString(m, f, v) : r->SetString(m, f, v);
          break;
        }
        default:
          break;
      }
    }
  }
}

TEST(JsonFast, PrintsAndParsesEveryMessageTypeAsProtobufDoes) {
  // Generated messages of every type the API and CLI exchange, a few thousand in all.
  std::mt19937_64 rng(20261204);
  std::vector<std::unique_ptr<Message>> prototypes;
  prototypes.emplace_back(new PlanRequest);
  prototypes.emplace_back(new Plan);
  prototypes.emplace_back(new ScaleReport);
  prototypes.emplace_back(new Comparison);
  prototypes.emplace_back(new TrainingPlan);
  prototypes.emplace_back(new Workload);
  prototypes.emplace_back(new ScaleRequest);
  prototypes.emplace_back(new SweepResult);
  prototypes.emplace_back(new PresetList);
  prototypes.emplace_back(new ErrorBody);
  for (const auto& prototype : prototypes) {
    for (int i = 0; i < 300; ++i) {
      std::unique_ptr<Message> m(prototype->New());
      Randomize(m.get(), rng, 3);
      ExpectSameAsProtobuf(*m);
      if (HasFatalFailure()) return;
    }
    ExpectSameAsProtobuf(*prototype);  // empty: every primitive field at its default
  }
  // A good share of the texts take the fast path (the others have escapes or a -0 somewhere; each
  // new field makes a random message likelier to hold one, so the floor is a quarter, not a count).
  EXPECT_GT(fast_parses, 2 * 301 * 10 / 4) << "of " << 2 * 301 * 10;
}

TEST(JsonFast, GeneratedPlanPrinterWritesWhatProtobufWrites) {
  // proto/plan_json.h's printer, generated from plan.proto, called directly on Plans filled six
  // levels deep (every message type inside a Plan reached), compact and indented, as the top
  // level and as if nested two levels down; the reference is protobuf's own printer.
  std::mt19937_64 rng(20261206);
  for (int i = 0; i < 400; ++i) {
    Plan plan;
    Randomize(&plan, rng, 6);
    for (bool indent : {false, true}) {
      std::string out = "prefix";
      if (!PrintPlanJson(plan, indent, 0, &out)) {
        // Declines only what protobuf's printer must take (none of Randomize's strings).
        ADD_FAILURE() << plan.DebugString();
        return;
      }
      ASSERT_EQ(out, "prefix" + ProtobufJson(plan, indent));
    }
  }
  // Texts far beyond the printer's first 16 KiB of room, escapes included, so that it grows the
  // output mid-string and mid-list.
  Plan big;
  big.set_name(std::string(40000, 'a') + "<\n\x01\"" + std::string(30000, 'b'));
  for (int i = 0; i < 3000; ++i) big.add_notes(absl::StrCat("note ", i, " \t<>"));
  for (bool indent : {false, true}) {
    std::string out = "prefix";
    ASSERT_TRUE(PrintPlanJson(big, indent, 0, &out));
    ASSERT_EQ(out, "prefix" + ProtobufJson(big, indent));
  }
  // Nested: each line of the indented text two more spaces in.
  Plan plan;
  plan.set_name("seed");
  std::string nested;
  ASSERT_TRUE(PrintPlanJson(plan, true, 2, &nested));
  std::string top;
  ASSERT_TRUE(PrintPlanJson(plan, true, 0, &top));
  EXPECT_EQ(nested, absl::StrReplaceAll(top, {{"\n", "\n  "}}));
  // A non-ASCII string is declined with the output untouched (the caller falls back to protobuf).
  plan.set_name("h100-dgx \xc3\xa9");
  std::string declined = "kept";
  EXPECT_FALSE(PrintPlanJson(plan, false, 0, &declined));
  EXPECT_EQ(declined, "kept");
}

// `text` as protobuf reads it (its binary form), or "declined" when protobuf refuses it.
std::string ProtobufReads(const std::string& text) {
  PlanRequest r;
  if (!google::protobuf::util::JsonStringToMessage(text, &r, {}).ok()) return "refused";
  return Deterministic(r);
}

// Replaces what the fast path declines (strings with escapes, negative zeros) in `m` and every
// message in it, so that a random message's text is mostly read.
void MakeReadable(Message* m) {
  const Reflection* r = m->GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r->ListFields(*m, &fields);
  for (const FieldDescriptor* f : fields) {
    const int n = f->is_repeated() ? r->FieldSize(*m, f) : 1;
    for (int j = 0; j < n; ++j) {
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        MakeReadable(f->is_repeated() ? r->MutableRepeatedMessage(m, f, j)
                                      : r->MutableMessage(m, f));
      } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
        const std::string v =
            f->is_repeated() ? r->GetRepeatedString(*m, f, j) : r->GetString(*m, f);
        if (v.find_first_of("\"\\\t\n\x01\x7f<>&") == std::string::npos) continue;
        f->is_repeated() ? r->SetRepeatedString(m, f, j, "plain") : r->SetString(m, f, "plain");
      } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE) {
        const double v = f->is_repeated() ? r->GetRepeatedDouble(*m, f, j) : r->GetDouble(*m, f);
        if (v != 0 || !std::signbit(v)) continue;
        f->is_repeated() ? r->SetRepeatedDouble(m, f, j, 0.0) : r->SetDouble(m, f, 0.0);
      }
    }
  }
}

TEST(JsonFast, GeneratedRequestParserReadsWhatProtobufReads) {
  // proto/request_json.h's parser, generated from request.proto, on PlanRequests filled two and
  // six levels deep, written by protobuf with the proto names and with the lowerCamelCase
  // json_names, compact and indented; and on every one of those texts cut short or with one byte
  // changed. Whatever it reads must read as protobuf reads it; it must read most of the whole
  // texts.
  std::mt19937_64 rng(20261207);
  int texts = 0, read = 0;
  auto check = [&](const std::string& text) {
    PlanRequest fast;
    if (!ParsePlanRequestJson(text, &fast)) return false;
    const std::string reference = ProtobufReads(text);
    EXPECT_EQ(Deterministic(fast), reference) << text;
    return true;
  };
  for (int i = 0; i < 800; ++i) {
    PlanRequest request;
    // Deep ones (every message type reached) and shallow ones, half of them without what the
    // fast path declines.
    Randomize(&request, rng, i % 2 == 0 ? 6 : 2);
    if (i % 4 < 2) MakeReadable(&request);
    for (bool names : {true, false}) {
      for (bool indent : {false, true}) {
        google::protobuf::util::JsonPrintOptions options;
        options.add_whitespace = indent;
        options.preserve_proto_field_names = names;
        std::string text;
        ASSERT_TRUE(google::protobuf::util::MessageToJsonString(request, &text, options).ok());
        ++texts;
        if (check(text)) ++read;
        if (HasFailure()) return;
        std::uniform_int_distribution<size_t> at(0, text.size() - 1);
        for (int k = 0; k < 4; ++k) {
          std::string changed = text;
          changed[at(rng)] = "\"{}[],:0-e.9aZ "[rng() % 16];
          check(changed);
          check(text.substr(0, at(rng)));
        }
        if (HasFailure()) return;
      }
    }
  }
  EXPECT_GT(read, texts * 4 / 10) << "of " << texts;
}

TEST(JsonFast, GeneratedRequestParserDeclinesWhatJsonFastDeclines) {
  // Each a text protobuf reads its own way (or refuses): a field twice, two members of a oneof,
  // an unknown field, null, an escape, a negative zero, a float given as a string, trailing text.
  for (const char* text : {
           R"({"name": "a", "name": "b"})",
           R"({"efficiency": {"constant": {"mfu": 0.4}, "logLinear": {"intercept": 0.6}}})",
           R"({"nonsense": 1})",
           R"({"hardware": null})",
           R"({"name": "a\u0041"})",
           R"({"site": {"pue": -0}})",
           R"({"site": {"pue": "1.2"}})",
           R"({"name": "a"} x)",
           R"({"site": {"pue": 1.2},})",
           // The key expected next compared in place: a longer or shorter key is another key.
           R"({"schema_version": "SCHEMA_VERSION_1", "namex": "a"})",
           R"({"schema_version": "SCHEMA_VERSION_1", "nam": "a"})",
           R"({"schema_version": "SCHEMA_VERSION_1", "name" "a"})",
       }) {
    PlanRequest r;
    EXPECT_FALSE(ParsePlanRequestJson(text, &r)) << text;
  }
  // And reads a key by its proto name or its json_name, in any order.
  PlanRequest r;
  ASSERT_TRUE(ParsePlanRequestJson(
      R"({"site": {"annualPue": 1.1, "pue": 1.3}, "constraints": {"power_cap_watts": 5e7}})", &r));
  EXPECT_EQ(r.site().pue(), 1.3);
  EXPECT_EQ(r.site().annual_pue(), 1.1);
  EXPECT_EQ(r.constraints().power_cap_watts(), 5e7);
}

TEST(JsonFast, EscapesEveryAsciiCharacterAsProtobufDoes) {
  ErrorBody e;
  std::string all;
  for (int c = 1; c < 128; ++c) all.push_back(static_cast<char>(c));
  e.set_error(all);
  ExpectSameAsProtobuf(e);
}

TEST(JsonFast, PrintsDoublesInTheShortestFormThatReadsBack) {
  // %.15g when it reads back exactly, else %.17g (protobuf's SimpleDtoa): 0.1 stays "0.1",
  // 1/3 needs 17 digits, 45.9 MW prints "45900000", 1e15 "1e+15".
  ErrorBody unused;
  PowerBreakdown p;
  p.set_gpu_power_watts(0.1);
  p.set_it_power_watts(1.0 / 3.0);
  p.set_facility_power_watts(45.9e6);
  p.set_pue(1e15);
  std::string out;
  ASSERT_TRUE(PrintJsonFast(p, false, &out));
  EXPECT_NE(out.find("\"gpu_power_watts\":0.1,"), std::string::npos) << out;
  EXPECT_NE(out.find("\"it_power_watts\":0.33333333333333331,"), std::string::npos) << out;
  EXPECT_NE(out.find("\"facility_power_watts\":45900000,"), std::string::npos) << out;
  EXPECT_NE(out.find("\"pue\":1e+15,"), std::string::npos) << out;
  ExpectSameAsProtobuf(p);
}

TEST(JsonFast, PrintsEveryKindOfDoubleAsProtobufDoes) {
  // Random bit patterns (every exponent, subnormals included), decimals of 1 to 17 digits at every
  // scale, and whole numbers around 10^15 and 2^53: each printed by both, one field at a time.
  std::mt19937_64 rng(22);
  PowerBreakdown p;
  for (int i = 0; i < 30000; ++i) {
    double v;
    switch (i % 3) {
      case 0: {
        const uint64_t bits = rng();
        std::memcpy(&v, &bits, sizeof(v));
        break;
      }
      case 1: {
        const int digits = 1 + static_cast<int>(rng() % 17);
        const double mantissa = static_cast<double>(rng() % 100000000000000000ULL);
        v = std::round(mantissa / std::pow(10.0, 17 - digits)) *
            std::pow(10.0, static_cast<int>(rng() % 60) - 30);
        break;
      }
      default:
        v = std::ldexp(static_cast<double>(rng() % 4096), 40 + static_cast<int>(rng() % 14)) +
            static_cast<double>(rng() % 3) * 0.5;
        break;
    }
    p.set_pue(v);
    std::string fast;
    ASSERT_TRUE(PrintJsonFast(p, false, &fast));
    ASSERT_EQ(fast, ProtobufJson(p, false)) << v;
  }
}

TEST(JsonFast, DeclinesWhatItCannotTakeWithCertainty) {
  PlanRequest r;
  // Each of these is left to protobuf's parser (which accepts some and refuses others).
  for (const char* json : {
           "",                                        // empty
           "{\"name\": \"a\", \"name\": \"b\"}",      // a repeated key
           "{\"name\": null}",                        // null
           "{\"name\": \"caf\\u00e9\"}",              // an escape
           "{\"name\": \"caf\xc3\xa9\"}",             // non-ASCII
           "{\"nme\": \"a\"}",                        // an unknown field
           "{\"constraints\": {\"max_gpus\": 1e3}}",  // an integer with an exponent
           "{\"constraints\": {\"max_gpus\": \"1e3\"}}",
           "{\"constraints\": {\"max_gpus\": -1}}",        // negative into unsigned
           "{\"constraints\": {\"max_gpus\": 012}}",       // a leading zero
           "{\"site\": {\"pue\": \"1.2\"}}",               // a quoted double
           "{\"site\": {\"pue\": 1e999}}",                 // out of range
           "{\"site\": {\"pue\": -0}}",                    // protobuf reads -0 as +0
           "{\"site\": {\"pue\": 12345678901234567890}}",  // a long integer
           "{\"constraints\": {\"objective\": 2}}",        // an enum by number
           "{\"efficiency\": {\"constant\": {\"mfu\": 0.3}, \"log_linear\": {}}}",  // two oneof
                                                                                    // members
           "{\"name\": \"a\"} x",                                                   // trailing text
           "{\"name\": \"a\",}",  // a trailing comma
           "\xef\xbb\xbf{}",      // a byte-order mark
       }) {
    EXPECT_FALSE(ParseJsonFast(json, &r)) << json;
  }
  // What it takes: lowerCamelCase names and NaN / Infinity strings, as protobuf does.
  ASSERT_TRUE(
      ParseJsonFast("{\"schemaVersion\": \"SCHEMA_VERSION_1\", \"site\": {\"pue\": \"Infinity\"}, "
                    "\"constraints\": {\"max_gpus\": \"32768\", \"powerCapWatts\": 5e7}}",
                    &r));
  EXPECT_EQ(r.schema_version(), SCHEMA_VERSION_1);
  EXPECT_TRUE(std::isinf(r.site().pue()));
  EXPECT_EQ(r.constraints().max_gpus(), 32768u);
  EXPECT_EQ(r.constraints().power_cap_watts(), 5e7);
  // Keys in any order (the parser tries the next declared field first, then looks the key up);
  // a repeat is still refused after a guess misses.
  ASSERT_TRUE(
      ParseJsonFast(
          "{\"site\": {\"annual_pue\": 1.1, \"pue\": 1.3}, \"name\": \"x\", "
          "\"hardware\": {\"server\": {\"gpus_per_server\": 8}, \"accelerator\": {\"tdp_watts\": "
          "700}}, \"site_name_is_not_a_field\": 1}",
          &r) == false);
  ASSERT_TRUE(ParseJsonFast(
      "{\"site\": {\"annual_pue\": 1.1, \"pue\": 1.3}, \"name\": \"x\", "
      "\"hardware\": {\"server\": {\"gpus_per_server\": 8}, \"accelerator\": {\"tdp_watts\": "
      "700}}}",
      &r));
  EXPECT_EQ(r.name(), "x");
  EXPECT_EQ(r.site().pue(), 1.3);
  EXPECT_EQ(r.site().annual_pue(), 1.1);
  EXPECT_EQ(r.hardware().server().gpus_per_server(), 8u);
  EXPECT_EQ(r.hardware().accelerator().tdp_watts(), 700);
  EXPECT_FALSE(
      ParseJsonFast("{\"site\": {\"annual_pue\": 1.1, \"pue\": 1.3, \"annual_pue\": 1.2}}", &r));
}

}  // namespace
}  // namespace dcplan
