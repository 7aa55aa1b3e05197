#!/usr/bin/env bash
# Every C++ file in the repository is as clang-format (Debian's, with the root .clang-format) would
# write it. On a failure, run from the workspace root:
#   clang-format -i $(git ls-files '*.cc' '*.h')
# and commit the result. (BUILD files: buildifier 8.2.1, `npm install @bazel/buildifier`, is not a
# Debian package, so this test does not run it; see README's Development section.)
set -euo pipefail

CLANG_FORMAT=${CLANG_FORMAT:-/usr/bin/clang-format}
if [[ ! -x $CLANG_FORMAT ]]; then
  echo "FAIL: $CLANG_FORMAT is missing (./bazelw installs the clang-format package)"
  exit 1
fi
[[ -f .clang-format ]] || { echo "FAIL: .clang-format is not in the test's data"; exit 1; }

# Files left out of the check (none: every C++ file is formatted).
PENDING=()

files=()
while IFS= read -r f; do
  f=${f#./}
  for p in "${PENDING[@]}"; do [[ $f == "$p" ]] && continue 2; done
  files+=("$f")
done < <(find -L . -path ./external -prune -o \( -name '*.cc' -o -name '*.h' \) -type f -print | sort)
checked=${#files[@]}

# One clang-format process for every file (fast); the diffs only when it finds a difference.
failed=0
if ! "$CLANG_FORMAT" --style=file --dry-run -Werror "${files[@]}" >/dev/null 2>&1; then
  for f in "${files[@]}"; do
    if ! out=$("$CLANG_FORMAT" --style=file "$f" | diff -u --label "$f" --label "$f (clang-format)" "$f" -); then
      echo "$out" | head -40
      failed=$((failed + 1))
    fi
  done
fi

if ((checked < 100)); then
  echo "FAIL: only $checked C++ files found; is a package's :check_files missing from the data?"
  exit 1
fi
if ((failed)); then
  echo "FAIL: $failed of $checked C++ files differ from clang-format's output"
  exit 1
fi
echo "PASS: $checked C++ files as clang-format writes them (${#PENDING[@]} pending a merge)"
