// File: planner/test_requests.h
//
// Requests shared by the planner's tests, as text protos, independent of the compiled-in presets so
// that a change to a preset cannot silently change what a test checks.
//   - kSeedRequest: the chapter's toy model (1 PFLOP/s and 1.4 kW all-in per GPU, 8 GPUs a server,
//     PUE 1, MFU = 0.62 - 0.02 log2 G), no caps.
//   - kH100LikeRequest: a DGX H100-class server (8 x 700 W + 4,600 W = 10.2 kW), 4 servers a rack
//   under a 41 kW limit, pods of 8 racks, a radix-64 fat tree with one 400 Gb/s NIC per GPU,
//   PUE 1.3.
#pragma once

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "planner/uncertain.h"
#include "proto/request.pb.h"

namespace dcplan::testing {

inline constexpr absl::string_view kSeedRequest = R"pb(
  name: "seed"
  hardware {
    accelerator { peak_flops_per_second: 1e15 tdp_watts: 1400 }
    server { gpus_per_server: 8 }
    rack { max_servers_per_rack: 4 }
    pod { racks_per_pod: 8 }
  }
  site { pue: 1.0 }
  efficiency { log_linear { intercept: 0.62 slope_per_doubling: 0.02 } }
)pb";

inline constexpr absl::string_view kH100LikeRequest = R"pb(
  name: "h100-like"
  hardware {
    accelerator { peak_flops_per_second: 989.4e12 tdp_watts: 700 price_usd: 25000 }
    server { gpus_per_server: 8 overhead_watts: 4600 non_gpu_price_usd: 100000 }
    rack { max_servers_per_rack: 4 power_limit_watts: 41000 price_usd: 50000 }
    pod { racks_per_pod: 8 }
    network {
      nics_per_gpu: 1
      port_bits_per_second: 4e11
      switch_radix: 64
      switch_power_watts: 1500
      switch_price_usd: 30000
      optic_power_watts: 15
      optic_price_usd: 1000
    }
  }
  site { pue: 1.3 }
)pb";

// Parses a text proto, failing the test (and returning an empty request) on a parse error.
inline PlanRequest ParseRequest(absl::string_view text) {
  PlanRequest request;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(std::string(text), &request)) << text;
  return request;
}

// kSeedRequest with `extra` (a text-proto fragment) merged over it.
inline PlanRequest SeedWith(absl::string_view extra) {
  PlanRequest request = ParseRequest(kSeedRequest);
  EXPECT_TRUE(google::protobuf::TextFormat::MergeFromString(std::string(extra), &request)) << extra;
  return request;
}

// kH100LikeRequest with `extra` merged over it.
inline PlanRequest H100With(absl::string_view extra) {
  PlanRequest request = ParseRequest(kH100LikeRequest);
  EXPECT_TRUE(google::protobuf::TextFormat::MergeFromString(std::string(extra), &request)) << extra;
  return request;
}

// `r` air-cooled (both PUEs from the cooling), provisioned for its measured draw, under a TCO
// budget of `budget_usd` over 4 years, maximizing realized compute: a request that switches on the
// checks and the model parts that read several sections at once (the moves tests start from it).
inline PlanRequest CrossSectionVariant(PlanRequest r, double budget_usd) {
  r.mutable_site()->set_cooling(COOLING_AIR);
  r.mutable_site()->clear_pue();
  r.mutable_site()->clear_annual_pue();
  r.mutable_site()->mutable_provisioning()->set_basis(PROVISIONING_BASIS_MEASURED);
  r.mutable_constraints()->set_budget_usd(budget_usd);
  r.mutable_constraints()->set_budget_on(BUDGET_ON_TCO);
  r.mutable_costs()->set_horizon_years(4);
  r.mutable_constraints()->set_objective(OBJECTIVE_MAX_REALIZED_COMPUTE);
  return r;
}

// Adds the uncertain input `text` ("pue=uniform(1.0, 2.0)", ParseUncertain's grammar) to `r`,
// failing the test on a parse error.
inline void AddUncertain(absl::string_view text, PlanRequest* r) {
  auto u = ParseUncertain(text);
  ASSERT_TRUE(u.ok()) << text << ": " << u.status();
  *r->add_uncertain() = *u;
}

// The Monte Carlo tests' fixture: kSeedRequest with `extra` merged over it (e.g. a power cap),
// `uncertain` added and monte_carlo.samples = `samples`.
inline PlanRequest SeedUncertain(absl::string_view extra, absl::string_view uncertain,
                                 uint64_t samples) {
  PlanRequest r = SeedWith(extra);
  AddUncertain(uncertain, &r);
  r.mutable_monte_carlo()->set_samples(samples);
  return r;
}

}  // namespace dcplan::testing
