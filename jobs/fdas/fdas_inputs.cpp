#include "fdas_inputs.hpp"

#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/mpi.hpp"

namespace astrosweep::fdas {

namespace {

// The fixed-size part of a TimeSeriesSource, for one broadcast of the whole list.
struct SourceNumbers {
  std::int32_t format;
  std::uint64_t batch_index;
  double dm, tsamp, tstart_mjd;
  std::uint64_t n_samples;
};

// Paths and names joined with NUL, which neither can contain.
std::string join(const std::vector<io::TimeSeriesSource>& series, std::string io::TimeSeriesSource::*member) {
  std::string text;
  for (const auto& s : series) text.append(s.*member).push_back('\0');
  return text;
}

void split(const std::string& text, std::vector<io::TimeSeriesSource>& series,
           std::string io::TimeSeriesSource::*member) {
  std::size_t at = 0;
  for (auto& s : series) {
    const std::size_t end = text.find('\0', at);
    AS_ASSERT(end != std::string::npos);
    s.*member = text.substr(at, end - at);
    at = end + 1;
  }
}

}  // namespace

void broadcast_inputs(MPI_Comm comm, io::TimeSeriesInputs& inputs) {
  std::vector<SourceNumbers> numbers;
  std::string paths, names;
  int rank = 0;
  AS_MPI_TRY(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    for (const auto& s : inputs.series)
      numbers.push_back({static_cast<std::int32_t>(s.format), s.batch_index, s.info.dm, s.info.tsamp, s.info.tstart_mjd,
                         s.n_samples});
    paths = join(inputs.series, &io::TimeSeriesSource::path);
    names = join(inputs.series, &io::TimeSeriesSource::source_name);
  }
  mpi::broadcast_vector(comm, numbers);
  mpi::broadcast_string(comm, paths);
  mpi::broadcast_string(comm, names);
  auto format = static_cast<std::int32_t>(inputs.format);
  mpi::broadcast_value(comm, format);
  mpi::broadcast_value(comm, inputs.min_samples);
  mpi::broadcast_value(comm, inputs.max_samples);
  if (rank == 0) return;
  inputs.format = static_cast<io::TimeSeriesFormat>(format);
  inputs.series.assign(numbers.size(), {});
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    auto& s = inputs.series[i];
    s.format = static_cast<io::TimeSeriesFormat>(numbers[i].format);
    s.batch_index = numbers[i].batch_index;
    s.info = {numbers[i].dm, numbers[i].tsamp, numbers[i].tstart_mjd};
    s.n_samples = numbers[i].n_samples;
  }
  split(paths, inputs.series, &io::TimeSeriesSource::path);
  split(names, inputs.series, &io::TimeSeriesSource::source_name);
}

SeriesReader::SeriesReader(const io::TimeSeriesInputs& inputs) : inputs_(inputs) {}
SeriesReader::~SeriesReader() = default;

std::vector<LoadedSeries> SeriesReader::read(std::uint64_t first, std::uint64_t n, std::mutex* hdf5_lock) {
  AS_ASSERT(first <= inputs_.series.size() && n <= inputs_.series.size() - first);
  std::vector<LoadedSeries> out;
  out.reserve(n);
  if (inputs_.format != io::TimeSeriesFormat::hdf5) {
    for (std::uint64_t i = first; i < first + n; ++i) {
      std::unique_lock<std::mutex> hold;  // a lone HDF5 series in a list goes through the library too
      if (hdf5_lock != nullptr && inputs_.series[i].format == io::TimeSeriesFormat::hdf5)
        hold = std::unique_lock(*hdf5_lock);
      out.push_back({i, io::read_time_series_samples(inputs_.series[i])});
    }
    return out;
  }
  // A batch: the series are consecutive in it (batch_index = input index), read in one call.
  std::unique_lock<std::mutex> hold;
  if (hdf5_lock != nullptr) hold = std::unique_lock(*hdf5_lock);
  if (!batch_) batch_ = std::make_unique<io::H5TimeSeries>(inputs_.series[first].path, MPI_COMM_NULL);
  const io::TimeSeriesBlock block = batch_->read(inputs_.series[first].batch_index, n);
  if (hold.owns_lock()) hold.unlock();
  std::uint64_t at = 0;
  for (std::uint64_t k = 0; k < n; ++k) {
    const std::uint64_t count = block.counts[k];
    const auto& source = inputs_.series[first + k];
    AS_EXPECTS(count == source.n_samples, InputError,
               "'" + source.path + "' changed while the run was reading it: series " +
                   std::to_string(source.batch_index) + " now has " + std::to_string(count) + " samples, not " +
                   std::to_string(source.n_samples),
               "do not rewrite an input during a run");
    LoadedSeries s{first + k,
                   {block.samples.begin() + static_cast<std::ptrdiff_t>(at),
                    block.samples.begin() + static_cast<std::ptrdiff_t>(at + count)}};
    io::require_finite_samples(s.samples, "'" + source.path + "' series " + std::to_string(source.batch_index), 0);
    out.push_back(std::move(s));
    at += count;
  }
  return out;
}

}  // namespace astrosweep::fdas
