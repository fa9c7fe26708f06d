#include "slab_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "core/error.hpp"
#include "dist/slab_exchange.hpp"
#include "mask_offsets.hpp"
#include "noise.hpp"
#include "scfind_exchange.hpp"

namespace astrosweep::scfind {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool smooths(const std::optional<KernelPair>& pair) { return pair && pair->smooths(); }

/// Kept values a slab may hold for clip(): one per 32 owned voxels (12 bytes each), plus a few
/// for small slabs, within values_above()'s quarter.
std::uint64_t kept_limit(const Slab& slab) {
  return std::min<std::uint64_t>(slab.owned_voxels() / 4, slab.owned_voxels() / 32 + 1024);
}

/// A rough noise of one slab's sample: the median |x| of its values in `flux`, as a standard
/// deviation (SoFiA-2's MAD about zero). NaN when none is in the range.
double sample_noise(std::span<const float> samples, FluxRange flux) {
  std::vector<float> magnitudes;
  magnitudes.reserve(samples.size());
  for (const float x : samples) {
    const bool in_range = flux == FluxRange::negative ? x < 0 : (flux == FluxRange::positive ? x > 0 : !std::isnan(x));
    if (in_range) magnitudes.push_back(std::fabs(x));
  }
  if (magnitudes.empty()) return std::numeric_limits<double>::quiet_NaN();
  const auto middle = magnitudes.begin() + static_cast<std::ptrdiff_t>(magnitudes.size() / 2);
  std::nth_element(magnitudes.begin(), middle, magnitudes.end());
  return mad_to_std * static_cast<double>(*middle);
}

}  // namespace

std::uint64_t slab_sweep_host_bytes(const SlabLayout& layout, const std::vector<std::size_t>& slabs,
                                    SlabKeeping keeping) {
  std::uint64_t held = 0;
  std::uint64_t thickest = 0;
  std::uint64_t above = 0;
  for (std::size_t j : slabs) {
    const Slab s = layout.slab(j);
    held += s.held_voxels();
    thickest = std::max<std::uint64_t>(thickest, s.held_voxels());
    if (!s.at_top()) above += layout.cube().plane();
  }
  if (layout.slabs_per_rank() == 1) return thickest * sizeof(float);  // the read buffer, while loading
  const std::uint64_t originals = keeping.originals ? held : thickest;
  const std::uint64_t kept = keeping.values ? held / 32 * (sizeof(std::uint64_t) + sizeof(float)) : 0;  // kept_limit()
  // mask store, its staging copy, kept values, sums, data
  return held + thickest + kept + (above + originals) * sizeof(float);
}

SlabSweep::SlabSweep(const SlabLayout& layout, ScfindBackend& backend, const io::CubeInfo& info, SlabKeeping keeping,
                     MPI_Comm comm, PhaseClock* clock)
    : layout_(layout),
      backend_(backend),
      info_(info),
      comm_(comm),
      clock_(clock),
      keep_values_(keeping.values),
      keep_in_backend_(keeping.backend_originals) {
  backend_.set_phase_clock(clock);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  mine_ = layout.slabs_of(rank);
  if (resident()) {
    Streamed s;
    s.slab = layout.slab(mine_.front());
    backend_.load_from(
        s.slab, [&](std::size_t z0, std::size_t z1, std::span<float> out) { read_channels(s.slab, z0, z1, out); });
    return;
  }
  if (keep_in_backend_) backend_.hold_originals();
  for (std::size_t j : mine_) {
    Streamed s;
    s.index = j;
    s.slab = layout.slab(j);
    s.mask.resize(s.slab.held_voxels());
    std::uint8_t* mask = s.mask.data();
    const auto n = static_cast<std::int64_t>(s.mask.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) mask[i] = 0;
    s.owned_count = 0;
    if (!s.slab.at_top()) s.above.resize(layout.cube().plane());
    if (keeping.originals) {
      s.original = backend_.host_floats(s.slab.held_voxels());
      read(s, s.original.span());
    }
    streamed_.push_back(std::move(s));
  }
}

void SlabSweep::read(Streamed& s, std::span<float> out) {
  read_part(s, s.slab.held_begin, s.slab.held_end, out);
  s.counted = true;  // the blanks were counted this first time
}

void SlabSweep::read_part(Streamed& s, std::size_t z0, std::size_t z1, std::span<float> out) {
  if (!s.counted) return read_channels(s.slab, z0, z1, out);
  const PhaseClock::Scope phase(clock_, Phase::reading);
  const auto t0 = std::chrono::steady_clock::now();
  io::read_cube_channels(info_, z0, z1, out);
  read_bytes_ += out.size_bytes();
  read_seconds_ += seconds_since(t0);
}

void SlabSweep::read_channels(const Slab& slab, std::size_t z0, std::size_t z1, std::span<float> out) {
  const PhaseClock::Scope phase(clock_, Phase::reading);
  const auto t0 = std::chrono::steady_clock::now();
  // Up to three reads so that the blanks are counted over the owned channels only (halos belong
  // to other slabs, which count them).
  const std::size_t plane = slab.cube.plane();
  const std::size_t parts[4] = {slab.held_begin, slab.own_begin, slab.own_end, slab.held_end};
  for (int k = 0; k < 3; ++k) {
    const std::size_t a = std::max(z0, parts[k]), b = std::min(z1, parts[k + 1]);
    if (a >= b) continue;
    const auto part = out.subspan((a - z0) * plane, (b - a) * plane);
    const io::ChannelReadCounts counts = io::read_cube_channels(info_, a, b, part);
    if (k == 1) {
      counts_.blanks += counts.blanks;
      counts_.infinities += counts.infinities;
    }
  }
  read_bytes_ += out.size_bytes();
  read_seconds_ += seconds_since(t0);
}

SlabSweep::Streamed& SlabSweep::state(std::size_t j) {
  const auto it = std::find_if(streamed_.begin(), streamed_.end(), [j](const Streamed& s) { return s.index == j; });
  AS_ASSERT(it != streamed_.end());
  return *it;
}

void SlabSweep::activate(Streamed& s) {
  // Loading a slab into the backend is a transfer (a host copy on a CPU backend); its reads are reading.
  const PhaseClock::Scope phase(clock_, Phase::transfers);
  const auto t0 = std::chrono::steady_clock::now();
  // On every way out: the time counts.
  struct Count {
    double& total;
    std::chrono::steady_clock::time_point t0;
    ~Count() { total += seconds_since(t0); }
  } const count{stream_seconds_.load, t0};
  if (backend_.load_held(s.slab)) {
    // the backend's own copy of the original: no transfer
  } else if (!s.original.empty()) {
    backend_.load(s.slab, s.original.span());
  } else if (keep_in_backend_) {  // the first load: read in blocks the backend uploads as they come
    backend_.load_from(s.slab,
                       [&](std::size_t z0, std::size_t z1, std::span<float> out) { read_part(s, z0, z1, out); });
    s.counted = true;
  } else {
    if (read_buffer_.size() < s.slab.held_voxels()) read_buffer_.resize(s.slab.held_voxels());
    const std::span<float> values(read_buffer_.data(), s.slab.held_voxels());
    read(s, values);
    backend_.load(s.slab, values);
  }
  // The mask as it was before this kernel pair; load() cleared the backend's. The store holds 0/1
  // here (a slab's own clip marks it after its activation). Handed over as the list of its voxels
  // (8 bytes each) unless that is longer than its channels (1 byte a voxel).
  const std::span<const std::uint8_t> held(s.mask);
  if (const auto voxels = mask_offsets(held, held.size() / sizeof(std::uint64_t))) {
    if (!voxels->empty()) backend_.set_mask_voxels(s.slab.held_begin, *voxels);
    return;
  }
  backend_.set_mask_channels(s.slab.held_begin, held);
}

SlabSweep::KeptFrom SlabSweep::kept_from(const std::optional<KernelPair>& pair,
                                         std::optional<float> replacement) const {
  KeptFrom from;  // the original: the same whatever the mask
  if (smooths(pair)) {
    from.smoothed = true;
    from.fwhm_xy = pair->fwhm_xy;
    from.width_z = pair->width_z;
    from.replacement = replacement;
    from.mask_version = mask_version_;
  }
  return from;
}

bool SlabSweep::kept_values_match(const KeptFrom& now) const {
  const KeptFrom& k = kept_from_;
  return kept_valid_ && k.smoothed == now.smoothed && k.fwhm_xy == now.fwhm_xy && k.width_z == now.width_z &&
         k.replacement == now.replacement && k.mask_version == now.mask_version;
}

void SlabSweep::keep_values_above(Streamed& s, std::span<const float> samples, const Request::KeepAbove& keep) {
  const PhaseClock::Scope phase(clock_, Phase::compute);
  const auto t0 = std::chrono::steady_clock::now();
  s.kept.reset();
  const double noise = sample_noise(samples, keep.flux);
  if (!(std::isfinite(noise) && noise > 0)) return;  // a blank or constant slab: clip() smooths it again
  s.kept_bound = keep.factor * noise;
  s.kept = backend_.values_above(s.kept_bound, kept_limit(s.slab));
  if (s.kept) kept_values_ += s.kept->offsets.size();
  stream_seconds_.keep += seconds_since(t0);
}

bool SlabSweep::clip_from_kept(Streamed& s, double threshold) {
  if (!s.kept || threshold < s.kept_bound) return false;
  // Every voxel above the threshold is above the bound, so it is among the kept ones.
  std::uint8_t* owned = s.mask.data() + s.slab.owned_offset();
  const std::vector<std::uint64_t>& offsets = s.kept->offsets;
  const std::vector<float>& values = s.kept->values;
  std::uint64_t added = 0;
  for (std::size_t k = 0; k < offsets.size(); ++k)
    if (std::fabs(static_cast<double>(values[k])) > threshold && (owned[offsets[k]] & 1U) == 0) {
      owned[offsets[k]] = 1;
      ++added;
    }
  if (s.owned_count) *s.owned_count += added;
  return true;
}

void SlabSweep::smooth(const std::optional<KernelPair>& pair, std::optional<float> replacement, SpectralCarry& carry) {
  const PhaseClock::Scope phase(clock_, Phase::compute);  // the carry's MPI calls are the hand-over
  if (smooths(pair))
    backend_.smooth(*pair, replacement, carry);
  else
    backend_.use_original();
}

SlabSweep::Sampled SlabSweep::sample(const std::optional<KernelPair>& pair, std::optional<float> replacement,
                                     const Request& request) {
  AS_ASSERT(!request.magnitudes || resident());
  Sampled sampled;
  std::vector<std::unique_ptr<MpiSpectralCarry>> carries;  // their sends complete at the end
  const std::uint64_t plane = layout_.cube().plane();
  float lo = std::numeric_limits<float>::infinity();
  float hi = -lo;
  for (std::size_t j : mine_) {
    std::span<float> record;
    if (!resident()) {
      Streamed& s = state(j);
      activate(s);
      record = s.above;
    }
    carries.push_back(std::make_unique<MpiSpectralCarry>(comm_, layout_, j, record, clock_));
    smooth(pair, replacement, *carries.back());
    // One slab a rank: its last block goes to the slab below now, not at this rank's next MPI call
    // (after its sampling), while that rank waits for it.
    if (resident()) carries.back()->finish();
    const PhaseClock::Scope phase(clock_, Phase::compute);
    const Slab slab = layout_.slab(j);
    const SampleRange range =
        samples_in(layout_.cube().voxels(), request.cadence, slab.own_begin * plane, slab.own_end * plane);
    if (request.magnitudes)
      sampled.magnitudes =
          backend_.magnitudes(without_index_zero(range, request.cadence), request.cadence, *request.magnitudes);
    if (!sampled.magnitudes) sampled.samples.push_back({j, backend_.samples(range, request.cadence)});
    if (request.keep_above && keep_values_ && !resident())
      keep_values_above(state(j), sampled.samples.back().values, *request.keep_above);
    if (request.min_max) {
      const auto [slab_lo, slab_hi] = backend_.finite_min_max();
      if (!std::isnan(slab_lo)) lo = std::min(lo, slab_lo);
      if (!std::isnan(slab_hi)) hi = std::max(hi, slab_hi);
    }
  }
  for (auto& carry : carries) carry->finish();
  if (request.min_max && lo <= hi) sampled.min_max = {lo, hi};
  kept_valid_ = request.keep_above.has_value() && keep_values_ && !resident();
  kept_from_ = kept_from(pair, replacement);
  return sampled;
}

void SlabSweep::clip(const std::optional<KernelPair>& pair, std::optional<float> replacement, double threshold) {
  std::optional<PhaseClock::Scope> computing(std::in_place, clock_, Phase::compute);
  if (resident()) {
    if (!smooths(pair)) backend_.use_original();
    backend_.clip(threshold);
  } else {
    const bool kept_match = kept_values_match(kept_from(pair, replacement));
    std::vector<std::size_t> smoothed;  // slabs clipped by the backend: bit 1 holds their new mask
    for (std::size_t j : mine_) {
      Streamed& s = state(j);
      if (kept_match && clip_from_kept(s, threshold)) {
        ++clips_from_kept_;
        continue;
      }
      ++clips_smoothed_;
      smoothed.push_back(j);
      activate(s);
      ReplaySpectralCarry carry(layout_, s.above);
      smooth(pair, replacement, carry);
      backend_.clip(threshold);
      // Bit 1: the mask after this clip. Slabs below still read bit 0 of their halos in this sweep.
      const std::vector<std::uint8_t> after = backend_.mask_channels(s.slab.own_begin, s.slab.own_end);
      std::uint8_t* owned = s.mask.data() + s.slab.owned_offset();
      const std::uint8_t* clipped = after.data();
      const std::size_t n = after.size();
#pragma omp parallel for schedule(static)
      for (std::size_t i = 0; i < n; ++i) owned[i] = static_cast<std::uint8_t>((owned[i] & 1U) | (clipped[i] << 1));
    }
    for (std::size_t j : smoothed) {
      Streamed& s = state(j);
      std::uint8_t* owned = s.mask.data() + s.slab.owned_offset();
      const std::size_t n = s.slab.owned_voxels();
      std::uint64_t in_mask = 0;
#pragma omp parallel for schedule(static) reduction(+ : in_mask)
      for (std::size_t i = 0; i < n; ++i) {
        owned[i] = static_cast<std::uint8_t>(owned[i] >> 1);
        in_mask += owned[i];
      }
      s.owned_count = in_mask;
    }
  }
  ++mask_version_;
  kept_valid_ = false;
  for (Streamed& s : streamed_) s.kept.reset();
  // The halos by the offsets of their set voxels (the mask only grows, and holds about 0.02 % of
  // the cube): kilobytes instead of a byte a voxel of every halo channel, which a GPU rank also
  // downloaded and uploaded again.
  dist::SparseHaloAccess access;
  if (resident()) {
    access.get = [this](std::size_t, std::size_t z0, std::size_t z1) { return backend_.mask_offsets(z0, z1); };
    access.set = [this](std::size_t, std::size_t z0, std::span<const std::uint64_t> offsets) {
      backend_.set_mask_voxels(z0, offsets);
    };
  } else {
    const std::size_t plane = layout_.cube().plane();
    access.get = [this, plane](std::size_t j, std::size_t z0, std::size_t z1) {
      const Streamed& s = state(j);
      return mask_offsets(
          std::span<const std::uint8_t>(s.mask).subspan((z0 - s.slab.held_begin) * plane, (z1 - z0) * plane));
    };
    access.set = [this, plane](std::size_t j, std::size_t z0, std::span<const std::uint64_t> offsets) {
      Streamed& s = state(j);
      AS_ASSERT(z0 >= s.slab.held_begin && z0 <= s.slab.held_end);
      std::uint8_t* first = s.mask.data() + (z0 - s.slab.held_begin) * plane;
      const std::uint64_t room = (s.slab.held_end - z0) * plane;
      for (const std::uint64_t offset : offsets) {
        AS_ASSERT(offset < room);
        first[offset] = 1;
      }
    };
  }
  computing.reset();
  if (clock_ != nullptr) clock_->wait_for_ranks(comm_);
  const PhaseClock::Scope phase(clock_, Phase::halos);  // the backend's copies are transfers
  const auto t_halos = std::chrono::steady_clock::now();
  dist::exchange_sparse_halos(layout_, access, comm_);
  if (!resident()) stream_seconds_.halos += seconds_since(t_halos);
}

void SlabSweep::restore_mask(const std::function<std::vector<std::uint8_t>(std::size_t, std::size_t)>& read,
                             std::uint8_t done) {
  for (std::size_t j : mine_) {
    const Slab slab = layout_.slab(j);
    std::vector<std::uint8_t> mask = read(slab.held_begin, slab.held_end);
    AS_ASSERT(mask.size() == slab.held_voxels());
    auto& labels = labels_[j];
    labels.assign(mask.begin() + static_cast<std::ptrdiff_t>(slab.owned_offset()),
                  mask.begin() + static_cast<std::ptrdiff_t>(slab.owned_offset() + slab.owned_voxels()));
    for (auto& label : labels)
      if (label > done) label = 0;
    for (auto& m : mask) m = static_cast<std::uint8_t>(m != 0 && m <= done);
    if (resident()) {
      backend_.set_mask_channels(slab.held_begin, mask);
    } else {
      Streamed& s = state(j);
      s.mask.assign(mask.begin(), mask.end());
      s.owned_count.reset();
    }
  }
  ++mask_version_;
  kept_valid_ = false;
}

const std::vector<std::uint8_t>& SlabSweep::checkpoint_labels(std::size_t j, std::uint8_t done) {
  const std::vector<std::uint8_t> mask = owned_mask(j);
  auto& labels = labels_[j];
  if (labels.empty()) labels.assign(mask.size(), 0);
  AS_ASSERT(labels.size() == mask.size());
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (mask[i] != 0 && labels[i] == 0) labels[i] = done;
  return labels;
}

std::optional<std::uint64_t> SlabSweep::mask_count() {
  const PhaseClock::Scope phase(clock_, Phase::compute);
  if (resident()) return backend_.mask_count();
  std::uint64_t count = 0;
  for (Streamed& s : streamed_) {
    if (!s.owned_count) {
      const std::uint8_t* owned = s.mask.data() + s.slab.owned_offset();
      const std::size_t n = s.slab.owned_voxels();
      std::uint64_t in_mask = 0;
#pragma omp parallel for schedule(static) reduction(+ : in_mask)
      for (std::size_t i = 0; i < n; ++i) in_mask += owned[i];
      s.owned_count = in_mask;
    }
    count += *s.owned_count;
  }
  return count;
}

void SlabSweep::copy_owned_mask(std::size_t j, std::span<std::uint8_t> out) {
  const Slab slab = layout_.slab(j);
  AS_ASSERT(out.size() == slab.owned_voxels());
  if (resident()) return backend_.copy_mask_channels(slab.own_begin, slab.own_end, out);
  const Streamed& s = state(j);
  const std::uint8_t* owned = s.mask.data() + s.slab.owned_offset();
  std::uint8_t* to = out.data();
  const std::size_t n = out.size();
#pragma omp parallel for schedule(static)  // a slab's mask is gigabytes
  for (std::size_t i = 0; i < n; ++i) to[i] = owned[i];
}

std::optional<std::span<const float>> SlabSweep::owned_original(std::size_t j) const {
  const Slab slab = layout_.slab(j);
  if (resident()) return backend_.original_channels(slab.own_begin, slab.own_end);
  const auto it = std::find_if(streamed_.begin(), streamed_.end(), [j](const Streamed& s) { return s.index == j; });
  AS_ASSERT(it != streamed_.end());
  if (it->original.empty()) return std::nullopt;
  return std::span<const float>(it->original.span()).subspan(it->slab.owned_offset(), it->slab.owned_voxels());
}

std::vector<std::uint64_t> SlabSweep::owned_mask_offsets(std::size_t j) {
  const Slab slab = layout_.slab(j);
  if (resident()) return backend_.mask_offsets(slab.own_begin, slab.own_end);
  const Streamed& s = state(j);
  return mask_offsets(std::span<const std::uint8_t>(s.mask).subspan(s.slab.owned_offset(), s.slab.owned_voxels()));
}

bool SlabSweep::copy_owned_original(std::size_t j, std::span<float> out) {
  const Slab slab = layout_.slab(j);
  AS_ASSERT(out.size() == slab.owned_voxels());
  if (resident()) {
    backend_.copy_original_channels(slab.own_begin, slab.own_end, out);
    return true;
  }
  const auto held = owned_original(j);
  if (!held) return false;
  std::copy(held->begin(), held->end(), out.begin());
  return true;
}

std::vector<std::uint8_t> SlabSweep::owned_mask(std::size_t j) {
  const Slab slab = layout_.slab(j);
  if (resident()) return backend_.mask_channels(slab.own_begin, slab.own_end);
  const Streamed& s = state(j);
  const auto first = s.mask.begin() + static_cast<std::ptrdiff_t>(s.slab.owned_offset());
  return {first, first + static_cast<std::ptrdiff_t>(s.slab.owned_voxels())};
}

}  // namespace astrosweep::scfind
