#include "scfind_backend_cpu.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "boxcar_lanes.hpp"
#include "core/cpu_affinity.hpp"
#include "core/error.hpp"

namespace astrosweep::scfind {

namespace {

constexpr std::size_t lanes = 32;  // lines filtered together: 8 SSE / 4 AVX vectors in flight

/// Two lane buffers per thread, ping-ponged between boxcar passes; their padding rows stay zero.
class LaneBuffers {
 public:
  void reserve(std::size_t n, std::size_t radius) {
    const std::size_t size = lane_rows(n, radius) * lanes;
    if (a_.size() < size) {
      a_.assign(size, 0.0F);
      b_.assign(size, 0.0F);
    }
    n_ = n;
    radius_ = radius;
  }
  /// Clears the padding rows (a previous longer line may have left values there).
  void clear_padding() {
    for (std::vector<float>* buf : {&a_, &b_}) {
      std::fill_n(buf->begin(), radius_ * lanes, 0.0F);
      std::fill(buf->begin() + static_cast<std::ptrdiff_t>((n_ + radius_) * lanes),
                buf->begin() + static_cast<std::ptrdiff_t>(lane_rows(n_, radius_) * lanes), 0.0F);
    }
  }
  [[nodiscard]] float* row(std::size_t position) { return a_.data() + (position + radius_) * lanes; }
  /// `passes` boxcars; the result ends in the buffer row() reads.
  void run(std::size_t passes, float inv) {
    for (std::size_t p = 0; p < passes; ++p) {
      boxcar_lanes<lanes>(a_.data(), b_.data(), n_, radius_, inv);
      std::swap(a_, b_);
    }
  }
  /// One pass continued from `above` (W values) or from the end of the line.
  void run_once_from(const float* above, float inv) {
    boxcar_lanes<lanes>(a_.data(), b_.data(), n_, radius_, inv, above);
    std::swap(a_, b_);
  }

 private:
  std::vector<float> a_, b_;
  std::size_t n_ = 0, radius_ = 0;
};

class OpenMpBackend final : public ScfindBackend {
 public:
  explicit OpenMpBackend(int threads) : threads_(threads > 0 ? threads : affinity::default_threads()) {}

  [[nodiscard]] std::string describe() const override { return "OpenMP (" + std::to_string(threads_) + " threads)"; }

  void load(const Slab& slab, std::span<const float> original) override {
    AS_ASSERT(original.size() == slab.held_voxels());
    slab_ = slab;
    const std::size_t n = slab.held_voxels();
    original_ = std::make_unique_for_overwrite<float[]>(n);
    work_ = std::make_unique_for_overwrite<float[]>(n);
    mask_ = std::make_unique_for_overwrite<std::uint8_t[]>(n);
    const float* src = original.data();
    float* dst = original_.get();
    std::uint8_t* mask = mask_.get();
#pragma omp parallel for schedule(static) num_threads(threads_)  // first touch by the threads that use it
    for (std::size_t i = 0; i < n; ++i) {
      dst[i] = src[i];
      mask[i] = 0;
    }
    smoothed_ = original_.get();
  }

  void use_original() override { smoothed_ = original_.get(); }

  [[nodiscard]] std::optional<std::span<const float>> original_channels(std::size_t z0, std::size_t z1) const override {
    AS_ASSERT(original_ && slab_.held_begin <= z0 && z0 <= z1 && z1 <= slab_.held_end);
    const std::size_t plane = slab_.cube.plane();
    return std::span<const float>(original_.get() + (z0 - slab_.held_begin) * plane, (z1 - z0) * plane);
  }

  void smooth(const KernelPair& pair, std::optional<float> replacement, SpectralCarry& carry) override {
    const auto start = std::chrono::steady_clock::now();
    prepare(replacement);
    if (pair.spatial.passes > 0) spatial(pair.spatial);
    if (pair.radius_z > 0) spectral(pair.radius_z, carry);
    restore_blanks();
    smoothed_ = work_.get();
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  [[nodiscard]] std::vector<float> samples(const SampleRange& range, std::size_t cadence) override {
    std::vector<float> out(range.count);
    const std::uint64_t base = static_cast<std::uint64_t>(slab_.held_begin) * slab_.cube.plane();
    for (std::uint64_t k = 0; k < range.count; ++k) {
      const std::uint64_t global = range.highest - k * cadence;
      AS_ASSERT(global >= base + slab_.owned_offset() && global - base < slab_.held_voxels());
      out[k] = smoothed_[global - base];
    }
    return out;
  }

  [[nodiscard]] std::pair<float, float> finite_min_max() override {
    const float* v = smoothed_ + slab_.owned_offset();
    const std::size_t n = slab_.owned_voxels();
    float lo = std::numeric_limits<float>::infinity();
    float hi = -std::numeric_limits<float>::infinity();
#pragma omp parallel for schedule(static) num_threads(threads_) reduction(min : lo) reduction(max : hi)
    for (std::size_t i = 0; i < n; ++i) {
      if (v[i] < lo) lo = v[i];
      if (v[i] > hi) hi = v[i];
    }
    if (lo > hi) return {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::quiet_NaN()};
    return {lo, hi};
  }

  void clip(double threshold) override {
    const float* v = smoothed_ + slab_.owned_offset();
    std::uint8_t* mask = mask_.get() + slab_.owned_offset();
    const std::size_t n = slab_.owned_voxels();
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (std::size_t i = 0; i < n; ++i) {
      mask[i] |=
          static_cast<std::uint8_t>(std::fabs(static_cast<double>(v[i])) > threshold);  // branch-free: vectorises
    }
  }

  [[nodiscard]] std::optional<ValuesAbove> values_above(double bound, std::uint64_t limit) override {
    AS_ASSERT(limit <= slab_.owned_voxels() / 4);
    const float* v = smoothed_ + slab_.owned_offset();
    const std::size_t n = slab_.owned_voxels();
    // Each thread keeps its static share's hits in order; their concatenation is in voxel order.
    // A thread past the limit only counts.
    std::vector<ValuesAbove> parts(static_cast<std::size_t>(threads_));
    std::uint64_t found = 0;
#pragma omp parallel num_threads(threads_) reduction(+ : found)
    {
      ValuesAbove& part = parts[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(static)
      for (std::size_t i = 0; i < n; ++i)
        if (std::fabs(static_cast<double>(v[i])) > bound) {
          if (++found <= limit) {
            part.offsets.push_back(i);
            part.values.push_back(v[i]);
          }
        }
    }
    if (found > limit) return std::nullopt;
    ValuesAbove all;
    all.offsets.reserve(found);
    all.values.reserve(found);
    for (const ValuesAbove& part : parts) {
      all.offsets.insert(all.offsets.end(), part.offsets.begin(), part.offsets.end());
      all.values.insert(all.values.end(), part.values.begin(), part.values.end());
    }
    return all;
  }

  [[nodiscard]] std::optional<std::uint64_t> mask_count() override {
    const std::uint8_t* mask = mask_.get() + slab_.owned_offset();
    const std::size_t n = slab_.owned_voxels();
    std::uint64_t count = 0;
#pragma omp parallel for schedule(static) num_threads(threads_) reduction(+ : count)
    for (std::size_t i = 0; i < n; ++i) count += mask[i];
    return count;
  }

  [[nodiscard]] std::vector<std::uint8_t> mask_channels(std::size_t z0, std::size_t z1) override {
    AS_ASSERT(slab_.held_begin <= z0 && z0 <= z1 && z1 <= slab_.held_end);
    const std::size_t plane = slab_.cube.plane();
    const std::uint8_t* first = mask_.get() + (z0 - slab_.held_begin) * plane;
    return {first, first + (z1 - z0) * plane};
  }

  void copy_mask_channels(std::size_t z0, std::size_t z1, std::span<std::uint8_t> out) override {
    AS_ASSERT(slab_.held_begin <= z0 && z0 <= z1 && z1 <= slab_.held_end);
    const std::size_t plane = slab_.cube.plane();
    AS_ASSERT(out.size() == (z1 - z0) * plane);
    const std::uint8_t* first = mask_.get() + (z0 - slab_.held_begin) * plane;
    const auto n = static_cast<std::int64_t>(out.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = first[i];
  }

  [[nodiscard]] std::vector<std::uint64_t> mask_offsets(std::size_t z0, std::size_t z1) override {
    AS_ASSERT(slab_.held_begin <= z0 && z0 <= z1 && z1 <= slab_.held_end);
    const std::size_t plane = slab_.cube.plane();
    return scfind::mask_offsets({mask_.get() + (z0 - slab_.held_begin) * plane, (z1 - z0) * plane});
  }

  void set_mask_channels(std::size_t z0, std::span<const std::uint8_t> values) override {
    const std::size_t plane = slab_.cube.plane();
    AS_ASSERT(plane > 0 && values.size() % plane == 0 && slab_.held_begin <= z0 &&
              z0 + values.size() / plane <= slab_.held_end);
    std::memcpy(mask_.get() + (z0 - slab_.held_begin) * plane, values.data(), values.size());
  }

  void set_mask_voxels(std::size_t z0, std::span<const std::uint64_t> offsets) override {
    AS_ASSERT(slab_.held_begin <= z0 && z0 <= slab_.held_end);
    std::uint8_t* first = mask_.get() + (z0 - slab_.held_begin) * slab_.cube.plane();
    const std::uint64_t room = (slab_.held_end - z0) * slab_.cube.plane();
    for (const std::uint64_t offset : offsets) {
      AS_ASSERT(offset < room);
      first[offset] = 1;
    }
  }

  [[nodiscard]] std::string usage() const override {
    std::ostringstream s;
    s.precision(3);
    s << "host " << static_cast<double>(scfind_backend_cpu_memory_needed(slab_)) / (1 << 20) << " MiB, smoothing "
      << seconds_ << " s";
    return s.str();
  }

 private:
  // A fresh copy of the original: blanks as 0 (SoFiA-2's boxcar treats NaN as 0 in every pass and
  // no pass can create a NaN from finite values), masked voxels replaced.
  void prepare(std::optional<float> replacement) {
    const float* src = original_.get();
    const std::uint8_t* mask = mask_.get();
    float* dst = work_.get();
    const std::size_t n = slab_.held_voxels();
    const bool replace = replacement.has_value();
    const float value = replacement.value_or(0.0F);
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (std::size_t i = 0; i < n; ++i) {
      const float x = src[i];
      dst[i] = x != x ? 0.0F : (replace && mask[i] != 0 ? std::copysign(value, x) : x);
    }
  }

  // n boxcar passes along x on every row, then n along y on every column, plane by plane.
  void spatial(const BoxcarPlan& plan) {
    const std::size_t nx = slab_.cube.nx;
    const std::size_t ny = slab_.cube.ny;
    const std::size_t planes = slab_.held_channels();
    const float inv = boxcar_inverse_width(plan.radius);
    float* work = work_.get();
#pragma omp parallel num_threads(threads_)
    {
      LaneBuffers rows;
      LaneBuffers columns;
      rows.reserve(nx, plan.radius);
      columns.reserve(ny, plan.radius);
#pragma omp for schedule(dynamic, 1)
      for (std::size_t z = 0; z < planes; ++z) {
        float* plane = work + z * nx * ny;
        for (std::size_t y0 = 0; y0 < ny; y0 += lanes) {  // strips of rows, transposed into lanes
          const std::size_t m = std::min(lanes, ny - y0);
          rows.clear_padding();
          for (std::size_t x = 0; x < nx; ++x) {
            float* dst = rows.row(x);
            for (std::size_t w = 0; w < m; ++w) dst[w] = plane[(y0 + w) * nx + x];
            for (std::size_t w = m; w < lanes; ++w) dst[w] = 0.0F;
          }
          rows.run(plan.passes, inv);
          for (std::size_t x = 0; x < nx; ++x) {
            const float* src = rows.row(x);
            for (std::size_t w = 0; w < m; ++w) plane[(y0 + w) * nx + x] = src[w];
          }
        }
        for (std::size_t x0 = 0; x0 < nx; x0 += lanes) {  // blocks of columns, already side by side
          const std::size_t m = std::min(lanes, nx - x0);
          columns.clear_padding();
          for (std::size_t y = 0; y < ny; ++y) {
            float* dst = columns.row(y);
            std::memcpy(dst, plane + y * nx + x0, m * sizeof(float));
            for (std::size_t w = m; w < lanes; ++w) dst[w] = 0.0F;
          }
          columns.run(plan.passes, inv);
          for (std::size_t y = 0; y < ny; ++y) std::memcpy(plane + y * nx + x0, columns.row(y), m * sizeof(float));
        }
      }
    }
  }

  // The spectral running sum over the owned channels, continued from the slab above, row block by
  // row block so the slab below can start on a block as soon as it is done here.
  void spectral(std::size_t radius, SpectralCarry& carry) {
    const std::size_t nx = slab_.cube.nx;
    const std::size_t plane = slab_.cube.plane();
    const std::size_t n = slab_.owned_channels();
    const float inv = boxcar_inverse_width(radius);
    float* work = work_.get();
    std::vector<float> above;
    std::vector<float> below;
    for (const auto& block : carry.row_blocks()) {
      // Plain variables, not a structured binding: clang before 16 cannot capture those in the
      // OpenMP region below.
      const std::size_t y0 = block.first;
      const std::size_t y1 = block.second;
      const std::size_t count = (y1 - y0) * nx;
      if (!slab_.at_top()) {
        above.resize(count);
        carry.receive(y0, y1, above);
      }
      below.resize(count);
      const std::size_t chunks_per_row = (nx + lanes - 1) / lanes;
#pragma omp parallel num_threads(threads_)
      {
        LaneBuffers line;
        line.reserve(n, radius);
        float top[lanes] = {};
#pragma omp for schedule(static)
        for (std::size_t job = 0; job < (y1 - y0) * chunks_per_row; ++job) {
          const std::size_t y = y0 + job / chunks_per_row;
          const std::size_t x0 = (job % chunks_per_row) * lanes;
          const std::size_t m = std::min(lanes, nx - x0);
          const std::size_t offset = y * nx + x0;
          line.clear_padding();
          // Positions −r .. n+r around the owned channels; channels outside the cube stay zero.
          for (std::size_t p = 0; p < lane_rows(n, radius); ++p) {
            const auto channel = static_cast<std::ptrdiff_t>(slab_.own_begin + p) - static_cast<std::ptrdiff_t>(radius);
            float* dst = line.row(p) - radius * lanes;
            if (channel < 0 || static_cast<std::size_t>(channel) >= slab_.cube.nz) {
              std::fill_n(dst, lanes, 0.0F);
              continue;
            }
            const float* src = work + (static_cast<std::size_t>(channel) - slab_.held_begin) * plane + offset;
            std::memcpy(dst, src, m * sizeof(float));
            std::fill(dst + m, dst + lanes, 0.0F);
          }
          if (!slab_.at_top()) std::memcpy(top, above.data() + (y - y0) * nx + x0, m * sizeof(float));
          line.run_once_from(slab_.at_top() ? nullptr : top, inv);
          for (std::size_t p = 0; p < n; ++p) {
            std::memcpy(work + (slab_.own_begin + p - slab_.held_begin) * plane + offset, line.row(p),
                        m * sizeof(float));
          }
          std::memcpy(below.data() + (y - y0) * nx + x0, line.row(0), m * sizeof(float));
        }
      }
      if (!slab_.at_bottom()) carry.send(y0, y1, below);
    }
  }

  void restore_blanks() {
    const float* src = original_.get() + slab_.owned_offset();
    float* dst = work_.get() + slab_.owned_offset();
    const std::size_t n = slab_.owned_voxels();
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (std::size_t i = 0; i < n; ++i) {
      if (src[i] != src[i]) dst[i] = src[i];
    }
  }

  int threads_;
  Slab slab_;
  std::unique_ptr<float[]> original_;
  std::unique_ptr<float[]> work_;
  std::unique_ptr<std::uint8_t[]> mask_;
  const float* smoothed_ = nullptr;
  double seconds_ = 0;
};

}  // namespace

std::unique_ptr<ScfindBackend> make_scfind_backend_cpu(int threads) { return std::make_unique<OpenMpBackend>(threads); }

std::uint64_t scfind_backend_cpu_memory_needed(const Slab& slab) {
  return static_cast<std::uint64_t>(slab.held_voxels()) * (2 * sizeof(float) + sizeof(std::uint8_t));
}

}  // namespace astrosweep::scfind
