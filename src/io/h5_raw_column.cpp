// Raw reads of float64 columns (h5_raw_column.hpp).

#include "io/h5_raw_column.hpp"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <span>

#include "io/h5.hpp"

namespace astrosweep::io {

namespace {

/// Reads are cut into pieces of this many rows (8 MiB) for the threads.
constexpr std::uint64_t piece_rows = std::uint64_t{1} << 20;

}  // namespace

RawColumn::RawColumn(hid_t dataset) {
  if constexpr (std::endian::native != std::endian::little) return;
  const h5::Id type(H5Dget_type(dataset));
  if (H5Tequal(type.get(), H5T_IEEE_F64LE) <= 0) return;
  const auto dims = h5::dims(dataset);
  if (dims.size() != 1) return;
  rows_ = dims[0];
  const h5::Id dcpl(H5Dget_create_plist(dataset));
  const H5D_layout_t layout = H5Pget_layout(dcpl.get());
  if (layout == H5D_CONTIGUOUS) {
    const haddr_t address = H5Dget_offset(dataset);
    if (address == HADDR_UNDEF) {  // no storage allocated: only an empty column reads raw
      usable_ = rows_ == 0;
      return;
    }
    address_ = address;
    usable_ = true;
  } else if (layout == H5D_CHUNKED) {
    hsize_t chunk = 0;
    if (H5Pget_nfilters(dcpl.get()) != 0 || H5Pget_chunk(dcpl.get(), 1, &chunk) != 1 || chunk == 0) return;
    chunk_rows_ = chunk;
    chunk_address_.assign((rows_ + chunk - 1) / chunk, unknown);
    usable_ = true;
  }
}

bool RawColumn::locate(hid_t dataset, std::uint64_t first, std::uint64_t n) {
  if (!usable_) return false;
  if (chunk_rows_ == 0 || n == 0) return true;
  for (std::uint64_t c = first / chunk_rows_; c * chunk_rows_ < first + n; ++c) {
    if (chunk_address_[c] != unknown) continue;
    const hsize_t offset = c * chunk_rows_;
    unsigned filter_mask = 0;
    haddr_t address = HADDR_UNDEF;
    hsize_t bytes = 0;
    if (H5Dget_chunk_info_by_coord(dataset, &offset, &filter_mask, &address, &bytes) < 0 || address == HADDR_UNDEF ||
        filter_mask != 0 || bytes != chunk_rows_ * sizeof(double))
      return false;
    chunk_address_[c] = address;
  }
  return true;
}

void RawColumn::read(const PosixFile& file, std::uint64_t first, std::uint64_t n, double* out) const {
  // Pieces that never cross a chunk: each one pread.
  struct Piece {
    std::uint64_t row, rows, address;
  };
  std::vector<Piece> pieces;
  for (std::uint64_t row = first; row < first + n;) {
    std::uint64_t end = std::min(first + n, row + piece_rows);
    std::uint64_t address = 0;
    if (chunk_rows_ == 0) {
      address = address_ + row * sizeof(double);
    } else {
      const std::uint64_t c = row / chunk_rows_;
      end = std::min(end, (c + 1) * chunk_rows_);
      address = chunk_address_[c] + (row - c * chunk_rows_) * sizeof(double);
    }
    pieces.push_back({row, end - row, address});
    row = end;
  }
  const auto count = static_cast<std::int64_t>(pieces.size());
  // Exceptions must not leave an OpenMP region: the first is kept and rethrown after it.
  std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 1) if (count > 1)
  for (std::int64_t i = 0; i < count; ++i) {
    const Piece& p = pieces[static_cast<std::size_t>(i)];
    try {
      file.read_at(p.address,
                   std::span(reinterpret_cast<std::uint8_t*>(out + (p.row - first)), p.rows * sizeof(double)));
    } catch (...) {
#pragma omp critical(raw_column_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace astrosweep::io
