#pragma once
// SoFiA-2 v2.5.1's reliability filter (sofia.c's "Run reliability filter" and LinkerPar_reliability
// in its src/LinkerPar.c), read for its semantics and written anew (docs/scfind.md, "Reliability"):
//
//   - every source of the linker (negative ones kept: the filter needs them) is a point in a
//     parameter space of 2 or more of: peak = log10 of the largest |value| of its sign, sum =
//     log10 |summed value|, mean = log10 |sum / voxels|, chan = channels spanned, pix = log10
//     voxels, fill = log10 (voxels / bounding box), std, skew, kurt of the voxel values (SoFiA-2's
//     running moments, not logs), the values in units of SoFiA-2's global rms;
//   - the kernel is a Gaussian whose covariance is scaleKernel² times the (population) covariance
//     of the negative sources' points; at each positive source with sum² / voxels > fmin² and more
//     than minPixels voxels, P and N are the summed kernels of all positive and of all negative
//     points; rel = (P - N) / P when P > N, else 0 (every other source has rel 0);
//   - autoKernel: the kernel scale starts at 0.1 and grows (by 0.02, 0.04, 0.1 or 0.2 as the median
//     is far from the tolerance) until |median of the Skellam values (P - N) / sqrt(P + N) at the
//     negative points| <= tolerance, at most `iterations` times; not converged: scaleKernel;
//   - a source survives when rel >= threshold and sum / sqrt(voxels) > fmin, fmin = minSNR times
//     the square root of the beam area in pixels (BMAJ, BMIN, CDELT1 of the header; 1 without
//     them); the survivors are numbered 1, 2, ... in their linker order.
// One double-precision reference; O(positives × all sources) per evaluation, OpenMP over sources.

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "catalogue.hpp"
#include "linker.hpp"

namespace astrosweep::scfind {

/// SoFiA-2's reliability.* parameters with its defaults (src/Parameter.c).
struct ReliabilityParameters {
  bool enable = false;
  std::vector<std::string> parameters{"peak", "sum", "mean"};
  /// Whether the parameters need the sources' running moments (std, skew, kurt).
  [[nodiscard]] bool needs_moments() const;
  double threshold = 0.9;
  double scale_kernel = 0.4;
  double min_snr = 3.0;
  std::size_t min_pixels = 0;
  bool auto_kernel = false;
  int iterations = 30;
  double tolerance = 0.05;
  std::string catalog;  ///< positions (longitude, latitude) whose negative sources are left out
  bool plot = true;     ///< SoFiA-2's EPS plots: not written (a warning says so)
  bool debug = false;   ///< SoFiA-2's _rel_cat_{neg,pos}.xml: not written (a warning says so)
};

struct ReliabilityKey {
  const char* key;
  const char* help;
};
extern const std::vector<ReliabilityKey> reliability_keys;

/// From SoFiA-2 "key = value" text (other keys not looked at). Throws UsageError naming the key for
/// a bad value, an unknown or unsupported parameter name, fewer than 2 parameters, a catalogue
/// (not implemented), and SoFiA-2's refusal of autoKernel with plot = false and scaleKernel != 0.
ReliabilityParameters reliability_parameters_from_text(const std::map<std::string, std::string>& values,
                                                       const ReliabilityParameters& fallback = {});
/// One pair per key of reliability_keys (the product's attributes, fingerprint).
std::vector<std::pair<std::string, std::string>> reliability_parameters_as_text(const ReliabilityParameters& p);
/// SoFiA-2's refusals of linker settings with the filter on (UsageError naming the linker key),
/// made with the linker on or off, as SoFiA-2 makes them.
void check_linker_for_reliability(const LinkerParameters& linker, const ReliabilityParameters& reliability);

/// sqrt(pi · BMAJ · BMIN / (4 ln 2 · CDELT1²)): the beam's area in pixels, square-rooted, as SoFiA-2
/// takes it for minSNR; 1 when any is NaN (absent).
double sqrt_beam_area(double bmaj, double bmin, double cdelt1);

struct ReliabilityOutcome {
  std::vector<double> reliability;           ///< per source (source n at [n - 1])
  std::size_t positives = 0, negatives = 0;  ///< negatives: those used (after reliability.catalog)
  std::size_t negatives_excluded = 0;        ///< left out by reliability.catalog
  double scale_kernel = 0;                   ///< the kernel scale used
  int kernel_iterations = 0;                 ///< autoKernel's iterations (0 without)
  bool converged = true;                     ///< autoKernel converged (true without)
  std::vector<double> covariance;            ///< the negatives' covariance (dim × dim, row-major), unscaled
};

/// The reliability of every source (`sources` as the linker numbers them, negative ones included),
/// values divided by `rms`; `moments` (linker_moments, source n at [n - 1]) only when the
/// parameters need them. Throws InputError when there are no positive or no negative sources or
/// the covariance cannot be inverted (SoFiA-2 stops there too).
/// `excluded_xy`: pixel positions; a negative source whose x/y bounding box holds one is left out
/// of the density estimate (SoFiA-2's reliability.catalog).
ReliabilityOutcome source_reliability(std::span<const Component> sources, std::span<const SourceMoments> moments,
                                      double rms, double fmin, const ReliabilityParameters& parameters,
                                      std::span<const std::array<double, 2>> excluded_xy = {});

/// The survivors' new numbers: at [n - 1] source n's new number, 0 when it is dropped.
std::vector<std::int32_t> reliability_filter(std::span<const Component> sources, std::span<const double> reliability,
                                             double rms, double fmin, double threshold);

/// SoFiA-2's reliability.catalog file (Table_from_file with delimiters space, tab, comma, |): lines
/// whose first non-blank character is not a letter or digit are skipped, the first data line sets
/// the number of columns, every value is strtod's. nullopt (SoFiA-2 warns and ignores the file)
/// unless it has rows of exactly 2 columns. Throws InputError when the file cannot be read or a row
/// is short of columns (SoFiA-2 stops too).
std::optional<std::vector<std::array<double, 2>>> read_reliability_catalog(const std::string& path);

/// Applies reliability_filter's numbers to labels in place (0 stays 0).
void renumber_labels(std::span<std::int32_t> labels, std::span<const std::int32_t> new_numbers);

}  // namespace astrosweep::scfind
