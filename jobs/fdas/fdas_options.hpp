#pragma once
// The fdas job's options: the common ones (run/common_options.hpp) and the search's, with
// PRESTO accelsearch's defaults where it has one (docs/fdas.md).

#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "io/time_series_inputs.hpp"
#include "response.hpp"
#include "run/common_options.hpp"
#include "sifting.hpp"
#include "spectrum.hpp"

namespace astrosweep::fdas {

enum class Normalisation { deredden, known_variance, none };

struct FdasOptions : run::CommonOptions {
  std::vector<std::string> inputs;  ///< .tim / .dat / .inf files, directories, @LIST, or one HDF5 batch
  io::TimeSeriesFormat format = io::TimeSeriesFormat::automatic;
  double z_max = 200;      ///< PRESTO -zmax
  int numharm = 8;         ///< PRESTO -numharm
  int numbetween = 2;      ///< outputs per bin
  double sigma_min = 2.0;  ///< PRESTO -sigma
  double f_lo = 1.0;       ///< Hz, PRESTO -flo
  double f_hi = 10000.0;   ///< Hz, PRESTO -fhi (clipped to Nyquist)
  Normalisation normalisation = Normalisation::deredden;
  double known_variance = 0;  ///< σ² for Normalisation::known_variance
  std::vector<Birdie> birdies;
  std::size_t max_candidates = 2000;
  Accuracy accuracy = Accuracy::low;
  std::size_t fft_length = 0;                ///< 0: the default for the widest template
  std::string accel_text;                    ///< directory for PRESTO _ACCEL_ files; empty: none
  SiftOptions sift = accel_sift_defaults();  ///< across DM trials (ACCEL_sift.py's values)
  int units_in_flight = 0;                   ///< --units-in-flight (run/units_in_flight.hpp); 0: automatic
};

/// Parses the command line (nullopt after --help); UsageError naming the option for a bad value.
std::optional<FdasOptions> parse_fdas_options(const std::vector<std::string>& args, MPI_Comm comm);

/// Reads a birdie file: lines "frequency_hz width_hz", '#' comments. InputError naming FILE:LINE.
std::vector<Birdie> read_birdies(const std::string& path);

}  // namespace astrosweep::fdas
