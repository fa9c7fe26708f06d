// The CUDA scfind backend: host side. One slab lives on the device for the whole job: the
// original (held channels), two working copies that the boxcar passes ping-pong between, and the
// mask. Kernels run in order on one compute stream; transfers go through pinned staging on their
// own streams (host to device, device to host), ordered against the kernels by events, so the
// host's copy into one staging slot overlaps the DMA of the other. Nothing waits on the whole
// device; the host waits only where it needs a result (samples, min/max, masks, the spectral
// hand-over to the slab below, the mad's counts, the mask count). Small results (counts) are
// copied on the compute stream into pinned memory.

#include <cuda_runtime_api.h>
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <vector>

#include "cuda_device.hpp"
#include "cuda_memory.hpp"
#include "kernel_timer.hpp"
#include "mask_offsets_cuda.hpp"
#include "noise_cuda.hpp"
#include "scfind_backend_cuda.hpp"
#include "smooth_and_clip_cuda.hpp"
#include "sparse_voxels_cuda.hpp"

namespace astrosweep::scfind {

namespace {

constexpr std::size_t align_up(std::size_t n) { return (n + 255) / 256 * 256; }

/// Small results, in 64-bit words of device memory (DeviceLayout::words) and of a pinned mirror:
/// the number of magnitudes selected, the mask count, the number of values above a bound, the number
/// of mask offsets, the 256 digit counts of a median round.
constexpr std::size_t selected_word = 0, mask_count_word = 1, above_count_word = 2, offsets_word = 3, digit_words = 4,
                      result_words = digit_words + 256;

kernels::Flux device_flux(FluxRange range) {
  switch (range) {
    case FluxRange::negative: return kernels::Flux::negative;
    case FluxRange::positive: return kernels::Flux::positive;
    case FluxRange::full: return kernels::Flux::full;
  }
  return kernels::Flux::full;
}

/// Byte offsets of a slab's device arrays in one allocation, each 256-byte aligned; its size is
/// what scfind_backend_cuda_memory_needed reports and what the backend allocates.
struct DeviceLayout {
  /// Without the original when the backend holds originals apart (hold_originals()).
  explicit DeviceLayout(const Slab& slab, bool with_original = true) {
    const std::size_t held = slab.held_voxels(), plane = slab.cube.plane();
    if (with_original) original = add(held * sizeof(float));
    work[0] = add(held * sizeof(float));
    work[1] = add(held * sizeof(float));
    mask = add(held);
    carry_in = add(plane * sizeof(float));
    carry_out = add(plane * sizeof(float));
    scratch = add(kernels::min_max_scratch_floats * sizeof(float));
    result = add(2 * sizeof(float));
    select_scratch = add(kernels::select_scratch_words * sizeof(std::uint64_t));
    words = add(result_words * sizeof(std::uint64_t));
  }
  std::size_t add(std::size_t n) {
    const std::size_t at = bytes;
    bytes = align_up(bytes + n);
    return at;
  }
  std::size_t bytes = 0;
  std::size_t original = 0, mask = 0, carry_in = 0, carry_out = 0, scratch = 0, result = 0;
  std::size_t select_scratch = 0, words = 0;
  std::array<std::size_t, 2> work{};
};

/// Pinned staging per slot: transfers larger than this go in pipelined chunks.
constexpr std::size_t staging_chunk = std::size_t{16} << 20;
/// A block of channels load_from() reads at once (whole channels, at least one): large enough that
/// opening the file per block costs nothing, small enough that the first upload starts early.
constexpr std::size_t read_block_bytes = std::size_t{64} << 20;

std::string mib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

class CudaScfindBackend final : public ScfindBackend {
 public:
  explicit CudaScfindBackend(const BackendOptions& options) : device_(cuda::choose_device(options)) {
    all_threads_ = std::max(1, options.threads > 0 ? options.threads : omp_get_max_threads());
    copy_threads_ = std::min(all_threads_, 4);
    compute_ = std::make_unique<cuda::Stream>();
    upload_ = std::make_unique<cuda::Stream>();
    download_ = std::make_unique<cuda::Stream>();
    words_host_.reserve(result_words * sizeof(std::uint64_t));
  }

  [[nodiscard]] std::string describe() const override { return device_.describe(mib(device_.memory_budget)); }

  [[nodiscard]] std::uint64_t memory_budget() const override { return device_.memory_budget; }

  [[nodiscard]] std::optional<double> kernel_seconds() const override {
    compute_->synchronize();  // const: waits for queued kernels so their time counts (mutable bookkeeping only)
    kernel_timer_.collect();
    return kernel_timer_.seconds();
  }

  [[nodiscard]] std::string usage() const override {
    // const: waits for queued kernels so their time counts (mutable bookkeeping only)
    compute_->synchronize();
    kernel_timer_.collect();
    char line[448];
    int n = std::snprintf(line, sizeof line, "GPU %d: %s device memory, %s pinned, kernels %.3f s", device_.index,
                          mib(memory_.bytes() + held_bytes_).c_str(),
                          mib(staging_.bytes() + carry_host_.bytes()).c_str(), kernel_timer_.seconds());
    if (!held_.empty() && n > 0 && static_cast<std::size_t>(n) < sizeof line)
      n += std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n), ", %zu slab originals held (%s)",
                         held_.size(), mib(held_bytes_).c_str());
    if (direct_.bytes > 0 && n > 0 && static_cast<std::size_t>(n) < sizeof line)
      n += std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n),
                         ", slabs loaded from page-locked memory %.1f GB in %.2f s", direct_.bytes / 1e9,
                         direct_.seconds);
    if (staged_loads_.bytes > 0 && n > 0 && static_cast<std::size_t>(n) < sizeof line)
      std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n), ", through staging %.1f GB in %.2f s",
                    staged_loads_.bytes / 1e9, staged_loads_.seconds);
    return line;
  }

  void load(const Slab& slab, std::span<const float> original) override {
    AS_ASSERT(original.size() == slab.held_voxels());
    const PhaseClock::Scope phase(phase_clock(), Phase::transfers);
    begin_load(slab);
    const cuda::DeviceScope scope(device_.index);
    const auto t0 = std::chrono::steady_clock::now();
    const bool direct = page_locked(original.data());
    if (direct)
      upload_direct(original_, original.data(), original.size_bytes());
    else
      upload(original_, original.data(), original.size_bytes());
    Transfers& t = direct ? direct_ : staged_loads_;
    t.bytes += static_cast<double>(original.size_bytes());
    t.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    finish_load();
  }

  void hold_originals() override { hold_ = true; }

  bool load_held(const Slab& slab) override {
    const auto it = held_.find({slab.held_begin, slab.held_end});
    if (it == held_.end() || !it->second.filled) return false;
    begin_load(slab);
    smoothed_ = original_;
    loaded_ = true;
    return true;
  }

  /// 2 MiB-aligned memory asked to live on huge pages, its pages faulted in on all threads, then
  /// registered with the driver: cudaMallocHost of the WALLABY cube's 11.7 GB took 7.6 s on an H100
  /// host (one thread clearing and locking 4 KiB pages).
  [[nodiscard]] HostFloats host_floats(std::size_t count) const override {
    if (count == 0) return {};
    constexpr std::size_t huge_page = std::size_t{2} << 20;
    const std::size_t bytes = (count * sizeof(float) + huge_page - 1) / huge_page * huge_page;
    void* p = std::aligned_alloc(huge_page, bytes);
    if (p == nullptr) throw std::bad_alloc();
    (void)madvise(p, bytes, MADV_HUGEPAGE);  // advice only: plain pages where the kernel has none
    auto* first = static_cast<volatile char*>(p);
    const auto pages = static_cast<std::int64_t>(bytes / 4096);
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < pages; ++k) first[k * 4096] = 0;
    const cuda::DeviceScope scope(device_.index);
    try {
      cuda::host_register(p, bytes);
    } catch (...) {
      std::free(p);
      throw;
    }
    return {static_cast<float*>(p), count, [](void* q) noexcept {
              cuda::host_unregister(q);
              std::free(q);
            }};
  }

  /// The held channels read in blocks straight into two pinned slots, each block's upload running
  /// while the next is read: no whole-cube host buffer (whose fresh pages cost more to fault in
  /// than to fill) and no second copy through the staging slots.
  void load_from(const Slab& slab, const ChannelReader& read) override {
    const PhaseClock::Scope phase(phase_clock(), Phase::transfers);  // the reads are the reader's
    begin_load(slab);
    const cuda::DeviceScope scope(device_.index);
    const std::size_t plane = slab.cube.plane();
    const std::size_t channels = std::max<std::size_t>(1, read_block_bytes / (plane * sizeof(float)));
    const std::size_t slot = align_up(channels * plane * sizeof(float));
    cuda::PinnedMemory blocks;
    blocks.reserve(2 * slot);
    // On every way out (a read may throw) the uploads from the slots finish before the slots go.
    struct UploadsDone {
      cudaStream_t stream;
      ~UploadsDone() { cudaStreamSynchronize(stream); }
    } const uploads_done{upload_->get()};
    staged_.record(*compute_);  // the mask's clearing is queued there
    AS_CUDA_TRY(cudaStreamWaitEvent(upload_->get(), staged_.get(), 0));
    float* device = original_;
    for (std::size_t z = slab.held_begin, k = 0; z < slab.held_end; z += channels, ++k) {
      const std::size_t z1 = std::min(slab.held_end, z + channels), n = (z1 - z) * plane;
      float* host = reinterpret_cast<float*>(blocks.as<char>() + (k % 2) * slot);
      slot_free_[k % 2].synchronize();  // the upload from this slot two blocks ago has finished
      read(z, z1, std::span<float>(host, n));
      AS_CUDA_TRY(cudaMemcpyAsync(device + (z - slab.held_begin) * plane, host, n * sizeof(float),
                                  cudaMemcpyHostToDevice, upload_->get()));
      slot_free_[k % 2].record(*upload_);
    }
    staged_.record(*upload_);
    AS_CUDA_TRY(cudaStreamWaitEvent(compute_->get(), staged_.get(), 0));
    upload_->synchronize();  // errors reported here; uploads_done then finds nothing to wait for
    finish_load();
  }

  /// A load's last step: the original is the smoothed data, and a held original is complete.
  void finish_load() {
    smoothed_ = original_;
    loaded_ = true;
    if (hold_) held_.at({slab_.held_begin, slab_.held_end}).filled = true;
  }

  /// load()'s first steps: the slab checked against the budget, the device memory sized, the
  /// mask cleared (queued on the compute stream).
  void begin_load(const Slab& slab) {
    AS_ASSERT(slab.held_begin <= slab.own_begin && slab.own_begin < slab.own_end && slab.own_end <= slab.held_end &&
              slab.held_end <= slab.cube.nz);
    const DeviceLayout layout(slab, !hold_);
    const std::pair<std::size_t, std::size_t> key{slab.held_begin, slab.held_end};
    const bool new_original = hold_ && !held_.contains(key);
    const std::uint64_t originals = held_bytes_ + (new_original ? slab.held_voxels() * sizeof(float) : 0);
    const std::uint64_t needed = std::max<std::uint64_t>(layout.bytes, memory_.bytes()) + originals;
    AS_EXPECTS(needed <= device_.memory_budget, RuntimeError,
               "a slab of " + std::to_string(slab.held_channels()) + " channels of " + std::to_string(slab.cube.nx) +
                   " x " + std::to_string(slab.cube.ny) + " pixels needs " + mib(needed) +
                   (hold_ ? " of GPU memory with the originals held, " : " of GPU memory, ") +
                   "more than this rank's budget of " + mib(device_.memory_budget) + " on GPU " +
                   std::to_string(device_.index),
               "raise the GPU memory budget (--gpu-memory-mb), run more ranks so that each holds fewer channels, "
               "or use --backend cpu");
    const cuda::DeviceScope scope(device_.index);
    idle();  // earlier work may still read the buffers that reserve() replaces
    ++generation_;
    slab_ = slab;
    layout_ = layout;
    memory_.reserve(layout.bytes);
    if (hold_) {
      auto it = held_.find(key);
      if (it == held_.end()) {
        HeldOriginal held;
        held.memory.reserve(slab.held_voxels() * sizeof(float));
        it = held_.emplace(key, std::move(held)).first;
        held_bytes_ = originals;
      }
      original_ = it->second.memory.as<float>();
    } else {
      original_ = at<float>(layout_.original);
    }
    carry_host_.reserve(2 * slab.cube.plane() * sizeof(float));
    AS_CUDA_TRY(cudaMemsetAsync(at<std::uint8_t>(layout_.mask), 0, slab.held_voxels(), compute_->get()));
    loaded_ = false;
  }

  void smooth(const KernelPair& pair, std::optional<float> replacement, SpectralCarry& carry) override {
    AS_ASSERT(loaded_);
    const cuda::DeviceScope scope(device_.index);
    ++generation_;
    const Slab& s = slab_;
    const std::size_t plane = s.cube.plane(), r = pair.radius_z;
    const bool spectral = r > 0;
    // The spectral sum reads r channels below and r + 1 above each owned one (zero beyond the cube).
    if (spectral)
      AS_ASSERT(s.held_begin <= (s.own_begin > r ? s.own_begin - r : 0) &&
                s.held_end >= std::min(s.cube.nz, s.own_end + r + 1));
    // Without a spectral pass only the owned channels are ever read.
    const std::size_t z0 = spectral ? s.held_begin : s.own_begin, z1 = spectral ? s.held_end : s.own_end;
    const std::size_t offset = (z0 - s.held_begin) * plane, n = (z1 - z0) * plane;
    const cudaStream_t stream = compute_->get();
    const float* original = original_;
    std::array<float*, 2> work{at<float>(layout_.work[0]), at<float>(layout_.work[1])};

    kernel_timer_.start(*compute_);
    kernels::prepare_working_copy(original + offset, at<std::uint8_t>(layout_.mask) + offset, work[0] + offset, n,
                                  replacement.has_value(), replacement.value_or(0.0f), stream);
    int current = 0;
    const BoxcarPlan& plan = pair.spatial;
    for (std::size_t p = 0; p < plan.passes; ++p, current ^= 1)
      kernels::boxcar_x(work[current] + offset, work[current ^ 1] + offset, s.cube.nx, s.cube.ny * (z1 - z0),
                        plan.radius, stream);
    for (std::size_t p = 0; p < plan.passes; ++p, current ^= 1) {
      const bool last = !spectral && p + 1 == plan.passes;  // it restores the blanks itself
      kernels::boxcar_y(work[current] + offset, work[current ^ 1] + offset, s.cube.nx, s.cube.ny, z1 - z0, plan.radius,
                        last ? original + offset : nullptr, stream);
    }
    if (!spectral && plan.passes == 0) kernels::restore_blanks(original + offset, work[current] + offset, n, stream);
    kernel_timer_.stop(*compute_);
    if (!spectral) {
      smoothed_ = work[current];
      return;
    }
    spectral_pass(work[current], work[current ^ 1], r, carry);
    smoothed_ = work[current ^ 1];
  }

  void use_original() override {
    AS_ASSERT(loaded_);
    smoothed_ = original_;
  }

  [[nodiscard]] std::vector<float> samples(const SampleRange& range, std::size_t cadence) override {
    AS_ASSERT(loaded_);
    ++generation_;  // the spare working copy is overwritten
    if (range.count == 0) return {};
    check_owned(range, cadence);
    const cuda::DeviceScope scope(device_.index);
    float* spare = spare_copy();
    kernel_timer_.start(*compute_);
    kernels::gather_samples(smoothed_, range.highest - slab_.held_begin * slab_.cube.plane(), cadence, range.count,
                            spare, compute_->get());
    kernel_timer_.stop(*compute_);
    std::vector<float> values(range.count);
    download(values.data(), spare, values.size() * sizeof(float));
    kernel_timer_.collect();
    return values;
  }

  /// The magnitudes go to the spare working copy (the samples lie in the owned voxels, so there are
  /// fewer of them than it holds); their number comes back, their counts per round later.
  [[nodiscard]] std::unique_ptr<MagnitudeCounter> magnitudes(const SampleRange& range, std::size_t cadence,
                                                             FluxRange flux) override {
    AS_ASSERT(loaded_);
    ++generation_;
    if (range.count == 0) return std::make_unique<DeviceMagnitudes>(*this, nullptr, 0);
    check_owned(range, cadence);
    const cuda::DeviceScope scope(device_.index);
    auto* values = reinterpret_cast<std::uint32_t*>(spare_copy());
    kernel_timer_.start(*compute_);
    kernels::select_magnitudes(smoothed_, range.highest - slab_.held_begin * slab_.cube.plane(), cadence, range.count,
                               device_flux(flux), values, at<std::uint64_t>(layout_.select_scratch),
                               word(selected_word), compute_->get());
    kernel_timer_.stop(*compute_);
    fetch_words(selected_word, 1);
    const std::uint64_t selected = words_host_.as<std::uint64_t>()[selected_word];
    AS_ASSERT(selected <= range.count);
    return std::make_unique<DeviceMagnitudes>(*this, values, selected);
  }

  [[nodiscard]] std::pair<float, float> finite_min_max() override {
    AS_ASSERT(loaded_);
    const cuda::DeviceScope scope(device_.index);
    kernel_timer_.start(*compute_);
    kernels::finite_min_max(smoothed_ + slab_.owned_offset(), slab_.owned_voxels(), at<float>(layout_.scratch),
                            at<float>(layout_.result), compute_->get());
    kernel_timer_.stop(*compute_);
    float result[2];
    download(result, at<float>(layout_.result), sizeof result);
    kernel_timer_.collect();
    return {result[0], result[1]};
  }

  void clip(double threshold) override {
    AS_ASSERT(loaded_);
    const cuda::DeviceScope scope(device_.index);
    kernel_timer_.start(*compute_);
    kernels::clip(smoothed_ + slab_.owned_offset(), slab_.owned_voxels(), threshold,
                  at<std::uint8_t>(layout_.mask) + slab_.owned_offset(), compute_->get());
    kernel_timer_.stop(*compute_);
  }

  /// The hits go to the spare working copy (offsets, then values: 12 bytes each against its 4 a
  /// held voxel: a quarter of the owned voxels fit); only they come back.
  [[nodiscard]] std::optional<ValuesAbove> values_above(double bound, std::uint64_t limit) override {
    AS_ASSERT(loaded_);
    ++generation_;
    const cuda::DeviceScope scope(device_.index);
    AS_ASSERT(limit <= slab_.owned_voxels() / 4);
    const std::uint64_t room = limit;
    auto* offsets = reinterpret_cast<std::uint64_t*>(spare_copy());
    auto* values = reinterpret_cast<float*>(offsets + room);
    kernel_timer_.start(*compute_);
    kernels::values_above(smoothed_ + slab_.owned_offset(), slab_.owned_voxels(), bound, room, offsets, values,
                          word(above_count_word), compute_->get());
    kernel_timer_.stop(*compute_);
    fetch_words(above_count_word, 1);
    const std::uint64_t found = words_host_.as<std::uint64_t>()[above_count_word];
    if (found > room) return std::nullopt;
    ValuesAbove above;
    above.offsets.resize(found);
    above.values.resize(found);
    download(above.offsets.data(), offsets, found * sizeof(std::uint64_t));
    download(above.values.data(), values, found * sizeof(float));
    return above;
  }

  [[nodiscard]] std::optional<std::uint64_t> mask_count() override {
    AS_ASSERT(loaded_);
    const cuda::DeviceScope scope(device_.index);
    kernel_timer_.start(*compute_);
    kernels::mask_count(at<std::uint8_t>(layout_.mask) + slab_.owned_offset(), slab_.owned_voxels(),
                        word(mask_count_word), compute_->get());
    kernel_timer_.stop(*compute_);
    fetch_words(mask_count_word, 1);
    return words_host_.as<std::uint64_t>()[mask_count_word];
  }

  [[nodiscard]] std::vector<std::uint8_t> mask_channels(std::size_t z0, std::size_t z1) override {
    std::vector<std::uint8_t> values((z1 - z0) * slab_.cube.plane());
    copy_mask_channels(z0, z1, values);
    return values;
  }

  void copy_mask_channels(std::size_t z0, std::size_t z1, std::span<std::uint8_t> out) override {
    AS_ASSERT(loaded_ && slab_.held_begin <= z0 && z0 <= z1 && z1 <= slab_.held_end);
    const cuda::DeviceScope scope(device_.index);
    const std::size_t plane = slab_.cube.plane();
    AS_ASSERT(out.size() == (z1 - z0) * plane);
    download(out.data(), at<std::uint8_t>(layout_.mask) + (z0 - slab_.held_begin) * plane, out.size());
    kernel_timer_.collect();
  }

  /// Counted and gathered on the device into the spare working copy (room for an offset per two
  /// held voxels); only the offsets come down. A fuller mask comes down whole (the seam's default).
  [[nodiscard]] std::vector<std::uint64_t> mask_offsets(std::size_t z0, std::size_t z1) override {
    static_assert(kernels::mask_offsets_scratch_words <= kernels::select_scratch_words);
    AS_ASSERT(loaded_ && slab_.held_begin <= z0 && z0 <= z1 && z1 <= slab_.held_end);
    const cuda::DeviceScope scope(device_.index);
    const std::size_t plane = slab_.cube.plane();
    const std::uint8_t* mask = at<std::uint8_t>(layout_.mask) + (z0 - slab_.held_begin) * plane;
    const std::uint64_t n = (z1 - z0) * plane;
    std::uint64_t* scratch = at<std::uint64_t>(layout_.select_scratch);
    kernel_timer_.start(*compute_);
    kernels::count_mask_offsets(mask, n, scratch, word(offsets_word), compute_->get());
    kernel_timer_.stop(*compute_);
    fetch_words(offsets_word, 1);
    const std::uint64_t count = words_host_.as<std::uint64_t>()[offsets_word];
    if (count > slab_.held_voxels() * sizeof(float) / sizeof(std::uint64_t)) return ScfindBackend::mask_offsets(z0, z1);
    ++generation_;  // the spare working copy is overwritten
    auto* offsets_device = reinterpret_cast<std::uint64_t*>(spare_copy());
    kernel_timer_.start(*compute_);
    kernels::write_mask_offsets(mask, n, scratch, offsets_device, compute_->get());
    kernel_timer_.stop(*compute_);
    std::vector<std::uint64_t> offsets(count);
    download(offsets.data(), offsets_device, count * sizeof(std::uint64_t));
    kernel_timer_.collect();
    return offsets;
  }

  void copy_original_channels(std::size_t z0, std::size_t z1, std::span<float> out) override {
    AS_ASSERT(loaded_ && slab_.held_begin <= z0 && z0 <= z1 && z1 <= slab_.held_end);
    const cuda::DeviceScope scope(device_.index);
    const std::size_t plane = slab_.cube.plane();
    AS_ASSERT(out.size() == (z1 - z0) * plane);
    download(out.data(), original_ + (z0 - slab_.held_begin) * plane, out.size_bytes());
    kernel_timer_.collect();
  }

  void set_mask_channels(std::size_t z0, std::span<const std::uint8_t> values) override {
    const std::size_t plane = slab_.cube.plane();
    AS_ASSERT(loaded_ && plane > 0 && values.size() % plane == 0 && slab_.held_begin <= z0 &&
              z0 + values.size() / plane <= slab_.held_end);
    const cuda::DeviceScope scope(device_.index);
    upload(at<std::uint8_t>(layout_.mask) + (z0 - slab_.held_begin) * plane, values.data(), values.size());
  }

  /// The offsets go through the spare working copy (half a held voxel's count of them at a time).
  void set_mask_voxels(std::size_t z0, std::span<const std::uint64_t> offsets) override {
    AS_ASSERT(loaded_ && slab_.held_begin <= z0 && z0 <= slab_.held_end);
    if (offsets.empty()) return;
    ++generation_;
    const cuda::DeviceScope scope(device_.index);
    const std::uint64_t room = (slab_.held_end - z0) * slab_.cube.plane();
    for (const std::uint64_t offset : offsets) AS_ASSERT(offset < room);
    auto* staged = reinterpret_cast<std::uint64_t*>(spare_copy());
    const std::size_t batch = std::max<std::size_t>(1, slab_.held_voxels() / 2);
    std::uint8_t* mask = at<std::uint8_t>(layout_.mask) + (z0 - slab_.held_begin) * slab_.cube.plane();
    for (std::size_t first = 0; first < offsets.size(); first += batch) {
      const std::size_t n = std::min(batch, offsets.size() - first);
      upload(staged, offsets.data() + first, n * sizeof(std::uint64_t));  // waits for the kernels before
      kernel_timer_.start(*compute_);
      kernels::set_mask_voxels(staged, n, mask, compute_->get());
      kernel_timer_.stop(*compute_);
    }
  }

 private:
  /// The mad's magnitudes in the backend's spare working copy: valid while no later call has
  /// overwritten it (generation_ tells), and only as long as the backend lives.
  class DeviceMagnitudes final : public MagnitudeCounter {
   public:
    DeviceMagnitudes(CudaScfindBackend& backend, const std::uint32_t* values, std::uint64_t size)
        : backend_(backend), values_(values), size_(size), generation_(backend.generation_) {}
    [[nodiscard]] std::uint64_t size() const override { return size_; }
    void keep_first(std::uint64_t n) override {
      AS_ASSERT(n <= size_);
      size_ = n;
    }
    [[nodiscard]] Counts count(std::uint32_t prefix, std::uint32_t mask, int shift) override {
      AS_ASSERT(backend_.generation_ == generation_);  // the values are still there
      AS_ASSERT(shift >= 0 && shift <= 24);
      if (size_ == 0) return {};
      return backend_.count_digits(values_, size_, prefix, mask, shift);
    }

   private:
    CudaScfindBackend& backend_;
    const std::uint32_t* values_;
    std::uint64_t size_;
    std::uint64_t generation_;
  };

  MagnitudeCounter::Counts count_digits(const std::uint32_t* values, std::uint64_t n, std::uint32_t prefix,
                                        std::uint32_t mask, int shift) {
    const PhaseClock::Scope phase(phase_clock(), Phase::compute);  // called from the noise's statistics
    const cuda::DeviceScope scope(device_.index);
    kernel_timer_.start(*compute_);
    kernels::digit_histogram(values, n, prefix, mask, shift, word(digit_words), compute_->get());
    kernel_timer_.stop(*compute_);
    fetch_words(digit_words, 256);
    MagnitudeCounter::Counts counts{};
    std::memcpy(counts.data(), words_host_.as<std::uint64_t>() + digit_words, sizeof counts);
    return counts;
  }

  template <class T>
  [[nodiscard]] T* at(std::size_t offset) const {
    return reinterpret_cast<T*>(memory_.as<char>() + offset);
  }

  [[nodiscard]] std::uint64_t* word(std::size_t i) const { return at<std::uint64_t>(layout_.words) + i; }

  /// Copies words [first, first + n) of the small results to their pinned mirror after the kernels
  /// queued so far, and waits for them.
  void fetch_words(std::size_t first, std::size_t n) {
    AS_CUDA_TRY(cudaMemcpyAsync(words_host_.as<std::uint64_t>() + first, word(first), n * sizeof(std::uint64_t),
                                cudaMemcpyDeviceToHost, compute_->get()));
    compute_->synchronize();
    kernel_timer_.collect();
  }

  /// A working copy that does not hold the smoothed data: samples and magnitudes go there.
  [[nodiscard]] float* spare_copy() const {
    float* spare = at<float>(layout_.work[0]);
    return spare == smoothed_ ? at<float>(layout_.work[1]) : spare;
  }

  /// The samples highest, highest − cadence, ... (count > 0) lie in the owned voxels.
  void check_owned(const SampleRange& range, std::size_t cadence) const {
    const std::uint64_t plane = slab_.cube.plane();
    AS_ASSERT(cadence > 0 && range.highest >= (range.count - 1) * cadence);
    const std::uint64_t lowest = range.highest - (range.count - 1) * cadence;
    AS_ASSERT(lowest >= slab_.own_begin * plane && range.highest < slab_.own_end * plane);
  }

  /// The spectral running sum over the owned channels, row block by row block: the running values
  /// of channel own_end come from the slab above (or the sum starts at the top of the cube), and
  /// those of own_begin go to the slab below, before the blanks are restored.
  void spectral_pass(const float* in, float* out, std::size_t radius, SpectralCarry& carry) {
    const Slab& s = slab_;
    const std::size_t nx = s.cube.nx, plane = s.cube.plane();
    kernels::SpectralPass pass;
    pass.in = in;
    pass.original = original_;
    pass.out = out;
    pass.plane = plane;
    pass.nz = s.cube.nz;
    pass.held_begin = s.held_begin;
    pass.own_begin = s.own_begin;
    pass.own_end = s.own_end;
    pass.radius = radius;
    pass.carry_in = s.at_top() ? nullptr : at<float>(layout_.carry_in);
    pass.carry_out = s.at_bottom() ? nullptr : at<float>(layout_.carry_out);
    if (s.at_top() && s.at_bottom()) {  // a single slab: no hand-over, one launch
      pass.first_pixel = 0;
      pass.end_pixel = plane;
      kernel_timer_.start(*compute_);
      kernels::boxcar_z(pass, compute_->get());
      kernel_timer_.stop(*compute_);
      return;
    }
    // The hand-over buffers are reused from pass to pass: this pass's copies into them follow the
    // earlier kernels (device side) and copies (host side).
    upload_->synchronize();
    staged_.record(*compute_);
    AS_CUDA_TRY(cudaStreamWaitEvent(upload_->get(), staged_.get(), 0));
    auto blocks = carry.row_blocks();
    if (blocks.empty()) blocks.emplace_back(0, s.cube.ny);
    float* received = carry_host_.as<float>();
    float* sent = received + plane;
    for (const auto& [y0, y1] : blocks) {
      AS_ASSERT(y0 <= y1 && y1 <= s.cube.ny);
      const std::size_t first = y0 * nx, count = (y1 - y0) * nx;
      pass.first_pixel = first;
      pass.end_pixel = first + count;
      if (!s.at_top()) {
        carry.receive(y0, y1, std::span<float>(received + first, count));
        AS_CUDA_TRY(cudaMemcpyAsync(at<float>(layout_.carry_in) + first, received + first, count * sizeof(float),
                                    cudaMemcpyHostToDevice, upload_->get()));
        received_.record(*upload_);
        AS_CUDA_TRY(cudaStreamWaitEvent(compute_->get(), received_.get(), 0));
      }
      kernel_timer_.start(*compute_);
      kernels::boxcar_z(pass, compute_->get());
      kernel_timer_.stop(*compute_);
      if (!s.at_bottom()) {
        computed_.record(*compute_);
        AS_CUDA_TRY(cudaStreamWaitEvent(download_->get(), computed_.get(), 0));
        AS_CUDA_TRY(cudaMemcpyAsync(sent + first, at<float>(layout_.carry_out) + first, count * sizeof(float),
                                    cudaMemcpyDeviceToHost, download_->get()));
        sent_.record(*download_);
        while (!sent_.ready()) carry.progress();  // the earlier blocks' sends move on meanwhile
        carry.send(y0, y1, std::span<const float>(sent + first, count));
      }
    }
  }

  /// Copies `bytes` from pageable host memory to the device through the two pinned slots: the host
  /// fills one slot while the other's DMA runs. Returns once the host memory may be reused; the
  /// compute stream waits for the copy.
  void upload(void* device, const void* host, std::size_t bytes) {
    if (bytes == 0) return;
    const PhaseClock::Scope phase(phase_clock(), Phase::transfers);
    reserve_staging(bytes);
    staged_.record(*compute_);  // kernels queued so far may still use the destination
    AS_CUDA_TRY(cudaStreamWaitEvent(upload_->get(), staged_.get(), 0));
    const std::size_t slot_bytes = staging_.bytes() / 2;
    for (std::size_t done = 0, k = 0; done < bytes; done += slot_bytes, ++k) {
      const std::size_t n = std::min(slot_bytes, bytes - done);
      char* slot = staging_.as<char>() + (k % 2) * slot_bytes;
      slot_free_[k % 2].synchronize();  // this slot's previous DMA has finished
      parallel_copy(slot, static_cast<const char*>(host) + done, n);
      AS_CUDA_TRY(cudaMemcpyAsync(static_cast<char*>(device) + done, slot, n, cudaMemcpyHostToDevice, upload_->get()));
      slot_free_[k % 2].record(*upload_);
    }
    staged_.record(*upload_);
    AS_CUDA_TRY(cudaStreamWaitEvent(compute_->get(), staged_.get(), 0));
  }

  /// Whether `host` lies in page-locked memory (host_floats()), which the DMA reads directly.
  [[nodiscard]] static bool page_locked(const void* host) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, host) != cudaSuccess) {
      (void)cudaGetLastError();  // plain memory on older runtimes: not an error to keep
      return false;
    }
    return attributes.type == cudaMemoryTypeHost;
  }

  /// Copies `bytes` from page-locked host memory after the kernels queued so far, in one DMA on
  /// the upload stream; returns when it has finished (the caller may then change the memory).
  void upload_direct(void* device, const void* host, std::size_t bytes) {
    const PhaseClock::Scope phase(phase_clock(), Phase::transfers);
    staged_.record(*compute_);
    AS_CUDA_TRY(cudaStreamWaitEvent(upload_->get(), staged_.get(), 0));
    AS_CUDA_TRY(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, upload_->get()));
    staged_.record(*upload_);
    AS_CUDA_TRY(cudaStreamWaitEvent(compute_->get(), staged_.get(), 0));
    upload_->synchronize();
  }

  /// Copies `bytes` from the device to pageable host memory after the kernels queued so far,
  /// through the pinned slots (the DMA of one chunk overlaps the host's copy of the previous one).
  void download(void* host, const void* device, std::size_t bytes) {
    if (bytes == 0) return;
    {
      // The copy waits for the kernels queued before it anyway: waited for here, they are not
      // counted as the transfer's time.
      const PhaseClock::Scope phase(phase_clock(), Phase::compute);
      compute_->synchronize();
    }
    const PhaseClock::Scope phase(phase_clock(), Phase::transfers);
    reserve_staging(bytes);
    staged_.record(*compute_);
    AS_CUDA_TRY(cudaStreamWaitEvent(download_->get(), staged_.get(), 0));
    const std::size_t slot_bytes = staging_.bytes() / 2;
    const std::size_t chunks = (bytes + slot_bytes - 1) / slot_bytes;
    auto enqueue = [&](std::size_t k) {
      slot_free_[k % 2].synchronize();  // an upload's DMA may still read this slot
      const std::size_t n = std::min(slot_bytes, bytes - k * slot_bytes);
      AS_CUDA_TRY(cudaMemcpyAsync(staging_.as<char>() + (k % 2) * slot_bytes,
                                  static_cast<const char*>(device) + k * slot_bytes, n, cudaMemcpyDeviceToHost,
                                  download_->get()));
      slot_free_[k % 2].record(*download_);
    };
    for (std::size_t k = 0; k < std::min<std::size_t>(2, chunks); ++k) enqueue(k);
    for (std::size_t k = 0; k < chunks; ++k) {
      slot_free_[k % 2].synchronize();
      const std::size_t n = std::min(slot_bytes, bytes - k * slot_bytes);
      // All the rank's threads: nothing else runs on the host meanwhile, and the copy also faults in
      // the destination's fresh pages (the linker's 12.6 GB of cube values took 2.4-2.6 s on 4).
      parallel_copy(static_cast<char*>(host) + k * slot_bytes, staging_.as<char>() + (k % 2) * slot_bytes, n,
                    all_threads_);
      if (k + 2 < chunks) enqueue(k + 2);
    }
    compute_->synchronize();  // the kernels before the copy are done too: their clock can be read
  }

  /// Two slots of up to staging_chunk bytes each; grows only when no copy uses them.
  void reserve_staging(std::size_t bytes) {
    const std::size_t slot = align_up(std::min(bytes, staging_chunk));
    if (2 * slot <= staging_.bytes()) return;
    for (auto& e : slot_free_) e.synchronize();
    staging_.reserve(2 * slot);
  }

  /// Uploads copy on at most 4 threads (load_from's readers run beside them).
  void parallel_copy(char* to, const char* from, std::size_t n) const { parallel_copy(to, from, n, copy_threads_); }
  static void parallel_copy(char* to, const char* from, std::size_t n, int threads) {
    if (n < (std::size_t{1} << 20) || threads == 1) {
      std::memcpy(to, from, n);
      return;
    }
    const std::size_t part = (n + threads - 1) / threads;
#pragma omp parallel for num_threads(threads)
    for (int t = 0; t < threads; ++t) {
      const std::size_t begin = std::min(n, static_cast<std::size_t>(t) * part);
      std::memcpy(to + begin, from + begin, std::min(n, begin + part) - begin);
    }
  }

  /// Waits for every stream of this backend (not the device): before buffers are replaced.
  void idle() {
    compute_->synchronize();
    upload_->synchronize();
    download_->synchronize();
    kernel_timer_.collect();
  }

  const cuda::DeviceChoice device_;  ///< first: chosen and made current before the streams and events below
  int copy_threads_ = 1, all_threads_ = 1;
  std::unique_ptr<cuda::Stream> compute_, upload_, download_;
  cuda::Event staged_, received_, computed_, sent_;
  std::array<cuda::Event, 2> slot_free_;
  cuda::DeviceMemory memory_;
  cuda::PinnedMemory staging_, carry_host_, words_host_;
  Slab slab_;
  DeviceLayout layout_{Slab{}};
  /// The loaded slab's original: in memory_ (layout_.original), or its held copy.
  float* original_ = nullptr;
  /// Originals held apart (hold_originals()), by held channels: filled once a load completed.
  struct HeldOriginal {
    cuda::DeviceMemory memory;
    bool filled = false;
  };
  bool hold_ = false;
  std::map<std::pair<std::size_t, std::size_t>, HeldOriginal> held_;
  std::uint64_t held_bytes_ = 0;
  bool loaded_ = false;
  const float* smoothed_ = nullptr;
  std::uint64_t generation_ = 0;  ///< advances whenever the spare working copy may be overwritten
  mutable cuda::KernelTimer kernel_timer_;
  /// load()'s copies, for usage(): the staged ones return before their last DMA finishes.
  struct Transfers {
    double bytes = 0, seconds = 0;
  };
  Transfers direct_, staged_loads_;
};

}  // namespace

std::uint64_t scfind_backend_cuda_memory_needed(const Slab& slab) { return DeviceLayout(slab).bytes; }

std::uint64_t scfind_backend_cuda_original_bytes(const Slab& slab) {
  return DeviceLayout(slab).bytes - DeviceLayout(slab, false).bytes;
}

std::unique_ptr<ScfindBackend> make_scfind_backend_cuda(const BackendOptions& options) {
  return std::make_unique<CudaScfindBackend>(options);
}

}  // namespace astrosweep::scfind
