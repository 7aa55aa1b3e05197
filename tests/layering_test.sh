#!/usr/bin/env bash
# The arrows between packages point one way (README's architecture section):
#   base <- units <- proto <- planner/workload <- planner <- planner/sweep <- examples
# (planner/presets sits beside planner: its library reads only proto/ and base/). Checked on the #include
# lines and BUILD labels of each package's :check_files, so an arrow pointing up fails here even
# where Bazel's visibility cannot see it (a public target is visible to everyone).
set -uo pipefail

failed=0
# forbid DIR REGEX WHY: no C++ include or BUILD label in DIR (its own files only) matches REGEX.
# forbid_in_library: the same over the library's sources only (not tests, not the BUILD file).
forbid() { check "$1" "$2" "$3" -name BUILD.bazel -o -name '*.cc' -o -name '*.h'; }
forbid_in_library() { check "$1" "$2" "$3" -name '*.h' -o \( -name '*.cc' ! -name '*_test.cc' \); }
check() {
  local dir=$1 regex=$2 why=$3 hits
  shift 3
  hits=$(find -L "$dir" -maxdepth 1 -type f \( "$@" \) -exec grep -HnE "$regex" {} + 2>/dev/null)
  if [[ -n $hits ]]; then
    echo "FAIL: $why"
    echo "$hits" | sed 's/^/  /'
    failed=1
  fi
}

inc='^[[:space:]]*#include "'
lbl='"//'
forbid base "(${inc}(units|proto|planner|examples)/|${lbl}(units|proto|planner|examples))" \
  "base/ is below everything: it may not use units/, proto/, planner/ or examples/"
forbid units "(${inc}(proto|planner|examples)/|${lbl}(proto|planner|examples))" \
  "units/ knows nothing of the schema or the planner"
forbid proto "(${inc}(planner|examples)/|${lbl}(planner|examples))" \
  "proto/ (the schema and its codecs) may not use planner/ or examples/"
forbid planner/workload "(${inc}planner/[a-z_]+\.h|${inc}planner/(sweep|presets)/|${inc}examples/|${lbl}planner(:|\")|${lbl}planner/(sweep|presets)|${lbl}examples)" \
  "planner/workload/ (one training job) may use only proto/, units/ and base/, not the facility planner"
forbid_in_library planner/presets "${inc}(examples/|planner/[a-z_]+\.h|planner/(sweep|workload)/)" \
  "planner/presets/ is data: its library may use only proto/ and base/ (its test runs the validator)"
forbid planner "(${inc}planner/sweep/|${lbl}planner/sweep|${inc}examples/|${lbl}examples)" \
  "planner/ never sees planner/sweep/ or examples/"
forbid planner/sweep "(${inc}examples/|${lbl}examples)" "planner/sweep/ may not use examples/"
# A library names no command-line flag: the CLI adds its flag names to library errors.
forbid planner/sweep '"--[a-z]' "planner/sweep/ names a command-line flag"

n=$(find -L base units proto planner -type f \( -name '*.cc' -o -name '*.h' \) | wc -l)
if ((n < 60)); then
  echo "FAIL: only $n library files found; is a package's :check_files missing from the data?"
  failed=1
fi
((failed)) || echo "PASS: no arrow points up ($n library files)"
exit $failed
