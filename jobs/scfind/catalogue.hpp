#pragma once
// SoFiA-2 v2.5.1's source catalogue (LinkerPar_make_catalog in src/LinkerPar.c, then
// DataCube_parameterise in src/DataCube.c): every column SoFiA-2 writes with reliability off, in
// its order, names and units, computed with its arithmetic (docs/scfind.md, "Catalogue").
//
// Per-source accumulation is built to merge across slabs later (issue 15): everything a source's
// columns need is either an associative sum (fluxes, centroid sums, the moment map and spectrum,
// the running moments, which merge with Chan et al.'s pairwise formulae) or a min/max, plus the
// list of non-source voxels in its bounding box for the local noise (merged by concatenation in
// index order). The second pass (position errors, the 3-sigma centroids for kin_pa) needs the
// first pass's centroid and noise and is again a sum. This file is the one-rank reference.

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

/// The catalogue of the linker's sources. `labels`/`data`: the whole cube (labels as
/// link_sources gives them; data float32 with blanks NaN or infinite). `linker`: its parameters
/// (the radii give SoFiA-2's flood-fill order, which the running moments follow). `global_rms`:
/// SoFiA-2's "Global RMS" (global_noise), the unit of the linker's mean, std, skew and kurt.
Catalogue make_catalogue(const CubeShape& cube, std::span<const std::int32_t> labels, std::span<const float> data,
                         const LinkedSources& linked, const LinkerParameters& linker, double global_rms,
                         const CubeHeader& header, const CatalogueParameters& parameters);

/// SoFiA-2's global noise level (sofia.c, before the linker): MAD_TO_STD times the median |x| of
/// the negative values among every cadence-th voxel from the end (noise_cadence), infinities blank.
double global_noise(const CubeShape& cube, std::span<const float> data);

/// The median of |v| over values[1..] (not values[0], NaN skipped), as SoFiA-2's
/// mad_val_dbl(values, n, 0, 1, 0) takes it for a source's local noise. NaN where SoFiA-2's is
/// undefined (no value left: it reads uninitialised memory).
double local_median_magnitude(std::vector<double> values);

}  // namespace astrosweep::scfind
