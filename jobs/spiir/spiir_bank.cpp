#include "spiir_bank.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "io/h5.hpp"
#include "io/product_attributes.hpp"

namespace astrosweep::spiir {

std::vector<IirFilter> RateBank::filters(std::size_t t) const {
  std::vector<IirFilter> out;
  for (std::size_t l = 0; l < static_cast<std::size_t>(n_filters[t]); ++l) out.push_back(filter(t, l));
  return out;
}

std::int64_t RateBank::max_delay() const {
  std::int64_t m = 0;
  for (auto d : delay) m = std::max<std::int64_t>(m, d);
  return m;
}

RateBank RateBank::pack(std::int64_t rate, const std::vector<std::vector<IirFilter>>& per_template) {
  RateBank bank;
  bank.rate = rate;
  bank.n_templates = per_template.size();
  for (const auto& f : per_template) bank.width = std::max(bank.width, f.size());
  const std::size_t n = bank.n_templates * bank.width;
  bank.a1.assign(n, 0.0);
  bank.b0.assign(n, 0.0);
  bank.delay.assign(n, 0);
  bank.n_filters.assign(bank.n_templates, 0);
  for (std::size_t t = 0; t < bank.n_templates; ++t) {
    bank.n_filters[t] = static_cast<std::int32_t>(per_template[t].size());
    for (std::size_t l = 0; l < per_template[t].size(); ++l) {
      const auto& f = per_template[t][l];
      AS_ASSERT(f.delay >= 0 && f.delay <= INT32_MAX);
      bank.a1[t * bank.width + l] = f.a1;
      bank.b0[t * bank.width + l] = f.b0;
      bank.delay[t * bank.width + l] = static_cast<std::int32_t>(f.delay);
    }
  }
  return bank;
}

const RateBank* SpiirBank::single_rate() const {
  if (rates.size() != 1 || static_cast<double>(rates.front().rate) != sample_rate_max) return nullptr;
  return &rates.front();
}

namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

// Complex values as float64 [..., 2] (re, im), the layout h5py reads as a view of complex128.
void write_complex(hid_t group, const char* name, const std::vector<std::complex<double>>& values, std::uint64_t rows,
                   std::uint64_t cols, const char* units, const char* description) {
  h5::Id ds = h5::described(
      h5::create_chunked_dataset(group, name, H5T_NATIVE_DOUBLE, {rows, cols, 2}, {rows, cols, 2}), units, description);
  h5::write_hyperslab(ds.get(), H5T_NATIVE_DOUBLE, {0, 0, 0}, {rows, cols, 2}, values.data());
}

void write_file(const std::string& path, const SpiirBank& bank) {
  h5::Id file = h5::open_file(path, h5::Access::create_truncate);
  io::write_root_attributes(file.get(),
                            {{"format", std::string(bank_format_name)},
                             {"format_version", bank_format_version},
                             {"software", std::string("astrosweep")},
                             {"software_version", std::string(version_string())},
                             {"command_line", bank.command_line},
                             {"sample_rate_max", bank.sample_rate_max},
                             {"f_low", bank.f_low},
                             {"epsilon", bank.iir.epsilon},
                             {"alpha", bank.iir.alpha},
                             {"beta", bank.iir.beta},
                             {"padding", bank.padding},
                             {"approximant", bank.approximant},
                             {"ifos", join(bank.ifos)},
                             {"psd", bank.psd},
                             {"n_templates", static_cast<std::int64_t>(bank.n_templates())},
                             {"autocorrelation_length", static_cast<std::int64_t>(bank.autocorrelation_length)}});
  const std::size_t nt = bank.n_templates();
  {
    h5::Id group = h5::create_group(file.get(), "templates");
    auto column = [&](auto member) {
      std::vector<double> v(nt);
      for (std::size_t t = 0; t < nt; ++t) v[t] = bank.templates[t].*member;
      return v;
    };
    h5::write_column(group.get(), "mass1", column(&TemplateInfo::mass1), "Msun", "mass of the first component");
    h5::write_column(group.get(), "mass2", column(&TemplateInfo::mass2), "Msun", "mass of the second component");
    h5::write_column(group.get(), "end_offset", column(&TemplateInfo::end_offset), "s",
                     "time from the filter's output sample (the cut template's last sample) to coalescence");
    h5::write_column(group.get(), "f_final", column(&TemplateInfo::f_final), "Hz",
                     "frequency where the template ends (ISCO, or 0.45 of the top rate if lower)");
    h5::write_column(group.get(), "duration", column(&TemplateInfo::duration), "s",
                     "length of the template after its start was cut at 0.2 % of its |h|^2");
    h5::write_column(group.get(), "match", column(&TemplateInfo::match), "",
                     "overlap of the IIR bank's time-reversed impulse response with the whitened template (1 = exact)");
    h5::write_column(group.get(), "epsilon", column(&TemplateInfo::epsilon), "cycles",
                     "phase-error budget per filter the template's filters were made with");
    h5::Id sig = h5::create_group(group.get(), "sigmasq");
    for (const auto& ifo : bank.ifos)
      h5::write_column(sig.get(), ifo.c_str(), bank.sigmasq.at(ifo), "",
                       "<h,h> = 4 int |h(f)|^2 / S(f) df of the optimally oriented source at 1 Mpc times match^2 "
                       "(optimal SNR^2 at 1 Mpc) for this detector's PSD");
  }
  h5::Id rates = h5::create_group(file.get(), "rates");
  for (const auto& r : bank.rates) {
    h5::Id group = h5::create_group(rates.get(), std::to_string(r.rate));
    h5::set_attribute(group.get(), "sample_rate", static_cast<double>(r.rate));
    write_complex(group.get(), "a1", r.a1, r.n_templates, r.width, "",
                  "feedback coefficient per template and filter, [re, im]; |a1| < 1; padding filters 0");
    write_complex(group.get(), "b0", r.b0, r.n_templates, r.width, "",
                  "feed-forward coefficient per template and filter, [re, im], scaled so that the summed output "
                  "is the SNR of unit-variance input; padding filters 0");
    h5::Id delay = h5::described(h5::create_dataset(group.get(), "delay", H5T_NATIVE_INT32, {r.n_templates, r.width}),
                                 "samples", "input delay of each filter, in samples of this rate");
    h5::write_rows(delay.get(), H5T_NATIVE_INT32, 0, r.n_templates, r.delay.data());
    h5::Id count = h5::described(h5::create_dataset(group.get(), "n_filters", H5T_NATIVE_INT32, {r.n_templates}), "",
                                 "real filters of each template at this rate (the rest of its row is padding)");
    h5::write_rows(count.get(), H5T_NATIVE_INT32, 0, r.n_templates, r.n_filters.data());
  }
  h5::Id ac = h5::create_group(file.get(), "autocorrelation");
  for (const auto& ifo : bank.ifos) {
    h5::Id group = h5::create_group(ac.get(), ifo);
    const auto& values = bank.autocorrelation.at(ifo);
    const std::size_t len = bank.autocorrelation_length;
    std::vector<double> re(values.size()), im(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      re[i] = values[i].real();
      im[i] = values[i].imag();
    }
    const char* what =
        "normalised autocorrelation R(s) = sum_m h[m] conj(h[m+s]) / sum |h|^2 of the whitened template, lags "
        "-(L-1)/2 ... (L-1)/2 at the top rate; centre = 1";
    h5::Id dre = h5::described(h5::create_dataset(group.get(), "re", H5T_NATIVE_DOUBLE, {nt, len}), "", what);
    h5::write_rows(dre.get(), H5T_NATIVE_DOUBLE, 0, nt, re.data());
    h5::Id dim = h5::described(h5::create_dataset(group.get(), "im", H5T_NATIVE_DOUBLE, {nt, len}), "", what);
    h5::write_rows(dim.get(), H5T_NATIVE_DOUBLE, 0, nt, im.data());
  }
  h5::set_attribute(file.get(), "status", std::string("complete"));
  ac = h5::Id();
  rates = h5::Id();
  h5::close_file(file);
}

}  // namespace

void write_spiir_bank(const std::string& path, const SpiirBank& bank) {
  try {
    write_file(path, bank);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    throw;
  }
}

namespace {

// Every check of the reader says which file and what, and how to get a good one.
class BankReader {
 public:
  explicit BankReader(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("'" + path_ + "': " + what + " (not a valid astrosweep.spiirbank)",
                     "make the bank again with 'astrosweep spiirbank' (docs/spiir.md)");
  }
  void expect(bool cond, const std::string& what) const {
    if (!cond) fail(what);
  }

  double number(hid_t loc, const char* name) const {
    const auto v = h5::double_attribute(loc, name);
    expect(v && std::isfinite(*v), std::string("attribute '") + name + "' is missing or not a finite number");
    return *v;
  }
  std::string text(hid_t loc, const char* name) const {
    const auto v = h5::string_attribute(loc, name);
    expect(v.has_value(), std::string("attribute '") + name + "' is missing or not a string");
    return *v;
  }
  h5::Id dataset(hid_t loc, const std::string& name, const std::vector<std::uint64_t>& shape) const {
    expect(h5::exists(loc, name), "dataset '" + name + "' is missing");
    h5::Id ds = h5::open_dataset(loc, name);
    expect(h5::dims(ds.get()) == shape, "dataset '" + name + "' has the wrong shape");
    return ds;
  }
  template <class T>
  std::vector<T> read(hid_t loc, const std::string& name, const std::vector<std::uint64_t>& shape) const {
    h5::Id ds = dataset(loc, name, shape);
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    std::vector<T> out(n);
    if (n > 0)
      h5::read_hyperslab(ds.get(), h5::native_type<T>(), std::vector<std::uint64_t>(shape.size(), 0), shape,
                         out.data());
    return out;
  }
  std::vector<double> finite_column(hid_t loc, const std::string& name, std::uint64_t n) const {
    auto v = read<double>(loc, name, {n});
    for (double x : v) expect(std::isfinite(x), "dataset '" + name + "' holds a value that is not finite");
    return v;
  }
  std::vector<std::complex<double>> complex_matrix(hid_t loc, const std::string& name, std::uint64_t rows,
                                                   std::uint64_t cols) const {
    const auto flat = read<double>(loc, name, {rows, cols, 2});
    std::vector<std::complex<double>> out(rows * cols);
    for (std::size_t i = 0; i < out.size(); ++i) {
      expect(std::isfinite(flat[2 * i]) && std::isfinite(flat[2 * i + 1]),
             "dataset '" + name + "' holds a value that is not finite");
      out[i] = {flat[2 * i], flat[2 * i + 1]};
    }
    return out;
  }

 private:
  std::string path_;
};

}  // namespace

namespace {
SpiirBank read_bank_file(const std::string& path);
}  // namespace

SpiirBank read_spiir_bank(const std::string& path) {
  // A damaged file can fail inside HDF5 in any call: every failure becomes an input error naming it.
  try {
    return read_bank_file(path);
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    throw InputError("bank '" + path + "' cannot be read (damaged?): " + e.what(),
                     "make the bank again with 'astrosweep spiirbank' (docs/spiir.md)");
  }
}

namespace {

SpiirBank read_bank_file(const std::string& path) {
  AS_EXPECTS(std::filesystem::exists(path), InputError, "bank '" + path + "' does not exist",
             "make one with 'astrosweep spiirbank'");
  AS_EXPECTS(h5::is_hdf5(path), InputError, "'" + path + "' is not an HDF5 file (damaged or not a bank)",
             "make the bank again with 'astrosweep spiirbank' (docs/spiir.md)");
  const BankReader r(path);
  h5::Id file = h5::open_file(path, h5::Access::read);
  const hid_t f = file.get();
  SpiirBank bank;
  r.expect(h5::string_attribute(f, "format") == std::string(bank_format_name),
           "its 'format' attribute is not \"astrosweep.spiirbank\"");
  const auto version = h5::int_attribute(f, "format_version");
  r.expect(version.has_value(), "attribute 'format_version' is missing");
  AS_EXPECTS(*version == bank_format_version, InputError,
             "'" + path + "' is bank format version " + std::to_string(*version) + "; this astrosweep reads version " +
                 std::to_string(bank_format_version),
             "make the bank again with this astrosweep's 'spiirbank'");
  r.expect(h5::string_attribute(f, "status") == std::string("complete"),
           "its status is not \"complete\" (the run that wrote it did not finish)");
  bank.sample_rate_max = r.number(f, "sample_rate_max");
  bank.f_low = r.number(f, "f_low");
  bank.iir.epsilon = r.number(f, "epsilon");
  bank.iir.alpha = r.number(f, "alpha");
  bank.iir.beta = r.number(f, "beta");
  bank.padding = r.number(f, "padding");
  bank.approximant = r.text(f, "approximant");
  bank.ifos = split(r.text(f, "ifos"));
  bank.psd = r.text(f, "psd");
  if (auto c = h5::string_attribute(f, "command_line")) bank.command_line = *c;
  r.expect(bank.sample_rate_max > 0 && bank.f_low > 0 && bank.f_low < bank.sample_rate_max / 2,
           "sample_rate_max and f_low are inconsistent");
  r.expect(!bank.ifos.empty(), "attribute 'ifos' names no detector");
  const auto n_templates = h5::int_attribute(f, "n_templates");
  const auto ac_length = h5::int_attribute(f, "autocorrelation_length");
  r.expect(n_templates && *n_templates > 0, "attribute 'n_templates' is missing or not positive");
  r.expect(ac_length && *ac_length > 0 && *ac_length % 2 == 1, "attribute 'autocorrelation_length' is not odd");
  const auto nt = static_cast<std::uint64_t>(*n_templates);
  bank.autocorrelation_length = static_cast<std::size_t>(*ac_length);

  r.expect(h5::exists(f, "templates"), "group '/templates' is missing");
  {
    h5::Id g = h5::open_group(f, "templates");
    const auto m1 = r.finite_column(g.get(), "mass1", nt);
    const auto m2 = r.finite_column(g.get(), "mass2", nt);
    const auto end_offset = r.finite_column(g.get(), "end_offset", nt);
    const auto f_final = r.finite_column(g.get(), "f_final", nt);
    const auto duration = r.finite_column(g.get(), "duration", nt);
    const auto match = r.finite_column(g.get(), "match", nt);
    const auto epsilon = r.finite_column(g.get(), "epsilon", nt);
    bank.templates.resize(nt);
    for (std::size_t t = 0; t < nt; ++t)
      bank.templates[t] = {m1[t], m2[t], end_offset[t], f_final[t], duration[t], match[t], epsilon[t]};
    r.expect(h5::exists(g.get(), "sigmasq"), "group '/templates/sigmasq' is missing");
    h5::Id sig = h5::open_group(g.get(), "sigmasq");
    for (const auto& ifo : bank.ifos) bank.sigmasq[ifo] = r.finite_column(sig.get(), ifo, nt);
  }
  r.expect(h5::exists(f, "rates"), "group '/rates' is missing");
  h5::Id rates = h5::open_group(f, "rates");
  H5G_info_t info{};
  h5::check(H5Gget_info(rates.get(), &info), "H5Gget_info");
  r.expect(info.nlinks > 0, "group '/rates' holds no rate");
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    char name[64] = {};
    r.expect(H5Lget_name_by_idx(rates.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name, H5P_DEFAULT) > 0,
             "a member of '/rates' has no readable name");
    RateBank rb;
    char* end = nullptr;
    rb.rate = std::strtoll(name, &end, 10);
    r.expect(end != name && *end == '\0' && rb.rate > 0, std::string("'/rates/") + name + "' is not a rate in Hz");
    const double factor = bank.sample_rate_max / static_cast<double>(rb.rate);
    r.expect(factor >= 1 && std::exp2(std::round(std::log2(factor))) == factor,
             std::string("rate ") + name + " Hz is not the top rate divided by a power of two");
    h5::Id g = h5::open_group(rates.get(), name);
    const std::string where = std::string("/rates/") + name + "/";
    r.expect(h5::exists(g.get(), "a1"), "dataset '" + where + "a1' is missing");
    const auto shape = h5::dims(h5::open_dataset(g.get(), "a1").get());
    r.expect(shape.size() == 3 && shape[0] == nt && shape[2] == 2, "dataset '" + where + "a1' has the wrong shape");
    rb.n_templates = nt;
    rb.width = shape[1];
    rb.a1 = r.complex_matrix(g.get(), "a1", nt, rb.width);
    rb.b0 = r.complex_matrix(g.get(), "b0", nt, rb.width);
    rb.delay = r.read<std::int32_t>(g.get(), "delay", {nt, rb.width});
    rb.n_filters = r.read<std::int32_t>(g.get(), "n_filters", {nt});
    for (std::size_t t = 0; t < nt; ++t) {
      r.expect(rb.n_filters[t] >= 0 && static_cast<std::size_t>(rb.n_filters[t]) <= rb.width,
               "'" + where + "n_filters' exceeds the matrix width");
      for (std::size_t l = 0; l < static_cast<std::size_t>(rb.n_filters[t]); ++l) {
        const std::size_t k = t * rb.width + l;
        r.expect(std::abs(rb.a1[k]) < 1, "a filter of '" + where + "a1' is not stable (|a1| >= 1)");
        r.expect(rb.delay[k] >= 0, "a delay of '" + where + "delay' is negative");
      }
    }
    bank.rates.push_back(std::move(rb));
  }
  std::sort(bank.rates.begin(), bank.rates.end(), [](const auto& a, const auto& b) { return a.rate > b.rate; });
  r.expect(h5::exists(f, "autocorrelation"), "group '/autocorrelation' is missing");
  h5::Id ac = h5::open_group(f, "autocorrelation");
  for (const auto& ifo : bank.ifos) {
    r.expect(h5::exists(ac.get(), ifo), "group '/autocorrelation/" + ifo + "' is missing");
    h5::Id g = h5::open_group(ac.get(), ifo);
    const auto re = r.read<double>(g.get(), "re", {nt, bank.autocorrelation_length});
    const auto im = r.read<double>(g.get(), "im", {nt, bank.autocorrelation_length});
    auto& values = bank.autocorrelation[ifo];
    values.resize(re.size());
    for (std::size_t i = 0; i < re.size(); ++i) values[i] = {re[i], im[i]};
  }
  return bank;
}

}  // namespace

}  // namespace astrosweep::spiir
