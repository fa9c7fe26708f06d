#pragma once
// RAII ownership of a CFITSIO file handle; the only place fits_open/create/close are called.

#include <fitsio.h>

#include <cstdint>
#include <optional>
#include <string>

namespace astrosweep::fits {

/// How a path is read: with CFITSIO's extended syntax ("file.fits[1]", compressed files, "-"), or
/// literally as a file on disk (a user's path with brackets in it, a file we check the size of).
enum class Name { extended_syntax, disk_file };

/// Tag: make a new file to write (File(path, create_new)).
struct CreateNew {};
inline constexpr CreateNew create_new{};

class File {
 public:
  /// Opens read-only; throws InputError naming the path and CFITSIO's reason.
  explicit File(const std::string& path, Name name = Name::extended_syntax);
  /// Creates `path` (literally, no extended syntax), which must not exist; throws OutputError
  /// naming it and CFITSIO's reason.
  File(const std::string& path, CreateNew /*tag*/);
  ~File();
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  [[nodiscard]] fitsfile* get() const noexcept { return fptr_; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

  /// Throws InputError "<path>: <what>: <cfitsio text>" when status is non-zero.
  void check(int status, const std::string& what) const;
  /// For a file being written: throws OutputError "<path>: <what>: <cfitsio text>" when status is
  /// non-zero (a full disk, a quota, 'ulimit -f').
  void check_write(int status, const std::string& what) const;
  /// Closes the file now, writing out what CFITSIO still holds; throws OutputError when that fails.
  /// The handle is empty afterwards (the destructor then does nothing).
  void close();
  /// Header keyword of the current HDU, if present (a value that is not valid FITS: InputError).
  [[nodiscard]] std::optional<std::string> keyword(const std::string& name) const;
  /// A numeric keyword of the current HDU, if present; InputError naming the file, HDU and keyword
  /// when its value is not a number (a damaged BSCALE must not silently become 1).
  [[nodiscard]] std::optional<double> keyword_double(const std::string& name) const;
  /// Throws InputError naming the file, HDU and card when a card of the current HDU's header holds
  /// a byte that is not printable ASCII: a damaged header, which CFITSIO opens without complaint.
  void check_header_cards() const;
  /// "HDU n" of the current HDU (1 is the primary), for messages.
  [[nodiscard]] std::string hdu_name() const;
  /// An integer keyword (BLANK, TICID); throws InputError naming the card when its value is not a
  /// whole number within the range of int64 (converting one would be undefined behaviour).
  [[nodiscard]] std::optional<std::int64_t> keyword_integer(const std::string& name) const;

 private:
  fitsfile* fptr_ = nullptr;
  std::string path_;
};

}  // namespace astrosweep::fits
