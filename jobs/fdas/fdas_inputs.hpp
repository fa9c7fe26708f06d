#pragma once
// The fdas job's series across ranks: rank 0 lists the inputs (io::list_time_series_inputs reads
// every header once) and every rank receives the list; a rank then reads only the series of the
// units it is given, from their own files or from the HDF5 batch (opened by that rank alone:
// reads are independent and the batch is read-only).

#include <mpi.h>

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "io/time_series_inputs.hpp"

namespace astrosweep::fdas {

/// Collective: rank 0's list on every rank.
void broadcast_inputs(MPI_Comm comm, io::TimeSeriesInputs& inputs);

/// One series' samples, read for a unit.
struct LoadedSeries {
  std::uint64_t index = 0;  ///< in the run's input order
  std::vector<float> samples;
};

/// Reads series on one rank; keeps the HDF5 batch open between units. One reader serves a rank's
/// lanes at once: its HDF5 calls (opening and reading the batch) are made under the lock passed to
/// read, which the lanes' other HDF5 calls take too; files of other formats are read without it.
class SeriesReader {
 public:
  explicit SeriesReader(const io::TimeSeriesInputs& inputs);
  ~SeriesReader();
  SeriesReader(const SeriesReader&) = delete;
  SeriesReader& operator=(const SeriesReader&) = delete;
  /// Series [first, first + n): their samples, as many as each header says, every one finite
  /// (InputError naming the file and the sample otherwise). `hdf5_lock`: held for the HDF5 calls
  /// (null: the caller's thread is the only one).
  std::vector<LoadedSeries> read(std::uint64_t first, std::uint64_t n, std::mutex* hdf5_lock = nullptr);

 private:
  const io::TimeSeriesInputs& inputs_;
  std::unique_ptr<io::H5TimeSeries> batch_;
};

}  // namespace astrosweep::fdas
