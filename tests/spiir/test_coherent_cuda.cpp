// The coherent stage's sky search on a device (spec §8-§9): coherent_search with a SkySearchEngine
// against the CPU's own loop (engine null).
//   HostReplay*: a host engine that replays the CUDA kernel's reduction (blocks of 256 threads,
//     each striding over the searched pixels; block maximum, floor, the first index reaching it)
//     on the windows and tables the search hands a device, in batches of 7 tasks: it checks the
//     job's side of the seam (windows, tables, batches, the χ² finished on the CPU) and the
//     reduction's rule here, without a GPU. Bit-for-bit equal results.
//   Gpu*: the CUDA engine (built in a CUDA build; skipped without a device): FP64 the same pixel
//     and ρ_coh² within 1e-12 (relative); FP32 within 1e-5 and the same pixel except near-ties.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <vector>

#include "coherent_snr.hpp"
#include "coherent_test_support.hpp"
#ifdef ASTROSWEEP_WITH_CUDA
#include "coherent_sky_cuda.hpp"
#include "device.hpp"
#endif

namespace astrosweep::spiir {
namespace {

using namespace coherent_test;

// The kernel's algorithm on the host (coherent_sky.cu), over the data a device receives.
class HostReplay final : public SkySearchEngine {
 public:
  void load(const SkySearchTables<float>& t) override { load_as(t, f_); }
  void load(const SkySearchTables<double>& t) override { load_as(t, d_); }
  void search(const SkySearchBatch<float>& b, std::span<SkyPick> out) override { run(f_, b, out); }
  void search(const SkySearchBatch<double>& b, std::span<SkyPick> out) override { run(d_, b, out); }
  [[nodiscard]] std::size_t max_batch(std::size_t) const override { return 7; }
  [[nodiscard]] double kernel_ms() const override { return 0; }
  std::size_t batches = 0;

 private:
  template <class Real>
  struct Tables {
    std::size_t n_det = 0, n_pix = 0, taps = 1;
    std::vector<Real> u01, weights;
    std::vector<std::int32_t> reads;
  };
  Tables<float> f_;
  Tables<double> d_;

  template <class Real>
  static void load_as(const SkySearchTables<Real>& t, Tables<Real>& to) {
    to.n_det = t.n_det;
    to.n_pix = t.n_pix;
    to.u01.assign(t.u01.begin(), t.u01.end());
    to.reads.assign(t.reads.begin(), t.reads.end());
    to.weights.assign(t.weights.begin(), t.weights.end());
    to.taps = to.weights.empty() ? 1 : to.weights.size() / to.reads.size();
  }

  template <class Real>
  static Real coherent(const Tables<Real>& k, const SkySearchBatch<Real>& b, const Real* win, int ref, int p,
                       Real& total) {
    const Real* u = &k.u01[static_cast<std::size_t>(p) * 2 * k.n_det];
    Real w0r = 0, w0i = 0, w1r = 0, w1i = 0;
    total = 0;
    for (std::size_t d = 0; d < k.n_det; ++d) {
      const std::size_t i = (static_cast<std::size_t>(ref) * k.n_pix + static_cast<std::size_t>(p)) * k.n_det + d;
      const std::int64_t at = b.centre + k.reads[i];
      EXPECT_TRUE(at >= 0 && at + static_cast<std::int64_t>(k.taps) <= static_cast<std::int64_t>(b.window_length));
      const Real* s = win + (d * b.window_length + static_cast<std::size_t>(at)) * 2;
      Real zr = s[0], zi = s[1];
      if (!k.weights.empty()) {
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
  void run(const Tables<Real>& k, const SkySearchBatch<Real>& b, std::span<SkyPick> out) {
    ++batches;
    constexpr int threads = 256;
    for (std::size_t t = 0; t < b.n_tasks; ++t) {
      const Real* win = b.windows.data() + t * k.n_det * b.window_length * 2;
      const int ref = b.ref[t], first = b.first[t];
      const int n = (static_cast<int>(k.n_pix) - first + b.stride - 1) / b.stride;
      Real total = 0;
      std::vector<Real> local(threads, Real(-1));
      for (int tid = 0; tid < threads; ++tid)
        for (int j = tid; j < n; j += threads)
          local[tid] = std::max(local[tid], coherent(k, b, win, ref, first + j * b.stride, total));
      const Real max = *std::max_element(local.begin(), local.end());
      const Real floor = max - statistic_resolution<Real> * (max < 0 ? -max : max);
      int hit = n;
      for (int tid = 0; tid < threads; ++tid) {
        if (local[tid] < floor) continue;
        for (int j = tid; j < n; j += threads)
          if (coherent(k, b, win, ref, first + j * b.stride, total) >= floor) {
            hit = std::min(hit, j);
            break;
          }
      }
      const int pixel = first + hit * b.stride;
      const Real coh = coherent(k, b, win, ref, pixel, total);
      out[t] = {pixel, static_cast<double>(coh), static_cast<double>(total)};
    }
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

TEST(CoherentEngine, HostReplayMatchesTheCpuLoopBitForBit) {
  for (const auto& c : cases()) {
    const auto snr = network_of(c);
    const auto ac = autocorrelations_of(c);
    const auto map = map_of(c, snr);
    const auto cands = candidates_of(c, 9);
    for (auto precision : {Precision::fp64, Precision::fp32}) {
      HostReplay replay;
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
