#pragma once
// Reader for TESS and Kepler/K2 light-curve files (SPOC/Kepler pipeline layout): the first binary
// table (EXTNAME LIGHTCURVE) with TIME, a flux column (PDCSAP_FLUX by default, SAP_FLUX when it is
// missing) with its _ERR column, and QUALITY. Cadences with a non-zero QUALITY are dropped and
// counted; non-finite values are kept so the job counts and drops them per object.

#include <cstdint>
#include <string>
#include <vector>

#include "io/light_curve_sink.hpp"
#include "io/light_curves.hpp"

namespace astrosweep::io {

struct FitsReadOptions {
  std::string flux_column;  ///< empty: PDCSAP_FLUX, else SAP_FLUX
  bool use_quality = true;  ///< drop cadences whose QUALITY is non-zero
};

struct FitsRead {
  LightCurveBlock block;
  InputIdentity identity;
  std::string time_reference;  ///< the objects' common reference, or a label naming the per-object columns
};

/// Expands a mix of files and directories (directories: their *.fits, *.fit, *.fits.gz, sorted).
std::vector<std::string> expand_fits_inputs(const std::vector<std::string>& inputs);

/// Reads every file, in the order given; files of the same target (TICID / KEPLERID) become one
/// object, their cadences concatenated in time order, in order of first appearance; each object
/// keeps its own BJD reference (block.bjdrefi/bjdreff), so Kepler and TESS files mix. Throws
/// InputError naming the file, and for files of one object whose references differ.
///
/// Objects are passed on to `sink` in blocks of about `block_rows` rows (the blocks always carry
/// bjdrefi/bjdreff; has_time_references says at the end whether they mean anything). While each
/// object's files follow one another (Kepler names, one TESS sector) an object is passed on when
/// the next one begins, so one object and one block are held. When a file of an object passed on
/// earlier turns up later (TESS sectors listed sector by sector), that object and those after it
/// are taken back (sink.truncate) and, once every file has been read and checked, passed on again
/// whole, each read a second time from its files.
StreamedInput stream_fits_light_curves(const std::vector<std::string>& files, const FitsReadOptions& options,
                                       LightCurveSink& sink, std::uint64_t block_rows = default_block_rows);

/// Every object in one block (the small-input path: `period` on FITS inputs).
FitsRead read_fits_light_curves(const std::vector<std::string>& files, const FitsReadOptions& options);

}  // namespace astrosweep::io
