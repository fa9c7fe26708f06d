#pragma once
// A look at the raw header cards of a FITS file before CFITSIO parses its tables: CFITSIO 4.2
// copies some card values into fixed buffers unchecked, and the FITS standard already forbids what
// overflows them.

#include <string>

namespace astrosweep::fits {

/// Throws InputError naming the card when a table column keyword whose value the FITS standard
/// defines as a character string (TTYPEn, TFORMn, TUNITn, TDISPn, TDIMn) holds something else:
/// CFITSIO 4.2 copies an unquoted value of 70 characters into a 70-byte field and glibc aborts the
/// process (found by the fits_light_curves fuzz target); likewise a TFIELDS above the standard's
/// 999, for which CFITSIO allocates column structures unchecked. Only plain FITS files on disk are looked
/// at; a compressed file or a name in CFITSIO's extended syntax goes to CFITSIO as it is, and so
/// does anything this walk does not understand.
void check_column_string_cards(const std::string& path);

}  // namespace astrosweep::fits
