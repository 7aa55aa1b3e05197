#!/usr/bin/env bash
# run.sh DCPLAN: every command in `commands` (next to this script), each output after a line
# "## COMMAND", on standard output. plan_golden_test compares this with `golden`; to rewrite the
# golden file when answers change on purpose:  tests/data/plan_golden/run.sh DCPLAN > golden
set -uo pipefail
dcplan="$1"
here="$(dirname "$0")"
while IFS= read -r line; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  echo "## $line"
  # The words as written ($ in a budget is literal); an error's message is output too.
  read -r -a words <<<"$line"
  "$dcplan" "${words[@]}" 2>&1
  echo "## exit $?"
done <"$here/commands"
