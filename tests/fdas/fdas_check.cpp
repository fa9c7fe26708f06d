// fdas_check: what an fdas product must say about the beam make_fdas_beam wrote.
//
//   fdas_check PRODUCT --f0 HZ --z BINS --dm DM --span S [--numharm H] [--min-hits K] [--numbetween B]
//   fdas_check PRODUCT ... --accel-file PATH   (PRESTO's text file of a series: its tables and .inf)
//
// The most significant sifted candidate is the pulsar: at its DM, summed over H harmonics, seen at
// K DM trials or more, and its polished fundamental within 0.1 bin of r = f0·T and 0.5 of z (spec
// §13 item 3), with f and ḟ in the candidate table agreeing with r/T and z/T². The product is
// complete, records the numbetween it was searched with (2 unless told), and every dataset has
// units and a description. Exits 1 with the first failed check.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "io/h5.hpp"

namespace h5 = astrosweep::h5;

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

template <class T>
T at(hid_t file, const std::string& name, std::uint64_t row) {
  h5::Id ds = h5::open_dataset(file, name);
  return h5::read_rows<T>(ds.get(), row, 1).at(0);
}

void check_described(hid_t file, const std::string& name) {
  h5::Id ds = h5::open_dataset(file, name);
  check(h5::string_attribute(ds.get(), "units").has_value() &&
            h5::string_attribute(ds.get(), "description").value_or("").size() > 3,
        name + " has units and a description");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: fdas_check PRODUCT --f0 HZ --z BINS --dm DM --span S [--numharm H] [--min-hits K] "
                 "[--numbetween B]\n");
    return 2;
  }
  std::map<std::string, double> o{{"--numharm", 8}, {"--min-hits", 3}, {"--numbetween", 2}};
  std::string accel_file;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--accel-file")
      accel_file = argv[i + 1];
    else
      o[argv[i]] = std::atof(argv[i + 1]);
  }
  if (!accel_file.empty()) {
    // PRESTO's layout (accel_text.cpp, its own tests): the two tables, then the .inf text.
    std::ifstream in(accel_file);
    std::stringstream text;
    text << in.rdbuf();
    const std::string t = text.str();
    check(in.good() || !t.empty(), accel_file + " exists");
    check(t.find("Summed") != std::string::npos && t.find("Coherent") != std::string::npos,
          "it has the fundamental table");
    check(t.find("Centroid") != std::string::npos && t.find("Purity") != std::string::npos,
          "it has the harmonic table");
    check(t.find("Dispersion measure (cm-3 pc)") != std::string::npos, "it ends with the series' .inf text");
    return failures ? 1 : 0;
  }
  for (const char* key : {"--f0", "--z", "--dm", "--span"})
    if (!o.count(key)) {
      std::fprintf(stderr, "fdas_check: %s is required\n", key);
      return 2;
    }
  try {
    h5::Id file = h5::open_file(argv[1], h5::Access::read);
    const hid_t f = file.get();
    check(h5::string_attribute(f, "status") == std::string("complete"), "the product is complete");
    check(h5::int_attribute(f, "numbetween") == static_cast<std::int64_t>(o["--numbetween"]),
          "searched with numbetween " + std::to_string(static_cast<int>(o["--numbetween"])));
    for (const char* name : {"series/dm", "series/span", "series/n_indep", "series/source", "candidates/sigma",
                             "candidates/frequency", "candidates/accel", "candidates/notes", "harmonics/power",
                             "harmonics/phase", "sifted/sigma", "sifted/hits/dm"})
      check_described(f, name);
    h5::Id sifted = h5::open_dataset(f, "sifted/sigma");
    const auto n_sifted = h5::column_length(sifted.get());
    check(n_sifted >= 1, "at least one candidate survives sifting");
    if (n_sifted == 0) return 1;
    const auto series = at<std::uint64_t>(f, "sifted/series", 0);
    const auto number = at<std::int32_t>(f, "sifted/number", 0);
    const auto hits = at<std::uint64_t>(f, "sifted/n_hits", 0);
    const double dm = at<double>(f, "sifted/dm", 0);
    check(std::fabs(dm - o["--dm"]) < 1e-9, "the best DM is the pulsar's: " + std::to_string(dm));
    check(static_cast<double>(hits) >= o["--min-hits"], "seen at " + std::to_string(hits) + " DM trials");
    const auto offset = at<std::uint64_t>(f, "series/candidate_offset", series);
    const std::uint64_t row = offset + static_cast<std::uint64_t>(number - 1);
    check(at<std::uint64_t>(f, "candidates/series", row) == series &&
              at<std::int32_t>(f, "candidates/number", row) == number,
          "/sifted points at its row of /candidates");
    const double T = at<double>(f, "series/span", series);
    check(std::fabs(T - o["--span"]) < 1e-9, "the series spans " + std::to_string(T) + " s");
    const double r = at<double>(f, "candidates/r", row), z = at<double>(f, "candidates/z", row);
    const double r_true = o["--f0"] * T;
    char text[200];
    std::snprintf(text, sizeof text, "r = %.4f within 0.1 bin of %.4f", r, r_true);
    check(std::fabs(r - r_true) <= 0.1, text);
    std::snprintf(text, sizeof text, "z = %.3f within 0.5 of %.3f", z, o["--z"]);
    check(std::fabs(z - o["--z"]) <= 0.5, text);
    check(at<std::int32_t>(f, "candidates/numharm", row) == static_cast<std::int32_t>(o["--numharm"]),
          "found with " + std::to_string(static_cast<int>(o["--numharm"])) + " harmonics");
    const double freq = at<double>(f, "candidates/frequency", row), fdot = at<double>(f, "candidates/fdot", row);
    check(std::fabs(freq - r / T) <= 1e-12 * freq && std::fabs(fdot - z / (T * T)) <= 1e-12 * std::fabs(fdot) + 1e-300,
          "f = r/T and fdot = z/T^2");
    const auto h_offset = at<std::uint64_t>(f, "candidates/harmonic_offset", row);
    check(at<std::int32_t>(f, "harmonics/harmonic", h_offset) == 1 &&
              at<std::int32_t>(f, "harmonics/number", h_offset) == number,
          "its harmonics start at harmonic_offset");
  } catch (const astrosweep::Error& e) {
    std::fprintf(stderr, "fdas_check: %s\n", e.what());
    return 1;
  }
  return failures ? 1 : 0;
}
