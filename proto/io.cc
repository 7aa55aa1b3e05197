// File: proto/io.cc
#include "proto/io.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "base/file_io.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/message.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/unknown_field_set.h"
#include "google/protobuf/util/json_util.h"
#include "proto/json_fast.h"

namespace dcplan {
namespace {

// How deeply messages may nest in text-format input.
constexpr int kMaxNestingDepth = 100;

constexpr absl::string_view kKnownEncodingNames = "text, textproto, json, binary, pb";
constexpr absl::string_view kKnownExtensions =
    ".textproto, .txtpb, .pbtxt, .txt (text); .json (json); .pb, .binpb, .bin (binary)";

// How a path appears in messages: "-" is standard input or output.
std::string DisplayName(absl::string_view path) {
  return path == "-" ? std::string("<stdin>") : std::string(path);
}

// Collects every text-format parse error with its 1-based line:column; warnings are dropped.
class TextErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    // The parser reports line -1 for errors that belong to no position (e.g. missing required
    // fields).
    if (line < 0) {
      errors_.push_back(message);
    } else {
      errors_.push_back(absl::StrCat(line + 1, ":", column + 1, ": ", message));
    }
  }

  std::string Joined() const {
    return errors_.empty() ? std::string("the text-format parser gave up")
                           : absl::StrJoin(errors_, "; ");
  }

 private:
  std::vector<std::string> errors_;
};

// Whether `text` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above
// U+10FFFF), as proto3 requires of every string field.
bool IsValidUtf8(absl::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    std::uint32_t code = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
      code = lead & 0x1F;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      code = lead & 0x0F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      code = lead & 0x07;
    } else {
      return false;
    }
    if (text.size() - i < length) return false;
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    if ((length == 3 && (code < 0x800 || (code >= 0xD800 && code <= 0xDFFF))) ||
        (length == 4 && (code < 0x10000 || code > 0x10FFFF))) {
      return false;
    }
    i += length;
  }
  return true;
}

// The path of the first string field in `message` (at any depth) that is not valid UTF-8, e.g.
// "hardware.accelerator.name" or "notes[2]"; empty when every one is. The binary parser rejects
// such strings itself; the text parser accepts them (also through escapes such as "\xff"), and
// then the JSON printer silently drops them and the binary reader refuses what the binary writer
// wrote.
std::string FirstInvalidUtf8(const google::protobuf::Message& message) {
  const google::protobuf::Descriptor* descriptor = message.GetDescriptor();
  const google::protobuf::Reflection* reflection = message.GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = descriptor->field(i);
    const bool is_string = field->type() == google::protobuf::FieldDescriptor::TYPE_STRING;
    const bool is_message = field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE;
    if (!is_string && !is_message) continue;
    if (field->is_repeated()) {
      for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
        const std::string at = absl::StrCat(field->name(), "[", j, "]");
        if (is_string) {
          std::string scratch;
          if (!IsValidUtf8(reflection->GetRepeatedStringReference(message, field, j, &scratch))) {
            return at;
          }
        } else {
          const std::string inner =
              FirstInvalidUtf8(reflection->GetRepeatedMessage(message, field, j));
          if (!inner.empty()) return absl::StrCat(at, ".", inner);
        }
      }
    } else if (is_string) {
      std::string scratch;
      if (!IsValidUtf8(reflection->GetStringReference(message, field, &scratch))) {
        return field->name();
      }
    } else if (reflection->HasField(message, field)) {
      const std::string inner = FirstInvalidUtf8(reflection->GetMessage(message, field));
      if (!inner.empty()) return absl::StrCat(field->name(), ".", inner);
    }
  }
  return std::string();
}

absl::Status ParseText(absl::string_view data, google::protobuf::Message* message) {
  TextErrorCollector errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  // The text parser recurses once per nested message and its default limit is INT_MAX: deeply
  // nested input would overflow the stack. 100 matches the binary and JSON parsers' limits.
  parser.SetRecursionLimit(kMaxNestingDepth);
  if (!parser.ParseFromString(std::string(data), message)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid text-format ", message->GetDescriptor()->full_name(), ": ", errors.Joined()));
  }
  if (const std::string field = FirstInvalidUtf8(*message); !field.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("invalid text-format ",
                                                   message->GetDescriptor()->full_name(), ": ",
                                                   field, " is not valid UTF-8"));
  }
  return absl::OkStatus();
}

// The JSON parser's syntax errors span lines: the message, a raw excerpt of the input around the
// error and a caret line under it. This keeps the message and the excerpt, escaped onto the same
// line.
std::string OneLine(google::protobuf::StringPiece parser_message) {
  const absl::string_view text(parser_message.data(), parser_message.size());
  const std::size_t newline = text.find('\n');
  if (newline == absl::string_view::npos) return std::string(text);
  absl::string_view excerpt = text.substr(newline + 1);
  const std::size_t last = excerpt.rfind('\n');
  if (last != absl::string_view::npos &&
      excerpt.substr(last + 1).find_first_not_of(" ^") == absl::string_view::npos) {
    excerpt = excerpt.substr(0, last);  // the caret line
  }
  std::string line(text.substr(0, newline));
  if (!excerpt.empty() && !line.empty() && line.back() == '.') line.pop_back();
  if (!excerpt.empty()) absl::StrAppend(&line, " near \"", absl::CHexEscape(excerpt), "\"");
  return line;
}

// A JSON key as the proto3 JSON parser matches it to a field: "power_cap_watts" and
// "powerCapWatts" name the same field, so both become "powercapwatts"-like: underscores dropped,
// the letter after one upper-cased (the lowerCamelCase json_name).
std::string FieldKey(absl::string_view key) {
  std::string out;
  bool upper = false;
  for (char c : key) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out.push_back(upper ? absl::ascii_toupper(static_cast<unsigned char>(c)) : c);
    upper = false;
  }
  return out;
}

// The path of the first key that appears twice in one object of `json` (syntactically valid
// JSON: the proto parser has read it), e.g. "site.pue"; empty when there is none. The proto3 JSON
// parser keeps the last of two values silently, where the text format refuses a repeated field:
// a request whose "power_cap_watts" is given twice (or once as "powerCapWatts") is ambiguous.
// Iterative, so depth costs no stack.
std::string FirstDuplicateKey(absl::string_view json) {
  struct Frame {
    bool object;
    std::vector<std::string> keys;  // field keys seen in this object
    std::string key;                // the current key (objects) as written
    int64_t index = 0;              // the current element (arrays)
    bool expect_key = true;
  };
  std::vector<Frame> stack;
  auto path = [&](absl::string_view last) {
    std::string p;
    for (const Frame& f : stack) {
      if (&f == &stack.back()) break;
      if (f.object) {
        absl::StrAppend(&p, p.empty() ? "" : ".", f.key);
      } else {
        absl::StrAppend(&p, "[", f.index, "]");
      }
    }
    return absl::StrCat(p, p.empty() ? "" : ".", last);
  };
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '"') {
      std::string text;
      for (++i; i < json.size() && json[i] != '"'; ++i) {
        if (json[i] == '\\' && i + 1 < json.size()) {
          ++i;
          const char e = json[i];
          if (e == 'u' && i + 4 < json.size()) {
            unsigned code = 0;
            for (int k = 1; k <= 4; ++k) {
              const char h = json[i + k];
              code = code * 16 + static_cast<unsigned>(absl::ascii_isdigit(h)
                                                           ? h - '0'
                                                           : (absl::ascii_tolower(h) - 'a' + 10));
            }
            // Keys are field names: ASCII. Anything else is kept as its escape.
            if (code < 0x80) {
              text.push_back(static_cast<char>(code));
            } else {
              absl::StrAppend(&text, "\\u", json.substr(i + 1, 4));
            }
            i += 4;
          } else {
            text.push_back(e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e);
          }
        } else {
          text.push_back(json[i]);
        }
      }
      if (!stack.empty() && stack.back().object && stack.back().expect_key) {
        Frame& f = stack.back();
        const std::string key = FieldKey(text);
        if (std::find(f.keys.begin(), f.keys.end(), key) != f.keys.end()) return path(text);
        f.keys.push_back(key);
        f.key = text;
        f.expect_key = false;
      }
    } else if (c == '{' || c == '[') {
      stack.push_back(Frame{c == '{', {}, "", 0, true});
    } else if (c == '}' || c == ']') {
      if (!stack.empty()) stack.pop_back();
    } else if (c == ',' && !stack.empty()) {
      if (stack.back().object) {
        stack.back().expect_key = true;
      } else {
        ++stack.back().index;
      }
    }
  }
  return std::string();
}

absl::Status ParseJson(absl::string_view data, google::protobuf::Message* message) {
  // The common case, at a tenth of the cost; whatever it declines protobuf's parser decides.
  if (ParseJsonFast(data, message)) return absl::OkStatus();
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const google::protobuf::util::Status status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(data.data(), data.size()), message, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("invalid JSON for ",
                                                   message->GetDescriptor()->full_name(), ": ",
                                                   OneLine(status.message())));
  }
  if (const std::string key = FirstDuplicateKey(data); !key.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid JSON for ", message->GetDescriptor()->full_name(), ": ", key, " is given twice"));
  }
  // The parser checks raw bytes; this also catches escapes such as a lone "\ud800".
  if (const std::string field = FirstInvalidUtf8(*message); !field.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("invalid JSON for ",
                                                   message->GetDescriptor()->full_name(), ": ",
                                                   field, " is not valid UTF-8"));
  }
  return absl::OkStatus();
}

// Where the first field unknown to this schema sits in `message` (at any depth): "" for the message
// itself, "hardware.accelerator" below it; std::nullopt when there is none. `number` is its field
// number.
std::optional<std::string> FirstUnknownField(const google::protobuf::Message& message,
                                             int* number) {
  const google::protobuf::Reflection* reflection = message.GetReflection();
  const google::protobuf::UnknownFieldSet& unknown = reflection->GetUnknownFields(message);
  if (!unknown.empty()) {
    *number = unknown.field(0).number();
    return std::string();
  }
  const google::protobuf::Descriptor* descriptor = message.GetDescriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = descriptor->field(i);
    if (field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
        if (std::optional<std::string> inner =
                FirstUnknownField(reflection->GetRepeatedMessage(message, field, j), number)) {
          return absl::StrCat(field->name(), "[", j, "]", inner->empty() ? "" : ".", *inner);
        }
      }
    } else if (reflection->HasField(message, field)) {
      if (std::optional<std::string> inner =
              FirstUnknownField(reflection->GetMessage(message, field), number)) {
        return absl::StrCat(field->name(), inner->empty() ? "" : ".", *inner);
      }
    }
  }
  return std::nullopt;
}

absl::Status ParseBinary(absl::string_view data, google::protobuf::Message* message) {
  const std::string type(message->GetDescriptor()->full_name());
  if (data.size() > static_cast<std::size_t>(INT_MAX) ||
      !message->ParseFromArray(data.data(), static_cast<int>(data.size()))) {
    return absl::InvalidArgumentError(absl::StrCat("not a valid binary ", type));
  }
  // The wire format keeps fields it does not know; text and JSON refuse them. A field this dcplan
  // does not know could be a cap it would silently ignore, so binary input refuses them too.
  int number = 0;
  if (std::optional<std::string> where = FirstUnknownField(*message, &number)) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a valid binary ", type, ": ", where->empty() ? "it" : *where,
                     " has a field this dcplan does not know (number ", number, ")"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::string_view EncodingName(Encoding encoding) {
  switch (encoding) {
    case Encoding::kText:
      return "text";
    case Encoding::kJson:
      return "json";
    case Encoding::kBinary:
      return "binary";
  }
  return "unknown";
}

absl::StatusOr<Encoding> ParseEncodingName(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "text" || lower == "textproto") return Encoding::kText;
  if (lower == "json") return Encoding::kJson;
  if (lower == "binary" || lower == "pb") return Encoding::kBinary;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown encoding \"", name, "\"; expected one of ", kKnownEncodingNames));
}

absl::StatusOr<Encoding> EncodingFromPath(absl::string_view path) {
  const std::size_t slash = path.rfind('/');
  const absl::string_view base = slash == absl::string_view::npos ? path : path.substr(slash + 1);
  const std::size_t dot = base.rfind('.');
  if (dot != absl::string_view::npos) {
    const std::string extension = absl::AsciiStrToLower(base.substr(dot));
    if (extension == ".textproto" || extension == ".txtpb" || extension == ".pbtxt" ||
        extension == ".txt") {
      return Encoding::kText;
    }
    if (extension == ".json") return Encoding::kJson;
    if (extension == ".pb" || extension == ".binpb" || extension == ".bin") {
      return Encoding::kBinary;
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "cannot tell the encoding of \"", path, "\" from its extension; known extensions: ",
      kKnownExtensions, " (or name the encoding explicitly)"));
}

absl::Status ParseMessage(absl::string_view data, Encoding encoding,
                          google::protobuf::Message* message) {
  message->Clear();
  // The parsers log some problems (e.g. invalid UTF-8 in a string field) besides failing; the
  // status returned says it all, so nothing is printed.
  google::protobuf::LogSilencer silence;
  absl::Status status;
  switch (encoding) {
    case Encoding::kText:
      status = ParseText(data, message);
      break;
    case Encoding::kJson:
      status = ParseJson(data, message);
      break;
    case Encoding::kBinary:
      status = ParseBinary(data, message);
      break;
    default:
      status =
          absl::InvalidArgumentError(absl::StrCat("unknown encoding ", static_cast<int>(encoding)));
  }
  if (!status.ok()) message->Clear();
  return status;
}

absl::StatusOr<std::string> SerializeMessage(const google::protobuf::Message& message,
                                             Encoding encoding) {
  const std::string type(message.GetDescriptor()->full_name());
  std::string out;
  switch (encoding) {
    case Encoding::kText: {
      google::protobuf::TextFormat::Printer printer;
      printer.SetUseUtf8StringEscaping(true);
      // Unknown fields would print as bare numbers ("4: 1"), which no text parser reads back.
      printer.SetHideUnknownFields(true);
      if (!printer.PrintToString(message, &out)) {
        return absl::InternalError(absl::StrCat("cannot print ", type, " in text format"));
      }
      return out;
    }
    case Encoding::kJson: {
      // protobuf's output byte for byte, at a tenth of the cost (proto/json_fast.h).
      if (PrintJsonFast(message, /*indent=*/true, &out)) {
        out.push_back('\n');
        return out;
      }
      google::protobuf::util::JsonPrintOptions options;
      options.add_whitespace = true;
      options.always_print_primitive_fields = true;
      options.preserve_proto_field_names = true;
      const google::protobuf::util::Status status =
          google::protobuf::util::MessageToJsonString(message, &out, options);
      if (!status.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("cannot print ", type, " as JSON: ", std::string(status.message())));
      }
      if (out.empty() || out.back() != '\n') out.push_back('\n');
      return out;
    }
    case Encoding::kBinary: {
      // Checked here because SerializeToString treats both as programming errors (it may abort).
      if (!message.IsInitialized()) {
        return absl::InvalidArgumentError(absl::StrCat("cannot serialize ", type,
                                                       ": missing required fields ",
                                                       message.InitializationErrorString()));
      }
      if (message.ByteSizeLong() > static_cast<std::size_t>(INT_MAX)) {
        return absl::InvalidArgumentError(
            absl::StrCat("cannot serialize ", type, ": larger than 2 GiB"));
      }
      if (!message.SerializePartialToString(&out)) {
        return absl::InternalError(absl::StrCat("cannot serialize ", type));
      }
      return out;
    }
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown encoding ", static_cast<int>(encoding)));
}

absl::Status ReadMessageFile(absl::string_view path, std::optional<Encoding> encoding,
                             google::protobuf::Message* message) {
  message->Clear();
  const std::string name = DisplayName(path);
  if (!encoding.has_value()) {
    if (path == "-") {
      return absl::InvalidArgumentError(
          "reading standard input (-) needs an explicit encoding: text, json or binary");
    }
    absl::StatusOr<Encoding> from_path = EncodingFromPath(path);
    if (!from_path.ok()) return from_path.status();
    encoding = *from_path;
  }
  absl::StatusOr<std::string> data = ReadFileBounded(path);
  if (!data.ok()) return data.status();
  const absl::Status parsed = ParseMessage(*data, *encoding, message);
  if (!parsed.ok()) {
    return absl::Status(parsed.code(), absl::StrCat(name, ": ", parsed.message()));
  }
  return absl::OkStatus();
}

absl::Status WriteMessageFile(absl::string_view path, Encoding encoding,
                              const google::protobuf::Message& message,
                              const std::vector<std::string>& inputs) {
  absl::StatusOr<std::string> contents = SerializeMessage(message, encoding);
  if (!contents.ok()) return contents.status();
  return WriteTextFile(path, *contents, inputs);
}

absl::Status WriteTextFile(absl::string_view path, absl::string_view contents,
                           const std::vector<std::string>& inputs) {
  return WriteFileAtomically(path, contents, inputs);
}

}  // namespace dcplan
