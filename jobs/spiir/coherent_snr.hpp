#pragma once
// The coherent stage of the spiir job (spec §9): for each candidate (a peak of one template in one
// reference detector) and each time-slide trial, the sky pixel that maximises the coherent SNR
// ρ_coh² = |u_0ᵀζ|² + |u_1ᵀζ|², with ζ the detectors' SNRs read at that pixel's arrival-time
// offsets and u_0, u_1 the signal columns of the SVD of A (rows σ_d (F+_d, F×_d)); the null SNR
// ρ_null² = Σ|ζ_d|² − ρ_coh²; the autocorrelation χ² per detector at that pixel. The per-pixel
// U and offsets are computed once per sky map (gstlal-spiir: every 1800 s); the search runs
// OpenMP over candidates × trials with the pixels inner. coherent_reference.hpp is its oracle.
#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "autocorrelation_chisq.hpp"
#include "sky_grid.hpp"
#include "spiir_backend.hpp"

namespace astrosweep::spiir {

/// Every detector's complex SNR for every template over the same samples.
struct NetworkSnr {
  std::vector<std::string> ifos;
  std::size_t n_templates = 0;
  std::size_t n_samples = 0;
  std::vector<std::vector<std::complex<double>>> z;  ///< per detector: template-major, n_templates × n_samples

  [[nodiscard]] const std::complex<double>* series(std::size_t d, std::size_t j) const {
    return z[d].data() + j * n_samples;
  }
};

/// The per-pixel quantities of one network at one sidereal time.
struct SkyMap {
  int order = 0;
  double gps = 0;          ///< s: the time F+, F× and the delays are for
  double sample_rate = 0;  ///< Hz
  std::vector<std::string> ifos;
  std::vector<SkyDirection> pixels;  ///< NESTED order
  /// U of A = U S Vᵀ, full n_det × n_det per pixel, columns contiguous: U(d, k) at
  /// [(p · n_det + k) · n_det + d]. Columns 0, 1 span the signal space; the rest are null.
  std::vector<double> u;
  /// Per reference detector i, pixel p and detector d: round((t_d − t_i) · f_s), samples
  /// ([(i · n_pix + p) · n_det + d]; round(x) = ⌊x + 0.5⌋).
  std::vector<std::int32_t> offsets;
  /// The same unrounded, (t_d − t_i) · f_s in samples, for `--subsample` reads.
  std::vector<double> delays;
  std::int32_t max_offset = 0;  ///< the largest |offset|

  [[nodiscard]] std::size_t n_det() const { return ifos.size(); }
  [[nodiscard]] std::size_t n_pix() const { return pixels.size(); }
  [[nodiscard]] double u_at(std::size_t p, std::size_t k, std::size_t d) const {
    return u[(p * n_det() + k) * n_det() + d];
  }
  [[nodiscard]] std::int32_t offset(std::size_t ref, std::size_t p, std::size_t d) const {
    return offsets[(ref * n_pix() + p) * n_det() + d];
  }
  [[nodiscard]] double delay(std::size_t ref, std::size_t p, std::size_t d) const {
    return delays[(ref * n_pix() + p) * n_det() + d];
  }
};

/// U of the SVD A = U S Vᵀ of one pixel's A (n × 2, n = 2 or 3; rows σ_d (F+_d, F×_d)), n × n,
/// columns contiguous: u_0, u_1 (the signal space, largest singular value first), then for three
/// detectors u_2 = u_0 × u_1 (the null space).
std::vector<double> network_basis(const std::vector<std::array<double, 2>>& a);

/// The sky map of detectors `ifos` (2 or 3 of H1, L1, V1) with sensitivities `sigma` (σ_d; only
/// their ratios matter) at GPS time `gps`, on the HEALPix grid of `order`. Throws UsageError for
/// unknown or repeated detectors, fewer than 2 or more than 3, or σ not positive.
SkyMap make_sky_map(int order, const std::vector<std::string>& ifos, const std::vector<double>& sigma, double gps,
                    double sample_rate);

/// A peak to combine: template `tmpl` at `sample` of detector `ref_ifo` (an index into the
/// network's detectors).
struct Candidate {
  std::size_t ref_ifo = 0;
  std::size_t tmpl = 0;
  std::int64_t sample = 0;
};

struct CoherentSettings {
  int n_slides = 0;                ///< background trials N_bg; trial k reads the other detectors k · slide earlier
  std::int64_t slide_samples = 0;  ///< s, samples
  /// `--subsample`: ζ_d read at the exact fractional delay (subsample_interpolation.hpp) instead
  /// of the rounded one; the χ² window is interpolated the same way.
  bool subsample = false;
  /// `--sky-stride N`: trial k searches only the pixels p ≡ k mod N (gstlal-spiir's thinning:
  /// the foreground N p, background N p + k mod N).
  int sky_stride = 1;
};

/// Sky-pixel statistics that agree to this relative resolution are a tie, won by the first pixel
/// searched (`reported_pixel`): the arithmetic cannot order them. With two detectors every pixel whose delays round
/// alike has the same ρ_coh², and its last bits then depend on the backend that filtered (CPU and
/// GPU products picked different pixels of such a ring). Likewise a ρ_null² below this fraction
/// of Σ|ζ|² is rounding (two detectors have no null stream) and is reported as 0.
template <typename Real>
constexpr Real statistic_resolution = std::is_same_v<Real, float> ? Real(1e-5) : Real(1e-12);

/// The index a search reports among `coh` (the searched pixels' ρ_coh², in pixel order): the
/// first within the resolution of their maximum. Defined without a scan order, so a parallel
/// reduction finds the same pixel. `coh` is not empty.
template <typename Real>
std::size_t reported_pixel(std::span<const Real> coh) {
  Real max = coh[0];
  for (const Real v : coh) max = v > max ? v : max;
  const Real floor = max - statistic_resolution<Real> * (max < 0 ? -max : max);
  std::size_t i = 0;
  while (coh[i] < floor) ++i;
  return i;
}

/// ρ_null², or 0 where it is below the arithmetic's resolution of `total` = Σ|ζ|².
template <typename Real>
constexpr Real resolved_null_energy(Real null, Real total) {
  return null <= statistic_resolution<Real> * total ? Real(0) : null;
}

/// One candidate's outcome in one trial.
struct CoherentResult {
  double coh_snr2 = 0;   ///< ρ_coh², the sky maximum
  double null_snr2 = 0;  ///< ρ_null² at that pixel
  std::int64_t pixel = -1;
  double network_chisq = 0;               ///< Σ_d χ²_d
  std::vector<std::complex<double>> snr;  ///< ζ_d at that pixel
  std::vector<double> chisq;              ///< χ²_d
  std::vector<std::int32_t> offset;       ///< samples from the candidate's sample, slide included
  std::vector<double> delay;              ///< the same unrounded (= offset unless subsample)
};

/// Samples either side of a candidate that the pixel reads reach: the largest offset, plus the
/// interpolation's half-width W with `subsample`.
std::int64_t read_margin(const SkyMap& map, const CoherentSettings& settings);

/// Whether a candidate at `sample` has every sample the search reads: the read margin, the
/// slides and the χ² half-length K on either side, inside 0 … n_samples − 1.
bool candidate_fits(const SkyMap& map, const CoherentSettings& settings, std::size_t chisq_half_length,
                    std::size_t n_samples, std::int64_t sample);

/// What a device's sky search returns per task (candidate × trial): the reported pixel and, in the
/// search's precision (exactly representable), its ρ_coh² and Σ|ζ_d|².
struct SkyPick {
  std::int64_t pixel = -1;
  double coh_snr2 = 0;
  double total = 0;
};

/// A search's per-pixel tables in its precision, as the CPU's pixel loop reads them.
template <typename Real>
struct SkySearchTables {
  std::size_t n_det = 0;
  std::size_t n_pix = 0;
  std::span<const Real> u01;  ///< the two signal columns, [(p · 2 + k) · n_det + d]
  /// Per [(ref · n_pix + p) · n_det + d]: the rounded offset, or with `weights` the first tap.
  std::span<const std::int32_t> reads;
  std::span<const Real> weights;  ///< subsample: interpolation_taps per read; empty when rounded
};

/// A batch of tasks: each task's SNR windows (window_length samples per detector, the task's base
/// sample — the candidate's, the trial's slide applied — at index `centre`), its reference detector
/// and its first searched pixel (trial mod stride). The windows lie in `samples`, where tasks share
/// what they share (a candidate's reference window serves its every trial, overlapping windows of
/// one series are stored once): task t's window of detector d starts at sample window[t · n_det + d].
template <typename Real>
struct SkySearchBatch {
  std::size_t n_tasks = 0;
  std::size_t window_length = 0;
  std::int64_t centre = 0;
  int stride = 1;
  std::span<const Real> samples;         ///< [s · 2 + (0: re, 1: im)]
  std::span<const std::int64_t> window;  ///< per [t · n_det + d]: the first sample of that window
  std::span<const std::int32_t> ref;
  std::span<const std::int32_t> first;
};

class SnrHistory;  // snr_history.hpp

/// Which χ² tables an engine holds (SkySearchEngine::chisq_key): the bank's autocorrelations'
/// object (TemplateAutocorrelations::instance, never reused) and their sizes. A search over SNR
/// histories loads the tables only when the engine's key is not its own: once per bank and engine,
/// not once per search.
struct SkyChisqKey {
  std::uint64_t instance = 0;  ///< 0: no tables
  std::size_t n_det = 0;
  std::size_t n_templates = 0;
  std::size_t length = 0;  ///< 2K + 1
  bool operator==(const SkyChisqKey&) const = default;
};

/// The χ²'s autocorrelations of a whole bank for searches over SNR histories, per template (the
/// histories' row) and detector: R(−K … K) as (re, im) doubles at [((j · n_det + d) · length + s) ·
/// 2], its denominator autocorrelation_chisq_norm at [j · n_det + d]; sizes in `key`.
struct SkyChisqTables {
  SkyChisqKey key;
  std::span<const double> r;
  std::span<const double> norms;
};

/// A batch of tasks read from SNR histories (coherent_history.hpp; rounded reads): per task its
/// template (the row of the histories and of the χ² tables), its reference detector and first
/// searched pixel; per [t · n_det + d] the absolute sample of its base in detector d's history (the
/// candidate's, the trial's slide applied). Every read lies within margin + K of a base, and the
/// histories hold it (the caller checks).
struct SkyHistoryBatch {
  std::size_t n_tasks = 0;
  int stride = 1;
  std::int64_t margin = 0;  ///< read_margin
  std::span<const std::int32_t> tmpl;
  std::span<const std::int64_t> base;
  std::span<const std::int32_t> ref;
  std::span<const std::int32_t> first;
};

/// What a history search returns: per task the pick; per [t · n_det + d] ζ_d at the picked pixel
/// (the history's value, exact in double) and χ²_d there, bit for bit autocorrelation_chisq of the
/// same samples.
struct SkyHistoryOut {
  std::span<SkyPick> picks;
  std::span<std::complex<double>> zeta;
  std::span<double> chisq;
};

/// The seam for a device's pixel evaluation and `reported_pixel` reduction (kernels/spiir, CUDA):
/// the same pixel and, bit for bit, the same ρ_coh² and Σ|ζ|² as the CPU's loop; the rest of the
/// search (χ², offsets) stays on the CPU. load() once per search, then search() per batch.
class SkySearchEngine {
 public:
  virtual ~SkySearchEngine() = default;
  virtual void load(const SkySearchTables<float>& tables) = 0;
  virtual void load(const SkySearchTables<double>& tables) = 0;
  virtual void search(const SkySearchBatch<float>& batch, std::span<SkyPick> out) = 0;
  virtual void search(const SkySearchBatch<double>& batch, std::span<SkyPick> out) = 0;
  /// Tasks per batch that fit the device's memory budget, for `bytes_per_task` of windows.
  [[nodiscard]] virtual std::size_t max_batch(std::size_t bytes_per_task) const = 0;
  /// Milliseconds of kernel time in every search() so far (benchmarks take differences).
  [[nodiscard]] virtual double kernel_ms() const = 0;
  /// Host memory of at least `bytes` (aligned for double) where the caller writes a batch's
  /// samples before passing them as SkySearchBatch::samples; valid until the next call. Kept from
  /// batch to batch and search to search (a chunk's windows are hundreds of MB: fresh pages each
  /// chunk cost more than filling them). This default is plain host memory; the CUDA engine's is
  /// its pinned upload buffer, so that search() sends the samples without a staging copy.
  virtual std::span<std::byte> host_samples(std::size_t bytes);

  /// Whether this engine reads `histories` (one per detector) where they lie: then a search over
  /// them sends only tasks and gets back picks, ζ and χ² (search_histories); otherwise the caller
  /// reads their windows (SnrHistory::read) and uses search(). This default reads none.
  [[nodiscard]] virtual bool reads_histories(std::span<const SnrHistory* const> histories) const;
  /// A bank's χ² tables for searches over histories (reads_histories only), kept until the next
  /// load_chisq: a search loads them when chisq_key() is not theirs, before its batches.
  virtual void load_chisq(const SkyChisqTables& tables);
  /// The key of the χ² tables held (the last load_chisq's), or none ({}): this default holds none.
  [[nodiscard]] virtual SkyChisqKey chisq_key() const;
  /// A batch over histories that reads_histories accepted, in the precision of the pixel tables
  /// loaded (the histories' own); `out` sized to the batch.
  virtual void search_histories(std::span<const SnrHistory* const> histories, const SkyHistoryBatch& batch,
                                const SkyHistoryOut& out);

 private:
  std::vector<std::byte> host_samples_;
};

/// The search: results candidate-major, 1 + n_slides per candidate (trial 0 the foreground). The
/// pixel loop runs in `precision` (float: as a GPU would); the χ² at the chosen pixel in double.
/// Ties between pixels go to the lower index. With `engine` the pixel loop runs there (the same
/// results). Throws UsageError when a candidate does not fit or
/// the network's detectors differ from the map's.
std::vector<CoherentResult> coherent_search(const SkyMap& map, const NetworkSnr& snr,
                                            const TemplateAutocorrelations& autocorrelations,
                                            std::span<const Candidate> candidates, const CoherentSettings& settings,
                                            Precision precision, int threads = 0, SkySearchEngine* engine = nullptr);

/// ρ_coh² at every pixel (a sky map, spec §10 `/skymaps/<trigger>`) for one candidate in one
/// trial, in `precision`, as the search computes it (subsample honoured; the sky stride is not: the
/// map covers every pixel). Its maximum over p ≡ trial mod stride is the search's coh_snr2.
std::vector<double> coherent_sky_map(const SkyMap& map, const NetworkSnr& snr, const Candidate& candidate,
                                     const CoherentSettings& settings, int trial, Precision precision);

}  // namespace astrosweep::spiir
