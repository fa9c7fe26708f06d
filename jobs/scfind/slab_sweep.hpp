#pragma once
// A rank's slabs during the kernel-pair loop. Each pair is two sweeps down the rank's slabs: the
// first smooths and draws the noise sample, the second (after the ranks have agreed on the noise)
// clips. With one slab per rank ("resident") the backend keeps the slab, its smoothed data and its
// mask between the sweeps, so the second sweep only clips. With several ("streamed") each slab is
// loaded into the backend when its turn comes: the original from a host copy or re-read from the
// file (into memory the backend uploads from fastest: page-locked for a GPU), the mask from a host
// store (1 byte per voxel) handed to the backend as a list of its voxels. The first sweep also
// keeps each slab's smoothed values above a bound under the clip's threshold (from the slab's own
// noise sample), so the second sweep clips from them alone; only a slab whose bound the global
// threshold falls below is loaded and smoothed again (replaying the spectral running sum it
// received from the slab above in the first sweep).

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "io/cube.hpp"
#include "magnitude_counter.hpp"
#include "phase_clock.hpp"
#include "scfind_backend.hpp"
#include "slab_layout.hpp"
#include "slab_samples.hpp"

namespace astrosweep::scfind {

/// Leaves elements uninitialised where std::vector would value-initialise them (resize): a streamed
/// rank's mask store is gigabytes, cleared on all threads instead (its pages faulted in there too).
template <class T>
struct UninitialisedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitialisedAllocator<U>;
  };
  UninitialisedAllocator() = default;
  template <class U>
  explicit UninitialisedAllocator(const UninitialisedAllocator<U>& /*other*/) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using MaskStore = std::vector<std::uint8_t, UninitialisedAllocator<std::uint8_t>>;

/// What a rank with streamed slabs keeps in host memory between sweeps, besides the mask.
struct SlabKeeping {
  bool originals = false;  ///< the slabs' original data (else re-read in every sweep)
  bool values = false;     ///< the values a clip may take (else the clip smooths again)
  /// The backend holds every slab's original after its first load (a GPU's memory), so neither
  /// host copy nor re-reading is needed (ScfindBackend::hold_originals).
  bool backend_originals = false;
};

/// Bytes of host memory a rank holds for `slabs` of `layout` beyond its backend's own: the mask
/// store and the recorded running sums when streamed, the read buffer, and what `keeping` asks.
std::uint64_t slab_sweep_host_bytes(const SlabLayout& layout, const std::vector<std::size_t>& slabs,
                                    SlabKeeping keeping);

class SlabSweep {
 public:
  /// Resident when the layout has one slab per rank (which is then read and loaded here).
  /// `clock` (may be null) is charged with the sweeps' phases (phase_clock.hpp), the backend's too.
  SlabSweep(const SlabLayout& layout, ScfindBackend& backend, const io::CubeInfo& info, SlabKeeping keeping,
            MPI_Comm comm, PhaseClock* clock = nullptr);

  [[nodiscard]] bool resident() const noexcept { return layout_.slabs_per_rank() == 1; }
  [[nodiscard]] const std::vector<std::size_t>& slabs() const noexcept { return mine_; }

  /// What the first sweep draws from each smoothed slab.
  struct Request {
    std::size_t cadence = 1;
    bool min_max = false;  ///< the smallest and largest non-NaN values (gauss)
    /// Resident only: ask the backend to keep the mad's magnitudes of this flux range where its
    /// data is; when it does, no samples are drawn.
    std::optional<FluxRange> magnitudes;
    /// Streamed, with SlabKeeping::values: keep each slab's values above `factor` times the noise of its own sample
    /// (MAD of those in `flux`) for clip(); a factor below the clip's threshold in units of the
    /// noise leaves room for slabs noisier than the cube.
    struct KeepAbove {
      double factor = 0;
      FluxRange flux = FluxRange::negative;
    };
    std::optional<KeepAbove> keep_above;
  };
  struct Sampled {
    std::vector<SlabSamples> samples;              ///< one per slab, unless `magnitudes`
    std::unique_ptr<MagnitudeCounter> magnitudes;  ///< valid until the backend's next step
    std::pair<float, float> min_max{std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::quiet_NaN()};
  };
  /// First sweep: smooths every slab with `pair` (nullopt: the original data) and draws from it
  /// SoFiA-2's noise sample (or the magnitudes, see Request).
  Sampled sample(const std::optional<KernelPair>& pair, std::optional<float> replacement, const Request& request);
  /// Second sweep: clips every slab's smoothed data (`pair` as in sample()) at `threshold`, then
  /// brings the mask halos up to date. Collective.
  void clip(const std::optional<KernelPair>& pair, std::optional<float> replacement, double threshold);

  /// Sets the mask from checkpoint labels (ScfindProduct): a voxel is in the mask when its label
  /// is 1..`done`; larger labels come from a checkpoint that never counted. `read(z0, z1)` gives
  /// the labels of channels [z0, z1). The labels of owned channels are kept for later checkpoints.
  void restore_mask(const std::function<std::vector<std::uint8_t>(std::size_t, std::size_t)>& read, std::uint8_t done);
  /// Checkpoint labels of slab j's owned channels with `done` pairs done: voxels of the mask
  /// without a label get `done`.
  [[nodiscard]] const std::vector<std::uint8_t>& checkpoint_labels(std::size_t j, std::uint8_t done);

  /// Voxels in the mask over this rank's owned channels, when known cheaply.
  [[nodiscard]] std::optional<std::uint64_t> mask_count();
  /// The mask of slab j's owned channels (0/1).
  [[nodiscard]] std::vector<std::uint8_t> owned_mask(std::size_t j);
  /// The same into `out` (slab j's owned voxels of them), which may be uninitialised memory.
  void copy_owned_mask(std::size_t j, std::span<std::uint8_t> out);
  /// The set voxels of slab j's owned mask as offsets from its first owned voxel, ascending
  /// (mask_offsets.hpp); only these leave a resident backend.
  [[nodiscard]] std::vector<std::uint64_t> owned_mask_offsets(std::size_t j);
  /// The original values of slab j's owned channels when they are still in host memory (the
  /// OpenMP backend's resident slab, or a streamed slab's kept original): a view valid while the
  /// backend and this sweep are not used again; nullopt when they must be read again.
  [[nodiscard]] std::optional<std::span<const float>> owned_original(std::size_t j) const;
  /// Copies the original values of slab j's owned channels into `out` (its owned voxels; may be
  /// uninitialised memory) from where they still are: the backend's resident slab (a GPU's too) or
  /// a streamed slab's kept original. False, with `out` untouched, when they must be read again.
  bool copy_owned_original(std::size_t j, std::span<float> out);
  /// Blank and infinite voxels met reading this rank's slabs (each slab counted once).
  [[nodiscard]] io::ChannelReadCounts read_counts() const noexcept { return counts_; }
  [[nodiscard]] double read_seconds() const noexcept { return read_seconds_; }
  /// Bytes of floats the reads produced (the cube's values as read, halos included).
  [[nodiscard]] std::uint64_t read_bytes() const noexcept { return read_bytes_; }
  /// Streamed: slab clips made from the kept values, and those that smoothed the slab again.
  [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> clips_kept_smoothed() const noexcept {
    return {clips_from_kept_, clips_smoothed_};
  }
  /// Streamed: seconds spent loading slabs into the backend (original and mask), keeping values,
  /// and exchanging mask halos.
  struct StreamSeconds {
    double load = 0, keep = 0, halos = 0;
  };
  [[nodiscard]] StreamSeconds stream_seconds() const noexcept { return stream_seconds_; }
  /// Streamed: values kept over all first sweeps (each slab's, each pair's).
  [[nodiscard]] std::uint64_t kept_values() const noexcept { return kept_values_; }

 private:
  struct Streamed {
    std::size_t index = 0;
    Slab slab;
    MaskStore mask;            ///< held channels; bit 0 before this pair, bit 1 after its clip
    std::vector<float> above;  ///< the running sum received from the slab above (first sweep)
    HostFloats original;       ///< held channels, when kept in host memory
    bool counted = false;
    std::optional<ValuesAbove> kept;  ///< the first sweep's values above `kept_bound`
    double kept_bound = 0;
    std::optional<std::uint64_t> owned_count;  ///< voxels of the mask in the owned channels, when known
  };
  /// What the kept values were smoothed from: the original, or a pair, its replacement and the
  /// mask (mask_version_) it replaced.
  struct KeptFrom {
    bool smoothed = false;
    double fwhm_xy = 0;
    std::size_t width_z = 0;
    std::optional<float> replacement;
    std::uint64_t mask_version = 0;
  };
  [[nodiscard]] KeptFrom kept_from(const std::optional<KernelPair>& pair, std::optional<float> replacement) const;
  [[nodiscard]] bool kept_values_match(const KeptFrom& now) const;
  void keep_values_above(Streamed& s, std::span<const float> samples, const Request::KeepAbove& keep);
  /// Clips slab s from its kept values into bit 0 of its owned mask; false when they cannot do it.
  bool clip_from_kept(Streamed& s, double threshold);

  void read(Streamed& s, std::span<float> out);
  /// Channels [z0, z1) of slab s, counting its blanks only while it has not been read whole once.
  void read_part(Streamed& s, std::size_t z0, std::size_t z1, std::span<float> out);
  /// Channels [z0, z1) of `slab` into `out`, counting the blanks of its owned channels.
  void read_channels(const Slab& slab, std::size_t z0, std::size_t z1, std::span<float> out);
  void activate(Streamed& s);
  void smooth(const std::optional<KernelPair>& pair, std::optional<float> replacement, SpectralCarry& carry);
  Streamed& state(std::size_t j);

  const SlabLayout& layout_;
  ScfindBackend& backend_;
  const io::CubeInfo& info_;
  MPI_Comm comm_;
  PhaseClock* clock_;
  std::vector<std::size_t> mine_;
  std::vector<Streamed> streamed_;
  std::map<std::size_t, std::vector<std::uint8_t>> labels_;  ///< per slab, owned voxels
  std::vector<float> read_buffer_;
  std::uint64_t mask_version_ = 0;  ///< advances whenever the mask changes
  bool keep_values_ = false;
  bool keep_in_backend_ = false;  ///< SlabKeeping::backend_originals
  KeptFrom kept_from_;
  bool kept_valid_ = false;
  std::uint64_t clips_from_kept_ = 0, clips_smoothed_ = 0;
  StreamSeconds stream_seconds_;
  std::uint64_t kept_values_ = 0;
  io::ChannelReadCounts counts_{};
  double read_seconds_ = 0;
  std::uint64_t read_bytes_ = 0;
};

}  // namespace astrosweep::scfind
