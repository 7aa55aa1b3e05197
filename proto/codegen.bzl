"""generated_cc: a C++ source that a program of this package prints at build time."""

def generated_cc(name, generator, out, deps):
    """Declares `generator`, a program built from `generator`.cc, and `name`, its output `out`.

    The program writes the source on standard output; the descriptors it reads come from `deps`
    (the generated *_cc_proto libraries), with json_codegen's helpers, Abseil's strings and
    protobuf always linked.

    Args:
      name: the genrule, listed in a cc_library's srcs, e.g. "plan_json_cc".
      generator: the program, built from `generator`.cc, e.g. "gen_json_printer".
      out: the file written, e.g. "plan_json.cc".
      deps: the program's other dependencies, e.g. [":plan_cc_proto"].
    """
    native.cc_binary(
        name = generator,
        srcs = [generator + ".cc"],
        deps = deps + [
            ":json_codegen",
            "@com_google_absl//:strings",
            "@com_google_protobuf//:protobuf",
        ],
    )
    native.genrule(
        name = name,
        outs = [out],
        cmd = "$(location :%s) > $@" % generator,
        tools = [":" + generator],
    )
