#pragma once
// The spiir command's coherent stage (spec §9, §10): every detector's peaks become candidates
// (the peak's detector the reference); the SNR of every detector around each candidate (the
// window its offsets, slides and χ² read) is captured while the strain is filtered a second time;
// the search runs with one sky map per 1800 s of strain; the foreground is clustered and written
// to /triggers, every candidate's slides to /background.
#include <hdf5.h>

#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "coherent_snr.hpp"
#include "core/backend.hpp"
#include "spiir_bank.hpp"

namespace astrosweep::spiir {

struct CoherentStageSettings {
  int sky_order = 5;
  int n_slides = 100;
  double slide_seconds = 0.1;
  double cluster_window_seconds = 1.0;
  Precision precision = Precision::fp32;
  int threads = 0;
  bool subsample = false;  ///< --subsample (CoherentSettings::subsample)
  int sky_stride = 1;      ///< --sky-stride (CoherentSettings::sky_stride)
  bool skymaps = false;    ///< --skymaps: every clustered trigger's ρ_coh² map under /skymaps
  /// --backend: where it resolves to CUDA the pixel loop runs on the GPU (make_sky_search).
  BackendOptions backend;
};

/// The sky search's device for `options` (spiir_backend_factory.cpp): the CUDA one where the
/// backend resolves to CUDA, null (the CPU's loop) otherwise.
std::unique_ptr<SkySearchEngine> make_sky_search(const BackendOptions& options);

/// Throws UsageError naming the option when a setting is out of range (exit 2).
void check_coherent_settings(const CoherentStageSettings& settings);

/// What a chunk of filtering hands over: the SNR of every template for strain samples
/// first … first + n − 1 (first may be negative: the multi-rate stream's latency), template-major.
using SnrSink = std::function<void(std::int64_t first, std::size_t n, std::span<const std::complex<double>> z)>;
/// Filters detector d of the network from the start, calling the sink chunk by chunk.
using SnrPass = std::function<void(std::size_t d, const SnrSink& sink)>;

struct CoherentStageInput {
  std::string bank_path;  ///< for messages
  std::vector<std::string> ifos;
  std::int64_t gps_start_s = 0;
  std::int32_t gps_start_ns = 0;
  double sample_rate = 0;
  std::size_t n_samples = 0;  ///< the strain's length
  /// Per detector: its peaks' samples and templates.
  std::vector<std::vector<std::int64_t>> peak_samples, peak_templates;
};

struct CoherentStageSummary {
  std::size_t candidates = 0;  ///< peaks searched
  std::size_t dropped = 0;     ///< peaks without the margin the search reads
  std::size_t triggers = 0;    ///< after clustering
};

/// Runs the stage and writes /triggers and /background into `file` (and /skymaps with
/// settings.skymaps).
CoherentStageSummary write_coherent_triggers(hid_t file, const SpiirBank& bank, const CoherentStageInput& input,
                                             const CoherentStageSettings& settings, const SnrPass& refilter);

}  // namespace astrosweep::spiir
