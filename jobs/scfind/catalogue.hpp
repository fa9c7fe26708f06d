#pragma once
// SoFiA-2 v2.5.1's source catalogue (LinkerPar_make_catalog in src/LinkerPar.c, then
// DataCube_parameterise in src/DataCube.c): every column SoFiA-2 writes with reliability off, in
// its order, names and units, computed with its arithmetic (docs/scfind.md, "Catalogue").
//
// Everything a source's columns read lies in its bounding box (the linker's flood fill, the two
// passes over the box, the local noise of the box's non-source voxels), so the catalogue is
// measured from each source's cut-out (source_cutouts.hpp), which the job gathers on rank 0 from
// the ranks owning its channels: rank 0 holds the boxes, not the cube. The sums run in SoFiA-2's
// order over the box as before, so the columns are the same for any cut.
//
// Measuring without gathering a source's box (for a source as large as the cube) would need the
// per-source accumulation merged across slabs: everything is either an associative sum (fluxes,
// centroid sums, the moment map and spectrum, the running moments, which merge with Chan et al.'s
// pairwise formulae) or a min/max, plus the list of non-source voxels in the box for the local
// noise (merged by concatenation in index order); the second pass (position errors, the 3-sigma
// centroids for kin_pa) needs the first pass's centroid and noise and is again a sum.

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cube_header.hpp"
#include "linker.hpp"
#include "smooth_and_clip.hpp"
#include "source_cutouts.hpp"

namespace astrosweep::scfind {

/// SoFiA-2's parameter.* keys with its defaults (src/Parameter.c).
struct CatalogueParameters {
  bool enable = true;            ///< parameter.enable: measure the sources (SoFiA-2's default true)
  bool wcs = true;               ///< parameter.wcs: world coordinates and names from the header's WCS
  bool physical = false;         ///< parameter.physical: f_sum, widths and errors in physical units
  std::string prefix = "SoFiA";  ///< parameter.prefix: the source names' prefix
  bool offset = false;           ///< parameter.offset: shift positions by input.region's origin (no region here)
};

/// The catalogue files SoFiA-2 writes (output.writeCatASCII, writeCatXML, writeCatSQL).
struct CatalogueFiles {
  bool ascii = true;  ///< SoFiA-2's default
  bool xml = true;    ///< SoFiA-2's default
  bool sql = false;   ///< SoFiA-2's default
};

struct CatalogueKey {
  const char* key;
  const char* help;
};
/// parameter.* and output.writeCat* as the parameter file and the command line spell them.
extern const std::vector<CatalogueKey> catalogue_keys;

/// From SoFiA-2 "key = value" text (other keys not looked at); throws UsageError naming the key for
/// a switch that is not true or false, or a prefix SoFiA-2's names cannot carry (empty, spaces,
/// quotes, more than 20 characters).
CatalogueParameters catalogue_parameters_from_text(const std::map<std::string, std::string>& values,
                                                   const CatalogueParameters& fallback = {});
CatalogueFiles catalogue_files_from_text(const std::map<std::string, std::string>& values,
                                         const CatalogueFiles& fallback = {});
/// One pair per key of catalogue_keys (the product's attributes, fingerprint).
std::vector<std::pair<std::string, std::string>> catalogue_parameters_as_text(const CatalogueParameters& parameters,
                                                                              const CatalogueFiles& files);

/// One column: SoFiA-2's name, unit, UCD, and our description; integer columns in `whole`.
struct CatalogueColumn {
  std::string name, unit, ucd, description;
  bool integer = false;
  std::vector<std::int64_t> whole;
  std::vector<double> real;
};

struct Catalogue {
  std::vector<std::string> names;        ///< SoFiA-2's source names ("SoFiA J120007.92-295924.7")
  std::vector<CatalogueColumn> columns;  ///< in SoFiA-2's order, "id" first
  [[nodiscard]] std::size_t size() const noexcept { return names.size(); }
  [[nodiscard]] const CatalogueColumn* find(const std::string& name) const;
};

/// SoFiA-2's running moments of a source's values (LinkerPar_update: mean and the 2nd to 4th
/// central sums, updated voxel by voxel), with the pairwise merge of Chan, Golub and LeVeque, so
/// partial moments of several slabs join (equal to SoFiA-2's to rounding; bit for bit only in
/// SoFiA-2's own voxel order, which the one-rank catalogue follows).
struct SourceMoments {
  std::uint64_t n = 0;
  double m1 = 0, m2 = 0, m3 = 0, m4 = 0;

  void add(double value) {
    if (n == 0) {
      n = 1;
      m1 = value;
      m2 = m3 = m4 = 0;
      return;
    }
    ++n;
    const auto nn = static_cast<double>(n);
    const double delta = value - m1;
    const double delta_n = delta / nn;
    const double delta_n2 = delta_n * delta_n;
    const double term1 = delta * delta_n * static_cast<double>(n - 1);
    m1 += delta_n;
    m4 += term1 * delta_n2 * static_cast<double>(n * n - 3 * n + 3) + 6.0 * delta_n2 * m2 - 4.0 * delta_n * m3;
    m3 += term1 * delta_n * static_cast<double>(n - 2) - 3.0 * delta_n * m2;
    m2 += term1;
  }

  void merge(const SourceMoments& o) {
    if (o.n == 0) return;
    if (n == 0) {
      *this = o;
      return;
    }
    const double na = static_cast<double>(n), nb = static_cast<double>(o.n), nt = na + nb;
    const double d = o.m1 - m1, d2 = d * d;
    const double m4_ = m4 + o.m4 + d2 * d2 * na * nb * (na * na - na * nb + nb * nb) / (nt * nt * nt) +
                       6.0 * d2 * (na * na * o.m2 + nb * nb * m2) / (nt * nt) + 4.0 * d * (na * o.m3 - nb * m3) / nt;
    const double m3_ = m3 + o.m3 + d2 * d * na * nb * (na - nb) / (nt * nt) + 3.0 * d * (na * o.m2 - nb * m2) / nt;
    m2 = m2 + o.m2 + d2 * na * nb / nt;
    m1 = m1 + d * nb / nt;
    m3 = m3_;
    m4 = m4_;
    n += o.n;
  }
};

/// The catalogue of the linker's sources from their cut-outs (source n's at [n - 1], boxes at
/// least the bounding boxes): `reliability` per source (empty: the filter off). Every sum runs in
/// SoFiA-2's order over the source's box, so the columns do not depend on how the cut-outs were
/// gathered.
Catalogue make_catalogue(const SourceCutouts& cutouts, std::span<const Component> sources,
                         std::span<const double> reliability, const LinkerParameters& linker, double global_rms,
                         const CubeHeader& header, const CatalogueParameters& parameters);

/// The same from the whole cube (cut into cut-outs first). `labels`/`data`: the whole cube (labels as
/// link_sources gives them; data float32 with blanks NaN or infinite). `linker`: its parameters
/// (the radii give SoFiA-2's flood-fill order, which the running moments follow). `global_rms`:
/// SoFiA-2's "Global RMS" (global_noise), the unit of the linker's mean, std, skew and kurt.
Catalogue make_catalogue(const CubeShape& cube, std::span<const std::int32_t> labels, std::span<const float> data,
                         const LinkedSources& linked, const LinkerParameters& linker, double global_rms,
                         const CubeHeader& header, const CatalogueParameters& parameters);

/// Each source's running moments of its values over `rms`, in the order SoFiA-2's flood fill meets
/// them (so equal to SoFiA-2's linker's bit for bit): `labels` numbered as `sources` (source n at
/// [n - 1]), `linker` the radii the sources were linked with. The reliability filter's std, skew
/// and kurt. The whole-cube form cuts the sources out first.
std::vector<SourceMoments> linker_moments(const SourceCutouts& cutouts, std::span<const Component> sources,
                                          const LinkerParameters& linker, double rms);
std::vector<SourceMoments> linker_moments(const CubeShape& cube, std::span<const std::int32_t> labels,
                                          std::span<const float> data, std::span<const Component> sources,
                                          const LinkerParameters& linker, double rms);

/// SoFiA-2's global noise level (sofia.c, before the linker): MAD_TO_STD times the median |x| of
/// the negative values among every cadence-th voxel from the end (noise_cadence), infinities blank.
double global_noise(const CubeShape& cube, std::span<const float> data);
/// The global indices global_noise samples: highest, highest − cadence, ... (count of them).
SampleRange global_noise_samples(const CubeShape& cube);
/// global_noise from its samples (sample k at global_noise_samples' highest − k·cadence,
/// infinities already NaN).
double global_noise_of_samples(const CubeShape& cube, std::span<const float> samples);

/// The median of |v| over values[1..] (not values[0], NaN skipped), as SoFiA-2's
/// mad_val_dbl(values, n, 0, 1, 0) takes it for a source's local noise. NaN where SoFiA-2's is
/// undefined (no value left: it reads uninitialised memory).
double local_median_magnitude(std::vector<double> values);

}  // namespace astrosweep::scfind
