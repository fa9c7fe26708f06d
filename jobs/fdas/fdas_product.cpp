#include "fdas_product.hpp"

#include <fcntl.h>

#include <algorithm>
#include <bit>
#include <cstdio>

#include "core/error.hpp"
#include "core/version.hpp"
#include "io/output_path.hpp"
#include "io/product_attributes.hpp"

namespace astrosweep::fdas {

namespace {

const char* to_string(Normalisation n) {
  switch (n) {
    case Normalisation::deredden: return "deredden";
    case Normalisation::known_variance: return "known-variance";
    case Normalisation::none: return "none";
  }
  return "?";
}

std::string birdies_text(const std::vector<Birdie>& birdies) {
  std::string text;
  char line[80];
  for (const auto& b : birdies) {
    std::snprintf(line, sizeof line, "%.17g %.17g\n", b.frequency, b.width);
    text += line;
  }
  return text;
}

// Every root attribute but status, in the order written; the one list the writer, the fingerprint
// and the reader share.
std::vector<io::ProductAttribute> root_attributes(const FdasOptions& o, const ProductProvenance& p) {
  const auto i64 = [](auto v) { return static_cast<std::int64_t>(v); };
  return {{"format", std::string(product_format_name)},
          {"format_version", product_format_version},
          {"software", std::string("astrosweep")},
          {"software_version", std::string(version_string())},
          {"command_line", o.command_line},
          {"input_format", p.input_format},
          {"inputs", p.inputs},
          {"n_series", i64(p.n_series)},
          {"input_samples", i64(p.input_samples)},
          {"zmax", o.z_max},
          {"numharm", i64(o.numharm)},
          {"numbetween", i64(o.numbetween)},
          {"sigma_min", o.sigma_min},
          {"flo_hz", o.f_lo},
          {"fhi_hz", o.f_hi},
          {"normalisation", std::string(to_string(o.normalisation))},
          {"known_variance", o.known_variance},
          {"birdies", birdies_text(o.birdies)},
          {"max_candidates", i64(o.max_candidates)},
          {"accuracy", std::string(o.accuracy == Accuracy::low ? "low" : "high")},
          {"fft_length", i64(p.fft_length)},
          {"n_templates", i64(p.n_templates)},
          {"sift_sigma", o.sift.sigma_threshold},
          {"sift_c_pow", o.sift.c_pow_threshold},
          {"sift_harm_pow", o.sift.harm_pow_cutoff},
          {"sift_r_err", o.sift.r_err},
          {"sift_short_period_s", o.sift.short_period},
          {"sift_long_period_s", o.sift.long_period},
          {"sift_min_dms", i64(o.sift.min_num_dms)},
          {"sift_low_dm", o.sift.low_dm_cutoff}};
}

std::uint64_t stage_count(int numharm) { return static_cast<std::uint64_t>(std::countr_zero(unsigned(numharm))) + 1; }

}  // namespace

FdasProduct::FdasProduct(const std::string& path, MPI_Comm comm, const FdasOptions& options,
                         const ProductProvenance& prov) {
  const std::uint64_t n = prov.n_series;
  io::check_output_space(path, n * sizeof(SeriesRow), comm);
  file_ = h5::open_file(path, h5::Access::create_truncate, comm);
  const hid_t f = file_.get();
  io::write_root_attributes(f, root_attributes(options, prov));
  group_ = h5::create_group(f, "series");
  const hid_t g = group_.get();
  const std::uint64_t stages = stage_count(options.numharm);
  auto make = [&](const char* name, hid_t type, const char* units, const char* what, std::uint64_t width = 0) {
    return h5::described(h5::create_dataset(g, name, type, width ? std::vector{n, width} : std::vector{n}), units,
                         what);
  };
  dm_ = make("dm", H5T_NATIVE_DOUBLE, "pc cm-3", "dispersion measure of the series (its DM trial)");
  tsamp_ = make("tsamp", H5T_NATIVE_DOUBLE, "s", "sampling interval");
  tstart_ = make("tstart_mjd", H5T_NATIVE_DOUBLE, "d", "MJD of the first sample");
  n_samples_ = make("n_samples", H5T_NATIVE_UINT64, "", "samples in the input");
  n_fft_ = make("n_fft", H5T_NATIVE_UINT64, "", "transform length: n_samples padded with the mean to 2^a 3^b 5^c 7^d");
  span_ = make("span", H5T_NATIVE_DOUBLE, "s", "T = n_fft * tsamp, the span every conversion uses (f = r/T)");
  status_ = make("status", H5T_NATIVE_UINT32, "",
                 "bits: 1 the candidate list reached --max-candidates (weakest dropped), 2 no bin of --flo/--fhi "
                 "in this series; 0 ok");
  n_candidates_ = make("n_candidates", H5T_NATIVE_UINT32, "", "candidates of this series in /candidates");
  removed_ = make("removed_as_harmonics", H5T_NATIVE_UINT32, "",
                  "candidates removed as harmonics of stronger ones of the same series (PRESTO's elimination)");
  n_indep_ = make("n_indep", H5T_NATIVE_INT64, "",
                  "independent trials of each harmonic stage (columns: 1, 2, 4, ... harmonics)", stages);
  cells_above_ = make("cells_above", H5T_NATIVE_UINT64, "",
                      "plane cells above each stage's power threshold, before merging", stages);
  powcut_ = make("powcut", H5T_NATIVE_FLOAT, "normalised power",
                 "each stage's summed-power threshold for --sigma among its n_indep trials", stages);
  h5::flush(f);  // the metadata reaches the file once: rows are then raw writes (docs/reliability.md)
  durable_ = io::PosixFile(path, O_RDONLY);
}

FdasProduct::FdasProduct(const std::string& path, MPI_Comm comm)
    : file_(h5::open_file(path, h5::Access::read_write, comm)) {
  group_ = h5::open_group(file_.get(), "series");
  const hid_t g = group_.get();
  dm_ = h5::open_dataset(g, "dm");
  tsamp_ = h5::open_dataset(g, "tsamp");
  tstart_ = h5::open_dataset(g, "tstart_mjd");
  n_samples_ = h5::open_dataset(g, "n_samples");
  n_fft_ = h5::open_dataset(g, "n_fft");
  span_ = h5::open_dataset(g, "span");
  status_ = h5::open_dataset(g, "status");
  n_candidates_ = h5::open_dataset(g, "n_candidates");
  removed_ = h5::open_dataset(g, "removed_as_harmonics");
  n_indep_ = h5::open_dataset(g, "n_indep");
  cells_above_ = h5::open_dataset(g, "cells_above");
  powcut_ = h5::open_dataset(g, "powcut");
  durable_ = io::PosixFile(path, O_RDONLY);
}

FdasProduct::~FdasProduct() = default;

io::Fingerprint FdasProduct::fingerprint(const FdasOptions& options, const ProductProvenance& prov) {
  io::Fingerprint fp = io::results_fingerprint(root_attributes(options, prov));
  return fp;
}

std::optional<io::ExistingProduct> FdasProduct::inspect(const std::string& path) {
  if (!h5::is_hdf5(path)) return std::nullopt;
  try {
    h5::Id file = h5::open_file(path, h5::Access::read);
    const hid_t f = file.get();
    if (h5::string_attribute(f, "format") != std::string(product_format_name) || !h5::exists(f, "series/dm"))
      return std::nullopt;
    io::ExistingProduct found;
    const FdasOptions no_options;
    const ProductProvenance no_provenance;
    found.fingerprint = io::stored_results_fingerprint(f, root_attributes(no_options, no_provenance));
    found.complete = h5::string_attribute(f, "status") == std::string("complete");
    return found;
  } catch (const Error&) {
    return std::nullopt;  // damaged: killed while HDF5 wrote its metadata
  }
}

void FdasProduct::write_series(std::span<const SeriesRow> rows) {
  // Rows of one unit are consecutive series; written as runs of consecutive indices.
  std::size_t begin = 0;
  while (begin < rows.size()) {
    std::size_t end = begin + 1;
    while (end < rows.size() && rows[end].series == rows[end - 1].series + 1) ++end;
    const auto run = rows.subspan(begin, end - begin);
    const std::uint64_t first = run.front().series;
    auto column = [&](hid_t ds, auto member) {
      using V = std::decay_t<decltype(run[0].*member)>;
      std::vector<V> v;
      for (const auto& r : run) v.push_back(r.*member);
      h5::write_rows<V>(ds, first, std::span<const V>(v));
    };
    column(dm_.get(), &SeriesRow::dm);
    column(tsamp_.get(), &SeriesRow::tsamp);
    column(tstart_.get(), &SeriesRow::tstart_mjd);
    column(n_samples_.get(), &SeriesRow::n_samples);
    column(n_fft_.get(), &SeriesRow::n_fft);
    column(span_.get(), &SeriesRow::span_s);
    column(status_.get(), &SeriesRow::status);
    column(n_candidates_.get(), &SeriesRow::n_candidates);
    column(removed_.get(), &SeriesRow::removed_as_harmonics);
    auto table = [&](hid_t ds, hid_t type, auto member) {
      const std::uint64_t width = h5::dims(ds).at(1);
      using V = typename std::decay_t<decltype(run[0].*member)>::value_type;
      std::vector<V> v;
      for (const auto& r : run) v.insert(v.end(), (r.*member).begin(), (r.*member).begin() + width);
      h5::write_rows(ds, type, first, run.size(), v.data());
    };
    table(n_indep_.get(), H5T_NATIVE_INT64, &SeriesRow::n_indep);
    table(cells_above_.get(), H5T_NATIVE_UINT64, &SeriesRow::cells_above);
    table(powcut_.get(), H5T_NATIVE_FLOAT, &SeriesRow::powcut);
    begin = end;
  }
}

void FdasProduct::sync() { durable_.sync(); }

void FdasProduct::close_all() {
  for (h5::Id* id : {&powcut_, &cells_above_, &n_indep_, &removed_, &n_candidates_, &status_, &span_, &n_fft_,
                     &n_samples_, &tstart_, &tsamp_, &dm_, &group_})
    *id = h5::Id();
  if (file_.valid()) h5::close_file(file_);
}

void FdasProduct::close() { close_all(); }

}  // namespace astrosweep::fdas
