#include "scfind_job.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>

#include "catalogue_files.hpp"
#include "checkpoint_labels.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/mpi.hpp"
#include "core/text.hpp"
#include "cube_header.hpp"
#include "cubelets.hpp"
#include "device.hpp"
#include "global_noise_slabs.hpp"
#include "io/cube.hpp"
#include "io/h5.hpp"
#include "linker.hpp"
#include "linker_slabs.hpp"
#include "moment_maps.hpp"
#include "noise.hpp"
#include "run/lifecycle.hpp"
#include "scfind_product.hpp"
#include "scfind_resume.hpp"
#include "slab_buffer.hpp"
#include "slab_layout.hpp"
#include "slab_samples.hpp"
#include "slab_sweep.hpp"
#include "sofia_defaults.hpp"
#include "source_cutouts.hpp"

namespace astrosweep::scfind {

namespace {

using Clock = std::chrono::steady_clock;

/// Collective: rank 0's catalogue on every rank (names, column metadata and values; small).
void share_catalogue(Catalogue& catalogue, MPI_Comm comm) {
  std::uint64_t counts[2] = {catalogue.names.size(), catalogue.columns.size()};
  mpi::broadcast_bytes(comm, counts, sizeof counts);
  catalogue.names.resize(counts[0]);
  catalogue.columns.resize(counts[1]);
  for (auto& name : catalogue.names) mpi::broadcast_string(comm, name);
  for (auto& c : catalogue.columns) {
    for (std::string* text : {&c.name, &c.unit, &c.ucd, &c.description}) mpi::broadcast_string(comm, *text);
    int integer = c.integer ? 1 : 0;
    mpi::broadcast_value(comm, integer);
    c.integer = integer != 0;
    if (c.integer) {
      c.whole.resize(counts[0]);
      if (counts[0] > 0) mpi::broadcast_bytes(comm, c.whole.data(), c.whole.size() * sizeof(std::int64_t));
    } else {
      c.real.resize(counts[0]);
      if (counts[0] > 0) mpi::broadcast_bytes(comm, c.real.data(), c.real.size() * sizeof(double));
    }
  }
}

/// A catalogue file SoFiA-2 would write, beside the product under SoFiA-2's name.
struct CatalogueFile {
  std::string path;
  std::string option;  ///< the setting that asks for it, for messages
  enum { ascii, xml, sql } kind;
};

std::vector<CatalogueFile> catalogue_files_of(const ScfindOptions& o) {
  std::vector<CatalogueFile> files;
  if (!o.linker.enable) return files;  // SoFiA-2 makes no catalogue without the linker
  if (o.catalogue_files.ascii)
    files.push_back({catalogue_file_name(o.output, "_cat.txt"), "output.writeCatASCII", CatalogueFile::ascii});
  if (o.catalogue_files.xml)
    files.push_back({catalogue_file_name(o.output, "_cat.xml"), "output.writeCatXML", CatalogueFile::xml});
  if (o.catalogue_files.sql)
    files.push_back({catalogue_file_name(o.output, "_cat.sql"), "output.writeCatSQL", CatalogueFile::sql});
  return files;
}

/// The image files SoFiA-2 would write of the source mask (output.writeMoments, writeMask2d),
/// beside the product; with the linker only (they are made from the catalogue's whole mask).
struct ImageFiles {
  std::string mom0, mom1, mom2, chan, mask_2d;
};

ImageFiles image_files_of(const ScfindOptions& o) {
  ImageFiles files;
  if (!o.linker.enable) return files;
  if (o.write_moments) {
    files.mom0 = catalogue_file_name(o.output, "_mom0.fits");
    files.mom1 = catalogue_file_name(o.output, "_mom1.fits");
    files.mom2 = catalogue_file_name(o.output, "_mom2.fits");
    files.chan = catalogue_file_name(o.output, "_chan.fits");
  }
  if (o.write_mask_2d) files.mask_2d = catalogue_file_name(o.output, "_mask-2d.fits");
  return files;
}

/// Collective: the maps as the product's /images datasets; their units travel from rank 0 (the
/// only rank holding the maps) so that every rank creates the same datasets.
std::vector<ScfindProduct::Image> product_images(const std::optional<MomentMaps>& maps,
                                                 const std::optional<ImageMap>& mask_2d, const ImageFiles& files,
                                                 const CubeShape& cube, MPI_Comm comm) {
  std::vector<ScfindProduct::Image> images;
  if (!files.mom0.empty()) {
    std::string flux_unit = maps ? maps->flux_unit : std::string();
    std::string spectral_unit = maps ? maps->spectral_unit : std::string();
    int world = maps && maps->world ? 1 : 0;
    mpi::broadcast_string(comm, flux_unit);
    mpi::broadcast_string(comm, spectral_unit);
    mpi::broadcast_value(comm, world);
    const std::string moment_unit = world != 0 ? spectral_unit : std::string("channel");
    const char* over = world != 0 ? "the spectral axis' world coordinate (WCS)" : "the channel number (0-based)";
    images.push_back({"mom0", flux_unit,
                      world != 0 ? "moment 0: the sum of the flux in the source mask along each line of sight, "
                                   "times |CDELT3| (SoFiA-2's _mom0.fits)"
                                 : "moment 0: the sum of the flux in the source mask along each line of sight "
                                   "(SoFiA-2's _mom0.fits)",
                      maps ? maps->mom0.real.data() : nullptr, nullptr, false});
    if (cube.nz > 1) {
      images.push_back({"mom1", moment_unit,
                        std::string("moment 1: the flux-weighted mean of ") + over +
                            " over the positive flux in the source mask; NaN without (SoFiA-2's _mom1.fits)",
                        maps ? maps->mom1.real.data() : nullptr, nullptr, false});
      images.push_back({"mom2", moment_unit,
                        std::string("moment 2: the flux-weighted dispersion of ") + over +
                            " about moment 1 over the positive flux in the source mask; NaN without (SoFiA-2's "
                            "_mom2.fits)",
                        maps ? maps->mom2.real.data() : nullptr, nullptr, false});
      images.push_back({"chan", "",
                        "the number of channels in the source mask along each line of sight (SoFiA-2's "
                        "_chan.fits)",
                        nullptr, maps ? maps->chan.integer.data() : nullptr, true});
    }
  }
  if (!files.mask_2d.empty())
    images.push_back({"mask_2d", "",
                      "the source mask projected along the spectral axis: the id of the source in the highest "
                      "channel of each line of sight, 0 for none (SoFiA-2's _mask-2d.fits)",
                      nullptr, mask_2d ? mask_2d->integer.data() : nullptr, true});
  return images;
}

/// SoFiA-2's parameter list as its VOTable carries it: every key in its order, as the parameter
/// file or the command line wrote it, else SoFiA-2's default; input.data is the cube read.
std::vector<std::pair<std::string, std::string>> votable_settings(const ScfindOptions& o) {
  std::map<std::string, std::string> used = o.sofia_settings;
  used["input.data"] = o.input;
  if (!used.count("linker.enable")) used["linker.enable"] = o.linker.enable ? "true" : "false";
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& d : sofia_defaults()) {
    const auto it = used.find(d.key);
    // A v2.6 key astrosweep knows so as to refuse it; SoFiA-2 2.5.1 lists no such parameter.
    if (std::string(d.key) == "input.primaryBeam" && it == used.end()) continue;
    out.emplace_back(d.key, it != used.end() ? it->second : std::string(d.value));
  }
  return out;
}

// Checkpoint labels are bytes: 1..255 pairs done (checkpoint_labels.hpp).
constexpr std::size_t max_kernel_pairs = 255;

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

/// Voxels set in a 0/1 mask, counted on all OpenMP threads (an integer sum: any order).
std::uint64_t count_in_mask(std::span<const std::uint8_t> mask) {
  std::uint64_t n = 0;
  const std::size_t size = mask.size();
#pragma omp parallel for schedule(static) reduction(+ : n)
  for (std::size_t i = 0; i < size; ++i) n += mask[i] == 1 ? 1U : 0U;
  return n;
}

/// Voxels in the mask: this rank's, when it can count them cheaply, and all ranks', when every
/// rank can.
struct MaskCount {
  std::optional<std::uint64_t> rank, all;
};
MaskCount count_mask(SlabSweep& sweep, MPI_Comm comm, PhaseClock& clock) {
  MaskCount count;
  count.rank = sweep.mask_count();
  const PhaseClock::Scope phase(&clock, Phase::statistics);
  std::uint64_t values[2] = {count.rank.value_or(0), count.rank ? 0U : 1U};
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, values, 2, MPI_UINT64_T, MPI_SUM, comm));
  if (values[1] == 0) count.all = values[0];
  return count;
}

/// SoFiA-2's noise statistic of the smoothed cube, over all slabs of all ranks.
class NoiseMeter {
 public:
  /// Its collectives count as Phase::statistics on `clock`, after the ranks have met (Phase::waiting).
  NoiseMeter(const ScfindParameters& parameters, std::string input, const SlabLayout& layout, MPI_Comm comm, int rank,
             int size, PhaseClock& clock)
      : parameters_(parameters),
        input_(std::move(input)),
        layout_(layout),
        cadence_(noise_cadence(layout.cube())),
        clock_(clock) {
    chain_.comm = comm;
    chain_.above = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    chain_.below = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const std::uint64_t plane = layout.cube().plane();
    group_ =
        samples_in(layout.cube().voxels(), cadence_, layout.group_begin(rank) * plane, layout.group_end(rank) * plane);
  }
  [[nodiscard]] std::size_t cadence() const noexcept { return cadence_; }

  /// The noise of the data `pair` smooths to (nullopt: the original); stops every rank when it is
  /// not usable.
  double measure(SlabSweep& sweep, const std::optional<KernelPair>& pair, std::optional<float> replacement,
                 const std::string& what) {
    SlabSweep::Request request;
    request.cadence = cadence_;
    request.min_max = parameters_.statistic == NoiseStatistic::gauss;
    // mad on a resident slab: the backend may keep the magnitudes (CUDA), so the median's
    // counting runs where the data is. The slab's sample range is then the group's.
    if (parameters_.statistic == NoiseStatistic::mad && sweep.resident()) request.magnitudes = parameters_.flux_range;
    // Streamed slabs keep what a clip at 0.6 of the threshold would take (the slab's own noise may
    // exceed the cube's by 1/0.6 before the clip must smooth it again): near 3 sigma at the default
    // 5, a few voxels in a thousand.
    if (!sweep.resident())
      request.keep_above = SlabSweep::Request::KeepAbove{0.6 * parameters_.threshold, parameters_.flux_range};
    SlabSweep::Sampled sampled = sweep.sample(pair, replacement, request);
    clock_.wait_for_ranks(chain_.comm);
    // A GPU's counting of the magnitudes is compute (the backend says so); a CPU rank's is counted here.
    const PhaseClock::Scope phase(&clock_, Phase::statistics);
    double rms = 0;
    if (sampled.magnitudes) {
      rms = mad_noise(*sampled.magnitudes, parameters_.flux_range, layout_.cube().voxels(), cadence_, chain_);
    } else {
      const std::vector<float> values = regroup_samples(layout_, cadence_, std::move(sampled.samples), chain_.comm);
      AS_ASSERT(values.size() == group_.count);
      const LocalSamples local{values, group_.highest, cadence_};
      rms = measure_noise(parameters_.statistic, parameters_.flux_range, local, layout_.cube().voxels(),
                          sampled.min_max.first, sampled.min_max.second, chain_);
    }
    agree(std::isfinite(rms) && rms > 0,
          InputError("the noise of " + what + " (" + input_ + ") cannot be measured (" +
                         to_string(parameters_.statistic) + " over the " + to_string(parameters_.flux_range) +
                         " flux range gives " + std::to_string(rms) + ")",
                     "the cube may be blank, constant or have no values in that flux range; check the cube or choose "
                     "another scfind.statistic / scfind.fluxRange"),
          chain_.comm);
    return rms;
  }

 private:
  const ScfindParameters& parameters_;
  std::string input_;
  const SlabLayout& layout_;
  std::size_t cadence_;
  SampleRange group_;
  SlabChain chain_;
  PhaseClock& clock_;
};

std::string mib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

/// The slabs each rank owns: one when it fits the memory budgets (host, and GPU on GPU ranks),
/// else the fewest thinner ones that do, or, on GPU ranks, the fewest (up to four times as many)
/// whose originals all fit beside one slab's working memory, so that the GPU holds them and a
/// sweep uploads nothing; else originals kept in host memory when the host budget allows. Stops
/// every rank with exit code 5 when even slabs of one channel do not fit.
struct SlabPlan {
  std::size_t slabs_per_rank = 1;
  SlabKeeping keeping;
};

SlabPlan plan_slabs(const ScfindOptions& options, const CubeShape& cube, std::size_t halo, BackendKind kind,
                    const ScfindBackend& backend, MPI_Comm comm, int rank, int size) {
  const std::uint64_t host_budget = options.backend.host_memory_budget;
  const std::uint64_t device_budget = backend.memory_budget();
  struct Need {
    std::uint64_t device = 0, device_holding = 0, host = 0, host_keeping = 0, host_keeping_all = 0;
  };
  auto need = [&](const SlabLayout& layout) {
    Need n;
    const auto slabs = layout.slabs_of(rank);
    std::uint64_t backend_bytes = 0, working = 0, originals = 0;
    for (std::size_t j : slabs) {
      const std::uint64_t slab_bytes = scfind_memory_needed(kind, layout.slab(j));
      const std::uint64_t original = scfind_original_bytes(kind, layout.slab(j));
      backend_bytes = std::max(backend_bytes, slab_bytes);
      working = std::max(working, slab_bytes - original);
      originals += original;
    }
    if (kind == BackendKind::cuda) {
      n.device = backend_bytes;
      n.device_holding = working + originals;
    } else
      n.host = n.host_keeping = n.host_keeping_all = backend_bytes;
    n.host += slab_sweep_host_bytes(layout, slabs, {});
    n.host_keeping += slab_sweep_host_bytes(layout, slabs, {.originals = true});
    n.host_keeping_all += slab_sweep_host_bytes(layout, slabs, {.originals = true, .values = true});
    return n;
  };
  auto fits = [&](const SlabLayout& layout) {
    const Need n = need(layout);
    return (device_budget == 0 || n.device <= device_budget) && (host_budget == 0 || n.host <= host_budget);
  };
  const std::size_t most = cube.nz / static_cast<std::size_t>(size);
  std::size_t k = options.slabs_per_rank;
  bool none_fit = false;
  if (k != 0) {
    if (k > most)
      throw mpi::SharedError(ExitCode::usage,
                             "--slabs-per-rank " + std::to_string(k) + " with " + std::to_string(size) +
                                 " rank(s) makes more slabs than the cube's " + std::to_string(cube.nz) + " channels",
                             "use at most " + std::to_string(most) + " slabs per rank");
  } else {
    // Each rank's fewest, then the largest of those that fits everywhere.
    std::uint64_t fewest = fewest_slabs_per_rank(cube, halo, size, fits);
    std::uint64_t none = fewest == 0 ? 1 : 0;
    AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &fewest, 1, MPI_UINT64_T, MPI_MAX, comm));
    AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &none, 1, MPI_UINT64_T, MPI_MAX, comm));
    none_fit = none != 0;
    k = static_cast<std::size_t>(fewest);
    // The need is not monotonic in the number of slabs: go on until one fits on every rank.
    while (!none_fit) {
      int ok = fits(SlabLayout(cube, halo, size, k)) ? 1 : 0;
      AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm));
      if (ok != 0) break;
      if (++k > most) none_fit = true;
    }
  }
  const SlabLayout layout(cube, halo, size, none_fit ? 1 : k);
  const Need n = need(layout);
  std::uint64_t largest[2] = {n.device, n.host};  // the message names the neediest rank's figures
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, largest, 2, MPI_UINT64_T, MPI_MAX, comm));
  const bool on_gpu = kind == BackendKind::cuda;
  const bool device_short = on_gpu && device_budget != 0 && largest[0] > device_budget;
  std::string what =
      std::to_string(layout.slabs_per_rank()) + " slab(s) of up to " + std::to_string(layout.thickest_held_channels()) +
      " channels (with the halo) per rank need " +
      (device_short ? mib(largest[0]) + " of GPU memory, more than the budget of " + mib(device_budget)
                    : mib(largest[1]) + " of host memory, more than the memory budget of " + mib(host_budget)) +
      " of a rank";
  if (none_fit) what += ", and no split into up to " + std::to_string(most) + " thinner slabs per rank fits either";
  agree(!none_fit && fits(layout),
        RuntimeError(what, on_gpu ? "raise --gpu-memory-mb or --memory-budget-mb, or run more ranks"
                                  : "raise --memory-budget-mb, or run more ranks (thinner slabs)"),
        comm);
  SlabPlan plan;
  if (on_gpu && k > 1) {
    // Thinner slabs shrink the working memory but not the originals: the fewest slabs from k on
    // whose originals the GPU can hold (only k itself when --slabs-per-rank fixed it).
    const std::size_t last = options.slabs_per_rank != 0 ? k : std::min(most, 4 * k);
    for (std::size_t c = k; c <= last; ++c) {
      const SlabLayout thinner(cube, halo, size, c);
      int ok = (device_budget == 0 || need(thinner).device_holding <= device_budget) && fits(thinner) ? 1 : 0;
      AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm));
      if (ok == 0) continue;
      plan.slabs_per_rank = c;
      plan.keeping.backend_originals = true;
      const Need held = need(thinner);
      const std::uint64_t kept_values = held.host_keeping_all - held.host_keeping;
      plan.keeping.values = host_budget == 0 || held.host + kept_values <= host_budget;
      return plan;
    }
  }
  plan.slabs_per_rank = k;
  // Keeping the originals saves a read per sweep, keeping values a load and smoothing: both when
  // the budget allows, else the originals alone.
  plan.keeping.originals = k > 1 && (host_budget == 0 || n.host_keeping <= host_budget);
  const std::uint64_t kept_values = n.host_keeping_all - n.host_keeping;
  const std::uint64_t without_values = plan.keeping.originals ? n.host_keeping : n.host;
  plan.keeping.values = k > 1 && (host_budget == 0 || without_values + kept_values <= host_budget);
  return plan;
}

}  // namespace

ScfindSummary run_scfind_job(const ScfindOptions& options, MPI_Comm parent) {
  const auto t_start = Clock::now();
  std::vector<std::pair<std::string, std::string>> fits_output;
  if (!options.fits_mask.empty()) fits_output.emplace_back(options.fits_mask, "--fits-mask");
  if (!options.fits_source_mask.empty()) fits_output.emplace_back(options.fits_source_mask, "--fits-source-mask");
  const std::vector<CatalogueFile> catalogue_files = catalogue_files_of(options);
  for (const auto& file : catalogue_files) fits_output.emplace_back(file.path, file.option);
  const ImageFiles image_files = image_files_of(options);
  for (const std::string* path : {&image_files.mom0, &image_files.mom1, &image_files.mom2, &image_files.chan})
    if (!path->empty()) fits_output.emplace_back(*path, "output.writeMoments");
  if (!image_files.mask_2d.empty()) fits_output.emplace_back(image_files.mask_2d, "output.writeMask2d");
  run::Lifecycle run("scfind", options, parent, fits_output);
  const MPI_Comm comm = run.comm();
  const int rank = run.rank();
  const int size = run.size();
  const bool talk = run.root();
  const bool summarise = talk && !options.quiet;
  if (!options.unimplemented_parameters.empty()) {
    std::string settings;
    for (const auto& setting : options.unimplemented_parameters) settings += (settings.empty() ? "" : ", ") + setting;
    run.log("warning: SoFiA-2 settings astrosweep scfind does not implement, not used: " + settings);
  }
  const bool cubelets = options.write_cubelets && options.linker.enable && options.catalogue.enable;
  const std::string cubelet_directory = catalogue_file_name(options.output, "_cubelets");
  if (options.write_cubelets && !cubelets)
    run.log(
        "warning: output.writeCubelets without the linker and parameter.enable: not written (astrosweep cuts them "
        "around the catalogue's sources)");
  if (cubelets) {
    // SoFiA-2's rule, before the cube is read: the directory is made now, or refused.
    mpi::on_root_then_share_failure(
        comm, [&] { prepare_cubelet_directory(cubelet_directory, options.overwrite || options.resume); });
  }
  if (!options.linker.enable && (options.write_moments || options.write_mask_2d))
    run.log(
        "warning: output.writeMoments / output.writeMask2d without the linker: not written (astrosweep makes them "
        "from the source mask)");
  if (!options.linker.enable && options.reliability.enable)
    run.log("warning: reliability.enable = true without the linker: the filter does not run (as in SoFiA-2)");
  if (options.linker.enable && options.reliability.enable && options.reliability.scale_kernel <= 0)
    run.log("warning: reliability.scaleKernel <= 0: 0.4 used instead (as SoFiA-2)");
  if (options.linker.enable && options.reliability.enable && options.reliability.plot)
    run.log("warning: reliability.plot = true: SoFiA-2's reliability and Skellam plots (EPS) are not written");
  if (options.linker.enable && options.reliability.enable && options.reliability.debug)
    run.log("warning: reliability.debug = true: SoFiA-2's reliability debugging catalogues are not written");

  const io::CubeInfo info = shared_cube_info(options.input, comm);
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
  if (pairs.size() > max_kernel_pairs)
    throw mpi::SharedError(ExitCode::usage,
                           std::to_string(pairs.size()) + " kernel pairs, more than the " +
                               std::to_string(max_kernel_pairs) + " a product can checkpoint",
                           "use fewer scfind.kernelsXY x scfind.kernelsZ combinations");

  // What is at the output path decides how the run starts (rank 0 looks, every rank follows).
  run::ResumeRules rules{"checkpoint", ScfindProduct::inspect, scfind_fingerprint(options, info), {}};
  rules.journal_fingerprint = scfind_journal_fingerprint(rules.product_fingerprint, info.path);
  std::uint64_t pairs_done = 0;
  const run::Start start = run.begin(rules, [&](const io::ResumePoint& point) {
    const auto done = journalled_pairs(point, options.output, pairs.size());
    pairs_done = done.pairs;
    return done.note;
  });
  mpi::broadcast_value(comm, pairs_done);
  // Checkpoint labels left by a run killed after it completed the product have served too.
  auto remove_labels = [&] {
    if (talk && !remove_checkpoint_labels(options.output))
      run.log("warning: cannot remove the checkpoint labels '" + checkpoint_labels_path(options.output) +
              "' (the product is complete without them): remove them yourself");
  };
  if (start.complete()) {
    remove_labels();
    return {};
  }
  const bool resuming = start.resuming();

  const BackendOptions backend_options = run.backend_options();
  auto backend = make_scfind_backend(backend_options);
  const BackendKind kind = resolve_backend(backend_options.kind);
  const SlabPlan plan = plan_slabs(options, cube, halo, kind, *backend, comm, rank, size);
  const SlabLayout layout(cube, halo, size, plan.slabs_per_rank);

  if (talk && options.mask_compression == MaskCompression::deflate && !h5::deflate_available())
    run.log(
        "warning: this HDF5 library cannot compress with deflate (built without zlib): the product's mask is "
        "written plain, one byte per voxel");
  ScfindProduct product(options, info, pairs, resuming ? ScfindProduct::Open::resume : ScfindProduct::Open::create,
                        pairs_done, comm);

  // Each rank reads only its slabs' channels (and their halos).
  const auto t_read = Clock::now();
  PhaseClock phases;  // where smooth-and-clip's time goes on this rank (phase_clock.hpp)
  SlabSweep sweep(layout, *backend, info, plan.keeping, comm, &phases);
  const double read_seconds = seconds_since(t_read);
  if (talk) {
    run.log(format_text("%s, %zu x %zu x %zu, %d rank(s), %s", options.input.c_str(), cube.nx, cube.ny, cube.nz, size,
                        backend->describe().c_str()));
    if (layout.slabs_per_rank() == 1)
      run.log(format_text("a slab of %zu channels per rank, halo %zu", layout.slab(0).owned_channels(), halo));
    else
      run.log(format_text("%zu slabs of %zu channels per rank streamed through the backend, halo %zu; %s%s",
                          layout.slabs_per_rank(), layout.slab(0).owned_channels(), halo,
                          plan.keeping.backend_originals
                              ? "the originals held on the GPU after their first upload"
                              : (plan.keeping.originals ? "the original kept in host memory"
                                                        : "the original re-read from the file in every sweep"),
                          plan.keeping.values ? ", values a clip may take kept between the sweeps" : ""));
  }

  if (resuming) {
    sweep.restore_mask([&](std::size_t z0, std::size_t z1) { return product.read_labels(z0, z1); },
                       static_cast<std::uint8_t>(pairs_done));
  }

  if (talk) {
    // Every pair but the last may end in a checkpoint (the last one's mask is the final write).
    const std::size_t to_do = pairs.size() - pairs_done;
    run.log(format_text("kernel pairs %zu-%zu of %zu to do; %s%zu checkpoints on %d rank(s), journal '%s'",
                        pairs_done + 1, pairs.size(), pairs.size(), options.checkpoint_seconds > 0 ? "up to " : "",
                        to_do > 0 ? to_do - 1 : 0, size, run.journal_file().c_str()));
  }
  NoiseMeter meter(options.parameters, options.input, layout, comm, rank, size, phases);
  ScfindSummary summary;
  // The noise of the cube is measured again on resume (replacement depends on it); the noise of
  // the pairs done comes from the product.
  const double rms = meter.measure(sweep, std::nullopt, std::nullopt, "the cube");
  summary.noise.push_back(rms);
  if (talk)
    run.log(format_text("noise of the cube %.9e (%s, %s, stride %zu)", rms, to_string(options.parameters.statistic),
                        to_string(options.parameters.flux_range), meter.cadence()));
  std::vector<double> noise_used = resuming ? product.read_noise(pairs_done) : std::vector<double>{};
  for (std::size_t i = 0; i < noise_used.size(); ++i)
    if (pairs[i].smooths()) summary.noise.push_back(noise_used[i]);

  // A checkpoint makes the mask after `done` pairs durable and then journals it (docs/reliability.md).
  auto checkpoint = [&](std::size_t done) {
    for (std::size_t j : sweep.slabs())
      product.write_labels(layout.slab(j).own_begin, sweep.checkpoint_labels(j, static_cast<std::uint8_t>(done)));
    product.write_noise(std::span<const double>(noise_used).first(rank == 0 ? done : 0));
    product.sync();
    AS_MPI_TRY(MPI_Barrier(comm));  // every rank's labels are durable
    if (run.journal() != nullptr) run.journal()->append({done, 0});
  };
  auto last_checkpoint = Clock::now();
  auto last_line = Clock::now();

  const auto t_smooth = Clock::now();
  const PhaseSeconds phases_before = phases.snapshot();
  const std::optional<double> kernels_before = backend->kernel_seconds();
  std::optional<MaskCount> in_mask;  // after the latest clip
  for (std::size_t i = pairs_done; i < pairs.size(); ++i) {
    const auto t_pair = Clock::now();
    const KernelPair& pair = pairs[i];
    double noise = rms;
    std::optional<float> replacement;
    if (options.parameters.replacement >= 0) replacement = static_cast<float>(options.parameters.replacement * rms);
    if (pair.smooths()) {
      noise = meter.measure(sweep, pair, replacement, "the smoothed cube");
      summary.noise.push_back(noise);
    }
    noise_used.push_back(noise);
    sweep.clip(pair, replacement, options.parameters.threshold * noise);
    in_mask = count_mask(sweep, comm, phases);
    // A line per pair, at most one per --progress-interval but always the last.
    if (talk && (i + 1 == pairs.size() || seconds_since(last_line) >= options.progress_interval)) {
      last_line = Clock::now();
      const std::string mask_size =
          in_mask->all ? "  mask " + std::to_string(*in_mask->all) + " voxels" : std::string();
      run.log(format_text("pair %zu/%zu  [%.1f] x [%zu]  noise %.6e%s  %.2f s", i + 1, pairs.size(), pair.fwhm_xy,
                          pair.width_z, noise, mask_size.c_str(), seconds_since(t_pair)));
    }
    if (i + 1 == pairs.size()) break;  // the final write follows
    // Rank 0's clock decides when a checkpoint is due; a stop signal on any rank forces one.
    int due = seconds_since(last_checkpoint) >= options.checkpoint_seconds ? 1 : 0;
    bool stop = false;
    {
      const PhaseClock::Scope phase(&phases, Phase::statistics);  // two small collectives a pair
      mpi::broadcast_value(comm, due);
      stop = interrupt::any_rank(comm);
    }
    if (due != 0 || stop) {
      checkpoint(i + 1);
      last_checkpoint = Clock::now();
    }
    if (stop)
      run.interrupted([&] { product.close(); },
                      std::to_string(i + 1) + " of " + std::to_string(pairs.size()) + " kernel pairs done",
                      "its checkpoint is");
  }
  const double smooth_seconds = seconds_since(t_smooth);
  summary.smooth_and_clip.seconds = smooth_seconds;
  summary.smooth_and_clip.phases = phases.snapshot().since(phases_before);
  if (const auto kernels_after = backend->kernel_seconds())
    summary.smooth_and_clip.kernels = *kernels_after - kernels_before.value_or(0.0);

  // Every rank owns the same number of slabs, so the collective writes pair up.
  const auto t_write = Clock::now();
  double mask_fetch_seconds = 0;
  // A mask that nothing else reads whole (no linker, no FITS mask) leaves the backend as the offsets
  // of its ones, and only the chunks holding a one are compressed: for the WALLABY-region cube,
  // 736,723 of 3.15e9 voxels, megabytes instead of a 3.15 GB download from the GPU and a pass over
  // every byte. Only while the rank's offsets (8 bytes each) take no more room than its owned mask
  // (a byte a voxel; a streamed rank holds all of it anyway). Each rank decides for itself: both
  // writes make the same collective calls.
  if (!in_mask) in_mask = count_mask(sweep, comm, phases);
  std::uint64_t owned_voxels = 0;
  for (std::size_t j : sweep.slabs()) owned_voxels += layout.slab(j).owned_voxels();
  const bool sparse_mask = !options.linker.enable && options.fits_mask.empty() && product.compressed() &&
                           in_mask->rank && *in_mask->rank <= owned_voxels / sizeof(std::uint64_t);
  std::vector<SlabBuffer<std::uint8_t>> masks;  // kept for the linker
  for (std::size_t j : sweep.slabs()) {
    const auto t_fetch = Clock::now();
    if (sparse_mask) {
      const Slab s = layout.slab(j);
      const std::vector<std::uint64_t> offsets = sweep.owned_mask_offsets(j);
      summary.mask_voxels += offsets.size();
      mask_fetch_seconds += seconds_since(t_fetch);
      product.write_mask_offsets(s.own_begin, s.owned_channels(), offsets);
      continue;
    }
    // Not zero-filled: the copy overwrites every byte (a whole cube's mask is gigabytes).
    SlabBuffer<std::uint8_t> owned_mask(layout.slab(j).owned_voxels());
    sweep.copy_owned_mask(j, owned_mask);
    summary.mask_voxels += count_in_mask(owned_mask);
    mask_fetch_seconds += seconds_since(t_fetch);
    product.write_mask(layout.slab(j).own_begin, owned_mask);
    if (options.linker.enable) masks.push_back(std::move(owned_mask));
  }
  const double mask_write_seconds = seconds_since(t_write) - mask_fetch_seconds;
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &summary.mask_voxels, 1, MPI_UINT64_T, MPI_SUM, comm));
  double link_seconds = 0;
  if (options.linker.enable) {
    // Each rank links its slabs' owned channels (the mask, and those channels of the cube);
    // components touching other slabs are joined across ranks (linker_slabs.hpp).
    const auto t_link = Clock::now();
    std::vector<std::span<const float>> values;
    std::vector<SlabBuffer<float>> values_read;  // the slabs whose original is not in host memory
    for (std::size_t j : sweep.slabs()) {
      const Slab s = layout.slab(j);
      if (const auto held = sweep.owned_original(j)) {
        values.push_back(*held);
        continue;
      }
      // Not zero-filled: the copy or the reader (on all OpenMP threads) overwrites every value. A
      // GPU's resident slab still holds the original: a download at the link's speed instead of a
      // read of the file (1.4-3.4 s for the WALLABY-region cube on an H100 host). Streamed slabs
      // whose originals were not kept are read again.
      values_read.emplace_back(s.owned_channels() * cube.plane());
      if (!sweep.copy_owned_original(j, values_read.back()))
        io::read_cube_channels(info, s.own_begin, s.own_end, values_read.back());
      values.push_back(values_read.back());
    }
    std::vector<LinkerSlab> slabs;
    const double link_read_seconds = seconds_since(t_link);
    for (std::size_t k = 0; k < masks.size(); ++k) {
      const Slab s = layout.slab(sweep.slabs()[k]);
      slabs.push_back({s.own_begin, s.own_end, masks[k], values[k]});
    }
    // With the reliability filter SoFiA-2 keeps the negative sources through the linker: the filter
    // compares them with the positive ones, then drops them.
    LinkerParameters link_parameters = options.linker;
    if (options.reliability.enable) link_parameters.keep_negative = true;
    SlabLinkedSources linked = link_sources_in_slabs(cube, slabs, link_parameters, comm);
    summary.sources = linked.sources.size();
    for (const auto& source : linked.sources) summary.source_voxels += source.voxels;
    link_seconds = seconds_since(t_link);
    if (talk)
      run.log(format_text("linker: %" PRIu64 " sources, %" PRIu64
                          " voxels (radii %zu, %zu), %.2f s (the cube's values %.2f s)",
                          summary.sources, summary.source_voxels, options.linker.radius_xy, options.linker.radius_z,
                          link_seconds, link_read_seconds));
    // SoFiA-2's catalogue (its parameterisation when parameter.enable), measured on rank 0 from the
    // sources' cut-outs (source_cutouts.hpp): every final source's bounding box, grown by
    // marginCubelets when cubelets are written, sent there by the ranks owning its channels, values
    // and source numbers (4 + 4 bytes a voxel of the boxes, not of the cube); the global noise's
    // sample is gathered the same way. No rank reads the cube again. The catalogue is then shared
    // with every rank for the product's collective writes.
    const auto t_catalogue = Clock::now();
    std::vector<OwnedChannels> owned;  // views of values and linked.labels (renumbered in place)
    for (std::size_t k = 0; k < slabs.size(); ++k)
      owned.push_back({slabs[k].z_begin, slabs[k].z_end, values[k], linked.labels[k]});
    const double global_rms = global_noise_in_slabs(cube, owned, comm);
    // The filter's std, skew and kurt: every linker source's bare box (the negative ones too), only
    // when its parameters name them; let go once the filter has run.
    SourceCutouts filter_cutouts;
    if (options.reliability.enable && options.reliability.needs_moments()) {
      filter_cutouts = gather_source_cutouts(cube, linked.sources, 0, owned, comm);
      if (talk)
        run.log(format_text("reliability: %zu source cut-outs on rank 0 for std, skew, kurt, %s",
                            filter_cutouts.sources.size(), mib(filter_cutouts.bytes()).c_str()));
    }
    std::optional<CubeHeader> header;
    ReliabilityOutcome reliability;
    std::vector<std::int32_t> new_numbers;  // with the filter: each linker source's number after it (0: dropped)
    mpi::on_root_then_share_failure(comm, [&] {
      std::vector<std::size_t> dims{cube.nx, cube.ny, cube.nz};
      if (info.naxis == 4) dims.push_back(1);
      header.emplace(info.header_cards, dims);
      if (!options.reliability.enable) return;
      // The filter on rank 0 (a few thousand sources at most: O(positives × sources) in double).
      const double bmaj = header->number("BMAJ"), bmin = header->number("BMIN"), cdelt = header->number("CDELT1");
      if (std::isnan(bmaj) || std::isnan(bmin) || std::isnan(cdelt))
        run.log(
            "warning: no BMAJ, BMIN or CDELT1 in the header: reliability.minSNR is in units of the rms alone "
            "(as SoFiA-2)");
      const double fmin = options.reliability.min_snr * sqrt_beam_area(bmaj, bmin, cdelt);
      // std, skew and kurt: the running moments in SoFiA-2's flood-fill order, from the linker's numbers.
      const std::vector<SourceMoments> moments =
          options.reliability.needs_moments()
              ? linker_moments(filter_cutouts, linked.sources, link_parameters, global_rms)
              : std::vector<SourceMoments>{};
      // reliability.catalog: positions whose negative sources stay out, converted to pixels with the
      // cube's WCS; a file without 2 columns or a cube without WCS: SoFiA-2 warns and goes on.
      std::vector<std::array<double, 2>> excluded;
      if (!options.reliability.catalog.empty()) {
        const auto positions = read_reliability_catalog(options.reliability.catalog);
        const auto wcs = positions ? WorldCoordinates::from(*header) : std::nullopt;
        if (!positions) {
          run.log("warning: reliability.catalog '" + options.reliability.catalog +
                  "' has no rows of 2 columns: ignored (as SoFiA-2)");
        } else if (!wcs) {
          run.log("warning: reliability.catalog: no usable WCS in the cube: ignored (as SoFiA-2)");
        } else {
          for (const auto& p : *positions) {
            const auto xy = wcs->to_pixel(p[0], p[1]);
            if (!xy) run.log(format_text("warning: reliability.catalog: wcslib cannot convert (%g, %g)", p[0], p[1]));
            excluded.push_back(xy.value_or(std::array<double, 2>{-1e30, -1e30}));
          }
        }
      }
      reliability = source_reliability(linked.sources, moments, global_rms, fmin, options.reliability, excluded);
      if (!options.reliability.catalog.empty() && talk)
        run.log(format_text("reliability.catalog: %zu positions, %zu negative sources left out", excluded.size(),
                            reliability.negatives_excluded));
      new_numbers =
          reliability_filter(linked.sources, reliability.reliability, global_rms, fmin, options.reliability.threshold);
    });
    if (options.reliability.enable) {
      // Every rank renumbers its slabs' labels and keeps the survivors, in their order.
      mpi::broadcast_vector(comm, new_numbers);
      std::vector<Component> kept;
      std::vector<double> kept_reliability;
      for (std::size_t i = 0; i < new_numbers.size(); ++i)
        if (new_numbers[i] > 0) {
          kept.push_back(linked.sources[i]);
          if (rank == 0) kept_reliability.push_back(reliability.reliability[i]);
        }
      filter_cutouts = SourceCutouts{};
      for (auto& labels : linked.labels) renumber_labels(labels, new_numbers);
      summary.sources = kept.size();
      summary.source_voxels = 0;
      for (const auto& source : kept) summary.source_voxels += source.voxels;
      if (talk) {
        const std::string kernel = !options.reliability.auto_kernel ? std::string()
                                   : reliability.converged
                                       ? format_text(" (autoKernel, %d iterations)", reliability.kernel_iterations)
                                       : std::string(" (autoKernel did not converge: scaleKernel)");
        run.log(
            format_text("reliability: %zu positive and %zu negative sources, kernel scale %.3f%s; %zu reliable "
                        "(threshold %g, minSNR %g)",
                        reliability.positives, reliability.negatives, reliability.scale_kernel, kernel.c_str(),
                        kept.size(), options.reliability.threshold, options.reliability.min_snr));
      }
      linked.sources = std::move(kept);
      reliability.reliability = std::move(kept_reliability);
    }
    const std::size_t margin = cubelets ? options.margin_cubelets : 0;
    const SourceCutouts cutouts = gather_source_cutouts(cube, linked.sources, margin, owned, comm);
    owned.clear();
    masks.clear();
    values.clear();
    values_read.clear();
    if (talk)
      run.log(format_text(
          "measurement on rank 0: %zu source cut-outs (margin %zu), %s (the whole cube and its "
          "labels: %s)",
          cutouts.sources.size(), margin, mib(cutouts.bytes()).c_str(), mib(std::uint64_t{8} * cube.voxels()).c_str()));
    const auto t_source_mask = Clock::now();
    for (std::size_t k = 0; k < slabs.size(); ++k) product.write_source_mask(slabs[k].z_begin, linked.labels[k]);
    const double source_mask_seconds = seconds_since(t_source_mask);
    Catalogue catalogue;
    std::optional<MomentMaps> maps;   // rank 0
    std::optional<ImageMap> mask_2d;  // rank 0
    mpi::on_root_then_share_failure(comm, [&] {
      catalogue = make_catalogue(cutouts, linked.sources, reliability.reliability, options.linker, global_rms, *header,
                                 options.catalogue);
      // SoFiA-2's moment maps and 2-D mask of the final source mask, from the cut-outs.
      if (!image_files.mom0.empty()) {
        maps = make_moment_maps(cutouts, *header, options.catalogue.wcs);
        for (const auto& w : maps->warnings) run.log("warning: moment maps: " + w);
        write_image_map(image_files.mom0, maps->mom0, cube.nx, cube.ny);
        summary.image_files.push_back(image_files.mom0);
        if (maps->three_d) {
          write_image_map(image_files.mom1, maps->mom1, cube.nx, cube.ny);
          write_image_map(image_files.mom2, maps->mom2, cube.nx, cube.ny);
          write_image_map(image_files.chan, maps->chan, cube.nx, cube.ny);
          summary.image_files.insert(summary.image_files.end(), {image_files.mom1, image_files.mom2, image_files.chan});
        }
      }
      if (!image_files.mask_2d.empty()) {
        mask_2d = make_mask_2d(cutouts, *header);
        write_image_map(image_files.mask_2d, *mask_2d, cube.nx, cube.ny);
        summary.image_files.push_back(image_files.mask_2d);
      }
      if (cubelets) {
        const CubeletSettings settings{options.margin_cubelets, options.threshold_mom12, options.catalogue.wcs,
                                       options.catalogue.physical};
        std::vector<std::string> warnings;
        summary.cubelet_files = write_cubelets(cubelet_directory, std::filesystem::path(options.output).stem().string(),
                                               cutouts, *header, catalogue, settings, warnings);
        // Each distinct warning once (SoFiA-2 repeats them per source).
        std::sort(warnings.begin(), warnings.end());
        warnings.erase(std::unique(warnings.begin(), warnings.end()), warnings.end());
        for (const auto& w : warnings) run.log("warning: cubelets: " + w);
        if (talk)
          run.log(format_text("cubelets: %zu files of %zu sources in %s", summary.cubelet_files.size(),
                              catalogue.size(), cubelet_directory.c_str()));
      }
    });
    share_catalogue(catalogue, comm);
    product.write_catalogue(catalogue, rank == 0);
    product.write_images(product_images(maps, mask_2d, image_files, cube, comm));
    mpi::on_root_then_share_failure(comm, [&] {
      const std::string time = catalogue_time_now();
      for (const auto& file : catalogue_files) {
        if (catalogue.size() == 0) break;  // SoFiA-2 writes no catalogue file without sources
        write_text_file(file.path, file.kind == CatalogueFile::ascii ? catalogue_ascii(catalogue, time)
                                   : file.kind == CatalogueFile::xml
                                       ? catalogue_votable(catalogue, time, votable_settings(options))
                                       : catalogue_sql(catalogue, time));
        summary.catalogue_files.push_back(file.path);
      }
    });
    if (talk)
      run.log(format_text(
          "catalogue: %zu sources, %zu columns (%s), global rms %.3e, %.2f s (writing the source "
          "mask %.2f s)",
          catalogue.size(), catalogue.columns.size() + 1, options.catalogue.enable ? "parameterised" : "linker only",
          global_rms, seconds_since(t_catalogue), source_mask_seconds));
  }
  product.finish(noise_used, summary, meter.cadence());
  remove_labels();
  run.finished();
  const double write_seconds = seconds_since(t_write);

  std::uint64_t counts[2] = {sweep.read_counts().blanks, sweep.read_counts().infinities};
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_UINT64_T, MPI_SUM, comm));
  if (talk) {
    run.log(format_text("%" PRIu64 " blank and %" PRIu64 " infinite voxels in the input (infinities treated as blank)",
                        counts[0], counts[1]));
  }
  if (summarise) {
    run.log(format_text("mask %" PRIu64 " voxels; read %.2f s, smooth-and-clip %.2f s, write %.2f s, total %.2f s",
                        summary.mask_voxels, read_seconds, smooth_seconds, write_seconds, seconds_since(t_start)));
  }
  if (talk) {  // where the results are, as period says it, with --quiet too
    run.log(format_text("product %s%s%s%s%s", options.output.c_str(), options.fits_mask.empty() ? "" : ", FITS mask ",
                        options.fits_mask.c_str(), options.fits_source_mask.empty() ? "" : ", FITS source mask ",
                        options.fits_source_mask.c_str()));
    for (const auto& file : summary.catalogue_files) run.log("catalogue file " + file);
    for (const auto& file : summary.image_files) run.log("image " + file);
  }
  const Slab top = layout.slab(sweep.slabs().front());
  const Slab bottom = layout.slab(sweep.slabs().back());
  const auto [clips_kept, clips_smoothed] = sweep.clips_kept_smoothed();
  const SlabSweep::StreamSeconds streamed = sweep.stream_seconds();
  const ScfindSummary::SmoothAndClip& loop = summary.smooth_and_clip;
  const std::string device_kernels = loop.kernels ? format_text("; device kernels %.2f s", *loop.kernels) : "";
  const std::string split = format_text(", smooth-and-clip %.2f s (%s%s)", loop.seconds,
                                        describe_phases(loop.phases, loop.seconds).c_str(), device_kernels.c_str());
  const std::string clips =
      sweep.resident() ? std::string()
                       : format_text(", slab clips %" PRIu64 " from kept values and %" PRIu64
                                     " smoothed again, loading slabs %.2f s, keeping values %.2f s (%.1f million), "
                                     "halos %.2f s",
                                     clips_kept, clips_smoothed, streamed.load, streamed.keep,
                                     static_cast<double>(sweep.kept_values()) / 1e6, streamed.halos);
  run.print_summary(
      "",
      format_text("  rank %d: %zu slab(s), channels %zu-%zu (held %zu-%zu), reading %.2f s (%.2f GB/s)%s%s, mask "
                  "fetched %.2f s%s and written %.2f s, %s, %s\n",
                  rank, sweep.slabs().size(), bottom.own_begin, top.own_end - 1, bottom.held_begin, top.held_end - 1,
                  sweep.read_seconds(),
                  sweep.read_seconds() > 0 ? static_cast<double>(sweep.read_bytes()) / sweep.read_seconds() / 1e9 : 0.0,
                  split.c_str(), clips.c_str(), mask_fetch_seconds, sparse_mask ? " (the offsets of its ones)" : "",
                  mask_write_seconds, backend->describe().c_str(), backend->usage().c_str()),
      stderr);
  return summary;
}

}  // namespace astrosweep::scfind
