#include "io/time_series_fixtures.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace astrosweep::test {

namespace {
template <class T>
std::string little_endian(T value) {
  std::string bytes(sizeof(T), '\0');
  std::memcpy(bytes.data(), &value, sizeof(T));  // the test hosts are little-endian, as SIGPROC files are
  return bytes;
}
}  // namespace

TimHeader& TimHeader::string(const std::string& text) {
  bytes_ += little_endian(static_cast<std::int32_t>(text.size())) + text;
  return *this;
}
TimHeader& TimHeader::raw(const std::string& bytes) {
  bytes_ += bytes;
  return *this;
}
TimHeader& TimHeader::int32(const std::string& keyword, std::int32_t value) {
  string(keyword);
  bytes_ += little_endian(value);
  return *this;
}
TimHeader& TimHeader::float64(const std::string& keyword, double value) {
  string(keyword);
  bytes_ += little_endian(value);
  return *this;
}
TimHeader& TimHeader::text(const std::string& keyword, const std::string& value) {
  string(keyword);
  return string(value);
}

std::string tim_header(const TimSpec& spec) {
  TimHeader h;
  h.start()
      .text("source_name", spec.source_name)
      .int32("telescope_id", 6)
      .int32("machine_id", 10)
      .int32("data_type", spec.data_type)
      .float64("src_raj", 123456.78)
      .float64("src_dej", 567812.3)
      .float64("tstart", spec.tstart)
      .float64("tsamp", spec.tsamp)
      .int32("nbits", spec.nbits)
      .float64("fch1", 1500.0)
      .int32("nchans", spec.nchans)
      .int32("nifs", 1)
      .float64("refdm", spec.refdm)
      .int32("barycentric", 0);
  if (spec.nsamples) h.int32("nsamples", *spec.nsamples);
  return h.end().bytes();
}

std::string tim_samples(const std::vector<float>& samples, int nbits) {
  std::string bytes;
  for (float v : samples) {
    if (nbits == 32) bytes += little_endian(v);
    if (nbits == 16) bytes += little_endian(static_cast<std::int16_t>(std::lround(v)));
    if (nbits == 8) bytes += little_endian(static_cast<std::uint8_t>(std::lround(v)));
  }
  return bytes;
}

std::string tim_file(const TimSpec& spec, const std::vector<float>& samples) {
  return tim_header(spec) + tim_samples(samples, spec.nbits);
}

std::string presto_inf(const PrestoSpec& spec, const std::string& basename) {
  std::string text;
  auto line = [&](const char* label, const std::string& value) {
    char buffer[256];
    std::snprintf(buffer, sizeof buffer, " %-39s=  %s\n", label, value.c_str());
    text += buffer;
  };
  auto number = [](const char* format, double v) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, v);
    return std::string(buffer);
  };
  line("Data file name without suffix", basename);
  line("Telescope used", "GBT");
  line("Instrument used", "GUPPI");
  line("Object being observed", spec.object);
  line("J2000 Right Ascension (hh:mm:ss.ssss)", "12:34:56.7800");
  line("J2000 Declination     (dd:mm:ss.ssss)", "56:78:12.3000");
  line("Data observed by", "Unknown");
  line("Epoch of observation (MJD)", number("%.15f", spec.epoch));
  line("Barycentered?           (1=yes, 0=no)", "0");
  line("Number of bins in the time series", std::to_string(spec.n_samples));
  line("Width of each time series bin (sec)", number("%.15g", spec.tsamp));
  line("Any breaks in the data? (1=yes, 0=no)", "0");
  line("Type of observation (EM band)", spec.dm ? "Radio" : "X-ray");
  if (spec.dm) {
    line("Beam diameter (arcsec)", "720");
    line("Dispersion measure (cm-3 pc)", number("%.12g", *spec.dm));
    line("Central freq of low channel (Mhz)", "1100");
    line("Total bandwidth (Mhz)", "800");
    line("Number of channels", "1");
    line("Channel bandwidth (Mhz)", "800");
  }
  line("Data analyzed by", "astrosweep tests");
  text += " Any additional notes:\n    Input filterbank samples have 8 bits.\n\n";
  return text;
}

void write_presto(const std::string& base, PrestoSpec spec, const std::vector<float>& samples) {
  if (spec.n_samples == 0) spec.n_samples = samples.size();
  const auto slash = base.find_last_of('/');
  write_file(base + ".inf", presto_inf(spec, slash == std::string::npos ? base : base.substr(slash + 1)));
  write_file(base + ".dat", tim_samples(samples, 32));
}

std::vector<float> noise_series(std::size_t n, std::uint64_t seed, float offset) {
  std::uint64_t state = seed * 2862933555777941757ULL + 3037000493ULL;
  auto uniform = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (static_cast<double>(state >> 11) + 0.5) * 0x1.0p-53;
  };
  std::vector<float> v(n);
  for (auto& x : v)
    x = offset + static_cast<float>(std::sqrt(-2 * std::log(uniform())) * std::cos(2 * M_PI * uniform()));
  return v;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace astrosweep::test
