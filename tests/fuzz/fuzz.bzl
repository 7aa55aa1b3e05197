"""dcplan_fuzzer: one libFuzzer harness, as a fuzzer and as a replay test of its corpus."""

def dcplan_fuzzer(name, srcs, corpus, deps = [], local_defines = []):
    """Declares `name`, a libFuzzer binary, and `name`_replay, a test that replays its corpus.

    `name` links libFuzzer (-fsanitize=fuzzer), which only clang has, so it is tagged manual and
    built by tests/fuzz/run_fuzzers.sh under --config=fuzz in a separate output base. `name`_replay
    is the same harness with fuzz_main.cc as its main, built by any compiler in `bazel test //...`:
    it runs the harness once over every file under `corpus` (the seeds and every reproducer of a
    past finding).

    Args:
      name: the harness, e.g. "units_fuzzer".
      srcs: the harness sources (one defines LLVMFuzzerTestOneInput).
      corpus: the corpus directory under this package, e.g. "corpus/units".
      deps: the harness's dependencies.
      local_defines: defines for the harness sources.
    """
    native.cc_binary(
        name = name,
        testonly = True,
        srcs = srcs,
        linkopts = ["-fsanitize=fuzzer"],
        local_defines = local_defines,
        tags = ["manual"],
        deps = deps,
    )
    native.cc_test(
        name = name + "_replay",
        size = "small",
        srcs = srcs + ["fuzz_main.cc"],
        args = [native.package_name() + "/" + corpus],
        data = native.glob([corpus + "/**"]),
        local_defines = local_defines,
        deps = deps,
    )
