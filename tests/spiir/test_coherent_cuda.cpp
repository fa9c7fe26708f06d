// The coherent stage's sky search on a device (spec §8-§9): coherent_search with a SkySearchEngine
// against the CPU's own loop (engine null), and the engines against a plain loop over the seam.
//   TileTwin: a host engine that runs the CUDA kernel's per-thread code (coherent_sky_tile.hpp:
//     tiles of 8 or 1 tasks, blocks of 256 "threads", the one-pass reduction and its rescans of
//     near-ties) with plain loops for the block reductions, on the data a device receives.
//   LoopEngine: the CPU's pixel loop and reported_pixel written plainly over the seam's layouts.
//   Synthetic*: tables and windows made up to stress the tiling: pixel counts around warp and block
//     sizes, task counts around the tile's, strides, shared and overlapping windows, exact ties and
//     near-ties (inside one thread and across threads), all-zero windows, sub-sample taps.
//   Gpu*: the CUDA engine (built in a CUDA build; skipped without a device): bit for bit the loop
//     on the synthetic cases; against the CPU's coherent_search, FP64 the same pixel and ρ_coh²
//     within 1e-12 (relative), FP32 within 1e-5 and the same pixel except near-ties.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "coherent_sky_tile.hpp"
#include "coherent_snr.hpp"
#include "coherent_test_support.hpp"
#ifdef ASTROSWEEP_WITH_CUDA
#include "coherent_sky_cuda.hpp"
#include "device.hpp"
#endif

namespace astrosweep::spiir {
namespace {

using namespace coherent_test;

// An engine's copy of the pixel tables.
template <class Real>
struct HostTables {
  std::size_t n_det = 0, n_pix = 0, taps = 1;
  std::vector<Real> u01, weights;
  std::vector<std::int32_t> reads;

  void load(const SkySearchTables<Real>& t) {
    n_det = t.n_det;
    n_pix = t.n_pix;
    u01.assign(t.u01.begin(), t.u01.end());
    reads.assign(t.reads.begin(), t.reads.end());
    weights.assign(t.weights.begin(), t.weights.end());
    taps = weights.empty() ? 1 : weights.size() / reads.size();
  }
};

// Sample s of task `task`'s window of detector d.
template <class Real>
const Real* sample_of(const SkySearchBatch<Real>& b, std::size_t n_det, std::size_t task, std::size_t d,
                      std::int64_t s) {
  EXPECT_TRUE(s >= 0 && s < static_cast<std::int64_t>(b.window_length)) << "a read outside its window";
  return b.samples.data() + (b.window[task * n_det + d] + s) * 2;
}

// The CPU's pixel loop (PixelTables::coherent, reported_pixel) over the seam's layouts.
class LoopEngine final : public SkySearchEngine {
 public:
  void load(const SkySearchTables<float>& t) override { f_.load(t); }
  void load(const SkySearchTables<double>& t) override { d_.load(t); }
  void search(const SkySearchBatch<float>& b, std::span<SkyPick> out) override { run(f_, b, out); }
  void search(const SkySearchBatch<double>& b, std::span<SkyPick> out) override { run(d_, b, out); }
  [[nodiscard]] std::size_t max_batch(std::size_t) const override { return 1000; }
  [[nodiscard]] double kernel_ms() const override { return 0; }

 private:
  HostTables<float> f_;
  HostTables<double> d_;

  template <class Real>
  static Real coherent(const HostTables<Real>& k, const SkySearchBatch<Real>& b, std::size_t task, int ref, int p,
                       Real& total) {
    const Real* u = &k.u01[static_cast<std::size_t>(p) * 2 * k.n_det];
    Real w0r = 0, w0i = 0, w1r = 0, w1i = 0;
    total = 0;
    for (std::size_t d = 0; d < k.n_det; ++d) {
      const std::size_t i = (static_cast<std::size_t>(ref) * k.n_pix + static_cast<std::size_t>(p)) * k.n_det + d;
      const std::int64_t at = b.centre + k.reads[i];
      const Real* s = sample_of(b, k.n_det, task, d, at);
      Real zr = s[0], zi = s[1];
      if (!k.weights.empty()) {
        EXPECT_LE(at + static_cast<std::int64_t>(k.taps), static_cast<std::int64_t>(b.window_length));
        zr = 0;
        zi = 0;
        for (std::size_t j = 0; j < k.taps; ++j) {
          zr += k.weights[i * k.taps + j] * s[2 * j];
          zi += k.weights[i * k.taps + j] * s[2 * j + 1];
        }
      }
      w0r += u[d] * zr;
      w0i += u[d] * zi;
      w1r += u[k.n_det + d] * zr;
      w1i += u[k.n_det + d] * zi;
      total += zr * zr + zi * zi;
    }
    return w0r * w0r + w0i * w0i + w1r * w1r + w1i * w1i;
  }

  template <class Real>
  static void run(const HostTables<Real>& k, const SkySearchBatch<Real>& b, std::span<SkyPick> out) {
    std::vector<Real> coh;
    for (std::size_t t = 0; t < b.n_tasks; ++t) {
      Real total = 0;
      coh.clear();
      for (int p = b.first[t]; p < static_cast<int>(k.n_pix); p += b.stride)
        coh.push_back(coherent(k, b, t, b.ref[t], p, total));
      const int pixel = b.first[t] + static_cast<int>(reported_pixel(std::span<const Real>(coh))) * b.stride;
      const Real v = coherent(k, b, t, b.ref[t], pixel, total);
      out[t] = {pixel, static_cast<double>(v), static_cast<double>(total)};
    }
  }
};

// A tile's windows read from the batch; an unused place reads zeros, as the kernel stages it.
template <class Real>
struct BatchWindows {
  const SkySearchBatch<Real>& b;
  std::size_t n_det;
  const std::int32_t* tasks;
  [[nodiscard]] sky_tile::Sample<Real> load(int d, int s, int t) const {
    if (tasks[t] < 0) return {0, 0};
    const Real* p = sample_of(b, n_det, static_cast<std::size_t>(tasks[t]), static_cast<std::size_t>(d), s);
    return {p[0], p[1]};
  }
};

// The kernel's per-thread code (coherent_sky_tile.hpp) with the block's reductions as loops.
class TileTwin final : public SkySearchEngine {
 public:
  explicit TileTwin(int per_tile = sky_tile::tile_tasks, std::size_t batch = 7) : per_tile_(per_tile), batch_(batch) {}
  void load(const SkySearchTables<float>& t) override { f_.load(t); }
  void load(const SkySearchTables<double>& t) override { d_.load(t); }
  void search(const SkySearchBatch<float>& b, std::span<SkyPick> out) override { run(f_, b, out); }
  void search(const SkySearchBatch<double>& b, std::span<SkyPick> out) override { run(d_, b, out); }
  [[nodiscard]] std::size_t max_batch(std::size_t) const override { return batch_; }
  [[nodiscard]] double kernel_ms() const override { return 0; }
  std::size_t batches = 0;
  std::size_t rescans = 0;  ///< threads whose maximum had a near-tie before it (the scan's fallback)

 private:
  int per_tile_;
  std::size_t batch_;
  HostTables<float> f_;
  HostTables<double> d_;

  template <class Real, int NDet, bool Subsample, int T>
  void run_tile(const HostTables<Real>& k, const SkySearchBatch<Real>& b, const std::int32_t* tasks,
                std::span<SkyPick> out) {
    constexpr int threads = sky_tile::block_threads;
    const sky_tile::Tables<Real> tables{k.u01.data(),
                                        k.reads.data(),
                                        Subsample ? k.weights.data() : nullptr,
                                        static_cast<int>(k.taps),
                                        static_cast<int>(k.n_pix),
                                        static_cast<int>(b.centre)};
    const BatchWindows<Real> win{b, k.n_det, tasks};
    const int ref = b.ref[static_cast<std::size_t>(tasks[0])], first = b.first[static_cast<std::size_t>(tasks[0])];
    const int n = (static_cast<int>(k.n_pix) - first + b.stride - 1) / b.stride;
    std::vector<std::array<sky_tile::Best<Real>, T>> best(threads);
    for (int tid = 0; tid < threads; ++tid) {
      sky_tile::Best<Real> mine[T];
      sky_tile::scan<Real, NDet, Subsample, T>(tables, ref, first, b.stride, n, tid, threads, win, mine);
      std::copy(mine, mine + T, best[static_cast<std::size_t>(tid)].begin());
    }
    for (int t = 0; t < T; ++t) {
      Real max = best[0][t].max;
      for (const auto& thread : best) max = thread[t].max > max ? thread[t].max : max;
      const Real floor = sky_tile::floor_of(max, statistic_resolution<Real>);
      int hit = n;
      for (int tid = 0; tid < threads; ++tid) {
        const auto& mine = best[static_cast<std::size_t>(tid)][t];
        if (mine.max >= floor && mine.before >= floor) ++rescans;
        hit = std::min(hit, sky_tile::first_reaching<Real, NDet, Subsample>(tables, ref, first, b.stride, n, tid,
                                                                            threads, win, t, mine, floor));
      }
      if (tasks[t] < 0) continue;
      const int pixel = first + hit * b.stride;
      Real v[1], total[1];
      sky_tile::evaluate<Real, NDet, Subsample, 1>(tables, ref, pixel, sky_tile::OneTask<BatchWindows<Real>>{win, t}, v,
                                                   total);
      out[static_cast<std::size_t>(tasks[t])] = {pixel, static_cast<double>(v[0]), static_cast<double>(total[0])};
    }
  }

  template <class Real, int T>
  void run_tile_as(const HostTables<Real>& k, const SkySearchBatch<Real>& b, const std::int32_t* tasks,
                   std::span<SkyPick> out) {
    const bool sub = !k.weights.empty();
    if (k.n_det == 3)
      sub ? run_tile<Real, 3, true, T>(k, b, tasks, out) : run_tile<Real, 3, false, T>(k, b, tasks, out);
    else
      sub ? run_tile<Real, 2, true, T>(k, b, tasks, out) : run_tile<Real, 2, false, T>(k, b, tasks, out);
  }

  template <class Real>
  void run(const HostTables<Real>& k, const SkySearchBatch<Real>& b, std::span<SkyPick> out) {
    ++batches;
    ASSERT_EQ(b.window.size(), b.n_tasks * k.n_det);
    const auto tiles =
        sky_tile::plan_tiles(b.ref.data(), b.first.data(), b.n_tasks, static_cast<int>(k.n_det), b.stride, per_tile_);
    ASSERT_EQ(tiles.size() % static_cast<std::size_t>(per_tile_), 0U);
    std::vector<int> seen(b.n_tasks, 0);
    for (std::size_t at = 0; at < tiles.size(); at += static_cast<std::size_t>(per_tile_)) {
      const std::int32_t* tasks = &tiles[at];
      ASSERT_GE(tasks[0], 0) << "a tile without its first task";
      for (int t = 0; t < per_tile_; ++t) {
        if (tasks[t] < 0) continue;
        ++seen[static_cast<std::size_t>(tasks[t])];
        EXPECT_EQ(b.ref[static_cast<std::size_t>(tasks[t])], b.ref[static_cast<std::size_t>(tasks[0])]);
        EXPECT_EQ(b.first[static_cast<std::size_t>(tasks[t])], b.first[static_cast<std::size_t>(tasks[0])]);
      }
      if (per_tile_ == sky_tile::tile_tasks)
        run_tile_as<Real, sky_tile::tile_tasks>(k, b, tasks, out);
      else
        run_tile_as<Real, 1>(k, b, tasks, out);
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; })) << "a task in no tile or two";
  }
};

struct Case {
  const char* name;
  bool three = true;
  int order = 4;
  CoherentSettings settings;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (bool three : {true, false})
    for (bool sub : {false, true})
      for (int stride : {1, 4}) {
        Case c{"", three, 4, {3, 205, sub, stride}};
        out.push_back(c);
      }
  for (int order : {0, 1, 2, 5}) out.push_back({"", true, order, {2, 205, false, 1}});
  out.push_back({"", true, 0, {2, 205, true, 5}});
  return out;
}

std::string describe(const Case& c) {
  return std::string(c.three ? "HLV" : "HL") + " order " + std::to_string(c.order) +
         (c.settings.subsample ? " subsample" : " rounded") + " stride " + std::to_string(c.settings.sky_stride);
}

// The network of the case: the noise network, or its first two detectors.
NetworkSnr network_of(const Case& c) {
  NetworkSnr snr = noise().snr;
  if (!c.three) {
    snr.ifos.resize(2);
    snr.z.resize(2);
  }
  return snr;
}

TemplateAutocorrelations autocorrelations_of(const Case& c) {
  TemplateAutocorrelations ac = noise().ac;
  if (!c.three) ac.per_ifo.resize(2);
  return ac;
}

std::vector<Candidate> candidates_of(const Case& c, std::size_t count) {
  auto out = noise_candidates(count, 30000);
  if (!c.three)
    for (auto& cand : out) cand.ref_ifo %= 2;
  return out;
}

SkyMap map_of(const Case& c, const NetworkSnr& snr) {
  return make_sky_map(c.order, snr.ifos, network().sigma(snr.ifos), gps, 2048);
}

TEST(CoherentEngine, TileTwinMatchesTheCpuLoopBitForBit) {
  for (const auto& c : cases()) {
    const auto snr = network_of(c);
    const auto ac = autocorrelations_of(c);
    const auto map = map_of(c, snr);
    const auto cands = candidates_of(c, 9);
    for (auto precision : {Precision::fp64, Precision::fp32}) {
      TileTwin replay;
      const auto cpu = coherent_search(map, snr, ac, cands, c.settings, precision, 2);
      const auto dev = coherent_search(map, snr, ac, cands, c.settings, precision, 2, &replay);
      ASSERT_EQ(cpu.size(), dev.size());
      EXPECT_EQ(replay.batches, (cpu.size() + 6) / 7) << describe(c);
      for (std::size_t t = 0; t < cpu.size(); ++t) {
        EXPECT_EQ(dev[t].pixel, cpu[t].pixel) << describe(c) << " task " << t;
        EXPECT_EQ(dev[t].coh_snr2, cpu[t].coh_snr2) << describe(c) << " task " << t;
        EXPECT_EQ(dev[t].null_snr2, cpu[t].null_snr2) << describe(c) << " task " << t;
        EXPECT_EQ(dev[t].network_chisq, cpu[t].network_chisq) << describe(c) << " task " << t;
        EXPECT_EQ(dev[t].offset, cpu[t].offset) << describe(c) << " task " << t;
        EXPECT_EQ(dev[t].delay, cpu[t].delay) << describe(c) << " task " << t;
        EXPECT_EQ(dev[t].snr, cpu[t].snr) << describe(c) << " task " << t;
      }
    }
  }
}

// Made-up tables and windows for one search, in double (converted per precision).
struct Synthetic {
  enum class Values { random, ties, zeros };
  std::size_t n_det = 3, n_pix = 1, n_tasks = 1, taps = 1, window_length = 0;
  int stride = 1;
  std::int64_t centre = 0;
  std::vector<double> u01, weights, samples;
  std::vector<std::int32_t> reads, ref, first;
  std::vector<std::int64_t> window;

  std::string describe() const {
    return std::to_string(n_det) + " detectors, " + std::to_string(n_pix) + " pixels, " + std::to_string(n_tasks) +
           " tasks, stride " + std::to_string(stride) + (taps > 1 ? ", sub-sample" : ", rounded");
  }
};

// ties: every pixel repeats one of the first 4 (the same U and reads: equal ρ_coh² at many pixels;
// a thread's pixels j, j + 256, … all repeat the same one), some with U scaled by 1 + 2⁻²⁰ (a
// near-tie, within the FP32 resolution, not exact): alternately by groups of 4 pixels and, within
// a thread, from one of its pixels to the next.
Synthetic synthetic(std::size_t n_det, std::size_t n_pix, std::size_t n_tasks, int stride, bool subsample,
                    Synthetic::Values values, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, 1);
  Synthetic s;
  s.n_det = n_det;
  s.n_pix = n_pix;
  s.n_tasks = n_tasks;
  s.stride = stride;
  s.taps = subsample ? 16 : 1;
  const int reach = 6;  // |read| ≤ reach
  s.centre = reach;
  s.window_length = static_cast<std::size_t>(2 * reach + 1) + s.taps - 1;
  s.u01.resize(n_pix * 2 * n_det);
  for (auto& u : s.u01) u = g(rng);
  s.reads.resize(n_det * n_pix * n_det);
  std::uniform_int_distribution<int> read(-reach, reach);
  for (std::size_t r = 0; r < n_det; ++r)
    for (std::size_t p = 0; p < n_pix; ++p)
      for (std::size_t d = 0; d < n_det; ++d) s.reads[(r * n_pix + p) * n_det + d] = d == r ? 0 : read(rng);
  if (values == Synthetic::Values::ties)
    for (std::size_t p = 4; p < n_pix; ++p) {
      const std::size_t like = p % 4;
      const double scale = (p / 4 + p / 256) % 2 == 1 ? 1 + std::ldexp(1.0, -20) : 1.0;
      for (std::size_t i = 0; i < 2 * n_det; ++i) s.u01[p * 2 * n_det + i] = scale * s.u01[like * 2 * n_det + i];
      for (std::size_t r = 0; r < n_det; ++r)
        for (std::size_t d = 0; d < n_det; ++d)
          s.reads[(r * n_pix + p) * n_det + d] = s.reads[(r * n_pix + like) * n_det + d];
    }
  if (subsample) {
    s.weights.resize(s.reads.size() * s.taps);
    for (auto& w : s.weights) w = 0.25 * g(rng);
  }
  // Windows anywhere in a pool a little longer than one: tasks share and overlap them.
  const std::size_t pool = 3 * s.window_length;
  s.samples.resize(pool * 2);
  for (auto& x : s.samples) x = values == Synthetic::Values::zeros ? 0.0 : g(rng);
  std::uniform_int_distribution<std::int64_t> start(0, static_cast<std::int64_t>(pool - s.window_length));
  std::uniform_int_distribution<int> ref(0, static_cast<int>(n_det) - 1), first(0, stride - 1);
  for (std::size_t t = 0; t < n_tasks; ++t) {
    s.ref.push_back(ref(rng));
    s.first.push_back(first(rng));
    for (std::size_t d = 0; d < n_det; ++d) s.window.push_back(start(rng));
  }
  return s;
}

template <class Real>
std::vector<Real> as(const std::vector<double>& x) {
  return {x.begin(), x.end()};
}

// The engine's picks on the synthetic search.
template <class Real>
std::vector<SkyPick> picks(SkySearchEngine& engine, const Synthetic& s) {
  const auto u01 = as<Real>(s.u01), weights = as<Real>(s.weights), samples = as<Real>(s.samples);
  engine.load(SkySearchTables<Real>{s.n_det, s.n_pix, u01, s.reads, weights});
  std::vector<SkyPick> out(s.n_tasks);
  engine.search(SkySearchBatch<Real>{s.n_tasks, s.window_length, s.centre, s.stride, samples, s.window, s.ref, s.first},
                out);
  return out;
}

void expect_same(const std::vector<SkyPick>& want, const std::vector<SkyPick>& got, const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (std::size_t t = 0; t < want.size(); ++t) {
    EXPECT_EQ(got[t].pixel, want[t].pixel) << what << " task " << t;
    EXPECT_EQ(got[t].coh_snr2, want[t].coh_snr2) << what << " task " << t;
    EXPECT_EQ(got[t].total, want[t].total) << what << " task " << t;
  }
}

std::vector<Synthetic> synthetic_cases() {
  std::vector<Synthetic> out;
  unsigned seed = 1;
  for (std::size_t n_pix : {1, 2, 31, 32, 33, 255, 256, 257, 1023, 1025})
    for (std::size_t n_tasks : {1, 8, 9, 17})
      for (int stride : {1, 3}) {
        if (static_cast<std::size_t>(stride) > n_pix) continue;
        const bool sub = seed % 3 == 0;
        out.push_back(synthetic(seed % 2 == 0 ? 2 : 3, n_pix, n_tasks, stride, sub, Synthetic::Values::random, seed));
        ++seed;
      }
  for (std::size_t n_det : {2, 3})
    for (bool sub : {false, true})
      for (std::size_t n_pix : {5, 33, 600, 1025}) {
        out.push_back(synthetic(n_det, n_pix, 11, 1, sub, Synthetic::Values::ties, seed++));
        out.push_back(synthetic(n_det, n_pix, 3, 2, sub, Synthetic::Values::zeros, seed++));
      }
  return out;
}

// Tiles group tasks by (reference, first pixel), in task order, padding each group's last tile.
TEST(CoherentEngine, TilesGroupTasksByReferenceAndFirstPixel) {
  const std::vector<std::int32_t> ref{1, 0, 1, 1, 0, 2, 0}, first{0, 0, 0, 1, 0, 0, 1};
  const std::vector<std::int32_t> want{1, 4, 6, -1, 0, 2, 3, -1, 5, -1};
  EXPECT_EQ(sky_tile::plan_tiles(ref.data(), first.data(), ref.size(), 3, 2, 2), want);
  EXPECT_EQ(sky_tile::plan_tiles(ref.data(), first.data(), ref.size(), 3, 2, 1),
            (std::vector<std::int32_t>{1, 4, 6, 0, 2, 3, 5}));
  EXPECT_TRUE(sky_tile::plan_tiles(ref.data(), first.data(), 0, 3, 2, 8).empty());
}

// The kernel's code on the host against the plain loop, tiles of 8 and of 1, bit for bit.
TEST(CoherentEngine, TileTwinMatchesTheLoopOnSyntheticSearches) {
  std::size_t rescans = 0;
  for (const auto& s : synthetic_cases())
    for (int per_tile : {sky_tile::tile_tasks, 1}) {
      LoopEngine loop;
      TileTwin twin(per_tile);
      const std::string what = s.describe() + ", tiles of " + std::to_string(per_tile);
      expect_same(picks<double>(loop, s), picks<double>(twin, s), what + " fp64");
      expect_same(picks<float>(loop, s), picks<float>(twin, s), what + " fp32");
      rescans += twin.rescans;
    }
  EXPECT_GT(rescans, 0U) << "no near-tie inside a thread: the scan's fallback went untested";
}

// Where the ties go: exact ties to the first of them; all-zero windows to the first searched pixel.
TEST(CoherentEngine, SyntheticTiesGoToTheFirstPixel) {
  const auto zeros = synthetic(3, 1025, 9, 2, false, Synthetic::Values::zeros, 7);
  TileTwin twin;
  for (const auto& p : picks<float>(twin, zeros)) EXPECT_EQ(p.coh_snr2, 0.0);
  const auto got = picks<float>(twin, zeros);
  for (std::size_t t = 0; t < got.size(); ++t) EXPECT_EQ(got[t].pixel, zeros.first[t]);
  // Exact ties only (no scaled repeats): pixel p repeats p mod 4, so the winner is one of the first 4.
  auto ties = synthetic(3, 1025, 9, 1, false, Synthetic::Values::ties, 8);
  for (std::size_t p = 4; p < ties.n_pix; ++p)
    for (std::size_t i = 0; i < 6; ++i) ties.u01[p * 6 + i] = ties.u01[(p % 4) * 6 + i];
  for (const auto& p : picks<double>(twin, ties)) EXPECT_LT(p.pixel, 4);
}

// ---- The batch's layout (fill_windows): each window's samples, stored once per run, in series order.

// `rows` rows per detector of `length` samples of complex noise, and made-up autocorrelations.
struct RowNetwork {
  NetworkSnr snr;
  TemplateAutocorrelations ac;
};

RowNetwork random_rows(std::size_t n_det, std::size_t rows, std::size_t length, unsigned seed) {
  RowNetwork w;
  w.snr.ifos.assign(hlv.begin(), hlv.begin() + static_cast<std::ptrdiff_t>(n_det));
  w.snr.n_templates = rows;
  w.snr.n_samples = length;
  w.ac.length = 21;
  w.ac.n_templates = rows;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, 1);
  for (std::size_t d = 0; d < n_det; ++d) {
    w.snr.z.emplace_back(rows * length);
    for (auto& z : w.snr.z.back()) z = {g(rng), g(rng)};
    w.ac.per_ifo.emplace_back();
    for (std::size_t j = 0; j < rows; ++j)
      for (int s = -10; s <= 10; ++s)
        w.ac.per_ifo.back().push_back(std::exp(-0.05 * (1.0 + static_cast<double>(j % 3)) * s * s) *
                                      std::polar(1.0, 0.3 * s));
  }
  return w;
}

// The layout a batch must have, written plainly: per detector the windows' starts sorted, merged
// into runs where they overlap or touch, the runs packed in order, detector after detector.
std::vector<std::int64_t> expected_layout(const std::vector<std::int64_t>& starts, std::size_t n_det,
                                          std::int64_t length, std::int64_t& stored) {
  std::vector<std::int64_t> at(starts.size());
  stored = 0;
  for (std::size_t d = 0; d < n_det; ++d) {
    std::vector<std::pair<std::int64_t, std::size_t>> sorted;
    for (std::size_t i = d; i < starts.size(); i += n_det) sorted.push_back({starts[i], i});
    std::sort(sorted.begin(), sorted.end());
    std::int64_t run_start = 0, run_end = -1, run_at = stored;
    for (const auto& [start, i] : sorted) {
      if (start > run_end) {
        run_at += run_end >= 0 ? run_end - run_start : 0;
        run_start = start;
      }
      run_end = std::max(run_end, start + length);
      at[i] = run_at + (start - run_start);
    }
    if (run_end >= 0) stored = run_at + (run_end - run_start);
  }
  return at;
}

// The plain loop's picks, after checking each batch against the candidates it comes from: every
// window's samples (converted as the CPU converts them), the layout, and that the samples lie in
// the memory host_samples gave.
class LayoutCheck final : public SkySearchEngine {
 public:
  LayoutCheck(const NetworkSnr& snr, std::span<const Candidate> candidates, const CoherentSettings& settings,
              std::size_t batch)
      : snr_(snr), candidates_(candidates), settings_(settings), batch_(batch) {}
  void load(const SkySearchTables<float>& t) override { loop_.load(t); }
  void load(const SkySearchTables<double>& t) override { loop_.load(t); }
  void search(const SkySearchBatch<float>& b, std::span<SkyPick> out) override { run(b, out); }
  void search(const SkySearchBatch<double>& b, std::span<SkyPick> out) override { run(b, out); }
  [[nodiscard]] std::size_t max_batch(std::size_t) const override { return batch_; }
  [[nodiscard]] double kernel_ms() const override { return 0; }
  std::span<std::byte> host_samples(std::size_t bytes) override {
    given_ = SkySearchEngine::host_samples(bytes);
    return given_;
  }

  std::size_t batches = 0, tasks = 0, wrong_samples = 0;

 private:
  template <class Real>
  void run(const SkySearchBatch<Real>& b, std::span<SkyPick> out) {
    const std::size_t n_det = snr_.z.size();
    const auto trials = static_cast<std::size_t>(settings_.n_slides + 1);
    const std::int64_t margin = b.centre, length = static_cast<std::int64_t>(b.window_length);
    EXPECT_EQ(length, 2 * margin + 1);
    EXPECT_EQ(static_cast<const void*>(b.samples.data()), static_cast<const void*>(given_.data()));
    EXPECT_LE(b.samples.size_bytes(), given_.size());
    std::vector<std::int64_t> starts(b.n_tasks * n_det);
    for (std::size_t t = 0; t < b.n_tasks; ++t) {
      const Candidate& c = candidates_[(tasks + t) / trials];
      const auto trial = static_cast<std::int64_t>((tasks + t) % trials);
      EXPECT_EQ(b.ref[t], static_cast<std::int32_t>(c.ref_ifo));
      EXPECT_EQ(b.first[t], trial % settings_.sky_stride);
      for (std::size_t d = 0; d < n_det; ++d) {
        const std::int64_t start = static_cast<std::int64_t>(c.tmpl * snr_.n_samples) + c.sample -
                                   (d == c.ref_ifo ? 0 : trial * settings_.slide_samples) - margin;
        starts[t * n_det + d] = start;
        for (std::int64_t s = 0; s < length; ++s) {
          const std::complex<double> z = snr_.z[d][static_cast<std::size_t>(start + s)];
          const Real* got = b.samples.data() + (b.window[t * n_det + d] + s) * 2;
          wrong_samples += got[0] != static_cast<Real>(z.real()) || got[1] != static_cast<Real>(z.imag());
        }
      }
    }
    std::int64_t stored = 0;
    const auto want = expected_layout(starts, n_det, length, stored);
    EXPECT_EQ(std::vector<std::int64_t>(b.window.begin(), b.window.end()), want) << "batch " << batches;
    EXPECT_EQ(static_cast<std::int64_t>(b.samples.size() / 2), stored) << "batch " << batches;
    tasks += b.n_tasks;
    ++batches;
    loop_.search(b, out);
  }

  const NetworkSnr& snr_;
  std::span<const Candidate> candidates_;
  CoherentSettings settings_;
  std::size_t batch_;
  std::span<std::byte> given_;
  LoopEngine loop_;
};

void expect_same_results(const std::vector<CoherentResult>& cpu, const std::vector<CoherentResult>& dev,
                         const std::string& what) {
  ASSERT_EQ(cpu.size(), dev.size()) << what;
  for (std::size_t t = 0; t < cpu.size(); ++t) {
    EXPECT_EQ(dev[t].pixel, cpu[t].pixel) << what << " task " << t;
    EXPECT_EQ(dev[t].coh_snr2, cpu[t].coh_snr2) << what << " task " << t;
    EXPECT_EQ(dev[t].null_snr2, cpu[t].null_snr2) << what << " task " << t;
    EXPECT_EQ(dev[t].network_chisq, cpu[t].network_chisq) << what << " task " << t;
    EXPECT_EQ(dev[t].chisq, cpu[t].chisq) << what << " task " << t;
    EXPECT_EQ(dev[t].snr, cpu[t].snr) << what << " task " << t;
    EXPECT_EQ(dev[t].offset, cpu[t].offset) << what << " task " << t;
  }
}

// Candidates in rows of their own in row order (the layout's linear path), the same rows in
// reverse order and candidates sharing a row out of order (its sort), with slides longer and
// shorter than a window and none, no slides at all, batches that split a candidate's trials, 2
// and 3 detectors, 0, 1 and many candidates: the layout is the sorted one's and the results are
// the CPU loop's, bit for bit.
TEST(CoherentEngine, BatchWindowsAreStoredOncePerRunInSeriesOrder) {
  const std::size_t row_length = 3000;
  for (std::size_t n_det : {2, 3}) {
    const RowNetwork w = random_rows(n_det, 6, row_length, 40 + static_cast<unsigned>(n_det));
    const std::vector<double> sigma = n_det == 3 ? std::vector<double>{1.0, 1.0, 0.5} : std::vector<double>{1.0, 0.8};
    const SkyMap map = make_sky_map(1, w.snr.ifos, sigma, gps, 2048);
    struct Layout {
      std::string name;
      std::vector<Candidate> candidates;
    };
    std::vector<Layout> layouts;
    {
      Layout own{"own rows in order", {}}, reversed{"own rows reversed", {}}, shared{"one row shared", {}};
      for (std::size_t k = 0; k < 6; ++k) {
        own.candidates.push_back({k % n_det, k, 1600 + static_cast<std::int64_t>(k) * 37});
        reversed.candidates.push_back({k % n_det, 5 - k, 1700});
      }
      for (std::int64_t s : {1900, 1650, 1900, 1700, 2500, 1660}) shared.candidates.push_back({0, 2, s});
      shared.candidates[1].ref_ifo = n_det - 1;
      layouts = {own, reversed, shared, {"one candidate", {{1, 3, 2000}}}, {"none", {}}};
    }
    for (const CoherentSettings& settings : {CoherentSettings{4, 300, false, 1}, CoherentSettings{4, 40, false, 2},
                                             CoherentSettings{3, 0, false, 1}, CoherentSettings{0, 300, false, 1}})
      for (const Layout& layout : layouts)
        for (std::size_t batch : {1, 4, 1000}) {
          const std::string what = std::to_string(n_det) + " detectors, " + layout.name + ", " +
                                   std::to_string(settings.n_slides) + " slides of " +
                                   std::to_string(settings.slide_samples) + ", batches of " + std::to_string(batch);
          for (auto precision : {Precision::fp64, Precision::fp32}) {
            LayoutCheck check(w.snr, layout.candidates, settings, batch);
            const auto cpu = coherent_search(map, w.snr, w.ac, layout.candidates, settings, precision, 2);
            const auto dev = coherent_search(map, w.snr, w.ac, layout.candidates, settings, precision, 2, &check);
            const std::size_t tasks = layout.candidates.size() * static_cast<std::size_t>(settings.n_slides + 1);
            EXPECT_EQ(check.tasks, tasks) << what;
            EXPECT_EQ(check.batches, (tasks + batch - 1) / batch) << what;
            EXPECT_EQ(check.wrong_samples, 0U) << what;
            expect_same_results(cpu, dev, what);
          }
        }
  }
}

// The default host memory for a batch's samples: as long as asked, aligned for double, and the same
// memory again when a later batch needs no more.
TEST(CoherentEngine, HostSamplesAreKeptFromBatchToBatch) {
  LoopEngine engine;
  const auto big = engine.host_samples(1000);
  EXPECT_EQ(big.size(), 1000U);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.data()) % alignof(double), 0U);
  const auto small = engine.host_samples(24);
  EXPECT_EQ(small.size(), 24U);
  EXPECT_EQ(small.data(), big.data());
  EXPECT_EQ(engine.host_samples(5000).size(), 5000U);
  EXPECT_TRUE(engine.host_samples(0).empty());
}

#ifdef ASTROSWEEP_WITH_CUDA

std::unique_ptr<SkySearchEngine> gpu() {
  BackendOptions options;
  options.kind = BackendKind::cuda;
  return make_sky_search_cuda(options);
}

// The GPU's results against the CPU loop's; near-ties (another pixel, ρ_coh² within the
// resolution) counted. Returns the number of near-ties.
int compare(const std::vector<CoherentResult>& cpu, const std::vector<CoherentResult>& dev, Precision precision,
            const std::string& what) {
  const double tol = precision == Precision::fp64 ? 1e-12 : 1e-5;
  int ties = 0;
  EXPECT_EQ(cpu.size(), dev.size()) << what;
  for (std::size_t t = 0; t < std::min(cpu.size(), dev.size()); ++t) {
    EXPECT_NEAR(dev[t].coh_snr2, cpu[t].coh_snr2, tol * cpu[t].coh_snr2) << what << " task " << t;
    if (dev[t].pixel != cpu[t].pixel) {
      ++ties;
      continue;
    }
    EXPECT_NEAR(dev[t].null_snr2, cpu[t].null_snr2, tol * cpu[t].coh_snr2) << what << " task " << t;
    EXPECT_NEAR(dev[t].network_chisq, cpu[t].network_chisq, 1e-9 * cpu[t].network_chisq) << what << " task " << t;
    EXPECT_EQ(dev[t].offset, cpu[t].offset) << what << " task " << t;
  }
  if (precision == Precision::fp64) {
    EXPECT_EQ(ties, 0) << what;
  }
  return ties;
}

// The CUDA kernel bit for bit the plain loop on the synthetic searches (tiles of 8: the windows are short).
TEST(CoherentEngine, GpuMatchesTheLoopOnSyntheticSearches) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto engine = gpu();
  for (const auto& s : synthetic_cases()) {
    LoopEngine loop;
    expect_same(picks<double>(loop, s), picks<double>(*engine, s), s.describe() + " fp64");
    expect_same(picks<float>(loop, s), picks<float>(*engine, s), s.describe() + " fp32");
  }
}

// Windows too long for a tile of 8 in shared memory take tiles of 1 (FP64, 3 detectors, 2000
// samples: a tile of 1 fits an H100's 227 KiB, one of 8 does not).
TEST(CoherentEngine, GpuLongWindowsTakeTilesOfOne) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto engine = gpu();
  auto s = synthetic(3, 300, 10, 1, false, Synthetic::Values::random, 99);
  const std::size_t grow = 2000 - s.window_length;
  std::vector<double> samples(s.samples.size() + 2 * grow, 0.5);
  std::copy(s.samples.begin(), s.samples.end(), samples.begin());
  s.samples = samples;
  s.window_length = 2000;
  LoopEngine loop;
  expect_same(picks<double>(loop, s), picks<double>(*engine, s), "2000-sample windows");
}

// The claim itself: the GPU's picks are the CPU loop's bit for bit in every field, FP32 included
// (GpuMatchesTheCpuLoop below keeps the tolerances it had before the kernel claimed it).
TEST(CoherentEngine, GpuEqualsTheCpuLoopBitForBit) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto engine = gpu();
  for (const auto& c : cases()) {
    const auto snr = network_of(c);
    const auto ac = autocorrelations_of(c);
    const auto map = map_of(c, snr);
    const auto cands = candidates_of(c, 24);
    for (auto precision : {Precision::fp64, Precision::fp32}) {
      const auto cpu = coherent_search(map, snr, ac, cands, c.settings, precision, 2);
      const auto dev = coherent_search(map, snr, ac, cands, c.settings, precision, 2, engine.get());
      ASSERT_EQ(cpu.size(), dev.size());
      const std::string what = describe(c) + (precision == Precision::fp64 ? " fp64" : " fp32");
      for (std::size_t t = 0; t < cpu.size(); ++t) {
        EXPECT_EQ(dev[t].pixel, cpu[t].pixel) << what << " task " << t;
        EXPECT_EQ(dev[t].coh_snr2, cpu[t].coh_snr2) << what << " task " << t;
        EXPECT_EQ(dev[t].null_snr2, cpu[t].null_snr2) << what << " task " << t;
        EXPECT_EQ(dev[t].network_chisq, cpu[t].network_chisq) << what << " task " << t;
      }
    }
  }
}

TEST(CoherentEngine, GpuMatchesTheCpuLoop) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto engine = gpu();
  int ties = 0, tasks = 0;
  for (const auto& c : cases()) {
    const auto snr = network_of(c);
    const auto ac = autocorrelations_of(c);
    const auto map = map_of(c, snr);
    const auto cands = candidates_of(c, 24);
    for (auto precision : {Precision::fp64, Precision::fp32}) {
      const auto cpu = coherent_search(map, snr, ac, cands, c.settings, precision, 2);
      const auto dev = coherent_search(map, snr, ac, cands, c.settings, precision, 2, engine.get());
      const int t = compare(cpu, dev, precision, describe(c) + (precision == Precision::fp64 ? " fp64" : " fp32"));
      if (precision == Precision::fp32) {
        ties += t;
        tasks += static_cast<int>(cpu.size());
      }
    }
  }
  std::cout << "fp32: " << ties << " near-ties in " << tasks << " tasks\n";
  EXPECT_LE(ties, tasks / 100 + 1);
}

TEST(CoherentEngine, GpuOneTask) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto engine = gpu();
  const Case c{"", true, 3, {0, 0, false, 1}};
  const auto snr = network_of(c);
  const auto ac = autocorrelations_of(c);
  const auto map = map_of(c, snr);
  const auto cands = candidates_of(c, 1);
  for (auto precision : {Precision::fp64, Precision::fp32}) {
    const auto cpu = coherent_search(map, snr, ac, cands, c.settings, precision, 1);
    const auto dev = coherent_search(map, snr, ac, cands, c.settings, precision, 1, engine.get());
    ASSERT_EQ(dev.size(), 1U);
    compare(cpu, dev, precision, "one task");
  }
}

// More tasks than a grid's y or z dimension holds (65535), in one launch: 700 candidates × 101 trials.
TEST(CoherentEngine, GpuManyTasks) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto engine = gpu();
  const Case c{"", false, 0, {100, 7, false, 1}};
  const auto snr = network_of(c);
  const auto ac = autocorrelations_of(c);
  const auto map = map_of(c, snr);
  std::vector<Candidate> cands;
  for (std::size_t i = 0; i < 700; ++i) cands.push_back({i % 2, 0, 20000 + static_cast<std::int64_t>(i) * 97});
  const std::size_t per_task = 2 * static_cast<std::size_t>(2 * read_margin(map, c.settings) + 1) * 2 * sizeof(double);
  ASSERT_GE(engine->max_batch(per_task), 70700U) << "the tasks would not go in one launch";
  const auto cpu = coherent_search(map, snr, ac, cands, c.settings, Precision::fp64, 2);
  const auto dev = coherent_search(map, snr, ac, cands, c.settings, Precision::fp64, 2, engine.get());
  ASSERT_EQ(dev.size(), 70700U);
  compare(cpu, dev, Precision::fp64, "70700 tasks");
  std::cout << "70700 tasks: kernel " << engine->kernel_ms() << " ms\n";
}

#endif

}  // namespace
}  // namespace astrosweep::spiir
