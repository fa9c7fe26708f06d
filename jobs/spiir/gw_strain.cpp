#include "gw_strain.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "io/h5.hpp"

namespace astrosweep::spiir {

namespace {

std::vector<DetectorStrain> read_strain_file(const std::string& path) {
  const auto fail = [&](const std::string& what) {
    return InputError("strain file '" + path + "': " + what, "see docs/spiir.md#strain-files for the layout");
  };
  if (!std::filesystem::exists(path)) throw fail("does not exist");
  if (!h5::is_hdf5(path)) throw fail("is not an HDF5 file");
  h5::Id file = h5::open_file(path, h5::Access::read);
  if (!h5::exists(file.get(), "detectors")) throw fail("has no group '/detectors'");
  h5::Id group = h5::open_group(file.get(), "detectors");
  H5G_info_t info{};
  h5::check(H5Gget_info(group.get(), &info), "H5Gget_info");
  if (info.nlinks == 0) throw fail("'/detectors' holds no detector");
  std::vector<DetectorStrain> out;
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    char name[64] = {};
    if (H5Lget_name_by_idx(group.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name, H5P_DEFAULT) <= 0)
      throw fail("a member of '/detectors' has no readable name");
    DetectorStrain d;
    d.ifo = name;
    const std::string where = "/detectors/" + d.ifo + "/strain";
    if (!h5::exists(group.get(), d.ifo + "/strain")) throw fail("has no dataset '" + where + "'");
    h5::Id ds = h5::open_dataset(group.get(), d.ifo + "/strain");
    const auto start_s = h5::int_attribute(ds.get(), "gps_start_s");
    const auto start_ns = h5::int_attribute(ds.get(), "gps_start_ns");
    const auto rate = h5::double_attribute(ds.get(), "sample_rate");
    const auto whitened = h5::int_attribute(ds.get(), "whitened");
    const auto f_low = h5::double_attribute(ds.get(), "f_low");
    if (!start_s || !start_ns || !rate || !whitened || !f_low)
      throw fail("'" + where + "' lacks one of gps_start_s, gps_start_ns, sample_rate, whitened, f_low");
    if (!(*rate > 0)) throw fail("'" + where + "' has a sample_rate that is not positive");
    if (*start_ns < 0 || *start_ns >= 1000000000) throw fail("'" + where + "' has gps_start_ns outside 0 ... 1e9 - 1");
    d.gps_start_s = *start_s;
    d.gps_start_ns = static_cast<std::int32_t>(*start_ns);
    d.sample_rate = *rate;
    d.whitened = *whitened != 0;
    d.f_low = *f_low;
    if (h5::dims(ds.get()).size() != 1) throw fail("'" + where + "' is not one-dimensional");
    d.strain = h5::read_rows<float>(ds.get(), 0, h5::column_length(ds.get()));
    if (d.strain.empty()) throw fail("'" + where + "' holds no sample");
    if (h5::exists(group.get(), d.ifo + "/dq")) {
      d.dq = h5::read_all<std::uint8_t>(group.get(), d.ifo + "/dq");
      const auto seconds = static_cast<std::size_t>(std::ceil(static_cast<double>(d.strain.size()) / d.sample_rate));
      if (d.dq.size() != seconds)
        throw fail(format_text("'/detectors/%s/dq' holds %zu values, not one per second of the strain (%zu)",
                               d.ifo.c_str(), d.dq.size(), seconds));
    }
    out.push_back(std::move(d));
  }
  for (const auto& d : out) {
    if (d.sample_rate != out.front().sample_rate)
      throw fail("detectors " + out.front().ifo + " and " + d.ifo + " have different sample rates");
    if (d.gps_start_s != out.front().gps_start_s || d.gps_start_ns != out.front().gps_start_ns)
      throw fail("detectors " + out.front().ifo + " and " + d.ifo + " start at different times");
    if (d.strain.size() != out.front().strain.size())
      throw fail("detectors " + out.front().ifo + " and " + d.ifo + " have different lengths");
  }
  return out;
}

}  // namespace

std::vector<DetectorStrain> read_gw_strain(const std::string& path) {
  try {
    return read_strain_file(path);
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    throw InputError("strain file '" + path + "' cannot be read (damaged?): " + e.what(),
                     "see docs/spiir.md#strain-files for the layout");
  }
}

double SampledPsd::operator()(double f) const {
  const auto hi = std::upper_bound(frequency.begin(), frequency.end(), f);
  if (hi == frequency.begin()) return value.front();
  if (hi == frequency.end()) return value.back();
  const auto i = static_cast<std::size_t>(hi - frequency.begin());
  const double w = (f - frequency[i - 1]) / (frequency[i] - frequency[i - 1]);
  return (1 - w) * value[i - 1] + w * value[i];
}

SampledPsd read_psd(const std::string& path, const std::string& ifo, double f_low, double f_high) {
  const auto fail = [&](const std::string& what) {
    return InputError(
        "PSD file '" + path + "': " + what,
        "give --psd an astrosweep.gwstrain file or an astrosweep.spiir product of strain the job whitened, with "
        "/detectors/<IFO>/psd/frequency and value (one-sided, strain^2/Hz) for every detector of "
        "--ifos (docs/spiir.md#strain-files)");
  };
  SampledPsd psd;
  try {
    if (!std::filesystem::exists(path)) throw fail("does not exist");
    if (!h5::is_hdf5(path)) throw fail("is not an HDF5 file");
    h5::Id file = h5::open_file(path, h5::Access::read);
    const std::string where = "detectors/" + ifo + "/psd/";
    if (!h5::exists(file.get(), "detectors/" + ifo) || !h5::exists(file.get(), where + "frequency") ||
        !h5::exists(file.get(), where + "value"))
      throw fail("has no '/" + where + "frequency' and '/" + where + "value'");
    if (h5::Id value = h5::open_dataset(file.get(), where + "value"); h5::dims(value.get()).size() != 1)
      throw fail("the " + ifo + " PSD holds one row per stretch (a spiir product of --psd-stretch-seconds); a bank " +
                 "is made with one PSD: give a product of one PSD for the whole file, or a gwstrain file");
    psd.frequency = h5::read_all<double>(file.get(), where + "frequency");
    psd.value = h5::read_all<double>(file.get(), where + "value");
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    throw fail(std::string("cannot be read (damaged?): ") + e.what());
  }
  if (psd.frequency.size() != psd.value.size() || psd.frequency.size() < 2)
    throw fail("the " + ifo + " PSD's frequency and value differ in length or hold fewer than 2 points");
  for (std::size_t i = 0; i < psd.frequency.size(); ++i) {
    if (!std::isfinite(psd.frequency[i]) || (i > 0 && !(psd.frequency[i] > psd.frequency[i - 1])))
      throw fail("the " + ifo + " PSD's frequencies do not increase");
    if (!(psd.value[i] > 0) || !std::isfinite(psd.value[i]))
      throw fail("the " + ifo + " PSD has a value that is not positive and finite");
  }
  if (psd.frequency.front() > f_low || psd.frequency.back() < f_high)
    throw fail(format_text("the %s PSD covers %g ... %g Hz, not the templates' %g ... %g Hz", ifo.c_str(),
                           psd.frequency.front(), psd.frequency.back(), f_low, f_high));
  return psd;
}

h5::Id write_psd_group(hid_t detector_group, const SampledPsd& p) {
  h5::Id pg = h5::create_group(detector_group, "psd");
  h5::Id f = h5::described(h5::create_dataset(pg.get(), "frequency", H5T_NATIVE_DOUBLE, {p.frequency.size()}), "Hz",
                           "frequencies of the PSD's samples, increasing");
  h5::write_rows(f.get(), H5T_NATIVE_DOUBLE, 0, p.frequency.size(), p.frequency.data());
  h5::Id v = h5::described(h5::create_dataset(pg.get(), "value", H5T_NATIVE_DOUBLE, {p.value.size()}), "strain^2/Hz",
                           "one-sided power spectral density of the detector's strain");
  h5::write_rows(v.get(), H5T_NATIVE_DOUBLE, 0, p.value.size(), p.value.data());
  h5::attach_scale(v.get(), f.get(), 0, "frequency");
  return pg;
}

void write_gw_strain(const std::string& path, const std::vector<DetectorStrain>& detectors,
                     const std::vector<SampledPsd>& psds) {
  h5::Id file = h5::open_file(path, h5::Access::create_truncate);
  h5::set_attribute(file.get(), "format", std::string(strain_format_name));
  h5::set_attribute(file.get(), "format_version", std::int64_t{1});
  h5::set_attribute(file.get(), "software_version", std::string(version_string()));
  h5::Id group = h5::create_group(file.get(), "detectors");
  for (const auto& d : detectors) {
    h5::Id g = h5::create_group(group.get(), d.ifo);
    h5::Id ds = h5::described(
        h5::create_dataset(g.get(), "strain", H5T_NATIVE_FLOAT, {d.strain.size()}), d.whitened ? "" : "strain",
        d.whitened ? "whitened strain, unit variance per sample; NaN marks a gap" : "strain; NaN marks a gap");
    h5::write_rows(ds.get(), H5T_NATIVE_FLOAT, 0, d.strain.size(), d.strain.data());
    h5::set_attribute(ds.get(), "gps_start_s", d.gps_start_s);
    h5::set_attribute(ds.get(), "gps_start_ns", std::int64_t{d.gps_start_ns});
    h5::set_attribute(ds.get(), "sample_rate", d.sample_rate);
    h5::set_attribute(ds.get(), "whitened", std::int64_t{d.whitened ? 1 : 0});
    h5::set_attribute(ds.get(), "f_low", d.f_low);
    if (!d.dq.empty()) {
      h5::Id q = h5::described(h5::create_dataset(g.get(), "dq", H5T_NATIVE_UINT8, {d.dq.size()}), "",
                               "data quality per second from the strain's start: 1 usable, 0 not");
      h5::write_rows(q.get(), H5T_NATIVE_UINT8, 0, d.dq.size(), d.dq.data());
    }
    if (!psds.empty()) write_psd_group(g.get(), psds.at(static_cast<std::size_t>(&d - detectors.data())));
  }
  group = h5::Id();
  h5::close_file(file);
}

}  // namespace astrosweep::spiir
