#!/usr/bin/env bash
# The page of `dcplan serve` in headless Chromium (Debian's chromium, which ./bazelw installs):
# tests/serve_browser_test.py starts the server on an ephemeral loopback port, drives the page over
# the DevTools protocol and checks what it shows. The 1366x768 screen of the seed preset at 32,768
# GPUs lands in $TEST_UNDECLARED_OUTPUTS_DIR/serve.png (bazel-testlogs/tests/serve_browser_test/
# test.outputs/outputs.zip), the source of examples/serve/screenshot.png; the compare view's, from
# serve_layout_test, in its compare.png, the source of examples/serve/compare.png.
set -uo pipefail

ROOT="$TEST_SRCDIR/$TEST_WORKSPACE"
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  echo "FAIL: $CHROMIUM not found (./bazelw installs Debian's chromium)" >&2
  exit 1
fi
# Chromium wants a writable HOME and runtime directory for its profile and crash handler.
export HOME="$TEST_TMPDIR/home"
export XDG_CONFIG_HOME="$HOME/.config" XDG_CACHE_HOME="$HOME/.cache"
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME"
# "$@": nothing for the page's flow, `layout` for the compare view, layout and keyboard part.
exec timeout -k 5 260 /usr/bin/python3 "$ROOT/tests/serve_browser_test.py" "$ROOT/examples/dcplan" "$CHROMIUM" "$@"
