#include "scfind_job.hpp"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <memory>
#include <span>

#include "core/error.hpp"
#include "core/mpi.hpp"
#include "io/cube.hpp"
#include "noise.hpp"
#include "scfind_exchange.hpp"
#include "scfind_product.hpp"

namespace astrosweep::scfind {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

io::CubeInfo shared_cube_info(const std::string& input, MPI_Comm comm) {
  io::CubeInfo info;
  mpi::on_root_then_share_failure(comm, [&] { info = io::read_cube_info(input); });
  // The header text and shape travel from rank 0; every rank reads its own channels later.
  mpi::broadcast_string(comm, info.path);
  mpi::broadcast_string(comm, info.dataset);
  std::uint64_t shape[6] = {info.nx,
                            info.ny,
                            info.nz,
                            static_cast<std::uint64_t>(info.naxis),
                            static_cast<std::uint64_t>(static_cast<std::int64_t>(info.bitpix)),
                            static_cast<std::uint64_t>(info.format)};
  mpi::broadcast_bytes(comm, shape, sizeof shape);
  info.nx = shape[0];
  info.ny = shape[1];
  info.nz = shape[2];
  info.naxis = static_cast<int>(shape[3]);
  info.bitpix = static_cast<int>(static_cast<std::int64_t>(shape[4]));
  info.format = static_cast<io::CubeFormat>(shape[5]);
  std::uint64_t cards = info.header_cards.size();
  mpi::broadcast_value(comm, cards);
  info.header_cards.resize(cards);
  for (auto& card : info.header_cards) mpi::broadcast_string(comm, card);
  return info;
}

/// Stops every rank with the same error when `ok` is false on any rank (a condition all ranks
/// evaluate, such as a noise level, but where only some may see the failure).
void agree(bool ok, const Error& error, MPI_Comm comm) {
  int good = ok ? 1 : 0;
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &good, 1, MPI_INT, MPI_MIN, comm));
  if (!good) throw mpi::SharedError(error.code(), error.what(), error.hint());
}

/// Voxels in the mask over all ranks, when every backend can count its own cheaply.
std::optional<std::uint64_t> count_mask(ScfindBackend& backend, MPI_Comm comm) {
  const auto local = backend.mask_count();
  std::uint64_t values[2] = {local.value_or(0), local ? 0U : 1U};
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, values, 2, MPI_UINT64_T, MPI_SUM, comm));
  if (values[1] != 0) return std::nullopt;
  return values[0];
}

class NoiseMeter {
 public:
  NoiseMeter(const ScfindParameters& parameters, const Slab& slab, MPI_Comm comm, int rank, int size)
      : parameters_(parameters), slab_(slab), cadence_(noise_cadence(slab.cube)) {
    chain_.comm = comm;
    chain_.above = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    chain_.below = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const std::uint64_t plane = slab.cube.plane();
    range_ = samples_in(slab.cube.voxels(), cadence_, slab.own_begin * plane, slab.own_end * plane);
  }
  [[nodiscard]] std::size_t cadence() const noexcept { return cadence_; }

  /// The noise of the backend's current smoothed data; stops every rank when it is not usable.
  double measure(ScfindBackend& backend, const std::string& what) {
    // mad on a backend that keeps its magnitudes (CUDA): the median's counting runs there.
    std::unique_ptr<MagnitudeCounter> magnitudes;
    if (parameters_.statistic == NoiseStatistic::mad)
      magnitudes = backend.magnitudes(without_index_zero(range_, cadence_), cadence_, parameters_.flux_range);
    double rms = 0;
    if (magnitudes) {
      rms = mad_noise(*magnitudes, parameters_.flux_range, slab_.cube.voxels(), cadence_, chain_);
    } else {
      const std::vector<float> values = backend.samples(range_, cadence_);
      float lo = std::numeric_limits<float>::quiet_NaN();
      float hi = lo;
      if (parameters_.statistic == NoiseStatistic::gauss) std::tie(lo, hi) = backend.finite_min_max();
      const LocalSamples samples{values, range_.highest, cadence_};
      rms = measure_noise(parameters_.statistic, parameters_.flux_range, samples, slab_.cube.voxels(), lo, hi, chain_);
    }
    agree(
        std::isfinite(rms) && rms > 0,
        InputError("the noise of " + what + " cannot be measured (" + to_string(parameters_.statistic) + " over the " +
                       to_string(parameters_.flux_range) + " flux range gives " + std::to_string(rms) + ")",
                   "the cube may be blank, constant or have no values in that flux range; check the cube or choose "
                   "another scfind.statistic / scfind.fluxRange"),
        chain_.comm);
    return rms;
  }

 private:
  const ScfindParameters& parameters_;
  const Slab& slab_;
  std::size_t cadence_;
  SampleRange range_;
  SlabChain chain_;
};

}  // namespace

ScfindSummary run_scfind_job(const ScfindOptions& options, MPI_Comm parent) {
  const auto t_start = Clock::now();
  mpi::Communicator comm(parent);
  const int rank = comm.rank();
  const int size = comm.size();
  const bool talk = rank == 0 && !options.quiet;

  const io::CubeInfo info = shared_cube_info(options.input, comm.get());
  const CubeShape cube{info.nx, info.ny, info.nz};
  // SoFiA-2's limits: kernels smaller than the cube along their axes.
  for (double k : options.parameters.kernels_xy) {
    if (!(k < static_cast<double>(cube.nx) && k < static_cast<double>(cube.ny)))
      throw mpi::SharedError(ExitCode::usage,
                             "spatial kernel FWHM " + std::to_string(k) + " is not smaller than the cube (" +
                                 std::to_string(cube.nx) + " x " + std::to_string(cube.ny) + " pixels)",
                             "SoFiA-2 refuses such kernels too; remove it from scfind.kernelsXY");
  }
  for (std::size_t k : options.parameters.kernels_z) {
    if (!(k < cube.nz))
      throw mpi::SharedError(ExitCode::usage,
                             "spectral kernel width " + std::to_string(k) + " is not smaller than the cube (" +
                                 std::to_string(cube.nz) + " channels)",
                             "SoFiA-2 refuses such kernels too; remove it from scfind.kernelsZ");
  }
  if (static_cast<std::size_t>(size) > cube.nz) {
    throw mpi::SharedError(
        ExitCode::usage,
        "more ranks (" + std::to_string(size) + ") than channels (" + std::to_string(cube.nz) + ") in " + options.input,
        "run with at most " + std::to_string(cube.nz) + " ranks; slabs split the spectral axis");
  }
  const std::vector<KernelPair> pairs = kernel_pairs(options.parameters);
  std::size_t halo = 0;
  for (const auto& p : pairs) halo = std::max(halo, p.radius_z);
  const std::vector<std::size_t> bounds = channel_bounds(cube.nz, size);
  const Slab slab =
      make_slab(cube, bounds[static_cast<std::size_t>(rank)], bounds[static_cast<std::size_t>(rank) + 1], halo);

  ScfindBackendOptions backend_options = options.backend;
  const auto local = mpi::node_local(comm.get());
  backend_options.node_local_rank = local.rank;
  backend_options.node_local_size = local.size;
  auto backend = make_scfind_backend(backend_options);
  // The host budget bounds host backends; a CUDA backend checks its device budget in load().
  const bool on_gpu = resolve_scfind_backend(backend_options.kind) == ScfindBackendKind::cuda;
  const std::uint64_t needed = scfind_memory_needed(on_gpu ? ScfindBackendKind::cuda : ScfindBackendKind::cpu, slab);
  agree(on_gpu || options.host_memory_budget == 0 || needed <= options.host_memory_budget,
        RuntimeError("a slab of " + std::to_string(slab.held_channels()) + " channels needs " +
                         std::to_string(needed >> 20) + " MiB, more than the memory budget of a rank",
                     "run more ranks (thinner slabs) or raise --memory-budget-mb"),
        comm.get());

  ScfindProduct product(options, info, comm.get());

  // Each rank reads only its held channels (slab and halo).
  const auto t_read = Clock::now();
  std::uint64_t counts[2] = {0, 0};
  {
    // Not zero-filled: the reader overwrites every value (a memset of a whole slab costs seconds).
    const auto original = std::make_unique_for_overwrite<float[]>(slab.held_voxels());
    const std::span<float> values(original.get(), slab.held_voxels());
    const auto read = io::read_cube_channels(info, slab.held_begin, slab.held_end, values);
    backend->load(slab, values);
    counts[0] = read.blanks;
    counts[1] = read.infinities;
  }
  const double read_seconds = seconds_since(t_read);
  if (talk) {
    std::fprintf(stderr, "scfind: %s, %zu x %zu x %zu, %d rank(s), slab of %zu channels + halo %zu, %s\n",
                 options.input.c_str(), cube.nx, cube.ny, cube.nz, size, slab.owned_channels(), halo,
                 backend->describe().c_str());
    std::fflush(stderr);
  }

  NoiseMeter meter(options.parameters, slab, comm.get(), rank, size);
  ScfindSummary summary;
  backend->use_original();
  const double rms = meter.measure(*backend, "the cube");
  summary.noise.push_back(rms);
  if (talk)
    std::fprintf(stderr, "scfind: noise of the cube %.9e (%s, %s, stride %zu)\n", rms,
                 to_string(options.parameters.statistic), to_string(options.parameters.flux_range), meter.cadence());

  const auto t_smooth = Clock::now();
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto t_pair = Clock::now();
    const KernelPair& pair = pairs[i];
    double noise = rms;
    if (pair.smooths()) {
      std::optional<float> replacement;
      if (options.parameters.replacement >= 0) replacement = static_cast<float>(options.parameters.replacement * rms);
      MpiSpectralCarry carry(comm.get(), slab, 16);
      backend->smooth(pair, replacement, carry);
      carry.finish();
      noise = meter.measure(*backend, "the smoothed cube");
      summary.noise.push_back(noise);
    } else {
      backend->use_original();
    }
    backend->clip(options.parameters.threshold * noise);
    exchange_mask_halos(*backend, slab, bounds, halo, comm.get());
    const auto in_mask = count_mask(*backend, comm.get());
    if (talk) {
      const std::string mask_size = in_mask ? "  mask " + std::to_string(*in_mask) + " voxels" : std::string();
      std::fprintf(stderr, "scfind: pair %zu/%zu  [%.1f] x [%zu]  noise %.6e%s  %.2f s\n", i + 1, pairs.size(),
                   pair.fwhm_xy, pair.width_z, noise, mask_size.c_str(), seconds_since(t_pair));
      std::fflush(stderr);
    }
  }
  const double smooth_seconds = seconds_since(t_smooth);

  const auto t_write = Clock::now();
  const std::vector<std::uint8_t> owned_mask = backend->mask_channels(slab.own_begin, slab.own_end);
  summary.mask_voxels = static_cast<std::uint64_t>(std::count(owned_mask.begin(), owned_mask.end(), std::uint8_t{1}));
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &summary.mask_voxels, 1, MPI_UINT64_T, MPI_SUM, comm.get()));
  product.write_mask(slab.own_begin, owned_mask);
  product.finish(pairs, summary, meter.cadence());
  const double write_seconds = seconds_since(t_write);

  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_UINT64_T, MPI_SUM, comm.get()));
  if (talk) {
    std::fprintf(stderr,
                 "scfind: %" PRIu64 " blank and %" PRIu64
                 " infinite voxels in the input (infinities treated as blank)\n",
                 counts[0], counts[1]);
    std::fprintf(stderr,
                 "scfind: mask %" PRIu64 " voxels; read %.2f s, smooth-and-clip %.2f s, write %.2f s, total %.2f s\n",
                 summary.mask_voxels, read_seconds, smooth_seconds, write_seconds, seconds_since(t_start));
    std::fprintf(stderr, "scfind: product %s%s%s\n", options.output.c_str(),
                 options.fits_mask.empty() ? "" : ", FITS mask ", options.fits_mask.c_str());
  }
  if (!options.quiet) {
    // Per-rank summary, in rank order.
    for (int r = 0; r < size; ++r) {
      if (r == rank) {
        std::fprintf(stderr, "  rank %d: channels %zu-%zu (held %zu-%zu), %s, %s\n", rank, slab.own_begin,
                     slab.own_end - 1, slab.held_begin, slab.held_end - 1, backend->describe().c_str(),
                     backend->usage().c_str());
        std::fflush(stderr);
      }
      AS_MPI_TRY(MPI_Barrier(comm.get()));
    }
  }
  return summary;
}

}  // namespace astrosweep::scfind
