#pragma once
// The cube around each source, on rank 0, instead of the whole cube (issue 15): everything the
// catalogue, the moment maps, the 2-D mask and the cubelets read lies inside a source's bounding
// box (grown by output.marginCubelets for the cubelets), so rank 0 holds per source a cut-out of
// the values and the source numbers of that box, x fastest, box-local. Boxes of different sources
// may overlap: each source gets its own copy (simple reads, no shared index; the overlap is
// counted in bytes()). Each rank sends only the voxels of the boxes that fall in its own channels.
//
// Reads through a cut-out take global (x, y, z); a label outside the box reads 0, so a flood fill
// or a box walk never sees another source's voxel as its own.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "linker.hpp"
#include "smooth_and_clip.hpp"

namespace astrosweep::scfind {

/// A box of the cube, inclusive bounds.
struct Box {
  std::size_t x0 = 0, x1 = 0, y0 = 0, y1 = 0, z0 = 0, z1 = 0;
  [[nodiscard]] std::size_t nx() const noexcept { return x1 - x0 + 1; }
  [[nodiscard]] std::size_t ny() const noexcept { return y1 - y0 + 1; }
  [[nodiscard]] std::size_t nz() const noexcept { return z1 - z0 + 1; }
  [[nodiscard]] std::size_t plane() const noexcept { return nx() * ny(); }
  [[nodiscard]] std::size_t voxels() const noexcept { return plane() * nz(); }
  [[nodiscard]] bool contains(std::size_t x, std::size_t y, std::size_t z) const noexcept {
    return x >= x0 && x <= x1 && y >= y0 && y <= y1 && z >= z0 && z <= z1;
  }
  /// Box-local index of a voxel inside it (x fastest).
  [[nodiscard]] std::size_t local(std::size_t x, std::size_t y, std::size_t z) const noexcept {
    return (x - x0) + nx() * ((y - y0) + ny() * (z - z0));
  }
};

/// `source`'s bounding box grown by `margin` on every side of all three axes, clipped to `cube`
/// (SoFiA-2's cubelet box; margin 0: the bounding box).
Box grown_box(const Component& source, std::size_t margin, const CubeShape& cube);

/// One source's box of the cube: the values (as read, blanks NaN or infinite) and the source
/// numbers of every voxel in it (other sources' too).
struct SourceCutout {
  std::int32_t id = 0;  ///< the number this source's voxels carry in `labels`
  Box box;
  std::vector<float> data;
  std::vector<std::int32_t> labels;

  [[nodiscard]] float value(std::size_t x, std::size_t y, std::size_t z) const { return data[box.local(x, y, z)]; }
  /// 0 outside the box.
  [[nodiscard]] std::int32_t label(std::size_t x, std::size_t y, std::size_t z) const {
    return box.contains(x, y, z) ? labels[box.local(x, y, z)] : 0;
  }
};

/// The cut-outs of a catalogue's sources: source n (id n) at [n - 1].
struct SourceCutouts {
  CubeShape cube;
  std::size_t margin = 0;  ///< how far the boxes reach beyond the bounding boxes (before clipping)
  std::vector<SourceCutout> sources;

  /// Bytes held (values and numbers): what rank 0 holds for the measurement.
  [[nodiscard]] std::uint64_t bytes() const noexcept;
};

/// The cut-outs from a whole cube held here (`labels`, `data`: cube.voxels() each); `sources`
/// numbered 1, 2, ... in `labels`. The one-process path (tests, whole-cube callers).
SourceCutouts cut_sources(const CubeShape& cube, std::span<const Component> sources, std::size_t margin,
                          std::span<const std::int32_t> labels, std::span<const float> data);

/// This rank's share of the cube: its channels [z_begin, z_end), values and source numbers.
struct OwnedChannels {
  std::size_t z_begin = 0, z_end = 0;
  std::span<const float> data;
  std::span<const std::int32_t> labels;
};

/// Collective over `comm`: the cut-outs on rank 0 (on other ranks `sources` is empty), each box's
/// voxels sent by the rank owning their channel. The channels of all ranks must tile the cube.
/// The voxels travel in batches of whole box planes of about `batch_voxels` (at least one plane),
/// so rank 0's receive buffer stays that small and no count overflows an int.
SourceCutouts gather_source_cutouts(const CubeShape& cube, std::span<const Component> sources, std::size_t margin,
                                    std::span<const OwnedChannels> mine, MPI_Comm comm,
                                    std::size_t batch_voxels = std::size_t{1} << 22);

}  // namespace astrosweep::scfind
