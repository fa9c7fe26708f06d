#pragma once
// The seam between the scfind job and its compute backends (OpenMP here, CUDA in kernels/). A
// backend holds one slab of the cube (original data, the working copy, the mask) and runs the
// local steps of a kernel pair; the job does everything that needs other ranks: the noise
// statistic, the spectral running sum's hand-over between slabs, mask halos, output. Plain C++.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "magnitude_counter.hpp"
#include "mask_offsets.hpp"
#include "phase_clock.hpp"
#include "smooth_and_clip.hpp"

namespace astrosweep::scfind {

/// SoFiA-2 runs the spectral boxcar as a float running sum from the cube's last channel down, so a
/// slab continues the sum its upper neighbour ended with. The job implements this over MPI; rows
/// are handed over in blocks so slabs below start before the slabs above have finished.
class SpectralCarry {
 public:
  virtual ~SpectralCarry() = default;
  /// Row blocks [first, second) that receive() and send() are called with, in this order.
  [[nodiscard]] virtual std::vector<std::pair<std::size_t, std::size_t>> row_blocks() const = 0;
  /// Waits for the smoothed values of channel own_end (rows [y0, y1), nx·(y1−y0) floats). Only
  /// called when the slab is not at the top of the cube.
  virtual void receive(std::size_t y0, std::size_t y1, std::span<float> values) = 0;
  /// Hands the smoothed values of channel own_begin (rows [y0, y1)) to the slab below. Only called
  /// when the slab is not at the bottom; `values` may be reused once send() returns.
  virtual void send(std::size_t y0, std::size_t y1, std::span<const float> values) = 0;
  /// Moves the sends along without waiting (MPI moves a large message only while its sender is in
  /// the library): called while the backend waits for its device between blocks.
  virtual void progress() {}
};

/// Owned voxels of a slab's smoothed data and their values (ScfindBackend::values_above).
struct ValuesAbove {
  std::vector<std::uint64_t> offsets;  ///< from the first owned voxel
  std::vector<float> values;
};

/// Gives host floats back the way their allocator chose (free, or a GPU runtime's).
struct ReleaseHostFloats {
  void (*release)(void*) noexcept = nullptr;
  void operator()(float* p) const noexcept {
    if (release != nullptr) release(p);
  }
};

/// A move-only owner of host floats (ScfindBackend::host_floats).
class HostFloats {
 public:
  using Release = void (*)(void*) noexcept;
  HostFloats() = default;
  HostFloats(float* data, std::size_t size, Release release) : data_(data, ReleaseHostFloats{release}), size_(size) {}
  /// `count` floats of malloc'ed memory, uninitialised.
  static HostFloats plain(std::size_t count);

  [[nodiscard]] float* data() const noexcept { return data_.get(); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::span<float> span() const noexcept { return {data_.get(), size_}; }

 private:
  std::unique_ptr<float, ReleaseHostFloats> data_;
  std::size_t size_ = 0;
};

class ScfindBackend {
 public:
  virtual ~ScfindBackend() = default;
  [[nodiscard]] virtual std::string describe() const = 0;

  /// Takes the held channels of the original cube (x fastest, then y, then channel; blanks NaN,
  /// no infinities) and clears the mask.
  virtual void load(const Slab& slab, std::span<const float> original) = 0;
  /// Fills `out` with the cube's channels [z0, z1) (x fastest, then y, then channel), as load()
  /// takes them; called with consecutive ranges from held_begin up.
  using ChannelReader = std::function<void(std::size_t z0, std::size_t z1, std::span<float> out)>;
  /// load() from a reader: the backend reads the held channels in blocks it chooses, where it wants
  /// them (the CUDA backend: into pinned memory whose upload runs while the next block is read, so
  /// the cube is neither held whole on the host nor copied twice). By default one block, then load().
  virtual void load_from(const Slab& slab, const ChannelReader& read) {
    const auto original = std::make_unique_for_overwrite<float[]>(slab.held_voxels());
    const std::span<float> values(original.get(), slab.held_voxels());
    read(slab.held_begin, slab.held_end, values);
    load(slab, values);
  }

  /// Streamed slabs: from now on the backend keeps each slab's original where it computes (a GPU's
  /// memory) after its first load, so that load_held() activates it again without a transfer. The
  /// job asks for it only when every slab's original fits beside one slab's working memory
  /// (scfind_original_bytes). A backend without such memory ignores it.
  virtual void hold_originals() {}
  /// Activates `slab` from the original an earlier load() or load_from() kept (hold_originals()),
  /// clearing the mask as load() does; false, with nothing changed, when the backend holds none.
  virtual bool load_held(const Slab& /*slab*/) { return false; }

  /// Steps 2-5 of a kernel pair (spec "For each kernel pair"): a fresh copy of the original; masked
  /// voxels set to (float)copysign(replacement, x) when `replacement` is given; spatial boxcar
  /// passes on every held channel (blanks and the outside as 0); the spectral running sum over the
  /// owned channels when radius_z > 0, continued through `carry`; the original blanks restored.
  /// The result ("smoothed") is what samples(), finite_min_max() and clip() then read.
  virtual void smooth(const KernelPair& pair, std::optional<float> replacement, SpectralCarry& carry) = 0;
  /// Makes the original data the smoothed data (the kernel pair 0 × 0).
  virtual void use_original() = 0;

  /// Smoothed values of the owned voxels at global linear indices highest, highest − cadence, ...
  /// (`range.count` of them, in that order).
  [[nodiscard]] virtual std::vector<float> samples(const SampleRange& range, std::size_t cadence) = 0;
  /// The mad noise's magnitudes, kept where the backend holds the data: |x| of the smoothed values
  /// samples(range, cadence) would return that fall in `flux`, in that order (noise.hpp:
  /// mad_noise counts them there and only 256 counts per round come back). nullptr when the
  /// backend has no such path; the job then measures on samples(). The counter must not outlive
  /// the backend and is valid until the next load(), smooth(), samples() or magnitudes().
  [[nodiscard]] virtual std::unique_ptr<MagnitudeCounter> magnitudes(const SampleRange& /*range*/,
                                                                     std::size_t /*cadence*/, FluxRange /*flux*/) {
    return nullptr;
  }
  /// Smallest and largest non-NaN smoothed value over the owned voxels; NaN, NaN when none.
  [[nodiscard]] virtual std::pair<float, float> finite_min_max() = 0;
  /// Adds owned voxels with |smoothed| > threshold (compared in double) to the mask.
  virtual void clip(double threshold) = 0;
  /// The owned voxels with |smoothed| > bound (compared in double, as clip() compares), so that a
  /// clip at any threshold ≥ bound can be made later from them alone, without the data or its
  /// smoothing (streamed slabs: SlabSweep). nullopt when there are more than `limit` of them, which
  /// is at most a quarter of the owned voxels (a GPU lists them in its spare working copy).
  [[nodiscard]] virtual std::optional<ValuesAbove> values_above(double bound, std::uint64_t limit) = 0;

  /// Mask of held channels [z0, z1) (cube channel numbers), plane after plane.
  [[nodiscard]] virtual std::vector<std::uint8_t> mask_channels(std::size_t z0, std::size_t z1) = 0;
  /// The same into `out`, which may be uninitialised memory (a whole cube's mask is gigabytes, and
  /// zero-filling a vector first costs as much as the copy): channels [z0, z0 + out.size() / plane).
  virtual void copy_mask_channels(std::size_t z0, std::size_t z1, std::span<std::uint8_t> out) {
    const std::vector<std::uint8_t> values = mask_channels(z0, z1);
    AS_ASSERT(values.size() == out.size());
    std::copy(values.begin(), values.end(), out.begin());
  }
  /// The set voxels of the mask of held channels [z0, z1), as offsets from channel z0's first voxel,
  /// ascending (mask_offsets.hpp): what the writer of a mostly-empty mask needs, without the mask
  /// itself leaving the backend (a GPU's: megabytes of offsets instead of gigabytes of mask). By
  /// default from mask_channels().
  [[nodiscard]] virtual std::vector<std::uint64_t> mask_offsets(std::size_t z0, std::size_t z1) {
    return scfind::mask_offsets(mask_channels(z0, z1));
  }
  /// Overwrites the mask of held channels [z0, z0 + values.size() / plane): halos from neighbours.
  virtual void set_mask_channels(std::size_t z0, std::span<const std::uint8_t> values) = 0;
  /// Puts the voxels at `offsets` (counted from held channel z0's first voxel, each within the held
  /// channels) into the mask; the others are left as they are. A sparse mask costs its voxels, not
  /// its channels, to hand over (8 bytes each against 1 byte a voxel of the channels).
  virtual void set_mask_voxels(std::size_t z0, std::span<const std::uint64_t> offsets) = 0;

  /// Uninitialised host memory for `count` floats from which load() takes a slab fastest: page-locked
  /// for a GPU (its DMA reads it directly, without the copy into staging buffers), plain otherwise.
  /// May outlive the backend.
  [[nodiscard]] virtual HostFloats host_floats(std::size_t count) const { return HostFloats::plain(count); }

  /// The loaded slab's original values of held channels [z0, z1) (as load() took them), when the
  /// backend holds them in host memory: a view valid until the next load(); nullopt when it does
  /// not (a GPU's), and the caller reads them again.
  [[nodiscard]] virtual std::optional<std::span<const float>> original_channels(std::size_t /*z0*/,
                                                                                std::size_t /*z1*/) const {
    return std::nullopt;
  }

  /// Copies the loaded slab's original values of held channels [z0, z1) (as load() took them) into
  /// `out`, which may be uninitialised memory: the linker's cube values from a backend that holds
  /// them where original_channels() cannot show them (a GPU's), instead of reading the file again.
  /// By default from original_channels().
  virtual void copy_original_channels(std::size_t z0, std::size_t z1, std::span<float> out) {
    const auto held = original_channels(z0, z1);
    AS_ASSERT(held.has_value() && held->size() == out.size());
    std::copy(held->begin(), held->end(), out.begin());
  }

  /// Voxels set in the mask over the owned channels, when the backend can count them cheaply
  /// (for the progress report); nullopt otherwise.
  [[nodiscard]] virtual std::optional<std::uint64_t> mask_count() { return std::nullopt; }

  /// Bytes of its own memory (a GPU's) this backend may use for a slab; 0 when it works in host
  /// memory, which the job budgets itself.
  [[nodiscard]] virtual std::uint64_t memory_budget() const { return 0; }

  /// Resources and time used so far, for the per-rank summary; may be empty.
  [[nodiscard]] virtual std::string usage() const { return {}; }
  /// Seconds of device kernels run so far, by the device's own clock (events), once they have
  /// finished (waits for those queued); nullopt for a backend without a device.
  [[nodiscard]] virtual std::optional<double> kernel_seconds() const { return std::nullopt; }

  /// The clock the backend charges its copies between host and device to (Phase::transfers) and its
  /// waits for the device outside the calls the job charges to Phase::compute; null: none.
  void set_phase_clock(PhaseClock* clock) noexcept { phase_clock_ = clock; }

 protected:
  [[nodiscard]] PhaseClock* phase_clock() const noexcept { return phase_clock_; }

 private:
  PhaseClock* phase_clock_ = nullptr;
};

/// Bytes a backend of this kind needs to hold `slab` (host for cpu, device for cuda).
std::uint64_t scfind_memory_needed(BackendKind kind, const Slab& slab);
/// Of those, the bytes of the slab's original, which a backend holding originals
/// (ScfindBackend::hold_originals) keeps apart for every slab: 0 for a backend that cannot.
std::uint64_t scfind_original_bytes(BackendKind kind, const Slab& slab);

std::unique_ptr<ScfindBackend> make_scfind_backend(const BackendOptions& options);

}  // namespace astrosweep::scfind
