#include "period_product.hpp"

#include "core/error.hpp"
#include "core/version.hpp"

namespace astrosweep::period {

PeriodProduct::PeriodProduct(const std::string& path, MPI_Comm comm, std::uint64_t n, const PeriodConfig& config,
                             const ProductProvenance& prov)
    : config_(config), file_(h5::open_file(path, h5::Access::create_truncate, comm)) {
  const hid_t f = file_.get();
  h5::set_attribute(f, "format", std::string(product_format_name));
  h5::set_attribute(f, "format_version", product_format_version);
  h5::set_attribute(f, "software", std::string("astrosweep"));
  h5::set_attribute(f, "software_version", std::string(version_string()));
  h5::set_attribute(f, "status", std::string("incomplete"));
  h5::set_attribute(f, "command_line", prov.command_line);
  h5::set_attribute(f, "input_format", prov.input.format);
  h5::set_attribute(f, "input_paths", prov.input.paths);
  h5::set_attribute(f, "input_bytes", static_cast<std::int64_t>(prov.input.bytes));
  h5::set_attribute(f, "input_digest_fnv1a64", prov.input.digest);
  h5::set_attribute(f, "time_unit", std::string("d"));
  h5::set_attribute(f, "time_reference", prov.time_reference);
  h5::set_attribute(f, "model", std::string(name_of(config.model)));
  h5::set_attribute(f, "normalization", std::string(name_of(config.normalization)));
  h5::set_attribute(f, "precision", std::string(name_of(config.precision)));
  h5::set_attribute(f, "top_k", static_cast<std::int64_t>(config.top_k));
  h5::set_attribute(f, "peak_separation", config.peak_separation);
  h5::set_attribute(f, "grid_f0", config.grid.f0);
  h5::set_attribute(f, "grid_df", config.grid.df);
  h5::set_attribute(f, "grid_n", static_cast<std::int64_t>(config.grid.n));
  h5::set_attribute(f, "grid_fmax", config.grid.last());
  h5::set_attribute(f, "grid_rule", prov.grid_rule);
  h5::set_attribute(f, "fap_method", std::string("baluev"));

  objects_ = h5::create_group(f, "objects");
  const hid_t o = objects_.get();
  auto make = [&](hid_t loc, const char* name, hid_t type, std::vector<std::uint64_t> dims) {
    return h5::create_dataset(loc, name, type, dims);
  };
  id_ = make(o, "id", H5T_NATIVE_INT64, {n});
  status_ = make(o, "status", H5T_NATIVE_UINT32, {n});
  n_points_ = make(o, "n_points", H5T_NATIVE_UINT32, {n});
  n_nonfinite_ = make(o, "n_nonfinite", H5T_NATIVE_UINT32, {n});
  n_bad_errors_ = make(o, "n_bad_errors", H5T_NATIVE_UINT32, {n});
  n_flagged_ = make(o, "n_flagged", H5T_NATIVE_UINT32, {n});
  t_ref_ = make(o, "t_ref", H5T_NATIVE_DOUBLE, {n});
  baseline_ = make(o, "baseline", H5T_NATIVE_DOUBLE, {n});
  best_frequency_ = make(o, "best_frequency", H5T_NATIVE_DOUBLE, {n});
  best_period_ = make(o, "best_period", H5T_NATIVE_DOUBLE, {n});
  best_power_ = make(o, "best_power", H5T_NATIVE_DOUBLE, {n});
  fap_ = make(o, "fap", H5T_NATIVE_DOUBLE, {n});
  peaks_ = h5::create_group(f, "peaks");
  const auto k = static_cast<std::uint64_t>(config.top_k);
  peak_frequency_ = make(peaks_.get(), "frequency", H5T_NATIVE_DOUBLE, {n, k});
  peak_power_ = make(peaks_.get(), "power", H5T_NATIVE_DOUBLE, {n, k});
  if (config.keep_periodograms) {
    h5::Id group = h5::create_group(f, "periodogram");
    const hid_t type = config.precision == Precision::fp32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    periodogram_ = make(group.get(), "power", type, {n, config.grid.n});
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

void PeriodProduct::finish() {
  // The rank count is deliberately not stored: a product does not depend on it.
  h5::set_attribute(file_.get(), "status", std::string("complete"));
  h5::check(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), "H5Fflush");
}

}  // namespace astrosweep::period
