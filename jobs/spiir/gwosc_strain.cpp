#include "gwosc_strain.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/h5.hpp"

namespace astrosweep::spiir {

namespace {

InputError gwosc_error(const std::string& path, const std::string& what) {
  return InputError("GWOSC strain file '" + path + "': " + what,
                    "see docs/spiir.md#strain-files for the layout (LIGO/Virgo open-data HDF5, one detector per file)");
}

// True when the dataset holds exactly one value (scalar, or an array of one), so a read of it into
// one variable cannot overrun.
bool single_value(hid_t dataset) {
  h5::Id space(H5Dget_space(dataset));
  return H5Sget_simple_extent_npoints(space.get()) == 1;
}

// A scalar dataset's value (GWOSC's /meta entries): a number, or a string (fixed or variable length).
std::optional<double> scalar_number(hid_t file, const std::string& name) {
  if (!h5::exists(file, name)) return std::nullopt;
  h5::Id ds = h5::open_dataset(file, name);
  if (!single_value(ds.get())) return std::nullopt;
  h5::Id type(H5Dget_type(ds.get()));
  const auto cls = H5Tget_class(type.get());
  if (cls != H5T_INTEGER && cls != H5T_FLOAT) return std::nullopt;
  double v = 0;
  h5::check(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v), "H5Dread");
  return v;
}

std::optional<std::string> scalar_string(hid_t file, const std::string& name) {
  if (!h5::exists(file, name)) return std::nullopt;
  h5::Id ds = h5::open_dataset(file, name);
  if (!single_value(ds.get())) return std::nullopt;
  h5::Id type(H5Dget_type(ds.get()));
  if (H5Tget_class(type.get()) != H5T_STRING) return std::nullopt;
  h5::Id mem(H5Tcopy(H5T_C_S1));
  h5::check(H5Tset_cset(mem.get(), H5Tget_cset(type.get())), "H5Tset_cset");
  if (H5Tis_variable_str(type.get()) > 0) {
    h5::check(H5Tset_size(mem.get(), H5T_VARIABLE), "H5Tset_size");
    char* text = nullptr;
    h5::check(H5Dread(ds.get(), mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &text), "H5Dread");
    std::string value = text ? text : "";
    H5free_memory(text);  // HDF5 allocated it
    return value;
  }
  std::string value(H5Tget_size(type.get()) + 1, '\0');
  h5::check(H5Tset_size(mem.get(), value.size()), "H5Tset_size");
  h5::check(H5Dread(ds.get(), mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, value.data()), "H5Dread");
  value.resize(value.find('\0'));
  return value;
}

DetectorStrain read_file(const std::string& path) {
  h5::Id file = h5::open_file(path, h5::Access::read);
  if (!h5::exists(file.get(), "strain") || !h5::exists(file.get(), "strain/Strain"))
    throw gwosc_error(path, "has no dataset '/strain/Strain'");
  h5::Id ds = h5::open_dataset(file.get(), "strain/Strain");
  const auto x_start = h5::double_attribute(ds.get(), "Xstart");
  const auto x_spacing = h5::double_attribute(ds.get(), "Xspacing");
  const auto n_points = h5::int_attribute(ds.get(), "Npoints");
  if (!x_start || !x_spacing || !n_points)
    throw gwosc_error(path, "'/strain/Strain' lacks one of the attributes Xstart, Xspacing, Npoints");
  if (!(*x_spacing > 0)) throw gwosc_error(path, "'/strain/Strain' has an Xspacing that is not positive");
  if (h5::dims(ds.get()).size() != 1) throw gwosc_error(path, "'/strain/Strain' is not one-dimensional");
  const std::uint64_t length = h5::column_length(ds.get());
  if (*n_points < 0 || static_cast<std::uint64_t>(*n_points) != length)
    throw gwosc_error(path, format_text("'/strain/Strain' holds %llu samples but its Npoints says %lld",
                                        static_cast<unsigned long long>(length), static_cast<long long>(*n_points)));
  if (length == 0) throw gwosc_error(path, "'/strain/Strain' holds no sample");
  DetectorStrain d;
  // GWOSC rates are powers of two, so 1/Xspacing is exact; rounding only guards a written 1/f_s.
  d.sample_rate = std::round(1 / *x_spacing * 1e6) / 1e6;
  d.gps_start_s = static_cast<std::int64_t>(std::floor(*x_start));
  d.gps_start_ns = static_cast<std::int32_t>(std::llround((*x_start - std::floor(*x_start)) * 1e9));
  if (d.gps_start_ns == 1000000000) {
    d.gps_start_s += 1;
    d.gps_start_ns = 0;
  }
  d.whitened = false;
  d.f_low = 0;
  const auto raw = h5::read_rows<double>(ds.get(), 0, length);
  d.strain.assign(raw.begin(), raw.end());  // float: see docs/spiir.md (rounding far below the noise)

  const auto ifo = scalar_string(file.get(), "meta/Detector");
  if (!ifo || ifo->empty()) throw gwosc_error(path, "has no string '/meta/Detector' naming the detector");
  d.ifo = *ifo;
  if (const auto start = scalar_number(file.get(), "meta/GPSstart"); start && *start != std::floor(*x_start))
    throw gwosc_error(path,
                      format_text("'/meta/GPSstart' (%.0f) differs from the strain's Xstart (%.9f)", *start, *x_start));
  const auto seconds = static_cast<std::size_t>(std::ceil(static_cast<double>(length) / d.sample_rate));
  if (const auto duration = scalar_number(file.get(), "meta/Duration");
      duration && std::llround(*duration * d.sample_rate) != static_cast<long long>(length))
    throw gwosc_error(path, format_text("'/meta/Duration' (%g s) at %g Hz is not the strain's %llu samples", *duration,
                                        d.sample_rate, static_cast<unsigned long long>(length)));
  if (h5::exists(file.get(), "quality") && h5::exists(file.get(), "quality/simple") &&
      h5::exists(file.get(), "quality/simple/DQmask")) {
    const auto mask = h5::read_all<std::int64_t>(file.get(), "quality/simple/DQmask");
    if (mask.size() != seconds)
      throw gwosc_error(path, format_text("'/quality/simple/DQmask' holds %zu values, not one per second (%zu)",
                                          mask.size(), seconds));
    d.dq.resize(seconds);
    for (std::size_t i = 0; i < seconds; ++i) d.dq[i] = (mask[i] & 1) ? 1 : 0;  // bit 0: data present
  }
  return d;
}

}  // namespace

bool looks_like_gwosc(const std::string& path) {
  try {
    if (!std::filesystem::exists(path) || !h5::is_hdf5(path)) return false;
    h5::Id file = h5::open_file(path, h5::Access::read);
    return h5::exists(file.get(), "strain") || h5::exists(file.get(), "meta");
  } catch (const Error&) {
    return false;  // the format's own reader gives the message
  }
}

DetectorStrain read_gwosc_strain(const std::string& path) {
  try {
    return read_file(path);
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    throw gwosc_error(path, std::string("cannot be read (damaged?): ") + e.what());
  }
}

std::size_t gwosc_injection_seconds(const std::string& path) {
  try {
    h5::Id file = h5::open_file(path, h5::Access::read);
    if (!h5::exists(file.get(), "quality") || !h5::exists(file.get(), "quality/injections") ||
        !h5::exists(file.get(), "quality/injections/Injmask"))
      return 0;
    const auto mask = h5::read_all<std::int64_t>(file.get(), "quality/injections/Injmask");
    return static_cast<std::size_t>(std::count_if(mask.begin(), mask.end(), [](std::int64_t m) { return m != 0; }));
  } catch (const Error& e) {
    throw gwosc_error(path, std::string("'/quality/injections/Injmask' cannot be read: ") + e.what());
  }
}

void write_gwosc_strain(const std::string& path, const GwoscFile& f) {
  h5::Id file = h5::open_file(path, h5::Access::create_truncate);
  const auto n = f.strain.size();
  if (f.with_strain) {
    h5::Id group = h5::create_group(file.get(), "strain");
    h5::Id ds = h5::described(h5::create_dataset(group.get(), "Strain", H5T_NATIVE_DOUBLE, {n}), "strain",
                              "strain h(t) as GWOSC stores it");
    h5::write_rows(ds.get(), H5T_NATIVE_DOUBLE, 0, n, f.strain.data());
    h5::set_attribute(ds.get(), "Xstart", f.gps_start);
    h5::set_attribute(ds.get(), "Xspacing", 1 / f.sample_rate);
    h5::set_attribute(ds.get(), "Npoints", static_cast<std::int64_t>(f.npoints ? f.npoints : n));
  }
  h5::Id meta = h5::create_group(file.get(), "meta");
  {
    h5::Id type(H5Tcopy(H5T_C_S1));
    h5::check(H5Tset_size(type.get(), f.ifo.size()), "H5Tset_size");
    h5::Id space(H5Screate(H5S_SCALAR));
    h5::Id ds(H5Dcreate2(meta.get(), "Detector", type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    h5::check(H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, f.ifo.data()), "H5Dwrite");
    const auto write_scalar = [&](const char* name, std::int64_t v) {
      h5::Id s(H5Dcreate2(meta.get(), name, H5T_NATIVE_INT64, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
      h5::check(H5Dwrite(s.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v), "H5Dwrite");
    };
    write_scalar("GPSstart", static_cast<std::int64_t>(std::floor(f.gps_start)));
    write_scalar("Duration", static_cast<std::int64_t>(std::llround(static_cast<double>(n) / f.sample_rate)));
  }
  if (!f.dq_mask.empty()) {
    h5::Id quality = h5::create_group(file.get(), "quality");
    h5::Id simple = h5::create_group(quality.get(), "simple");
    h5::Id ds = h5::described(h5::create_dataset(simple.get(), "DQmask", H5T_NATIVE_INT32, {f.dq_mask.size()}), "",
                              "data-quality bits per second; bit 0 (DATA) = data present");
    h5::write_rows(ds.get(), H5T_NATIVE_INT32, 0, f.dq_mask.size(), f.dq_mask.data());
    h5::Id injections = h5::create_group(quality.get(), "injections");
    const std::vector<std::int32_t> injections_mask =
        f.injection_mask.empty() ? std::vector<std::int32_t>(f.dq_mask.size(), 0) : f.injection_mask;
    h5::Id inj =
        h5::described(h5::create_dataset(injections.get(), "Injmask", H5T_NATIVE_INT32, {injections_mask.size()}), "",
                      "hardware-injection bits per second");
    h5::write_rows(inj.get(), H5T_NATIVE_INT32, 0, injections_mask.size(), injections_mask.data());
  }
  meta = h5::Id();
  h5::close_file(file);
}

}  // namespace astrosweep::spiir
