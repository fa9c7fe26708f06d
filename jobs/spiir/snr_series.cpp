#include "snr_series.hpp"

#include <fcntl.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

#include "core/error.hpp"
#include "core/mpi.hpp"
#include "core/text.hpp"
#include "io/output_path.hpp"

namespace astrosweep::spiir {
namespace {

// h5py's complex64: a compound of two float32 named r and i.
h5::Id complex64_type() {
  h5::Id type(H5Tcreate(H5T_COMPOUND, sizeof(std::complex<float>)));
  h5::check(H5Tinsert(type.get(), "r", 0, H5T_NATIVE_FLOAT), "H5Tinsert");
  h5::check(H5Tinsert(type.get(), "i", sizeof(float), H5T_NATIVE_FLOAT), "H5Tinsert");
  return type;
}

bool parse_row(std::string_view text, std::size_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

}  // namespace

SnrSelection parse_snr_templates(const std::string& text, std::size_t n_templates) {
  if (text.empty()) return {};
  if (text == "all") return {true, 0, n_templates};
  const std::size_t colon = text.find(':');
  std::size_t first = 0, last = 0;
  const bool parsed = colon == std::string::npos ? parse_row(text, first) && ((last = first), true)
                                                 : parse_row(std::string_view(text).substr(0, colon), first) &&
                                                       parse_row(std::string_view(text).substr(colon + 1), last);
  AS_EXPECTS(parsed && first <= last, UsageError,
             "--snr-templates must be 'all', a bank row K or rows FIRST:LAST (inclusive), not '" + text + "'",
             "e.g. --snr-templates 0:99 keeps the SNR series of the bank's first 100 templates");
  AS_EXPECTS(last < n_templates, UsageError,
             format_text("--snr-templates %s names row %zu, but the bank has %zu templates (rows 0 … %zu)",
                         text.c_str(), last, n_templates, n_templates - 1));
  return {true, first, last - first + 1};
}

SnrWindow parse_snr_gps(const std::string& text, std::int64_t gps_start_s, std::int32_t gps_start_ns,
                        double sample_rate, std::size_t n_samples) {
  const std::size_t colon = text.find(':');
  const auto start = colon == std::string::npos ? std::nullopt : parse_number(text.substr(0, colon));
  const auto end = colon == std::string::npos ? std::nullopt : parse_number(text.substr(colon + 1));
  const bool parsed = start && end && std::isfinite(*start) && std::isfinite(*end) && *start < *end;
  AS_EXPECTS(parsed, UsageError, "--snr-gps must be two GPS times START:END with START < END, not '" + text + "'",
             "e.g. --snr-gps 1187008870:1187008890 keeps 20 s of SNR series around GW170817");
  // Samples from the start, as the offsets of START and END from the strain's first sample.
  const double origin_ns = static_cast<double>(gps_start_ns) * 1e-9;
  const double from = std::ceil(((*start - static_cast<double>(gps_start_s)) - origin_ns) * sample_rate);
  const double to = std::ceil(((*end - static_cast<double>(gps_start_s)) - origin_ns) * sample_rate);
  const double first = std::max(0.0, from), last = std::min(static_cast<double>(n_samples), to);
  AS_EXPECTS(first < last, UsageError,
             format_text("--snr-gps %s holds none of the strain's samples (GPS %.3f ... %.3f)", text.c_str(),
                         static_cast<double>(gps_start_s) + origin_ns,
                         static_cast<double>(gps_start_s) + origin_ns + static_cast<double>(n_samples) / sample_rate),
             "give GPS times within the strain");
  return {static_cast<std::size_t>(first), static_cast<std::size_t>(last - first)};
}

std::uint64_t snr_series_bytes(const SnrSeriesLayout& layout) {
  return static_cast<std::uint64_t>(layout.ifos.size()) * layout.templates.count * layout.n_samples *
             sizeof(std::complex<float>) +
         layout.n_samples * sizeof(double) + layout.templates.count * sizeof(std::int64_t);
}

SnrSeriesWriter::SnrSeriesWriter(const std::string& path, MPI_Comm comm, const SnrSeriesLayout& layout)
    : layout_(layout) {
  file_ = h5::open_file(path, h5::Access::read_write, comm);
  complex_type_ = complex64_type();
  const std::uint64_t rows = layout.templates.count, cols = layout.n_samples;
  // A resumed run finds /snr (the product's fingerprint, snr_templates included, matched); a first
  // run, or one stopped before it was made, makes it.
  if (h5::exists(file_.get(), "snr")) {
    h5::Id group = h5::open_group(file_.get(), "snr");
    for (const auto& ifo : layout.ifos) series_.push_back(h5::open_dataset(group.get(), ifo));
  } else {
    io::check_output_space(path, snr_series_bytes(layout), comm);  // a full disk before the first unit
    // Every call below is collective (metadata): each rank makes the same objects.
    h5::Id group = h5::create_group(file_.get(), "snr");
    h5::set_attribute(group.get(), "gps_start_s", layout.gps_start_s);
    h5::set_attribute(group.get(), "gps_start_ns", std::int64_t{layout.gps_start_ns});
    h5::set_attribute(group.get(), "sample_rate", layout.sample_rate);
    h5::set_attribute(group.get(), "first_sample", static_cast<std::int64_t>(layout.first_sample));
    h5::set_attribute(group.get(), "description",
                      std::string("complex SNR z of each kept template (row) at each strain sample (column), per "
                                  "detector; |z| is the SNR, arg z the phase as in /peaks"));
    h5::Id templates = h5::described(h5::create_dataset(group.get(), "template", H5T_NATIVE_INT64, {rows}), "",
                                     "row of each /snr row's template in the bank's /templates");
    h5::Id time = h5::described(h5::create_dataset(group.get(), "time", H5T_NATIVE_DOUBLE, {cols}), "s",
                                "GPS time of each column's strain sample (gps_start + sample / sample_rate, "
                                "sample = first_sample + column)");
    for (const auto& ifo : layout.ifos) {
      series_.push_back(h5::described(
          h5::create_dataset(group.get(), ifo, complex_type_.get(), {rows, cols}), "",
          "complex SNR of detector " + ifo + ": template (row, bank row in /snr/template) x strain sample (column)"));
      h5::attach_scale(series_.back().get(), templates.get(), 0, "template");
      h5::attach_scale(series_.back().get(), time.get(), 1, "time");
    }
    int rank = 0;
    AS_MPI_TRY(MPI_Comm_rank(comm, &rank));
    if (rank == 0) {
      std::vector<std::int64_t> bank_rows(rows);
      for (std::uint64_t r = 0; r < rows; ++r) bank_rows[r] = static_cast<std::int64_t>(layout.templates.first + r);
      h5::write_rows<std::int64_t>(templates.get(), 0, bank_rows);
      std::vector<double> gps(cols);
      const double start = static_cast<double>(layout.gps_start_s) + 1e-9 * layout.gps_start_ns;
      for (std::uint64_t s = 0; s < cols; ++s)
        gps[s] = start + static_cast<double>(layout.first_sample + s) / layout.sample_rate;
      h5::write_rows<double>(time.get(), 0, gps);
    }
    // The metadata reaches the file once, now: the units' writes are then raw writes into storage
    // allocated above, and a run killed later leaves a file HDF5 opens (docs/reliability.md).
    h5::flush(file_.get());
  }
  durable_ = io::PosixFile(path, O_RDONLY);
}

void SnrSeriesWriter::write(std::size_t d, std::size_t block_first, std::size_t block_count, std::int64_t first,
                            std::size_t m, std::size_t latency, std::int64_t lo, std::int64_t hi,
                            std::span<const std::complex<double>> z) {
  const std::size_t t0 = std::max(block_first, layout_.templates.first);
  const std::size_t t1 = std::min(block_first + block_count, layout_.templates.first + layout_.templates.count);
  // Strain samples of this chunk: output sample minus the stream's latency, within [lo, hi) and
  // the strain.
  const std::int64_t s_first = first - static_cast<std::int64_t>(latency);
  const auto window_first = static_cast<std::int64_t>(layout_.first_sample);
  const std::int64_t s0 = std::max({s_first, lo, window_first});
  const std::int64_t s1 = std::min(
      {s_first + static_cast<std::int64_t>(m), hi, window_first + static_cast<std::int64_t>(layout_.n_samples)});
  if (t0 >= t1 || s0 >= s1) return;
  const auto width = static_cast<std::size_t>(s1 - s0);
  rows_.resize((t1 - t0) * width);
  for (std::size_t t = t0; t < t1; ++t) {
    const std::complex<double>* from = z.data() + (t - block_first) * m + static_cast<std::size_t>(s0 - s_first);
    std::complex<float>* to = rows_.data() + (t - t0) * width;
    for (std::size_t i = 0; i < width; ++i) to[i] = std::complex<float>(from[i]);
  }
  h5::write_block(series_[d].get(), complex_type_.get(), t0 - layout_.templates.first, t1 - t0,
                  static_cast<std::uint64_t>(s0 - window_first), width, rows_.data());
}

void SnrSeriesWriter::close() {
  series_.clear();
  complex_type_ = h5::Id();
  durable_ = io::PosixFile();
  h5::close_file(file_);
}

}  // namespace astrosweep::spiir
