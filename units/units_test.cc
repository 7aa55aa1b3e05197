#include "units/units.h"

#include <type_traits>

#include "gtest/gtest.h"

namespace dcplan::units {
namespace {

// Detection idiom: can `a OP b` be formed for these types?
template <typename A, typename B, typename = void>
struct CanAdd : std::false_type {};
template <typename A, typename B>
struct CanAdd<A, B, std::void_t<decltype(std::declval<A>() + std::declval<B>())>> : std::true_type {
};
template <typename A, typename B, typename = void>
struct CanCompare : std::false_type {};
template <typename A, typename B>
struct CanCompare<A, B, std::void_t<decltype(std::declval<A>() < std::declval<B>())>>
    : std::true_type {};
template <typename To, typename From, typename = void>
struct CanAssign : std::false_type {};
template <typename To, typename From>
struct CanAssign<To, From, std::void_t<decltype(std::declval<To&>() = std::declval<From>())>>
    : std::true_type {};

// The compiler refuses to mix dimensions.
static_assert(CanAdd<Power, Power>::value);
static_assert(!CanAdd<Power, Energy>::value, "a watt plus a watt-hour must not compile");
static_assert(!CanAdd<Money, Power>::value);
static_assert(!CanAdd<Compute, ComputeRate>::value);
static_assert(!CanAdd<Power, double>::value, "a raw number is not a power");
static_assert(!CanCompare<Power, Energy>::value);
static_assert(!CanCompare<MoneyPerEnergy, MoneyPerPower>::value);
static_assert(!std::is_convertible_v<Energy, Power>);
static_assert(!CanAssign<Money, double>::value);
static_assert(!std::is_convertible_v<double, Power>, "no implicit entry into the typed world");
// Products and quotients have the right dimensions.
static_assert(std::is_same_v<decltype(Power() * Time()), Energy>);
static_assert(std::is_same_v<decltype(Energy() * MoneyPerEnergy()), Money>);
static_assert(std::is_same_v<decltype(Power() * MoneyPerPower()), Money>);
static_assert(std::is_same_v<decltype(ComputeRate() * Time()), Compute>);
static_assert(std::is_same_v<decltype(Money() / Energy()), MoneyPerEnergy>);
static_assert(std::is_same_v<decltype(Data() / Time()), DataRate>);
static_assert(std::is_same_v<decltype(MoneyPerTime() * Time()), Money>);

TEST(Units, SeedClusterPowerIsFortyFiveMegawatts) {
  // 32,768 GPUs x 1.4 kW = 45,875,200 W (the seed's 45.9 MW).
  Power cluster = 32768.0 * Kilowatts(1.4);
  EXPECT_DOUBLE_EQ(InWatts(cluster), 45875200.0);
  EXPECT_NEAR(InMegawatts(cluster), 45.8752, 1e-9);
}

TEST(Units, EnergyTimesPriceIsMoney) {
  // 1 MW for a 8,760-hour year = 8,760 MWh = 8,760,000 kWh; at $0.08/kWh that is $700,800.
  Energy year = Megawatts(1.0) * Years(1.0);
  EXPECT_NEAR(InMegawattHours(year), 8760.0, 1e-9);
  Money bill = year * UsdPerKilowattHour(0.08);
  EXPECT_NEAR(InUsd(bill), 700800.0, 1e-6);
}

TEST(Units, ConversionsRoundTrip) {
  EXPECT_DOUBLE_EQ(InUsdPerMegawatt(UsdPerMegawatt(10e6)), 10e6);
  EXPECT_DOUBLE_EQ(InUsdPerKilowattHour(UsdPerKilowattHour(0.08)), 0.08);
  EXPECT_DOUBLE_EQ(InGigabitsPerSecond(GigabitsPerSecond(400.0)), 400.0);
  // 400 Gb/s is 50 GB/s.
  EXPECT_DOUBLE_EQ(InBytesPerSecond(GigabitsPerSecond(400.0)), 50e9);
  EXPECT_DOUBLE_EQ(InFlopsPerSecond(PetaflopsPerSecond(1.0)), 1e15);
  EXPECT_DOUBLE_EQ(InHours(Years(1.0)), 8760.0);
}

TEST(Units, RatioOfSameDimensionIsDimensionless) {
  // Facility over IT power is a PUE, a plain ratio.
  Ratio pue = Megawatts(13.0) / Megawatts(10.0);
  EXPECT_DOUBLE_EQ(InFraction(pue), 1.3);
}

}  // namespace
}  // namespace dcplan::units
