// File: examples/serve/page_data.h
//
// The page `dcplan serve` shows (examples/serve/page/), compiled into the binary by the genrule
// //examples/serve:page_data_cc (embed_page.sh), so serving it needs no files and fetches nothing.
#pragma once

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace dcplan::serve {

// One embedded file: the URL path it is served at, its media type and its bytes.
struct PageAsset {
  absl::string_view path;          // "/", "/app.js", "/style.css"
  absl::string_view content_type;  // "text/html; charset=utf-8" ...
  absl::string_view body;
};

// Every embedded file.
absl::Span<const PageAsset> PageAssets();

}  // namespace dcplan::serve
