#include "io/fits.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>

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
  errno = 0;
  if (name == Name::disk_file)
    fits_open_diskfile(&fptr_, path.c_str(), READONLY, &status);
  else
    fits_open_file(&fptr_, path.c_str(), READONLY, &status);
  if (status != 0) {
    const int error = errno;
    fptr_ = nullptr;
    fits_clear_errmsg();
    std::error_code ec;
    const bool empty = std::filesystem::is_regular_file(path, ec) && std::filesystem::file_size(path, ec) == 0;
    const bool system = error == EACCES || error == EPERM || error == EISDIR || error == EIO;
    throw InputError("cannot open FITS file '" + path + "': " +
                         (empty    ? std::string("the file is empty (0 bytes)")
                          : system ? std::strerror(error)
                                   : status_text(status)),
                     "check that the file exists, is readable and is a complete FITS file (copy it again if it "
                     "was cut short)");
  }
}

File::File(const std::string& path, CreateNew /*tag*/) : path_(path) {
  int status = 0;
  errno = 0;
  fits_create_diskfile(&fptr_, path.c_str(), &status);
  if (status != 0) {
    const int error = errno;
    fptr_ = nullptr;
    fits_clear_errmsg();
    throw OutputError(
        "cannot create FITS file '" + path + "': " + (error != 0 ? std::strerror(error) : status_text(status)),
        "check that the directory exists and is writable and that there is free space");
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

void File::check_write(int status, const std::string& what) const {
  if (status == 0) return;
  const int error = errno;
  fits_clear_errmsg();
  const bool system = error == ENOSPC || error == EDQUOT || error == EFBIG || error == EIO;
  throw OutputError(
      path_ + ": " + what + ": " + status_text(status) + (system ? std::string(" (") + std::strerror(error) + ")" : ""),
      "check the free space and quota of the output's file system (and 'ulimit -f')");
}

void File::close() {
  if (fptr_ == nullptr) return;
  int status = 0;
  errno = 0;
  fits_close_file(fptr_, &status);
  fptr_ = nullptr;
  check_write(status, "writing it out");
}

std::string File::hdu_name() const {
  int hdu = 0;
  fits_get_hdu_num(fptr_, &hdu);
  return "HDU " + std::to_string(hdu);
}

namespace {
// Damaged bytes shown as '?', so a message stays one readable line.
std::string printable(std::string text) {
  for (char& c : text)
    if (c < 32 || c > 126) c = '?';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}
}  // namespace

std::optional<std::string> File::keyword(const std::string& name) const {
  int status = 0;
  char value[FLEN_VALUE] = {};
  fits_read_key(fptr_, TSTRING, name.c_str(), value, nullptr, &status);
  if (status == KEY_NO_EXIST || status == VALUE_UNDEFINED) {
    fits_clear_errmsg();
    return std::nullopt;
  }
  check(status, hdu_name() + ": keyword " + name);
  return std::string(value);
}

std::optional<double> File::keyword_double(const std::string& name) const {
  int status = 0;
  double value = 0;
  fits_read_key(fptr_, TDOUBLE, name.c_str(), &value, nullptr, &status);
  if (status == KEY_NO_EXIST || status == VALUE_UNDEFINED) {
    fits_clear_errmsg();
    return std::nullopt;
  }
  if (status != 0) {
    fits_clear_errmsg();
    int raw_status = 0;
    char raw[FLEN_VALUE] = {};
    fits_read_keyword(fptr_, name.c_str(), raw, nullptr, &raw_status);
    fits_clear_errmsg();
    throw InputError(path_ + ": " + hdu_name() + ": keyword " + name + " = " + printable(raw) + " is not a number",
                     "the header is damaged or was written wrongly; repair the keyword (or copy the file again)");
  }
  return value;
}

void File::check_header_cards() const {
  int status = 0, n_cards = 0, more = 0;
  fits_get_hdrspace(fptr_, &n_cards, &more, &status);
  check(status, hdu_name() + ": reading the header");
  for (int k = 1; k <= n_cards; ++k) {
    char card[FLEN_CARD] = {};
    fits_read_record(fptr_, k, card, &status);
    check(status, hdu_name() + ": reading header card " + std::to_string(k));
    const std::string text(card);
    if (std::any_of(text.begin(), text.end(), [](char c) { return c < 32 || c > 126; })) {
      throw InputError(path_ + ": " + hdu_name() + ", header card " + std::to_string(k) + " ('" + printable(card) +
                           "') holds a byte that is not printable ASCII: the header is damaged",
                       "copy or download the file again; FITS headers are plain ASCII");
    }
  }
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
