#include "h5_deflate_chunks.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <vector>

#include "core/error.hpp"
#include "core/mpi.hpp"
#include "h5.hpp"
#include "zlib_ones.hpp"

namespace astrosweep::h5 {

namespace {

/// The dataset's layout as this writer needs it: (nz, ny, nx), chunks (1, rows, nx), deflate only.
struct ChannelChunks {
  std::uint64_t nz = 0, ny = 0, nx = 0;
  std::uint64_t rows = 0;  ///< rows of a chunk
  std::size_t element = 0;
  int level = 0;  ///< the deflate filter's level
  [[nodiscard]] std::uint64_t per_channel() const { return (ny + rows - 1) / rows; }
  [[nodiscard]] std::size_t chunk_bytes() const { return rows * nx * element; }
};

ChannelChunks layout_of(hid_t dataset, hid_t type) {
  ChannelChunks c;
  Id space(H5Dget_space(dataset));
  hsize_t dims[3] = {};
  AS_EXPECTS(H5Sget_simple_extent_ndims(space.get()) == 3, UsageError, name_of(dataset) + " is not three-dimensional");
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  Id dcpl(H5Dget_create_plist(dataset));
  hsize_t chunk[3] = {};
  AS_EXPECTS(H5Pget_layout(dcpl.get()) == H5D_CHUNKED && H5Pget_chunk(dcpl.get(), 3, chunk) == 3 && chunk[0] == 1 &&
                 chunk[2] == dims[2],
             UsageError, name_of(dataset) + " is not chunked by rows of one channel");
  unsigned flags = 0, values[4] = {};
  std::size_t n_values = 4;
  AS_EXPECTS(
      H5Pget_nfilters(dcpl.get()) == 1 &&
          H5Pget_filter_by_id2(dcpl.get(), H5Z_FILTER_DEFLATE, &flags, &n_values, values, 0, nullptr, nullptr) >= 0 &&
          n_values >= 1,
      UsageError, name_of(dataset) + " has another filter than deflate alone");
  c.nz = dims[0];
  c.ny = dims[1];
  c.nx = dims[2];
  c.rows = chunk[1];
  c.element = H5Tget_size(type);
  c.level = static_cast<int>(values[0]);
  return c;
}

/// One rank's compressed chunks: where each goes (its index in the dataset, channel-major) and its bytes.
struct Compressed {
  std::vector<std::uint64_t> index;  ///< chunk z * per_channel + k, pairs with size
  std::vector<std::uint64_t> size;
  std::vector<unsigned char> bytes;  ///< concatenated in the order of index
  std::uint64_t chunks = 0;
};

/// `data` (one chunk's bytes, padded) compressed as HDF5's deflate filter stores it into `out`; false
/// when zlib fails (out of memory).
bool deflate_chunk(const ChannelChunks& c, const std::byte* data, std::vector<unsigned char>& out) {
  uLongf size = compressBound(static_cast<uLong>(c.chunk_bytes()));
  out.resize(size);
  // compress2 writes the zlib stream HDF5's deflate filter writes and reads.
  if (compress2(out.data(), &size, reinterpret_cast<const Bytef*>(data), static_cast<uLong>(c.chunk_bytes()),
                c.level) != Z_OK)
    return false;
  out.resize(size);
  return true;
}

/// The chunks compressed on the threads, each at its chunk index; those left empty were all zeros.
Compressed collect(std::uint64_t chunks, std::span<const std::uint64_t> index,
                   std::vector<std::vector<unsigned char>>& out) {
  Compressed mine;
  mine.chunks = chunks;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i].empty()) continue;
    mine.index.push_back(index[i]);
    mine.size.push_back(out[i].size());
    mine.bytes.insert(mine.bytes.end(), out[i].begin(), out[i].end());
    std::vector<unsigned char>().swap(out[i]);
  }
  return mine;
}

[[noreturn]] void throw_zlib_failure() { throw RuntimeError("zlib cannot compress a chunk (out of memory?)"); }

Compressed compress_block(const ChannelChunks& c, std::uint64_t z0, std::span<const std::byte> block) {
  const std::uint64_t plane_bytes = c.ny * c.nx * c.element;
  const std::uint64_t channels = plane_bytes == 0 ? 0 : block.size() / plane_bytes;
  const std::uint64_t n = channels * c.per_channel();
  std::vector<std::vector<unsigned char>> out(n);
  bool failed = false;
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel
  {
    std::vector<std::byte> padded;  // the last rows' chunk, filled out with zeros as HDF5 stores it
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t i = 0; i < count; ++i) {
      const auto u = static_cast<std::uint64_t>(i);
      const std::uint64_t z = u / c.per_channel(), k = u % c.per_channel();
      const std::uint64_t row0 = k * c.rows, rows = std::min(c.rows, c.ny - row0);
      const std::byte* data = block.data() + z * plane_bytes + row0 * c.nx * c.element;
      const std::size_t bytes = rows * c.nx * c.element;
      // All zeros: the first byte is 0 and every byte equals the next (memcmp runs vectorised).
      if (data[0] == std::byte{0} && std::memcmp(data, data + 1, bytes - 1) == 0) continue;
      if (rows < c.rows) {
        padded.assign(c.chunk_bytes(), std::byte{0});
        std::memcpy(padded.data(), data, bytes);
        data = padded.data();
      }
      if (!deflate_chunk(c, data, out[u])) {
        out[u].clear();
#pragma omp atomic write
        failed = true;
      }
    }
  }
  if (failed) throw_zlib_failure();
  std::vector<std::uint64_t> index(n);
  for (std::uint64_t u = 0; u < n; ++u) index[u] = (z0 + u / c.per_channel()) * c.per_channel() + u % c.per_channel();
  return collect(n, index, out);
}

/// compress_block for a 0/1 uint8 block given as the ascending offsets of its ones: only the chunks
/// holding a one are written, each encoded from its ones (zlib_ones.hpp) without a pass over its
/// zeros. The streams differ from zlib's, the bytes they inflate to do not.
Compressed compress_offsets(const ChannelChunks& c, std::uint64_t z0, std::uint64_t channels,
                            std::span<const std::uint64_t> offsets) {
  AS_ASSERT(c.element == 1);
  const std::uint64_t plane = c.ny * c.nx, chunk_voxels = c.rows * c.nx;
  // The runs of offsets in one chunk: run r is offsets [first[r], first[r + 1]), in chunk index[r].
  std::vector<std::size_t> first;
  std::vector<std::uint64_t> index;
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    AS_ASSERT(offsets[i] < channels * plane && (i == 0 || offsets[i - 1] < offsets[i]));
    const std::uint64_t z = offsets[i] / plane, k = offsets[i] % plane / chunk_voxels;
    const std::uint64_t chunk = (z0 + z) * c.per_channel() + k;
    if (index.empty() || index.back() != chunk) {
      first.push_back(i);
      index.push_back(chunk);
    }
  }
  first.push_back(offsets.size());
  std::vector<std::vector<unsigned char>> out(index.size());
  std::exception_ptr failure;  // out of memory: thrown after the threads, not out of them
  const auto runs = static_cast<std::int64_t>(index.size());
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t r = 0; r < runs; ++r) {
    const auto u = static_cast<std::size_t>(r);
    // The chunk's first voxel in the block; a short last chunk is padded with zeros, as HDF5 pads it.
    const std::uint64_t start = (index[u] / c.per_channel() - z0) * plane + index[u] % c.per_channel() * chunk_voxels;
    try {
      io::zlib_stream_of_ones(c.chunk_bytes(), offsets.subspan(first[u], first[u + 1] - first[u]), start, out[u]);
    } catch (...) {
#pragma omp critical(astrosweep_deflate_offsets)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  return collect(channels * c.per_channel(), index, out);
}

/// Collective: every rank's vector, concatenated in rank order, on every rank.
template <class T>
std::vector<T> all_gathered(const std::vector<T>& mine, MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const std::uint64_t bytes = mine.size() * sizeof(T);
  AS_ASSERT(bytes <= static_cast<std::uint64_t>(std::numeric_limits<int>::max()));
  const int my_bytes = static_cast<int>(bytes);
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  AS_MPI_TRY(MPI_Allgather(&my_bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, comm));
  std::uint64_t total = 0;
  for (int r = 0; r < size; ++r) {
    AS_ASSERT(total <= static_cast<std::uint64_t>(std::numeric_limits<int>::max()));
    offsets[static_cast<std::size_t>(r)] = static_cast<int>(total);
    total += static_cast<std::uint64_t>(counts[static_cast<std::size_t>(r)]);
  }
  std::vector<T> all(total / sizeof(T));
  AS_MPI_TRY(
      MPI_Allgatherv(mine.data(), my_bytes, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, comm));
  return all;
}

/// Collective: shares what every rank compressed and writes it, every chunk on every rank in the
/// same order; above share_limit, `through_hdf5` writes the rank's block by HDF5's collective write.
DeflatedChannels write_compressed(hid_t dataset, const ChannelChunks& c, const std::function<Compressed()>& compress,
                                  const std::function<void()>& through_hdf5, MPI_Comm comm, std::uint64_t share_limit) {
  Compressed mine;
  std::exception_ptr failure;
  try {
    mine = compress();
  } catch (...) {
    failure = std::current_exception();  // thrown once every rank knows, so none waits alone
  }
  DeflatedChannels done;
  std::uint64_t sums[4] = {mine.chunks, mine.size.size(), mine.bytes.size(), failure ? 1U : 0U};
  AS_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, sums, 4, MPI_UINT64_T, MPI_SUM, comm));
  if (failure) std::rethrow_exception(failure);
  AS_EXPECTS(sums[3] == 0, RuntimeError, "another rank could not compress its chunks of " + name_of(dataset));
  done.chunks = sums[0];
  done.written = sums[1];
  done.compressed_bytes = sums[2];
  if (done.compressed_bytes > share_limit) {
    // Too much to hold on every rank (a mask that is mostly ones): HDF5 compresses it, slowly.
    done.through_hdf5 = true;
    through_hdf5();
    return done;
  }
  const auto index = all_gathered(mine.index, comm);
  const auto size = all_gathered(mine.size, comm);
  const auto bytes = all_gathered(mine.bytes, comm);
  AS_ASSERT(index.size() == size.size());
  // Every rank writes every chunk, in the same order: the metadata calls parallel HDF5 needs alike.
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < index.size(); ++i) {
    const hsize_t offset[3] = {index[i] / c.per_channel(), index[i] % c.per_channel() * c.rows, 0};
    errno = 0;
    if (H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, offset, size[i], bytes.data() + at) < 0)
      throw_write_failure(dataset, errno);
    at += size[i];
  }
  return done;
}

}  // namespace

DeflatedChannels write_deflated_channels(hid_t dataset, hid_t type, std::uint64_t z0, std::span<const std::byte> block,
                                         MPI_Comm comm, std::uint64_t share_limit) {
  const ChannelChunks c = layout_of(dataset, type);
  const std::uint64_t plane_bytes = c.ny * c.nx * c.element;
  AS_ASSERT(plane_bytes > 0 && block.size() % plane_bytes == 0 && z0 + block.size() / plane_bytes <= c.nz);
  return write_compressed(
      dataset, c, [&] { return compress_block(c, z0, block); },
      [&] {
        write_hyperslab(dataset, type, {z0, 0, 0}, {block.size() / plane_bytes, c.ny, c.nx}, block.data(),
                        Transfer::collective);
      },
      comm, share_limit);
}

DeflatedChannels write_deflated_mask_offsets(hid_t dataset, std::uint64_t z0, std::uint64_t channels,
                                             std::span<const std::uint64_t> offsets, MPI_Comm comm,
                                             std::uint64_t share_limit) {
  const ChannelChunks c = layout_of(dataset, H5T_NATIVE_UINT8);
  const std::uint64_t plane = c.ny * c.nx;
  AS_ASSERT(plane > 0 && z0 + channels <= c.nz);
  return write_compressed(
      dataset, c, [&] { return compress_offsets(c, z0, channels, offsets); },
      [&] {
        // The rank's block made dense again for HDF5 (zeroed pages the ones do not touch stay unbacked).
        std::unique_ptr<std::uint8_t[], decltype(&std::free)> block(
            static_cast<std::uint8_t*>(std::calloc(std::max<std::uint64_t>(1, channels * plane), 1)), &std::free);
        if (!block) throw std::bad_alloc();
        for (const std::uint64_t o : offsets) block[o] = 1;
        write_hyperslab(dataset, H5T_NATIVE_UINT8, {z0, 0, 0}, {channels, c.ny, c.nx}, block.get(),
                        Transfer::collective);
      },
      comm, share_limit);
}

}  // namespace astrosweep::h5
