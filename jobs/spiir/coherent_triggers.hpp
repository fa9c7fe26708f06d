#pragma once
// The spiir command's coherent stage (spec §9, §10): every detector's peaks become candidates
// (the peak's detector the reference); the SNR of every detector around each candidate (the
// window its offsets, slides and χ² read) is captured by a second pass over the candidates'
// templates (coherent_second_pass.hpp), the search runs with one sky map per 1800 s of strain on
// the ranks that own the candidates (coherent_distribution.hpp); rank 0 clusters the foreground
// and writes /triggers, every candidate's slides to /background. This file holds what does not
// depend on where the work runs: the plan, the search of a set of candidates, the writer.
#include <hdf5.h>

#include <complex>
#include <cstdint>
#include <functional>
#include <map>
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

/// What every rank derives alike from the merged peaks: the candidates (in order of detector, then
/// peak) and the window of samples around each that the search reads.
struct CoherentStagePlan {
  std::vector<Candidate> candidates;
  std::size_t dropped = 0;  ///< peaks without the margin the search reads
  std::int64_t before = 0;  ///< window: samples before the candidate's (slides, offsets, χ²)
  std::int64_t after = 0;   ///< window: samples after it
  CoherentSettings search;
  std::vector<double> sigma;  ///< per detector: the mean √sigmasq over the bank (U uses their ratios)
  [[nodiscard]] int trials() const { return search.n_slides + 1; }
  [[nodiscard]] std::size_t window_length() const { return static_cast<std::size_t>(before + after + 1); }
};

CoherentStagePlan plan_coherent_stage(const SpiirBank& bank, const CoherentStageInput& input,
                                      const CoherentStageSettings& settings);

/// The sky maps of one run, one per 1800 s block of strain (gstlal-spiir recomputes its maps every
/// 1800 s), made when first asked for: the same values on every rank.
class CoherentSkyMaps {
 public:
  CoherentSkyMaps(const CoherentStageInput& input, const CoherentStageSettings& settings,
                  const CoherentStagePlan& plan);
  [[nodiscard]] std::int64_t block_of(std::int64_t sample) const { return sample / block_samples_; }
  const SkyMap& of_block(std::int64_t block);

 private:
  const CoherentStageInput& input_;
  int order_;
  std::vector<double> sigma_;
  std::int64_t block_samples_;
  std::map<std::int64_t, SkyMap> maps_;
};

/// Candidates per search call: a GPU launch of 256 × (N_bg + 1) tasks fills the device, and on a
/// CPU a call takes about a second at order 5 with 100 slides, so a stop signal is seen that soon.
inline constexpr std::size_t search_batch_candidates = 256;

/// The search of candidates `members` (indices into plan.candidates) whose windows are the rows of
/// `windows` (row m: members[m]'s template, plan.window_length() samples, the candidate at
/// plan.before): member-major, plan.trials() results each. One search call per sky-map block and
/// `batch` candidates; a candidate's results do not depend on which others share the call. With
/// `stop_on_signal`, a stop signal (core/interrupt.hpp) ends the search between calls: the results
/// are then incomplete, and the caller, which sees the signal too, must not use them.
std::vector<CoherentResult> search_candidates(const SpiirBank& bank, const CoherentStageInput& input,
                                              const CoherentStageSettings& settings, const CoherentStagePlan& plan,
                                              std::span<const std::size_t> members, const NetworkSnr& windows,
                                              CoherentSkyMaps& maps, std::size_t batch = search_batch_candidates,
                                              bool stop_on_signal = false);

/// Windows of candidates `members` for the sky maps of /skymaps (rows in the order of `members`).
using WindowsOf = std::function<NetworkSnr(std::span<const std::size_t> members)>;

/// Clusters the foreground of `results` (every candidate's, candidate-major) and writes /triggers,
/// /background and, with settings.skymaps, /skymaps into `file` (the clustered triggers' windows
/// from `windows_of`).
CoherentStageSummary write_coherent_triggers(hid_t file, const SpiirBank& bank, const CoherentStageInput& input,
                                             const CoherentStageSettings& settings, const CoherentStagePlan& plan,
                                             const std::vector<CoherentResult>& results, CoherentSkyMaps& maps,
                                             const WindowsOf& windows_of);

}  // namespace astrosweep::spiir
