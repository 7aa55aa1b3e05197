// File: units/format.h
//
// Turns typed quantities into short human-readable text for reports and CLI output, choosing the
// prefix that keeps the number in [1, 1000) ("45.9 MW", not "45875200 W"). Every string these
// functions print parses back with units/parse.h to the same value within the printed precision
// (percent and count have no parser). A value that rounds up to the next prefix moves to it
// ("999.96 kW" prints "1.0 MW"). Zero prints with the base unit ("0.0 W"), a value below the
// smallest prefix with a mantissa under 1
// ("0.5 W"), and NaN or infinity as "nan W", "inf W", "-inf W" (never a crash). Negative values
// keep their sign; a value that rounds to zero prints without one. `decimals` is clamped to [0,
// 20].
//
// Example:
//   FormatPower(32768.0 * Kilowatts(1.4));             // "45.9 MW"
//   FormatComputeRate(FlopsPerSecond(10.486e18), 2);   // "10.49 EFLOP/s"
//   FormatMoney(Usd(1.234e9));                         // "$1.23B"
//   FormatMoneyPerEnergy(UsdPerKilowattHour(0.08));    // "0.080 USD/kWh"
//   FormatDataRate(GigabitsPerSecond(400.0));          // "400 Gb/s"
//   FormatCount(32784);                                // "32,784"
#pragma once

#include <cstdint>
#include <string>

#include "units/units.h"

namespace dcplan::units {

// Power in W, kW, MW, GW, TW, PW, EW: "45.9 MW", "700.0 W".
std::string FormatPower(Power p, int decimals = 1);

// Energy in the watt-hour family Wh, kWh, MWh, GWh, TWh, PWh, EWh: "8.8 GWh".
std::string FormatEnergy(Energy e, int decimals = 1);

// Time in ms, s, min, h, days or years (of kHoursPerYear hours), the largest unit the value
// reaches: "250.0 ms", "90.0 s" is "1.5 min", "36.2 days", "4.0 years".
std::string FormatTime(Time t, int decimals = 1);

// Money in US dollars with k, M, B (billion) or T (trillion): "$1.23B", "$750.00M", "$25.00k",
// "$12.50", "-$1.23B".
std::string FormatMoney(Money m, int decimals = 2);

// Compute in FLOP, kFLOP ... EFLOP; from 1000 EFLOP (1e21) on, scientific: "3.8 EFLOP", "1.0e24
// FLOP".
std::string FormatCompute(Compute c, int decimals = 1);

// Compute rate in FLOP/s, kFLOP/s ... EFLOP/s: "989.4 TFLOP/s", "10.49 EFLOP/s" (decimals = 2).
std::string FormatComputeRate(ComputeRate r, int decimals = 1);

// Data rate in bits per second (b/s, kb/s, Mb/s, Gb/s, Tb/s, Pb/s), with at most `decimals`
// decimals and trailing zeros dropped, as links are quoted: "400 Gb/s", "3.2 Tb/s".
std::string FormatDataRate(DataRate r, int decimals = 1);

// Price of energy, in USD per kWh: "0.080 USD/kWh" (per joule beyond a double's range per kWh).
std::string FormatMoneyPerEnergy(MoneyPerEnergy p, int decimals = 3);

// Price of power capacity, per MW with the money prefixed as FormatMoney: "$10.00M/MW" (per watt
// beyond a double's range per MW).
std::string FormatMoneyPerPower(MoneyPerPower p, int decimals = 2);

// A ratio as a percentage: 0.32 -> "32.0%".
std::string FormatPercent(Ratio r, int decimals = 1);

// A whole count with thousands separators: 32784 -> "32,784".
std::string FormatCount(uint64_t n);

}  // namespace dcplan::units
