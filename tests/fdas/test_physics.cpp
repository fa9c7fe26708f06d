// Bins to physics (spec §10), with the spec's reach example: T = 2^23 × 64 µs, z_max = 200 at
// f = 100 Hz reaches |a| ≈ 2080 m/s².
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "physics.hpp"

namespace astrosweep::fdas {
namespace {

TEST(Physics, ConversionsAndTheSpecsReachExample) {
  const double T = 8388608 * 64e-6;  // 536.87 s
  const double r = 100.0 * T;
  const PhysicalCandidate p = to_physical(r, 200.0, 8, T);
  EXPECT_NEAR(p.frequency_hz, 100.0, 1e-12);
  EXPECT_NEAR(p.period_s, 0.01, 1e-15);
  EXPECT_NEAR(p.fdot_hz_s, 200.0 / (T * T), 1e-18);
  EXPECT_NEAR(p.accel_m_s2, 2080.0, 1.0);  // the spec's "|a| ≤ 2080 m/s²"
  EXPECT_NEAR(p.pdot, -200.0 / (r * r), 1e-20);
  EXPECT_DOUBLE_EQ(p.r_err, 0.0625);
  EXPECT_DOUBLE_EQ(p.z_err, 0.25);
  EXPECT_NEAR(p.frequency_err_hz, 0.0625 / T, 1e-18);
  EXPECT_NEAR(p.accel_err_m_s2 / p.accel_m_s2, 0.25 / 200.0, 1e-15);
  // A falling frequency: negative z, negative a.
  EXPECT_LT(to_physical(r, -50.0, 1, T).accel_m_s2, 0.0);
  EXPECT_THROW(to_physical(0.0, 1.0, 1, T), UsageError);
  EXPECT_THROW(to_physical(r, 1.0, 1, 0.0), UsageError);
}

}  // namespace
}  // namespace astrosweep::fdas
