// compare_products A B [--datasets-only | --close REL]: exits 0 when two period (scfind, fdas, spiir) products hold the
// same bytes in every dataset and the same root attributes (except command_line, which names the
// output), and 1 with the first difference otherwise. Used to check that products do not depend on
// rank counts. With --close, floating-point datasets may differ by REL times the dataset's largest
// magnitude (NaN only where the other is NaN): how CPU and GPU products are compared.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/mpi.hpp"
#include "io/h5.hpp"

namespace h5 = astrosweep::h5;

namespace {

// The product schema's datasets (docs/formats.md); listed rather than visited because the HDF5
// visit API differs between 1.10 and 1.12.
std::vector<std::string> datasets_of(hid_t file) {
  std::vector<std::string> names;
  for (const char* n :
       {"objects/id", "objects/status", "objects/cleaned", "objects/n_points", "objects/n_nonfinite",
        "objects/n_bad_errors", "objects/n_flagged", "objects/bjdrefi", "objects/bjdreff", "objects/t_ref",
        "objects/baseline", "objects/best_frequency", "objects/best_period", "objects/best_power", "objects/fap",
        "peaks/frequency", "peaks/power", "periodogram/power",
        // scfind products
        "mask", "kernel_pairs/fwhm_xy", "kernel_pairs/width_z", "kernel_pairs/noise",
        // fdas products (series/source is provenance, compared with the attributes)
        "series/dm", "series/tsamp", "series/tstart_mjd", "series/n_samples", "series/n_fft", "series/span",
        "series/status", "series/n_candidates", "series/removed_as_harmonics", "series/n_indep", "series/cells_above",
        "series/powcut", "series/candidate_offset", "candidates/series", "candidates/number", "candidates/dm",
        "candidates/sigma", "candidates/summed_power", "candidates/coherent_power", "candidates/numharm",
        "candidates/r", "candidates/r_err", "candidates/z", "candidates/z_err", "candidates/frequency",
        "candidates/frequency_err", "candidates/period", "candidates/period_err", "candidates/fdot",
        "candidates/fdot_err", "candidates/pdot", "candidates/pdot_err", "candidates/accel", "candidates/accel_err",
        "candidates/found_r", "candidates/found_z", "candidates/found_sigma", "candidates/found_power",
        "candidates/harmonic_offset", "candidates/notes", "harmonics/series", "harmonics/number", "harmonics/harmonic",
        "harmonics/sigma", "harmonics/power", "harmonics/raw_power", "harmonics/r", "harmonics/r_predicted",
        "harmonics/z", "harmonics/z_predicted", "harmonics/phase", "harmonics/centroid", "harmonics/purity",
        "sifted/series", "sifted/number", "sifted/dm", "sifted/sigma", "sifted/snr", "sifted/summed_power",
        "sifted/coherent_power", "sifted/numharm", "sifted/r", "sifted/z", "sifted/frequency", "sifted/period",
        "sifted/n_hits", "sifted/hit_offset", "sifted/hits/dm", "sifted/hits/snr", "sifted/hits/sigma"})
    if (h5::exists(file, n)) names.emplace_back(n);
  // spiir products: per-detector peaks, coherent triggers and background (docs/spiir.md)
  for (const std::string group :
       {"peaks/H1", "peaks/L1", "peaks/V1", "triggers", "triggers/H1", "triggers/L1", "triggers/V1", "background",
        "background/H1", "background/L1", "background/V1", "background/candidates"})
    for (const char* column :
         {"end_time_gps_s", "end_time_gps_ns", "template", "sample", "snr", "phase", "candidate", "coh_snr", "ra",
          "dec", "n_side", "pixel", "network_chisq", "null_snr", "ref_ifo", "trial", "chisq", "time_offset_samples"})
      if (h5::exists(file, group) && h5::exists(file, group + "/" + column)) names.push_back(group + "/" + column);
  // spiir: the PSD a detector's strain was whitened with, where the job whitened it (one, or one per
  // stretch with --psd-stretch-seconds)
  for (const std::string ifo : {"H1", "L1", "V1"})
    for (const char* column : {"frequency", "value", "stretch_start", "n_segments", "median_bias"})
      if (h5::exists(file, "detectors/" + ifo + "/psd/" + column))
        names.push_back("detectors/" + ifo + "/psd/" + column);
  // spiir --snr-templates: the complex SNR series per detector and their scales
  for (const char* n : {"snr/template", "snr/time", "snr/H1", "snr/L1", "snr/V1"})
    if (h5::exists(file, "snr") && h5::exists(file, n)) names.emplace_back(n);
  // spiir --skymaps: the pixel scales and one map per trigger, named by its row
  for (const std::string scale : {"skymaps/ra", "skymaps/dec"})
    if (h5::exists(file, "skymaps") && h5::exists(file, scale)) names.push_back(scale);
  for (std::size_t row = 0; h5::exists(file, "skymaps") && h5::exists(file, "skymaps/" + std::to_string(row)); ++row)
    names.push_back("skymaps/" + std::to_string(row));
  return names;
}

std::vector<char> raw(hid_t file, const std::string& name) {
  h5::Id ds = h5::open_dataset(file, name);
  h5::Id type(H5Dget_type(ds.get()));
  std::size_t n = H5Tget_size(type.get());
  for (auto d : h5::dims(ds.get())) n *= d;
  std::vector<char> bytes(n);
  if (n) h5::check(H5Dread(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()), "H5Dread");
  return bytes;
}

// A compound of two floats r and i: h5py's complex (spiir's /snr).
bool is_complex(hid_t type) {
  return H5Tget_class(type) == H5T_COMPOUND && H5Tget_nmembers(type) == 2 && H5Tget_member_index(type, "r") == 0 &&
         H5Tget_member_index(type, "i") == 1;
}

bool is_float(hid_t file, const std::string& name) {
  h5::Id ds = h5::open_dataset(file, name);
  h5::Id type(H5Dget_type(ds.get()));
  return H5Tget_class(type.get()) == H5T_FLOAT || is_complex(type.get());
}

// The values as doubles (a complex dataset's as r, i pairs).
std::vector<double> values(hid_t file, const std::string& name) {
  h5::Id ds = h5::open_dataset(file, name);
  h5::Id type(H5Dget_type(ds.get()));
  std::size_t n = is_complex(type.get()) ? 2 : 1;
  for (auto d : h5::dims(ds.get())) n *= d;
  h5::Id memory(is_complex(type.get()) ? H5Tcreate(H5T_COMPOUND, 2 * sizeof(double)) : H5Tcopy(H5T_NATIVE_DOUBLE));
  if (is_complex(type.get())) {
    h5::check(H5Tinsert(memory.get(), "r", 0, H5T_NATIVE_DOUBLE), "H5Tinsert");
    h5::check(H5Tinsert(memory.get(), "i", sizeof(double), H5T_NATIVE_DOUBLE), "H5Tinsert");
  }
  std::vector<double> v(n);
  if (n) h5::check(H5Dread(ds.get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), "H5Dread");
  return v;
}

bool close(const std::vector<double>& a, const std::vector<double>& b, double rel) {
  if (a.size() != b.size()) return false;
  double scale = 0;
  for (double x : a)
    if (std::isfinite(x)) scale = std::max(scale, std::abs(x));
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      if (std::isnan(a[i]) != std::isnan(b[i])) return false;
      continue;
    }
    if (!(std::abs(a[i] - b[i]) <= rel * scale)) return false;
  }
  return true;
}

std::vector<std::string> attribute_names(hid_t loc) {
  std::vector<std::string> names;
  H5Aiterate2(
      loc, H5_INDEX_NAME, H5_ITER_INC, nullptr,
      [](hid_t, const char* name, const H5A_info_t*, void* out) -> herr_t {
        static_cast<std::vector<std::string>*>(out)->push_back(name);
        return 0;
      },
      &names);
  return names;
}

std::string attribute_text(hid_t loc, const std::string& name) {
  if (auto s = h5::string_attribute(loc, name)) return *s;
  h5::Id attr(H5Aopen(loc, name.c_str(), H5P_DEFAULT));
  h5::Id type(H5Aget_type(attr.get()));
  if (H5Tget_class(type.get()) == H5T_FLOAT)
    if (auto d = h5::double_attribute(loc, name)) return std::to_string(*d);
  if (auto i = h5::int_attribute(loc, name)) return std::to_string(*i);
  return "(not a single string or number)";  // compared as such: equal only to the same kind
}

}  // namespace

int main(int argc, char** argv) {
  astrosweep::mpi::Session session(argc, argv);
  const bool datasets_only = argc == 4 && std::strcmp(argv[3], "--datasets-only") == 0;
  const bool tolerant = argc == 5 && std::strcmp(argv[3], "--close") == 0;
  const double rel = tolerant ? std::atof(argv[4]) : 0.0;
  if (argc != 3 && !datasets_only && !tolerant) {
    std::fprintf(stderr, "usage: compare_products A.h5 B.h5 [--datasets-only | --close REL]\n");
    return 2;
  }
  try {
    h5::Id a = h5::open_file(argv[1], h5::Access::read);
    h5::Id b = h5::open_file(argv[2], h5::Access::read);
    const auto names = datasets_of(a.get());
    if (names != datasets_of(b.get())) {
      std::printf("different dataset lists\n");
      return 1;
    }
    for (const auto& n : names) {
      const bool same = tolerant && is_float(a.get(), n) ? close(values(a.get(), n), values(b.get(), n), rel)
                                                         : raw(a.get(), n) == raw(b.get(), n);
      if (!same) {
        std::printf("dataset %s differs\n", n.c_str());
        return 1;
      }
    }
    if (h5::exists(a.get(), "series/source") && !datasets_only &&
        raw(a.get(), "series/source") != raw(b.get(), "series/source")) {
      std::printf("dataset series/source differs\n");
      return 1;
    }
    if (datasets_only) {
      std::printf("identical: %zu datasets\n", names.size());
      return 0;
    }
    // The root's attributes and those of groups that carry settings (spiir's PSD estimates).
    std::size_t n_attributes = 0;
    for (const std::string group : {"/", "detectors/H1/psd", "detectors/L1/psd", "detectors/V1/psd"}) {
      const bool in_a = group == "/" || h5::exists(a.get(), group);
      const bool in_b = group == "/" || h5::exists(b.get(), group);
      if (in_a != in_b) {
        std::printf("group %s is in one product only\n", group.c_str());
        return 1;
      }
      if (!in_a) continue;
      h5::Id ga = h5::open_group(a.get(), group);
      h5::Id gb = h5::open_group(b.get(), group);
      const auto attrs = attribute_names(ga.get());
      if (attrs != attribute_names(gb.get())) {
        std::printf("different attributes of %s\n", group.c_str());
        return 1;
      }
      for (const auto& n : attrs) {
        if (n == "command_line") continue;
        if (attribute_text(ga.get(), n) != attribute_text(gb.get(), n)) {
          std::printf("attribute %s of %s differs\n", n.c_str(), group.c_str());
          return 1;
        }
      }
      n_attributes += attrs.size();
    }
    std::printf("identical: %zu datasets, %zu attributes\n", names.size(), n_attributes);
    return 0;
  } catch (const astrosweep::Error& e) {
    std::fprintf(stderr, "compare_products: %s\n", e.what());
    return 2;
  }
}
