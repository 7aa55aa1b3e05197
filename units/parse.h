// File: units/parse.h
//
// Turns the text a planner types ("50MW", "$2.5B", "0.08 USD/kWh", "400Gb/s", "4y") into typed
// quantities. Every parser takes the whole string: a number, optional whitespace, then a unit;
// leading and trailing whitespace is ignored and anything else left over is an error.
//
// Numbers are decimal or scientific ("2.5e9"), with an optional leading sign ("-1MW" parses to a
// negative power: checking the range is the caller's job). "nan", "inf", hexadecimal, thousands
// separators and values that overflow a double are rejected. Unit symbols are case-sensitive where
// it matters ("MW" is a megawatt, "mW" a milliwatt). SI prefixes are k, M, G, T, P, E (and m where
// it makes sense); money uses k/K, M, B (billion) and T (trillion) instead, never G.
//
// Every error is absl::InvalidArgument of the one form
//   expected a power such as 50MW, got "50MWh"
// naming the kind expected, an example of it, and the text given (non-printable bytes escaped, cut
// after 64 characters). The parsers never throw or crash on any input.
//
// Example:
//   absl::StatusOr<Power> power = ParsePower("1.4 kW");          // 1,400 W
//   absl::StatusOr<Money> budget = ParseMoney("$2.5B");          // 2.5e9 USD
//   absl::StatusOr<MoneyPerEnergy> price = ParseMoneyPerEnergy("0.08 USD/kWh");
//   absl::StatusOr<DataRate> link = ParseDataRate("400Gb/s");   // 50e9 B/s
//   absl::StatusOr<double> tokens = ParseCount("15T");           // 15e12
//   ParsePower("50MWh").status();  // expected a power such as 50MW, got "50MWh"
#pragma once

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "units/units.h"

namespace dcplan::units {

// Power: W with prefixes m, k, M, G, T, P, E ("50MW", "1.4 kW", "700 W"). Volt-amperes are
// rejected.
absl::StatusOr<Power> ParsePower(absl::string_view text);

// Energy: J or Wh with prefixes m, k, M, G, T, P, E ("100MWh", "3.6 MJ", "8.8 GWh").
absl::StatusOr<Energy> ParseEnergy(absl::string_view text);

// Time: s, sec, ms, min, h, hr, hour(s), d, day(s), y, yr, year(s), with a year of kHoursPerYear
// hours
// ("4y", "36 days", "90 min").
absl::StatusOr<Time> ParseTime(absl::string_view text);

// Money in US dollars: "$2.5B", "$750M", "750M USD", "2.5B USD", "$1.2k", "-$3k". Multipliers k/K
// (1e3), M (1e6), B (1e9), T (1e12). A bare number ("2.5e9", "2.5B") is taken as dollars.
absl::StatusOr<Money> ParseMoney(absl::string_view text);

// Compute (an amount of work): FLOP or FLOPs with prefixes k ... E ("1e24 FLOP", "3.8 EFLOPs").
// "FLOPS" (capital S) is a rate and is rejected here.
absl::StatusOr<Compute> ParseCompute(absl::string_view text);

// Compute rate: FLOP/s, FLOPs/s or FLOPS with prefixes k ... E ("989.4 TFLOP/s", "2 PFLOPS").
absl::StatusOr<ComputeRate> ParseComputeRate(absl::string_view text);

// Data rate: bits (b/s, bps) or bytes (B/s) with prefixes k, M, G, T, P ("400Gb/s", "400 Gbps",
// "50 GB/s"). 400 Gb/s is 50e9 B/s.
absl::StatusOr<DataRate> ParseDataRate(absl::string_view text);

// Price of energy: money (as in ParseMoney, but the currency is required) per J or Wh with prefixes
// k, M, G, T ("0.08 USD/kWh", "$0.08/kWh", "80 USD/MWh", "0.08 $/kWh").
absl::StatusOr<MoneyPerEnergy> ParseMoneyPerEnergy(absl::string_view text);

// Price of power capacity: money (currency required) per W with prefixes k, M, G, T ("10M USD/MW",
// "$10M/MW", "$12/W", "120 USD/kW").
absl::StatusOr<MoneyPerPower> ParseMoneyPerPower(absl::string_view text);

// A plain count with an optional suffix: k/K (1e3), M (1e6), G or B (1e9), T (1e12), P (1e15), E
// (1e18), or binary Ki, Mi, Gi, Ti (powers of 1024) ("16M", "15T", "405e9", "70B", "1024"). The
// result is finite; whether it is >= 0 or whole is the caller's job.
absl::StatusOr<double> ParseCount(absl::string_view text);

}  // namespace dcplan::units
