#include "global_noise_slabs.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "catalogue.hpp"
#include "core/error.hpp"
#include "core/mpi.hpp"

namespace astrosweep::scfind {

double global_noise_in_slabs(const CubeShape& cube, std::span<const OwnedChannels> mine, MPI_Comm comm) {
  int rank = 0, size = 1;
  AS_MPI_TRY(MPI_Comm_rank(comm, &rank));
  AS_MPI_TRY(MPI_Comm_size(comm, &size));
  const std::size_t cadence = noise_cadence(cube);
  const SampleRange whole = global_noise_samples(cube);
  const std::uint64_t plane = cube.plane();
  // This rank's samples, each with its place k in SoFiA-2's walk (index whole.highest − k·cadence).
  std::vector<std::uint64_t> places;
  std::vector<float> values;
  for (const OwnedChannels& o : mine) {
    const SampleRange r = samples_in(cube.voxels(), cadence, o.z_begin * plane, o.z_end * plane);
    // The reads are a cache miss each (cadence voxels apart): drawn on all threads into their
    // slots, then the walked ones kept in order.
    std::vector<std::uint64_t> slab_places(r.count);
    std::vector<float> slab_values(r.count);
    std::vector<std::uint8_t> walked(r.count);
    const auto count = static_cast<std::ptrdiff_t>(r.count);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t jj = 0; jj < count; ++jj) {
      const auto j = static_cast<std::uint64_t>(jj);
      const std::uint64_t index = r.highest - j * cadence;
      const std::uint64_t k = (whole.highest - index) / cadence;
      walked[j] = whole.count != 0 && index <= whole.highest && k < whole.count ? 1 : 0;  // global index 0 is not
      if (walked[j] == 0) continue;
      const float v = o.data[index - o.z_begin * plane];
      slab_places[j] = k;
      slab_values[j] = std::isfinite(v) ? v : std::numeric_limits<float>::quiet_NaN();  // infinities blank
    }
    for (std::uint64_t j = 0; j < r.count; ++j)
      if (walked[j] != 0) {
        places.push_back(slab_places[j]);
        values.push_back(slab_values[j]);
      }
  }
  AS_ASSERT(values.size() <= static_cast<std::size_t>(std::numeric_limits<int>::max()));
  const int n = static_cast<int>(values.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), displacements(static_cast<std::size_t>(size));
  AS_MPI_TRY(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  std::vector<std::uint64_t> every_place;
  std::vector<float> every_value;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) {
      displacements[r] = total;
      total += counts[r];
    }
    AS_ASSERT(static_cast<std::uint64_t>(total) == whole.count);
    every_place.resize(static_cast<std::size_t>(total));
    every_value.resize(static_cast<std::size_t>(total));
  }
  AS_MPI_TRY(MPI_Gatherv(places.data(), n, MPI_UINT64_T, every_place.data(), counts.data(), displacements.data(),
                         MPI_UINT64_T, 0, comm));
  AS_MPI_TRY(MPI_Gatherv(values.data(), n, MPI_FLOAT, every_value.data(), counts.data(), displacements.data(),
                         MPI_FLOAT, 0, comm));
  double rms = 0;
  if (rank == 0) {
    std::vector<float> samples(whole.count);
    for (std::size_t i = 0; i < every_place.size(); ++i) samples[every_place[i]] = every_value[i];
    rms = global_noise_of_samples(cube, samples);
  }
  AS_MPI_TRY(MPI_Bcast(&rms, 1, MPI_DOUBLE, 0, comm));
  return rms;
}

}  // namespace astrosweep::scfind
