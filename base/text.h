// File: base/text.h
//
// Text from users and files made safe for messages and terminals: Clip keeps at most about 80
// bytes of a value (its start, its end and its length), Printable escapes control characters.
//
// Example:
//   absl::StrCat("unknown preset \"", Clip(name), "\"")   // "aaaa[... 5000 bytes ...]zzzz"
//   std::cout << "plan: " << Printable(plan.name());      // "evil\x1b[31m" stays text
#pragma once

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace dcplan {

// `text` when it has at most `max` bytes; else its first and last max/2 bytes (cut on UTF-8
// character boundaries) around "[... N bytes ...]". Either way its control characters are escaped
// as Printable does, so a quoted value can never break an error message into lines.
std::string Clip(absl::string_view text, std::size_t max = 80);

// `text` with its control characters escaped: C0 and DEL as \n, \r, \t or \xNN, the C1 controls
// U+0080..U+009F (UTF-8 C2 80..C2 9F, which terminals act on like ESC) as \u00NN. Everything else,
// valid UTF-8 or not, is kept.
std::string Printable(absl::string_view text);

}  // namespace dcplan
