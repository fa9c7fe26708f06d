#pragma once
// SoFiA-2 v2.5.1's image outputs of the final source mask (its DataCube_create_moments and
// DataCube_2d_mask, read for their semantics): the moment 0, 1, 2 maps and the channel count map
// (output.writeMoments), and the mask projected along the spectral axis (output.writeMask2d). The
// sums run as SoFiA-2's do (channels from the last to the first, accumulated in float), so the
// maps equal SoFiA-2's to the bit on the same cube and mask. The job makes them on rank 0 from
// the sources' cut-outs it holds for the catalogue (source_cutouts.hpp), in the same order as
// from the whole cube, so they do not depend on the number of ranks or slabs.

#include <cstdint>
#include <string>
#include <vector>

#include "cube_header.hpp"
#include "smooth_and_clip.hpp"
#include "source_cutouts.hpp"

namespace astrosweep::scfind {

/// A 2-D map and the header keywords SoFiA-2 gives it, in its order.
struct ImageMap {
  struct Keyword {
    std::string name;
    enum { text, number, integer } kind = text;
    std::string text_value;
    double number_value = 0;
  };
  std::vector<float> real;            ///< float maps (BITPIX -32)
  std::vector<std::int32_t> integer;  ///< integer maps (BITPIX 32): the channel count, the 2-D mask
  std::vector<std::uint8_t> bytes;    ///< byte images (BITPIX 8): a cubelet's mask
  std::vector<Keyword> keywords;      ///< after SIMPLE, BITPIX, NAXIS*
};

/// What SoFiA-2 varies between its whole-cube maps and a cubelet's (DataCube_create_moments'
/// threshold, rms and obj_name).
struct MomentSettings {
  double threshold = 0;  ///< moments 1 and 2 over the voxels with flux > threshold
  double snr_rms = 0;    ///< > 0: also the SNR map, moment 0 / (rms·√channels)
  std::string object;    ///< non-empty: each map's OBJECT keyword
};

struct MomentMaps {
  ImageMap mom0, mom1, mom2, chan, snr;
  bool has_snr = false;  ///< settings.snr_rms > 0 and a 3-D cube
  bool three_d = true;   ///< a single-channel cube has only moment 0 (as SoFiA-2)
  bool world = false;    ///< moments 1, 2 in the spectral axis' world units (else channels)
  std::string spectral_unit, flux_unit;
  std::vector<std::string> warnings;
};

/// The moment maps of `data` where `labels` is non-zero; `use_wcs`: parameter.wcs.
MomentMaps make_moment_maps(const CubeShape& cube, const std::vector<std::int32_t>& labels,
                            const std::vector<float>& data, const CubeHeader& header, bool use_wcs,
                            const MomentSettings& settings = {});
/// The same maps of the whole cube from the sources' cut-outs: each pixel sums its source voxels
/// channel by channel in the same order (every source's box visited for each channel it spans),
/// so the maps equal the whole-cube ones to the bit.
MomentMaps make_moment_maps(const SourceCutouts& cutouts, const CubeHeader& header, bool use_wcs);

/// SoFiA-2's header of a new `naxis`-axis image made from a cube with `header`: its blank-image
/// defaults (CTYPEi ' ', CRPIXi, CDELTi, CRVALi 1), the cube's WCS keywords of those axes over
/// them (Header_copy_wcs), BUNIT and the beam where asked (Header_copy_misc).
std::vector<ImageMap::Keyword> sofia_image_keywords(const CubeHeader& header, int naxis, bool copy_bunit,
                                                    bool copy_beam);
/// Sets (or adds at the end) keyword `name` of `keys`.
void set_keyword(std::vector<ImageMap::Keyword>& keys, const std::string& name, const std::string& value);
void set_keyword(std::vector<ImageMap::Keyword>& keys, const std::string& name, double value, bool integer = false);

/// The 2-D mask: per pixel the id of the source in its highest channel (SoFiA-2's projection
/// scans each line of sight from the last channel down and keeps the first non-zero id).
ImageMap make_mask_2d(const CubeShape& cube, const std::vector<std::int32_t>& labels, const CubeHeader& header);
/// The same from the sources' cut-outs.
ImageMap make_mask_2d(const SourceCutouts& cutouts, const CubeHeader& header);

/// Writes `map` (nx x ny) as a FITS image to `path`, through `path`.part (replacing it); throws
/// OutputError naming the path.
void write_image_map(const std::string& path, const ImageMap& map, std::size_t nx, std::size_t ny);
/// The same for an image of any shape (`axes`: NAXIS1, NAXIS2, ...), e.g. a cubelet.
void write_image(const std::string& path, const ImageMap& map, const std::vector<std::size_t>& axes);

}  // namespace astrosweep::scfind
