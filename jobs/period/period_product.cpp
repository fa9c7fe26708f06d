#include "period_product.hpp"

#include <fcntl.h>

#include <cstdio>

#include "core/error.hpp"
#include "core/mpi.hpp"
#include "core/version.hpp"
#include "io/output_path.hpp"
#include "io/product_attributes.hpp"

namespace astrosweep::period {

namespace {

// Every root attribute but status, in the order they are written; the one list the writer, the
// fingerprint and the reader share.
std::vector<io::ProductAttribute> root_attributes(const PeriodConfig& config, const ProductProvenance& prov) {
  return {{"format", std::string(product_format_name)},
          {"format_version", product_format_version},
          {"software", std::string("astrosweep")},
          {"software_version", std::string(version_string())},
          {"command_line", prov.command_line},
          {"input_format", prov.input.format},
          {"input_paths", prov.input.paths},
          {"input_bytes", static_cast<std::int64_t>(prov.input.bytes)},
          {"input_digest_fnv1a64", prov.input.digest},
          {"time_unit", std::string("d")},
          {"time_reference", prov.time_reference},
          {"model", std::string(to_string(config.model))},
          {"normalization", std::string(to_string(config.normalization))},
          {"precision", std::string(to_string(config.precision))},
          {"method", std::string(to_string(config.method))},
          {"top_k", static_cast<std::int64_t>(config.top_k)},
          {"peak_separation", config.peak_separation},
          {"grid_f0", config.grid.f0},
          {"grid_df", config.grid.df},
          {"grid_n", static_cast<std::int64_t>(config.grid.n)},
          {"grid_fmax", config.grid.n ? config.grid.last() : 0.0},
          {"grid_rule", prov.grid_rule},
          {"fap_method", std::string("baluev")}};
}

// The product's size without HDF5's few kilobytes of metadata: the rows of /objects and /peaks,
// and the periodograms.
std::uint64_t data_bytes(std::uint64_t n, const PeriodConfig& config, bool time_references) {
  const std::uint64_t per_object =
      6 * 8 + 7 * 4 + (time_references ? 2 * 8 : 0) + 2 * 8 * static_cast<std::uint64_t>(config.top_k) +
      (config.keep_periodograms ? config.grid.n * (config.precision == Precision::fp32 ? 4 : 8) : 0);
  return n * per_object + (config.keep_periodograms ? config.grid.n * 8 : 0);  // and the frequency axis
}

h5::Id create_file(const std::string& path, MPI_Comm comm, std::uint64_t bytes) {
  io::check_output_space(path, bytes, comm);  // a full disk found before HDF5's collective writes
  return h5::open_file(path, h5::Access::create_truncate, comm);
}

}  // namespace

PeriodProduct::PeriodProduct(const std::string& path, MPI_Comm comm, std::uint64_t n, const PeriodConfig& config,
                             const ProductProvenance& prov)
    : config_(config), file_(create_file(path, comm, data_bytes(n, config, prov.time_references))) {
  const hid_t f = file_.get();
  io::write_root_attributes(f, root_attributes(config, prov));

  objects_ = h5::create_group(f, "objects");
  const hid_t o = objects_.get();
  // Every dataset with its units and a description, so the product reads without our docs.
  auto make = [&](hid_t loc, const char* name, hid_t type, std::vector<std::uint64_t> dims, const char* units,
                  const char* what) { return h5::described(h5::create_dataset(loc, name, type, dims), units, what); };
  const char* power_units = "";  // every normalisation is dimensionless
  id_ = make(o, "id", H5T_NATIVE_INT64, {n}, "", "object id, in catalog order");
  status_ = make(o, "status", H5T_NATIVE_UINT32, {n}, "",
                 "0: the result is valid; else bits saying why not (results NaN): 8 fewer than 4 usable points, "
                 "16 constant data, 32 time span beyond double-precision phases, 64 power beyond double range");
  cleaned_ = make(o, "cleaned", H5T_NATIVE_UINT32, {n}, "",
                  "bits saying what was removed before the search (the result may still be valid): 1 non-finite "
                  "points, 2 points with dy <= 0, 4 quality-flagged cadences; counts in n_nonfinite, n_bad_errors, "
                  "n_flagged");
  n_points_ = make(o, "n_points", H5T_NATIVE_UINT32, {n}, "", "points used");
  n_nonfinite_ = make(o, "n_nonfinite", H5T_NATIVE_UINT32, {n}, "", "points dropped: non-finite t, y or dy");
  n_bad_errors_ = make(o, "n_bad_errors", H5T_NATIVE_UINT32, {n}, "", "points dropped: dy <= 0 (generalized model)");
  n_flagged_ = make(o, "n_flagged", H5T_NATIVE_UINT32, {n}, "", "points dropped: quality-flagged cadences");
  if (prov.time_references) {
    bjdrefi_ = make(o, "bjdrefi", H5T_NATIVE_INT64, {n}, "d",
                    "integer part of the BJD this object's times (and t_ref) count from (FITS BJDREFI)");
    bjdreff_ = make(o, "bjdreff", H5T_NATIVE_DOUBLE, {n}, "d",
                    "fractional part of the BJD this object's times (and t_ref) count from (FITS BJDREFF; NaN: "
                    "its input gave none)");
  }
  t_ref_ = make(o, "t_ref", H5T_NATIVE_DOUBLE, {n}, "d",
                "time subtracted before the periodogram (the middle of the used points' baseline)");
  baseline_ = make(o, "baseline", H5T_NATIVE_DOUBLE, {n}, "d", "t_max - t_min of the used points");
  best_frequency_ =
      make(o, "best_frequency", H5T_NATIVE_DOUBLE, {n}, "1/d", "frequency of the highest peak (NaN: not computed)");
  best_period_ = make(o, "best_period", H5T_NATIVE_DOUBLE, {n}, "d", "1 / best_frequency");
  best_power_ = make(o, "best_power", H5T_NATIVE_DOUBLE, {n}, power_units,
                     "Lomb-Scargle power of the highest peak, in the run's normalization (root attribute)");
  fap_ = make(o, "fap", H5T_NATIVE_DOUBLE, {n}, "", "Baluev (2008) false-alarm probability of the highest peak");
  peaks_ = h5::create_group(f, "peaks");
  const auto k = static_cast<std::uint64_t>(config.top_k);
  peak_frequency_ = make(peaks_.get(), "frequency", H5T_NATIVE_DOUBLE, {n, k}, "1/d",
                         "distinct peaks per object, strongest first, NaN-padded: their frequencies");
  peak_power_ = make(peaks_.get(), "power", H5T_NATIVE_DOUBLE, {n, k}, power_units,
                     "distinct peaks per object, strongest first, NaN-padded: their powers");
  if (config.keep_periodograms) {
    h5::Id group = h5::create_group(f, "periodogram");
    const hid_t type = config.precision == Precision::fp32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    periodogram_ = make(group.get(), "power", type, {n, config.grid.n}, power_units,
                        "Lomb-Scargle power per object (row) and frequency (column), in the run's normalization");
    // The frequency axis, a dimension scale of the power's columns (h5py: power.dims[1][0]).
    h5::Id frequency = make(group.get(), "frequency", H5T_NATIVE_DOUBLE, {config.grid.n}, "1/d",
                            "the frequency grid: grid_f0 + k grid_df");
    int rank = 0;
    AS_MPI_TRY(MPI_Comm_rank(comm, &rank));
    if (rank == 0) {
      std::vector<double> grid(config.grid.n);
      for (std::uint64_t i = 0; i < config.grid.n; ++i) grid[i] = config.grid.at(i);
      h5::write_rows<double>(frequency.get(), 0, std::span<const double>(grid));
    }
    h5::attach_scale(periodogram_.get(), frequency.get(), 1, "frequency");
  }
  // The metadata reaches the file now, once: rows are then raw writes into storage allocated
  // above, so a run killed at any later moment leaves a file HDF5 can open (docs/reliability.md).
  h5::flush(f);  // a full disk: OutputError (exit 4) naming the file
  durable_ = io::PosixFile(path, O_RDONLY);
}

PeriodProduct::PeriodProduct(const std::string& path, MPI_Comm comm, const PeriodConfig& config)
    : config_(config), file_(h5::open_file(path, h5::Access::read_write, comm)) {
  objects_ = h5::open_group(file_.get(), "objects");
  const hid_t o = objects_.get();
  id_ = h5::open_dataset(o, "id");
  status_ = h5::open_dataset(o, "status");
  cleaned_ = h5::open_dataset(o, "cleaned");
  n_points_ = h5::open_dataset(o, "n_points");
  n_nonfinite_ = h5::open_dataset(o, "n_nonfinite");
  n_bad_errors_ = h5::open_dataset(o, "n_bad_errors");
  n_flagged_ = h5::open_dataset(o, "n_flagged");
  if (h5::exists(o, "bjdrefi")) {
    bjdrefi_ = h5::open_dataset(o, "bjdrefi");
    bjdreff_ = h5::open_dataset(o, "bjdreff");
  }
  t_ref_ = h5::open_dataset(o, "t_ref");
  baseline_ = h5::open_dataset(o, "baseline");
  best_frequency_ = h5::open_dataset(o, "best_frequency");
  best_period_ = h5::open_dataset(o, "best_period");
  best_power_ = h5::open_dataset(o, "best_power");
  fap_ = h5::open_dataset(o, "fap");
  peaks_ = h5::open_group(file_.get(), "peaks");
  peak_frequency_ = h5::open_dataset(peaks_.get(), "frequency");
  peak_power_ = h5::open_dataset(peaks_.get(), "power");
  if (config.keep_periodograms) periodogram_ = h5::open_dataset(file_.get(), "periodogram/power");
  durable_ = io::PosixFile(path, O_RDONLY);
}

io::Fingerprint PeriodProduct::fingerprint(std::uint64_t n_objects, const PeriodConfig& config,
                                           const ProductProvenance& prov) {
  io::Fingerprint fp = io::results_fingerprint(root_attributes(config, prov));
  fp.emplace_back("n_objects", std::to_string(n_objects));
  fp.emplace_back("periodograms", config.keep_periodograms ? "yes" : "no");
  fp.emplace_back("time_references", prov.time_references ? "per object" : "root");
  return fp;
}

std::optional<ExistingProduct> PeriodProduct::inspect(const std::string& path) {
  if (!h5::is_hdf5(path)) return std::nullopt;
  try {
    h5::Id file = h5::open_file(path, h5::Access::read);
    const hid_t f = file.get();
    if (h5::string_attribute(f, "format") != std::string(product_format_name) || !h5::exists(f, "objects/id"))
      return std::nullopt;
    ExistingProduct found;
    found.fingerprint = io::stored_results_fingerprint(f, root_attributes(PeriodConfig{}, ProductProvenance{}));
    h5::Id ids = h5::open_dataset(f, "objects/id");
    const auto d = h5::dims(ids.get());
    found.fingerprint.emplace_back("n_objects", std::to_string(d.empty() ? 0 : d[0]));
    found.fingerprint.emplace_back("periodograms", h5::exists(f, "periodogram/power") ? "yes" : "no");
    found.fingerprint.emplace_back("time_references", h5::exists(f, "objects/bjdrefi") ? "per object" : "root");
    found.complete = h5::string_attribute(f, "status") == std::string("complete");
    return found;
  } catch (const Error&) {
    return std::nullopt;  // damaged: a run killed while HDF5 was writing the file's metadata
  }
}

PeriodProduct::~PeriodProduct() = default;

void PeriodProduct::write_results(std::uint64_t first, std::span<const ObjectResult> rs) {
  const std::size_t n = rs.size();
  auto column = [&](hid_t ds, auto member) {
    using V = std::decay_t<decltype(rs[0].*member)>;
    std::vector<V> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = rs[i].*member;
    h5::write_rows<V>(ds, first, std::span<const V>(v));
  };
  column(id_.get(), &ObjectResult::id);
  column(status_.get(), &ObjectResult::status);
  column(cleaned_.get(), &ObjectResult::cleaned);
  column(n_points_.get(), &ObjectResult::n_points);
  column(n_nonfinite_.get(), &ObjectResult::n_nonfinite);
  column(n_bad_errors_.get(), &ObjectResult::n_bad_errors);
  column(n_flagged_.get(), &ObjectResult::n_flagged);
  column(t_ref_.get(), &ObjectResult::t_ref);
  column(baseline_.get(), &ObjectResult::baseline);
  column(best_frequency_.get(), &ObjectResult::best_frequency);
  column(best_period_.get(), &ObjectResult::best_period);
  column(best_power_.get(), &ObjectResult::best_power);
  column(fap_.get(), &ObjectResult::fap);
  const auto k = static_cast<std::size_t>(config_.top_k);
  std::vector<double> pf(n * k), pp(n * k);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < k; ++j) {
      pf[i * k + j] = rs[i].peak_frequency[j];
      pp[i * k + j] = rs[i].peak_power[j];
    }
  h5::write_rows(peak_frequency_.get(), H5T_NATIVE_DOUBLE, first, n, pf.data());
  h5::write_rows(peak_power_.get(), H5T_NATIVE_DOUBLE, first, n, pp.data());
}

void PeriodProduct::write_time_references(std::uint64_t first, const io::LightCurveBlock& block) {
  if (!bjdrefi_.valid()) return;
  AS_ASSERT(block.has_time_references() && block.bjdrefi.size() == block.n_objects());
  h5::write_rows<std::int64_t>(bjdrefi_.get(), first, std::span<const std::int64_t>(block.bjdrefi));
  h5::write_rows<double>(bjdreff_.get(), first, std::span<const double>(block.bjdreff));
}

class PeriodProduct::Sink final : public PeriodogramSink {
 public:
  Sink(hid_t dataset, hid_t type, std::uint64_t first) : dataset_(dataset), type_(type), first_(first) {}
  void write(std::uint64_t object, std::uint64_t k0, std::uint64_t n, const void* values) override {
    h5::write_block(dataset_, type_, first_ + object, 1, k0, n, values);
  }

 private:
  hid_t dataset_;
  hid_t type_;
  std::uint64_t first_;
};

std::unique_ptr<PeriodogramSink> PeriodProduct::periodogram_sink(std::uint64_t first_object) {
  if (!config_.keep_periodograms) return nullptr;
  const hid_t type = config_.precision == Precision::fp32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  return std::make_unique<Sink>(periodogram_.get(), type, first_object);
}

void PeriodProduct::sync() { durable_.sync(); }

void PeriodProduct::close_all() {
  for (h5::Id* id :
       {&periodogram_, &peak_power_, &peak_frequency_, &fap_,     &best_power_, &best_period_,  &best_frequency_,
        &baseline_,    &t_ref_,      &bjdreff_,        &bjdrefi_, &n_flagged_,  &n_bad_errors_, &n_nonfinite_,
        &n_points_,    &cleaned_,    &status_,         &id_,      &peaks_,      &objects_})
    *id = h5::Id();
  if (file_.valid()) h5::flush(file_.get());
  file_ = h5::Id();
}

void PeriodProduct::close() { close_all(); }

void PeriodProduct::finish() {
  // The rank count is deliberately not stored: a product does not depend on it. Every row is on
  // disk before the product says "complete": a full disk fails this flush (exit 4) and leaves it
  // "incomplete".
  h5::flush(file_.get());
  h5::set_attribute(file_.get(), "status", std::string("complete"));
  close_all();
}

}  // namespace astrosweep::period
