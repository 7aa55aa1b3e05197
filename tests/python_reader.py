#!/usr/bin/python3
"""Plans across languages: reads Plans that dcplan wrote, in binary and in JSON, with Python code that
protoc generated from proto/*.proto (Debian's python3-protobuf), and checks their fields.

    python_reader.py GEN_DIR plan.pb plan.json     check two encodings of the seed plan at 45.9 MW
    python_reader.py GEN_DIR --write-request FILE  write the seed request with a 45.9 MW cap (binary)

GEN_DIR holds the generated modules (protoc -I ROOT --python_out=GEN_DIR proto/*.proto), imported
as `proto.plan_pb2`. Expected values come from the seed formula: 45.9 MW / (8 GPUs x 1.4 kW) =
4,098.2, so 4,098 servers = 32,784 GPUs drawing 45,897,600 W; peak 32,784 x 1 PFLOP/s; MFU
0.62 - 0.02 log2(32,784).
"""
import math
import sys


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def check(name, want, got):
    if want != got:
        fail("%s: expected %r, got %r" % (name, want, got))
    print("PASS: %s = %r" % (name, got))


def request_enum(plan_pb2):
    """SchemaVersion, defined in request.proto and shared by requests and plans."""
    from proto import request_pb2
    return request_pb2.DESCRIPTOR.enum_types_by_name["SchemaVersion"]


def read_plan(path, encoding):
    from google.protobuf import json_format
    from proto import plan_pb2
    plan = plan_pb2.Plan()
    with open(path, "rb") as f:
        data = f.read()
    if encoding == "binary":
        plan.ParseFromString(data)
    else:
        # Unknown fields are an error: the JSON must match the schema Python was generated from.
        json_format.Parse(data.decode("utf-8"), plan, ignore_unknown_fields=False)
    # A reader refuses a plan newer than the schema it knows (the version field's contract).
    known = max(v.number for v in request_enum(plan_pb2).values)
    if plan.schema_version > known:
        fail("%s: schema_version %d is newer than this reader's %d" %
             (path, plan.schema_version, known))
    return plan


def check_seed_plan(name, plan):
    from proto import plan_pb2, request_pb2
    check(name + " schema_version", request_pb2.SCHEMA_VERSION_1, plan.schema_version)
    check(name + " name", "seed", plan.name)
    check(name + " counts.gpu_count", 32784, plan.counts.gpu_count)
    check(name + " counts.server_count", 4098, plan.counts.server_count)
    check(name + " binding_constraint", plan_pb2.BINDING_CONSTRAINT_FACILITY_POWER,
          plan.binding_constraint)
    check(name + " power.facility_power_watts", 32784 * 1400.0, plan.power.facility_power_watts)
    check(name + " compute.peak_flops_per_second", 32784e15, plan.compute.peak_flops_per_second)
    mfu = 0.62 - 0.02 * math.log2(32784)
    if abs(plan.compute.mfu - mfu) > 1e-12:
        fail("%s compute.mfu: expected %r, got %r" % (name, mfu, plan.compute.mfu))
    print("PASS: %s compute.mfu = %r" % (name, plan.compute.mfu))
    check(name + " headroom.facility_power_watts", 45.9e6 - 45897600.0,
          plan.headroom.facility_power_watts)
    check(name + " headroom has no budget", False, plan.headroom.HasField("budget_usd"))


def write_request(path):
    """The seed request with a 45.9 MW cap, in binary, for dcplan to read back."""
    from proto import request_pb2
    r = request_pb2.PlanRequest()
    r.schema_version = request_pb2.SCHEMA_VERSION_1
    r.name = "seed"
    r.hardware.accelerator.peak_flops_per_second = 1e15
    r.hardware.accelerator.tdp_watts = 1400
    r.hardware.server.gpus_per_server = 8
    r.hardware.rack.max_servers_per_rack = 4
    r.hardware.pod.racks_per_pod = 8
    r.site.pue = 1.0
    r.efficiency.log_linear.intercept = 0.62
    r.efficiency.log_linear.slope_per_doubling = 0.02
    r.constraints.power_cap_watts = 45.9e6
    with open(path, "wb") as f:
        f.write(r.SerializeToString())
    print("wrote " + path)


def main(argv):
    if len(argv) < 3:
        fail(__doc__)
    sys.path.insert(0, argv[1])
    if argv[2] == "--write-request":
        write_request(argv[3])
        return
    binary = read_plan(argv[2], "binary")
    json_plan = read_plan(argv[3], "json")
    check_seed_plan("binary", binary)
    check_seed_plan("json", json_plan)
    # The two encodings carry the same plan, field for field (JSON keeps every double exactly).
    check("binary == json", True, binary == json_plan)


if __name__ == "__main__":
    main(sys.argv)
