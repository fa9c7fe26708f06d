#pragma once
// SoFiA-2 v2.5.1's cubelets (output.writeCubelets; its DataCube_create_cubelets, read for the
// semantics): per catalogue source, the cut-out of the cube around its bounding box widened by
// output.marginCubelets (clipped to the cube), the source's own mask there (1 where the voxel
// belongs to this source, other sources 0), the moment, channel and SNR maps of that cut-out
// (moment_maps.hpp, moments 1 and 2 over the flux above output.thresholdMom12 × the source's rms)
// its integrated spectrum and its position-velocity diagram along the kinematic major axis
// (pv_diagram.hpp). Made on rank 0 from the sources' cut-outs it holds for the catalogue
// (source_cutouts.hpp, grown by the margin), so the files do not depend on the number of ranks or
// slabs (docs/scfind.md, "Cubelets").

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "catalogue.hpp"
#include "cube_header.hpp"
#include "smooth_and_clip.hpp"
#include "source_cutouts.hpp"

namespace astrosweep::scfind {

/// output.marginCubelets, output.thresholdMom12 and the parameter.* switches SoFiA-2 passes on.
struct CubeletSettings {
  std::size_t margin = 10;     ///< pixels added around the bounding box on every side (clipped to the cube)
  double threshold_mom12 = 0;  ///< moments 1 and 2 over flux > threshold_mom12 × the source's rms
  bool use_wcs = true;         ///< parameter.wcs: world spectral coordinates (moments, spectrum)
  bool physical = false;       ///< parameter.physical: spectrum in Jy (Jy/beam over the beam area)
};

/// SoFiA-2's rule for the cubelet directory: created if absent; an existing one is refused unless
/// `overwrite` (then its files are replaced one by one). Throws OutputError naming `directory`.
void prepare_cubelet_directory(const std::string& directory, bool overwrite);

/// Writes every source's cubelet files into `directory` as `<stem>_<id>_cube.fits`, `_mask.fits`,
/// `_mom0.fits`, `_mom1.fits`, `_mom2.fits`, `_chan.fits`, `_snr.fits` (rms > 0), `_pv.fits`,
/// `_spec.txt` (a single-channel cubelet: `_mom0.fits` of the maps only, as SoFiA-2);
/// `labels`/`data` the whole cube, numbered as the catalogue's ids. Returns the paths written;
/// `warnings` gets SoFiA-2's (missing BUNIT, CTYPE3 not understood, no beam). Throws OutputError
/// naming a file that cannot be written.
std::vector<std::string> write_cubelets(const std::string& directory, const std::string& stem, const CubeShape& cube,
                                        std::span<const std::int32_t> labels, std::span<const float> data,
                                        const CubeHeader& header, const Catalogue& catalogue,
                                        const CubeletSettings& settings, std::vector<std::string>& warnings);

/// The same from the sources' cut-outs (source n's at [n - 1], numbered as the catalogue, boxes
/// grown by at least settings.margin): what the job holds on rank 0.
std::vector<std::string> write_cubelets(const std::string& directory, const std::string& stem,
                                        const SourceCutouts& cutouts, const CubeHeader& header,
                                        const Catalogue& catalogue, const CubeletSettings& settings,
                                        std::vector<std::string>& warnings);

/// The text of a source's spectrum file (SoFiA-2's layout; `time` its time line): per channel
/// z_min..z_max the channel, its world coordinate (with `wcs`), Σ flux / `beam_area` and the
/// number of source voxels. Exposed for the unit test.
struct CubeletSpectrum {
  std::size_t z_min = 0;
  std::vector<double> flux;  ///< Σ flux of the source's voxels per channel, in index order (double)
  std::vector<std::size_t> pixels;
};
std::string cubelet_spectrum_text(const CubeletSpectrum& spectrum, const CubeHeader& header, bool use_wcs,
                                  bool physical, const std::string& time, std::vector<std::string>& warnings);

}  // namespace astrosweep::scfind
