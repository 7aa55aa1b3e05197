#!/bin/sh
# File: planner/presets/embed_presets_test.sh
#
# Tests embed_presets.sh: it embeds a file verbatim under its stem, and it fails (writing nothing
# usable) when a file contains the raw string literal's closing delimiter or has an unusable name.
#
# Example:
#   ./bazelw test //planner/presets:embed_presets_test
set -u

script="planner/presets/embed_presets.sh"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# A plain file is embedded under its stem, its text verbatim between the delimiters.
printf 'name: "ok"\n# a comment with )" and )dcplan" but not the full delimiter\n' >"$tmp/good-1.textproto"
if sh "$script" "$tmp/good.cc" "$tmp/good-1.textproto"; then
  grep -F -q '{"good-1", R"dcplan_preset(name: "ok"' "$tmp/good.cc" ||
    fail "good-1 is not embedded under its stem with its text"
  grep -F -q '# a comment with )" and )dcplan" but not the full delimiter' "$tmp/good.cc" ||
    fail "good-1's comment is not embedded verbatim"
  grep -F -q 'const int kEmbeddedPresetCount = 1;' "$tmp/good.cc" || fail "count is not 1"
else
  fail "embed_presets.sh rejected a valid file"
fi

# --table names the table and its count (the model presets' table).
if sh "$script" --table=kEmbeddedModels "$tmp/models.cc" "$tmp/good-1.textproto"; then
  grep -F -q 'const EmbeddedPreset kEmbeddedModels[] = {' "$tmp/models.cc" || fail "table not named"
  grep -F -q 'const int kEmbeddedModelCount = 1;' "$tmp/models.cc" || fail "model count not named"
else
  fail "embed_presets.sh rejected --table=kEmbeddedModels"
fi
if sh "$script" --table='x;' "$tmp/badtable.cc" "$tmp/good-1.textproto" 2>/dev/null; then
  fail "embed_presets.sh accepted a table name that is not kEmbedded<Name>s"
fi

# A file containing the closing delimiter would end the literal early: refused.
printf 'name: "bad"\n# )dcplan_preset" inside\n' >"$tmp/bad.textproto"
if sh "$script" "$tmp/bad.cc" "$tmp/bad.textproto" 2>"$tmp/bad.err"; then
  fail "embed_presets.sh accepted a file containing the closing delimiter"
fi
grep -F -q 'would end its raw string literal' "$tmp/bad.err" || fail "no message for the delimiter"

# A stem that is not a plain name (here with a quote) would break the generated C++: refused.
printf 'name: "x"\n' >"$tmp/Bad\"Name.textproto"
if sh "$script" "$tmp/name.cc" "$tmp/Bad\"Name.textproto" 2>"$tmp/name.err"; then
  fail "embed_presets.sh accepted the preset name Bad\"Name"
fi
grep -F -q 'must be made of' "$tmp/name.err" || fail "no message for the bad name"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "PASS"
