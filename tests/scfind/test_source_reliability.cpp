// The reliability filter (source_reliability.hpp) against SoFiA-2 2.5.1: every linker source of
// cube R as SoFiA-2's reliability debugging catalogues give it (tests/data/scfind/
// r_R_reliability_points.txt, made by tools/sofia_reference_cases.py), turned back into linker
// components (values in units of the rms, rms = 1), and each case's rel (16 digits) compared.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "source_reliability.hpp"
#include "test_data.hpp"

namespace astrosweep::scfind {
namespace {

struct Row {
  int id = 0, sign = 0;
  double nx = 0, ny = 0, nz = 0, log_peak = 0, log_sum = 0, log_mean = 0, fill = 0;
  std::vector<double> rel;  ///< per case, in the file's order
};

std::vector<Row> read_points() {
  std::ifstream in(std::string(ASTROSWEEP_TEST_DATA) + "/scfind/r_R_reliability_points.txt");
  EXPECT_TRUE(in.good());
  std::vector<Row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    Row r;
    s >> r.id >> r.sign >> r.nx >> r.ny >> r.nz >> r.log_peak >> r.log_sum >> r.log_mean >> r.fill;
    for (double v; s >> v;) r.rel.push_back(v);
    rows.push_back(r);
  }
  return rows;
}

// A float sum that rounds to `value` much more closely than one float: the value and two remainders.
void add_as_floats(ExactSum& sum, double value) {
  for (int i = 0; i < 3; ++i) {
    const auto part = static_cast<float>(value);
    sum.add(part);
    value -= static_cast<double>(part);
  }
}

// Linker components with SoFiA-2's statistics: sum and peak to ~1e-16 and 6e-8 relative.
std::vector<Component> components_of(const std::vector<Row>& rows) {
  std::vector<Component> sources(rows.size());
  for (const Row& r : rows) {
    Component& c = sources[static_cast<std::size_t>(r.id) - 1];
    const double sum = r.sign * std::pow(10.0, r.log_sum);
    const double voxels = std::round(std::pow(10.0, r.log_sum - r.log_mean));
    c.voxels = static_cast<std::uint64_t>(voxels);
    c.x_min = 10;
    c.x_max = 10 + static_cast<std::size_t>(r.nx) - 1;
    c.y_min = 20;
    c.y_max = 20 + static_cast<std::size_t>(r.ny) - 1;
    c.z_min = 5;
    c.z_max = 5 + static_cast<std::size_t>(r.nz) - 1;
    add_as_floats(c.sum, sum);
    const auto peak = static_cast<float>(std::pow(10.0, r.log_peak));
    c.value_min = r.sign < 0 ? -peak : 0.0f;
    c.value_max = r.sign < 0 ? 0.0f : peak;
    EXPECT_NEAR(voxels / (r.nx * r.ny * r.nz), r.fill, 1e-12) << "source " << r.id;
  }
  return sources;
}

// Cube R's header (tools/make_scfind_cube): BMAJ = BMIN = 30", CDELT1 = -6".
double fmin_of(double min_snr) {
  return min_snr * sqrt_beam_area(0.00833333333333333, 0.00833333333333333, -0.00166666666666667);
}

struct Case {
  const char* name;
  std::size_t column;  ///< its rel column in the points file
  ReliabilityParameters parameters;
  std::size_t reliable;  ///< SoFiA-2's "N reliable sources found"
};

std::vector<Case> cases() {
  std::vector<Case> all;
  ReliabilityParameters p;
  p.enable = true;
  p.plot = false;
  {
    ReliabilityParameters q = p;
    q.threshold = 0.5;
    q.min_snr = 0;
    all.push_back({"threshold05_snr0", 0, q, 20});
  }
  {
    ReliabilityParameters q = p;
    q.parameters = {"peak", "sum", "chan", "pix", "fill"};
    q.threshold = 0.3;
    q.min_snr = 0.5;
    q.min_pixels = 3;
    q.scale_kernel = 0.5;
    all.push_back({"5d_minpix", 1, q, 16});
  }
  {
    ReliabilityParameters q = p;
    q.auto_kernel = true;
    q.scale_kernel = 0;
    q.tolerance = 0.3;
    q.threshold = 0.6;
    q.min_snr = 0.5;
    all.push_back({"autokernel", 2, q, 10});
  }
  {
    ReliabilityParameters q = p;
    q.auto_kernel = true;
    q.plot = true;
    q.scale_kernel = 0.6;
    q.iterations = 5;
    q.threshold = 0.6;
    q.min_snr = 0.5;
    all.push_back({"autokernel_unconverged", 3, q, 6});
  }
  all.push_back({"defaults", 4, p, 2});
  return all;
}

TEST(SourceReliability, EqualsSofia2OnCubeR) {
  const std::vector<Row> rows = read_points();
  ASSERT_EQ(rows.size(), 101u);
  const std::vector<Component> sources = components_of(rows);
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const double fmin = fmin_of(c.parameters.min_snr);
    const ReliabilityOutcome out = source_reliability(sources, {}, 1.0, fmin, c.parameters);
    EXPECT_EQ(out.positives, 52u);
    EXPECT_EQ(out.negatives, 49u);
    for (const Row& r : rows)
      EXPECT_NEAR(out.reliability[static_cast<std::size_t>(r.id) - 1], r.rel[c.column], 1e-6) << "source " << r.id;
    const std::vector<std::int32_t> numbers =
        reliability_filter(sources, out.reliability, 1.0, fmin, c.parameters.threshold);
    std::size_t kept = 0;
    for (std::int32_t n : numbers)
      if (n > 0) {
        EXPECT_EQ(n, static_cast<std::int32_t>(++kept));
      }
    EXPECT_EQ(kept, c.reliable);
  }
}

TEST(SourceReliability, AutoKernelConvergesWhereSofia2Does) {
  const std::vector<Component> sources = components_of(read_points());
  const Case converged = cases()[2];
  const ReliabilityOutcome out = source_reliability(sources, {}, 1.0, fmin_of(0.5), converged.parameters);
  EXPECT_TRUE(out.converged);
  EXPECT_EQ(out.kernel_iterations, 10);  // SoFiA-2: "Converged to scale_kernel = 0.460 after 10 iterations."
  EXPECT_NEAR(out.scale_kernel, 0.46, 1e-12);
  const Case unconverged = cases()[3];
  const ReliabilityOutcome fallback = source_reliability(sources, {}, 1.0, fmin_of(0.5), unconverged.parameters);
  EXPECT_FALSE(fallback.converged);
  EXPECT_EQ(fallback.kernel_iterations, 5);
  EXPECT_EQ(fallback.scale_kernel, 0.6);
}

TEST(SourceReliability, NeedsNegativeAndPositiveSources) {
  std::vector<Component> sources = components_of(read_points());
  ReliabilityParameters p;
  p.enable = true;
  std::vector<Component> positive;
  for (const Component& c : sources)
    if (c.sum.sign() > 0) positive.push_back(c);
  EXPECT_THROW(source_reliability(positive, {}, 1.0, 0.0, p), InputError);
  // One negative: a zero covariance, which SoFiA-2 cannot invert either (bundled cube A's case).
  std::vector<Component> few;
  for (const Component& c : sources)
    if (c.sum.sign() < 0 && few.empty()) few.push_back(c);
  few.push_back(positive.front());
  EXPECT_THROW(source_reliability(few, {}, 1.0, 0.0, p), InputError);
}

TEST(SourceReliability, BeamAreaAsSofia2) {
  // sqrt(pi · 5 · 5 / (4 ln 2)) for a 30" beam on 6" pixels; 1 without the header's beam.
  EXPECT_NEAR(sqrt_beam_area(30.0, 30.0, -6.0), std::sqrt(std::acos(-1.0) * 25.0 / (4.0 * std::log(2.0))), 1e-12);
  EXPECT_EQ(sqrt_beam_area(std::nan(""), 1.0, 1.0), 1.0);
}

TEST(SourceReliability, RenumbersLabels) {
  std::vector<std::int32_t> labels{0, 1, 2, 3, 2, 0, 4};
  renumber_labels(labels, std::vector<std::int32_t>{0, 1, 0, 2});
  EXPECT_EQ(labels, (std::vector<std::int32_t>{0, 0, 1, 0, 1, 0, 2}));
}

TEST(SourceReliability, CatalogueFileAsSofia2ReadsIt) {
  const test::TempDir dir;
  auto read = [&](const std::string& text) {
    const std::string path = dir.path("positions.txt");
    std::ofstream(path) << text;
    return read_reliability_catalog(path);
  };
  // Comments and lines not starting with a letter or digit skipped; space, tab, ',' and '|' split.
  const auto positions = read("# ra dec\n\n180.5 -30\n-1 2\n  179.25,\t-29.5\n12|1e1 extra\n");
  ASSERT_TRUE(positions.has_value());
  EXPECT_EQ(*positions, (std::vector<std::array<double, 2>>{{180.5, -30.0}, {179.25, -29.5}, {12.0, 10.0}}));
  EXPECT_FALSE(read("1 2 3\n4 5 6\n").has_value());  // 3 columns: SoFiA-2 ignores the file
  EXPECT_FALSE(read("# nothing\n").has_value());
  EXPECT_THROW(read("1 2\n3\n"), InputError);  // a short row: SoFiA-2 stops
  EXPECT_THROW(read_reliability_catalog(dir.path("missing.txt")), InputError);
}

TEST(SourceReliability, CatalogueLeavesOutNegativesAroundItsPositions) {
  const std::vector<Component> sources = components_of(read_points());
  ReliabilityParameters p;
  p.enable = true;
  p.threshold = 0.5;
  p.min_snr = 0;
  // The components of components_of all span x from 10, y from 20: a position there leaves every
  // negative out (SoFiA-2 then stops), one outside none.
  const std::vector<std::array<double, 2>> inside{{10.0, 20.0}}, outside{{9.5, 20.0}};
  EXPECT_THROW(source_reliability(sources, {}, 1.0, 0.0, p, inside), InputError);
  const ReliabilityOutcome none = source_reliability(sources, {}, 1.0, 0.0, p, outside);
  EXPECT_EQ(none.negatives, 49u);
  EXPECT_EQ(none.negatives_excluded, 0u);
}

TEST(SourceReliability, ParametersAsSofia2ReadsThem) {
  std::map<std::string, std::string> v{{"reliability.enable", "true"}, {"reliability.parameters", "peak,sum  chan"}};
  EXPECT_EQ(reliability_parameters_from_text(v).parameters, (std::vector<std::string>{"peak", "sum", "chan"}));
  v["reliability.parameters"] = "peak";
  EXPECT_THROW(reliability_parameters_from_text(v), UsageError);
  v["reliability.parameters"] = "peak, kurt, std, skew";
  EXPECT_TRUE(reliability_parameters_from_text(v).needs_moments());
  v["reliability.parameters"] = "peak, flux";
  EXPECT_THROW(reliability_parameters_from_text(v), UsageError);
  v.erase("reliability.parameters");
  v["reliability.autoKernel"] = "true";
  v["reliability.plot"] = "false";
  EXPECT_THROW(reliability_parameters_from_text(v), UsageError);  // SoFiA-2 stops there
  v["reliability.scaleKernel"] = "0";
  EXPECT_NO_THROW(reliability_parameters_from_text(v));
  LinkerParameters linker;
  ReliabilityParameters on;
  on.enable = true;
  linker.keep_negative = true;
  EXPECT_THROW(check_linker_for_reliability(linker, on), UsageError);
  linker.keep_negative = false;
  linker.positivity = true;
  EXPECT_THROW(check_linker_for_reliability(linker, on), UsageError);
}

}  // namespace
}  // namespace astrosweep::scfind
