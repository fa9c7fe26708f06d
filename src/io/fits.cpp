#include "io/fits.hpp"

#include <cmath>

#include "core/error.hpp"

namespace astrosweep::fits {

namespace {
std::string status_text(int status) {
  char text[FLEN_STATUS] = {};
  fits_get_errstatus(status, text);
  return text;
}
}  // namespace

File::File(const std::string& path, Name name) : path_(path) {
  int status = 0;
  if (name == Name::disk_file)
    fits_open_diskfile(&fptr_, path.c_str(), READONLY, &status);
  else
    fits_open_file(&fptr_, path.c_str(), READONLY, &status);
  if (status != 0) {
    fptr_ = nullptr;
    fits_clear_errmsg();
    throw InputError("cannot open FITS file '" + path + "': " + status_text(status),
                     "check that the file exists, is readable and is a complete FITS file");
  }
}

File::~File() {
  if (fptr_ != nullptr) {
    int status = 0;
    fits_close_file(fptr_, &status);
  }
}

void File::check(int status, const std::string& what) const {
  if (status == 0) return;
  fits_clear_errmsg();
  throw InputError(path_ + ": " + what + ": " + status_text(status),
                   "the file may be truncated or corrupted; re-download it or remove it from the input");
}

std::optional<std::string> File::keyword(const std::string& name) const {
  int status = 0;
  char value[FLEN_VALUE] = {};
  fits_read_key(fptr_, TSTRING, name.c_str(), value, nullptr, &status);
  if (status != 0) {
    fits_clear_errmsg();
    return std::nullopt;
  }
  return std::string(value);
}

std::optional<double> File::keyword_double(const std::string& name) const {
  int status = 0;
  double value = 0;
  fits_read_key(fptr_, TDOUBLE, name.c_str(), &value, nullptr, &status);
  if (status != 0) {
    fits_clear_errmsg();
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> File::keyword_integer(const std::string& name) const {
  const auto value = keyword_double(name);
  if (!value) return std::nullopt;
  constexpr double two_to_63 = 9223372036854775808.0;  // exact in double; int64 holds [-2^63, 2^63)
  const bool whole = std::trunc(*value) == *value && *value >= -two_to_63 && *value < two_to_63;
  AS_EXPECTS(whole, InputError,
             path_ + ": header keyword " + name + " = " + keyword(name).value_or("?") + " is not an integer",
             "the FITS standard requires an integer there; fix the header card");
  return static_cast<std::int64_t>(*value);
}

}  // namespace astrosweep::fits
