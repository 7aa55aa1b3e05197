// File: units/units.h
//
// The dimension-safe quantity types every dcplan package uses, built on Boost.Units.
//
// One unit system (`dcplan::units::system`) is made of the SI base units (metre, kilogram, second,
// ampere, kelvin, mole, candela) plus three base dimensions of our own: money (the US dollar),
// floating-point operations (the FLOP) and information (the byte). Building ONE system from all of
// them, instead of a second system beside SI, keeps derived units such as USD/kWh or FLOP/s
// homogeneous, so they cancel and compare (boostorg/units PR #24).
//
// Internally every quantity is stored in the coherent unit of the system: watts, joules, seconds,
// US dollars, FLOP, FLOP/s, USD per joule, USD per watt, bytes per second. A number enters or
// leaves the typed world only through the named helpers below (`Watts(1400.0)`, `InMegawatts(p)`),
// so the unit is always written at the call site; `.value()` is used nowhere outside this header
// and units/format.
//
// Example:
//   using namespace dcplan::units;
//   Power per_gpu = Kilowatts(1.4);
//   Power cluster = 32768.0 * per_gpu;           // 45.9 MW
//   Energy year = cluster * Hours(8760.0);        // power x time = energy
//   Money bill = year * UsdPerKilowattHour(0.08); // energy x price = money
//   // cluster + year;                            // does not compile: power + energy
#pragma once

#include <boost/units/base_dimension.hpp>
#include <boost/units/base_unit.hpp>
#include <boost/units/base_units/si/ampere.hpp>
#include <boost/units/base_units/si/candela.hpp>
#include <boost/units/base_units/si/kelvin.hpp>
#include <boost/units/base_units/si/kilogram.hpp>
#include <boost/units/base_units/si/meter.hpp>
#include <boost/units/base_units/si/mole.hpp>
#include <boost/units/base_units/si/second.hpp>
#include <boost/units/derived_dimension.hpp>
#include <boost/units/dimensionless_quantity.hpp>
#include <boost/units/make_system.hpp>
#include <boost/units/physical_dimensions/energy.hpp>
#include <boost/units/physical_dimensions/power.hpp>
#include <boost/units/physical_dimensions/time.hpp>
#include <boost/units/quantity.hpp>
#include <boost/units/unit.hpp>

namespace dcplan::units {

// ---------------------------------------------------------------------------------------------------
// Base dimensions and base units of our own. Ordinals must be unique and POSITIVE (Boost's are
// negative).
// ---------------------------------------------------------------------------------------------------
struct money_base_dimension : boost::units::base_dimension<money_base_dimension, 1> {};
struct flop_base_dimension : boost::units::base_dimension<flop_base_dimension, 2> {};
struct information_base_dimension : boost::units::base_dimension<information_base_dimension, 3> {};

using money_dimension = money_base_dimension::dimension_type;
using flop_dimension = flop_base_dimension::dimension_type;
using information_dimension = information_base_dimension::dimension_type;

struct usd_base_unit : boost::units::base_unit<usd_base_unit, money_dimension, 1> {
  static const char* name() { return "US dollar"; }
  static const char* symbol() { return "USD"; }
};
struct flop_base_unit : boost::units::base_unit<flop_base_unit, flop_dimension, 2> {
  static const char* name() { return "floating-point operation"; }
  static const char* symbol() { return "FLOP"; }
};
struct byte_base_unit : boost::units::base_unit<byte_base_unit, information_dimension, 3> {
  static const char* name() { return "byte"; }
  static const char* symbol() { return "B"; }
};

// The single unit system: SI plus USD, FLOP and byte.
using system = boost::units::make_system<
    boost::units::si::meter_base_unit, boost::units::si::kilogram_base_unit,
    boost::units::si::second_base_unit, boost::units::si::ampere_base_unit,
    boost::units::si::kelvin_base_unit, boost::units::si::mole_base_unit,
    boost::units::si::candela_base_unit, usd_base_unit, flop_base_unit, byte_base_unit>::type;

// ---------------------------------------------------------------------------------------------------
// Dimensions and units of the system.
// ---------------------------------------------------------------------------------------------------
using compute_rate_dimension =
    boost::units::derived_dimension<flop_base_dimension, 1, boost::units::time_base_dimension,
                                    -1>::type;
using data_rate_dimension =
    boost::units::derived_dimension<information_base_dimension, 1,
                                    boost::units::time_base_dimension, -1>::type;

using power_unit = boost::units::unit<boost::units::power_dimension, system>;    // W
using energy_unit = boost::units::unit<boost::units::energy_dimension, system>;  // J
using time_unit = boost::units::unit<boost::units::time_dimension, system>;      // s
using money_unit = boost::units::unit<money_dimension, system>;                  // USD
using compute_unit = boost::units::unit<flop_dimension, system>;                 // FLOP
using compute_rate_unit = boost::units::unit<compute_rate_dimension, system>;    // FLOP/s
using data_unit = boost::units::unit<information_dimension, system>;             // B
using data_rate_unit = boost::units::unit<data_rate_dimension, system>;          // B/s
using dimensionless_unit = boost::units::unit<boost::units::dimensionless_type, system>;
// Prices: money divided by something. Expressed through Boost's arithmetic on units so they are
// exactly the types that `Money / Energy` and `Money / Power` produce.
using money_per_energy_unit =
    decltype(money_unit() / energy_unit());                          // USD/J (USD/kWh at the edges)
using money_per_power_unit = decltype(money_unit() / power_unit());  // USD/W (USD/MW at the edges)
using money_per_time_unit = decltype(money_unit() / time_unit());  // USD/s (USD/year at the edges)
// A share of something per unit of time: maintenance as a fraction of capex a year.
using per_time_unit = decltype(dimensionless_unit() / time_unit());  // 1/s (per year at the edges)
// Arithmetic intensity of a kernel: FLOPs per byte moved.
using flops_per_byte_unit = decltype(compute_unit() / data_unit());  // FLOP/B

// ---------------------------------------------------------------------------------------------------
// Quantity types.
// ---------------------------------------------------------------------------------------------------
using Power = boost::units::quantity<power_unit, double>;
using Energy = boost::units::quantity<energy_unit, double>;
using Time = boost::units::quantity<time_unit, double>;
using Money = boost::units::quantity<money_unit, double>;
using Compute = boost::units::quantity<compute_unit, double>;
using ComputeRate = boost::units::quantity<compute_rate_unit, double>;
using Data = boost::units::quantity<data_unit, double>;
using DataRate = boost::units::quantity<data_rate_unit, double>;
using MoneyPerEnergy = boost::units::quantity<money_per_energy_unit, double>;
using MoneyPerPower = boost::units::quantity<money_per_power_unit, double>;
using MoneyPerTime = boost::units::quantity<money_per_time_unit, double>;
using PerTime = boost::units::quantity<per_time_unit, double>;
using Ratio = boost::units::quantity<dimensionless_unit, double>;
using FlopsPerByte = boost::units::quantity<flops_per_byte_unit, double>;

// Unit constants, for code that prefers `3.0 * watts` to `Watts(3.0)`.
inline constexpr power_unit watts{};
inline constexpr energy_unit joules{};
inline constexpr time_unit seconds{};
inline constexpr money_unit usd{};
inline constexpr compute_unit flops{};
inline constexpr compute_rate_unit flops_per_second{};
inline constexpr data_unit bytes{};
inline constexpr data_rate_unit bytes_per_second{};

// ---------------------------------------------------------------------------------------------------
// Scale factors of the non-coherent units we name at the edges.
// ---------------------------------------------------------------------------------------------------
inline constexpr double kSecondsPerHour = 3600.0;
// A year of 365 days (8,760 hours): the convention of electricity bills and depreciation schedules.
inline constexpr double kHoursPerYear = 8760.0;
inline constexpr double kSecondsPerYear = kHoursPerYear * kSecondsPerHour;
inline constexpr double kJoulesPerKilowattHour = 3.6e6;
inline constexpr double kJoulesPerMegawattHour = 3.6e9;

// ---------------------------------------------------------------------------------------------------
// Named constructors (a raw number enters the typed world with its unit named) ...
// ---------------------------------------------------------------------------------------------------
inline Power Watts(double v) { return Power::from_value(v); }
inline Power Kilowatts(double v) { return Power::from_value(v * 1e3); }
inline Power Megawatts(double v) { return Power::from_value(v * 1e6); }
inline Energy Joules(double v) { return Energy::from_value(v); }
inline Energy KilowattHours(double v) { return Energy::from_value(v * kJoulesPerKilowattHour); }
inline Energy MegawattHours(double v) { return Energy::from_value(v * kJoulesPerMegawattHour); }
inline Time Seconds(double v) { return Time::from_value(v); }
inline Time Hours(double v) { return Time::from_value(v * kSecondsPerHour); }
inline Time Years(double v) { return Time::from_value(v * kSecondsPerYear); }
inline Money Usd(double v) { return Money::from_value(v); }
inline Compute Flops(double v) { return Compute::from_value(v); }
inline ComputeRate FlopsPerSecond(double v) { return ComputeRate::from_value(v); }
inline ComputeRate TeraflopsPerSecond(double v) { return ComputeRate::from_value(v * 1e12); }
inline ComputeRate PetaflopsPerSecond(double v) { return ComputeRate::from_value(v * 1e15); }
inline Data Bytes(double v) { return Data::from_value(v); }
inline DataRate BytesPerSecond(double v) { return DataRate::from_value(v); }
// Network links are quoted in bits per second: 400 Gb/s = 50 GB/s.
inline DataRate BitsPerSecond(double v) { return DataRate::from_value(v / 8.0); }
inline DataRate GigabitsPerSecond(double v) { return DataRate::from_value(v * 1e9 / 8.0); }
inline MoneyPerEnergy UsdPerJoule(double v) { return MoneyPerEnergy::from_value(v); }
inline MoneyPerEnergy UsdPerKilowattHour(double v) {
  return MoneyPerEnergy::from_value(v / kJoulesPerKilowattHour);
}
inline MoneyPerPower UsdPerWatt(double v) { return MoneyPerPower::from_value(v); }
inline MoneyPerPower UsdPerMegawatt(double v) { return MoneyPerPower::from_value(v / 1e6); }
inline MoneyPerTime UsdPerYear(double v) { return MoneyPerTime::from_value(v / kSecondsPerYear); }
inline PerTime FractionPerYear(double v) { return PerTime::from_value(v / kSecondsPerYear); }
inline Ratio Fraction(double v) { return Ratio::from_value(v); }
inline FlopsPerByte FlopsPerByteOf(double v) { return FlopsPerByte::from_value(v); }

// ---------------------------------------------------------------------------------------------------
// ... and named read-outs (a number leaves the typed world with its unit named).
// ---------------------------------------------------------------------------------------------------
inline double InWatts(Power p) { return p.value(); }
inline double InKilowatts(Power p) { return p.value() / 1e3; }
inline double InMegawatts(Power p) { return p.value() / 1e6; }
inline double InJoules(Energy e) { return e.value(); }
inline double InKilowattHours(Energy e) { return e.value() / kJoulesPerKilowattHour; }
inline double InMegawattHours(Energy e) { return e.value() / kJoulesPerMegawattHour; }
inline double InSeconds(Time t) { return t.value(); }
inline double InHours(Time t) { return t.value() / kSecondsPerHour; }
inline double InYears(Time t) { return t.value() / kSecondsPerYear; }
inline double InUsd(Money m) { return m.value(); }
inline double InFlops(Compute c) { return c.value(); }
inline double InFlopsPerSecond(ComputeRate r) { return r.value(); }
inline double InExaflopsPerSecond(ComputeRate r) { return r.value() / 1e18; }
inline double InBytes(Data d) { return d.value(); }
inline double InBytesPerSecond(DataRate r) { return r.value(); }
inline double InBitsPerSecond(DataRate r) { return r.value() * 8.0; }
inline double InGigabitsPerSecond(DataRate r) { return r.value() * 8.0 / 1e9; }
inline double InUsdPerJoule(MoneyPerEnergy p) { return p.value(); }
inline double InUsdPerKilowattHour(MoneyPerEnergy p) { return p.value() * kJoulesPerKilowattHour; }
inline double InUsdPerWatt(MoneyPerPower p) { return p.value(); }
inline double InUsdPerMegawatt(MoneyPerPower p) { return p.value() * 1e6; }
inline double InUsdPerYear(MoneyPerTime p) { return p.value() * kSecondsPerYear; }
inline double InFractionPerYear(PerTime p) { return p.value() * kSecondsPerYear; }
inline double InFraction(Ratio r) { return r.value(); }
inline double InFlopsPerByte(FlopsPerByte i) { return i.value(); }

}  // namespace dcplan::units
