// The SNR history (snr_history.hpp) and the coherent search over it (coherent_history.hpp) against
// the search over a NetworkSnr holding the same values (coherent_snr.hpp), on synthetic histories:
//   Ring*: the host ring's layout, wrap, reads, and what it refuses.
//   Search*: random SNR streamed into rings of 1,024 samples over several wraps; candidates at the
//     wrap, at the oldest sample the slides may reach and at the newest the χ² may; 0, 1 and many
//     candidates; 2 and 3 detectors; FP32 and FP64; rounded and sub-sample reads; sky strides.
//     Every field of every result bit for bit: the same per-task code reads the same samples.
//   TwinEngine*: an engine that reads the host rings where they lie, as the CUDA engine reads its
//     own (the pixel loop written plainly, the χ² by history_chisq.hpp, the kernel's arithmetic):
//     the seam's bookkeeping (tasks' descriptors, χ² rows, ζ and χ² back) bit for bit the CPU's; the
//     bank's χ² tables loaded once per bank (SkyChisqKey), again for another bank or changed sizes.
//   Chisq*: history_chisq.hpp's one read bit for bit autocorrelation_chisq.
//   Backend*: append_snr through the default (the rows down) equals snr_rows appended.
//   Gpu* (a CUDA build with a device; skipped otherwise): the device ring against the host ring
//     (appended from the host and by the CUDA backend on the device, FP32 and FP64 filters into
//     FP32 and FP64 rings; the multi-rate backend's in test_spiir_multirate_cuda), and the CUDA
//     engine over the device rings against the CPU over the host rings, bit for bit (also through
//     several banks on one engine, its χ² tables kept and reloaded).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "autocorrelation_chisq.hpp"
#include "coherent_history.hpp"
#include "coherent_snr.hpp"
#include "filter_test_support.hpp"
#include "history_chisq.hpp"
#include "snr_history.hpp"
#include "spiir_backend.hpp"
#ifdef ASTROSWEEP_WITH_CUDA
#include "coherent_sky_cuda.hpp"
#include "device.hpp"
#include "snr_history_cuda.hpp"
#include "spiir_backend_cuda.hpp"
#endif

namespace astrosweep::spiir {
namespace {

constexpr double gps = 1187008882.4;
constexpr double rate = 2048;

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }
bool same_bits(std::complex<double> a, std::complex<double> b) {
  return same_bits(a.real(), b.real()) && same_bits(a.imag(), b.imag());
}

void expect_same(const std::vector<CoherentResult>& got, const std::vector<CoherentResult>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const CoherentResult &g = got[i], &w = want[i];
    EXPECT_EQ(g.pixel, w.pixel) << "task " << i;
    EXPECT_TRUE(same_bits(g.coh_snr2, w.coh_snr2)) << "task " << i << ": " << g.coh_snr2 << " vs " << w.coh_snr2;
    EXPECT_TRUE(same_bits(g.null_snr2, w.null_snr2)) << "task " << i;
    EXPECT_TRUE(same_bits(g.network_chisq, w.network_chisq)) << "task " << i;
    ASSERT_EQ(g.snr.size(), w.snr.size());
    for (std::size_t d = 0; d < g.snr.size(); ++d) {
      EXPECT_TRUE(same_bits(g.snr[d], w.snr[d])) << "task " << i << " detector " << d;
      EXPECT_TRUE(same_bits(g.chisq[d], w.chisq[d])) << "task " << i << " detector " << d;
      EXPECT_EQ(g.offset[d], w.offset[d]);
      EXPECT_TRUE(same_bits(g.delay[d], w.delay[d]));
    }
  }
}

// Random complex SNR streamed in chunks into one ring per detector and, alongside, every value
// the ring holds widened back to double in a NetworkSnr of the whole stream (the oracle's input).
struct Streamed {
  std::vector<std::unique_ptr<SnrHistory>> rings;
  NetworkSnr linear;
  TemplateAutocorrelations ac;

  [[nodiscard]] std::vector<const SnrHistory*> histories() const {
    std::vector<const SnrHistory*> out;
    for (const auto& r : rings) out.push_back(r.get());
    return out;
  }
};

// `chunks` chunks of `chunk` samples of n_templates templates into rings of `length`, made by
// `make` (the host ring unless given).
Streamed stream(const std::vector<std::string>& ifos, std::size_t n_templates, std::size_t length, std::size_t chunk,
                int chunks, Precision precision, std::size_t ac_length = 21,
                const std::function<std::unique_ptr<SnrHistory>()>& make = {}) {
  Streamed s;
  const std::size_t n_det = ifos.size(), total = chunk * static_cast<std::size_t>(chunks);
  s.linear.ifos = ifos;
  s.linear.n_templates = n_templates;
  s.linear.n_samples = total;
  s.linear.z.assign(n_det, std::vector<std::complex<double>>(n_templates * total));
  std::mt19937_64 rng(7);
  std::normal_distribution<double> g;
  for (std::size_t d = 0; d < n_det; ++d)
    s.rings.push_back(make ? make() : make_snr_history_host(n_templates, length, precision));
  std::vector<std::complex<double>> z(n_templates * chunk);
  for (int c = 0; c < chunks; ++c)
    for (std::size_t d = 0; d < n_det; ++d) {
      for (auto& v : z) v = {g(rng), g(rng)};
      s.rings[d]->append(z, chunk);
      for (std::size_t j = 0; j < n_templates; ++j)
        for (std::size_t i = 0; i < chunk; ++i) {
          std::complex<double> held = z[j * chunk + i];
          if (precision == Precision::fp32)
            held = {static_cast<double>(static_cast<float>(held.real())),
                    static_cast<double>(static_cast<float>(held.imag()))};
          s.linear.z[d][j * total + static_cast<std::size_t>(c) * chunk + i] = held;
        }
    }
  // Autocorrelations with R(0) = 1, decaying, per detector and template.
  s.ac.length = ac_length;
  s.ac.n_templates = n_templates;
  const int k = static_cast<int>(ac_length / 2);
  for (std::size_t d = 0; d < n_det; ++d) {
    std::vector<std::complex<double>> r;
    for (std::size_t j = 0; j < n_templates; ++j)
      for (int lag = -k; lag <= k; ++lag)
        r.push_back(lag == 0 ? std::complex<double>(1.0)
                             : std::exp(-0.01 * (1.0 + static_cast<double>(d + j)) * lag * lag) *
                                   std::polar(1.0, 0.2 * lag + static_cast<double>(j)));
    s.ac.per_ifo.push_back(std::move(r));
  }
  return s;
}

// Candidates spread over what the histories hold, with the edge cases: the oldest sample the
// slides may reach, the newest the χ² may, and bases whose windows straddle the ring's wrap.
std::vector<Candidate> candidates_over(const Streamed& s, const SkyMap& map, const CoherentSettings& settings,
                                       std::size_t count) {
  const SearchReach reach = search_reach(map, settings, s.ac.half_length());
  const SnrHistory& h = *s.rings.front();
  const std::int64_t lo = h.oldest() + reach.before, hi = h.written() - 1 - reach.after;
  EXPECT_LE(lo, hi) << "the history is too short for the search";
  std::vector<Candidate> out;
  const auto n_det = map.n_det();
  const auto length = static_cast<std::int64_t>(h.length());
  const std::vector<std::int64_t> edges{lo, hi, (hi / length) * length, (hi / length) * length - 1, lo + 1};
  for (std::size_t i = 0; i < count; ++i) {
    std::int64_t sample = i < edges.size() ? edges[i] : lo + static_cast<std::int64_t>(i * 7919) % (hi - lo + 1);
    sample = std::clamp(sample, lo, hi);
    out.push_back({i % n_det, i % s.linear.n_templates, sample});
  }
  return out;
}

SkyMap map_of(const std::vector<std::string>& ifos, int order = 2) {
  return make_sky_map(order, ifos, std::vector<double>(ifos.size(), 1.0), gps, rate);
}

const std::vector<std::string> hlv{"H1", "L1", "V1"};
const std::vector<std::string> hl{"H1", "L1"};

TEST(RingHistory, WrapsAndReadsBackWhatWasWritten) {
  const Streamed s = stream(hl, 3, 256, 100, 7, Precision::fp64);  // 700 samples through 256: wrapped twice
  const SnrHistory& h = *s.rings[1];
  EXPECT_EQ(h.written(), 700);
  EXPECT_EQ(h.oldest(), 700 - 256);
  EXPECT_TRUE(h.holds(444, 700));
  EXPECT_FALSE(h.holds(443, 500));
  EXPECT_FALSE(h.holds(600, 701));
  std::vector<HistoryRead> reads{{0, 444}, {2, 500}, {1, 640}};  // 500 … 600 crosses the wrap at 512
  std::vector<std::complex<double>> out(reads.size() * 60);
  h.read(reads, 60, out);
  for (std::size_t r = 0; r < reads.size(); ++r)
    for (std::size_t i = 0; i < 60; ++i)
      EXPECT_EQ(out[r * 60 + i], s.linear.series(1, reads[r].row)[reads[r].first + static_cast<std::int64_t>(i)]);
}

TEST(RingHistory, RoundsToItsPrecision) {
  auto h = make_snr_history_host(1, 4, Precision::fp32);
  const std::vector<std::complex<double>> z{{0.1, -0.2}};
  h->append(z, 1);
  std::vector<std::complex<double>> out(1);
  h->read(std::vector<HistoryRead>{{0, 0}}, 1, out);
  EXPECT_EQ(out[0], std::complex<double>(static_cast<double>(0.1F), static_cast<double>(-0.2F)));
}

TEST(RingHistory, RefusesWhatItCannotHold) {
  EXPECT_THROW(make_snr_history_host(2, 100, Precision::fp32), UsageError);  // not a power of two
  auto h = make_snr_history_host(2, 8, Precision::fp32);
  std::vector<std::complex<double>> chunk(18);    // 2 templates × 9
  EXPECT_THROW(h->append(chunk, 9), UsageError);  // longer than the ring
  chunk.resize(10);
  EXPECT_THROW(h->append(chunk, 4), UsageError);  // the chunk's size does not fit
  h->append(chunk, 5);
  std::vector<std::complex<double>> out(3);
  EXPECT_THROW(h->read(std::vector<HistoryRead>{{0, 3}}, 3, out), UsageError);  // sample 5 not yet written
  EXPECT_THROW(h->read(std::vector<HistoryRead>{{2, 0}}, 3, out), UsageError);  // no template 2
  h->append(chunk, 5);
  EXPECT_THROW(h->read(std::vector<HistoryRead>{{0, 1}}, 3, out), UsageError);  // sample 1 overwritten
  h->read(std::vector<HistoryRead>{{1, 2}}, 3, out);
  EXPECT_EQ(history_length_for(4096 + 41000), 65536u);
  EXPECT_EQ(history_length_for(1), 1u);
  EXPECT_EQ(history_length_for(1024), 1024u);
}

struct Case {
  std::vector<std::string> ifos;
  Precision precision;
  bool subsample;
  int stride;
  std::size_t candidates;
};

std::vector<CoherentResult> linear_search(const Streamed& s, const SkyMap& map, std::span<const Candidate> c,
                                          const CoherentSettings& settings, Precision precision) {
  return coherent_search(map, s.linear, s.ac, c, settings, precision, 2);
}

TEST(HistorySearch, EqualsTheSearchOverTheSameSeriesBitForBit) {
  const std::vector<Case> cases{{hlv, Precision::fp32, false, 1, 23}, {hlv, Precision::fp64, false, 3, 9},
                                {hl, Precision::fp32, false, 1, 11},  {hl, Precision::fp64, true, 1, 6},
                                {hlv, Precision::fp32, true, 4, 7},   {hlv, Precision::fp32, false, 1, 1},
                                {hlv, Precision::fp32, false, 1, 0}};
  for (const Case& k : cases) {
    SCOPED_TRACE(std::to_string(k.ifos.size()) + " detectors, " + (k.precision == Precision::fp32 ? "fp32" : "fp64") +
                 (k.subsample ? ", subsample" : "") + ", stride " + std::to_string(k.stride) + ", " +
                 std::to_string(k.candidates) + " candidates");
    const SkyMap map = map_of(k.ifos);
    CoherentSettings settings;
    settings.n_slides = 6;
    settings.slide_samples = 97;  // the slides reach 582 samples of the 1,024 back
    settings.subsample = k.subsample;
    settings.sky_stride = k.stride;
    const Streamed s = stream(k.ifos, 4, 1024, 300, 9, k.precision);
    const std::vector<Candidate> c = candidates_over(s, map, settings, k.candidates);
    const auto histories = s.histories();
    const auto got = coherent_search(map, histories, s.ac, c, settings, k.precision, 2);
    expect_same(got, linear_search(s, map, c, settings, k.precision));
    EXPECT_EQ(got.size(), c.size() * 7);
  }
}

TEST(HistorySearch, SlidesMayReachBackTheWholeHistory) {
  const SkyMap map = map_of(hlv);
  CoherentSettings settings;
  const Streamed s = stream(hlv, 2, 1024, 512, 5, Precision::fp32);
  const SearchReach one = search_reach(map, settings, s.ac.half_length());
  settings.slide_samples = 61;
  settings.n_slides = static_cast<int>((1024 - one.before - one.after - 1) / settings.slide_samples);
  const SearchReach reach = search_reach(map, settings, s.ac.half_length());
  ASSERT_GT(reach.before + reach.after + 1, 1024 - settings.slide_samples);  // within a slide of the whole ring
  const std::int64_t sample = s.rings[0]->written() - 1 - reach.after;
  const std::vector<Candidate> c{{0, 1, sample}, {2, 0, sample}};
  const auto histories = s.histories();
  expect_same(coherent_search(map, histories, s.ac, c, settings, Precision::fp32, 2),
              linear_search(s, map, c, settings, Precision::fp32));
}

TEST(HistorySearch, RefusesReadsTheHistoriesDoNotHold) {
  const SkyMap map = map_of(hl);
  CoherentSettings settings;
  settings.n_slides = 2;
  settings.slide_samples = 50;
  const Streamed s = stream(hl, 2, 512, 256, 4, Precision::fp32);
  const SearchReach reach = search_reach(map, settings, s.ac.half_length());
  const auto histories = s.histories();
  const std::int64_t oldest = s.rings[0]->oldest(), newest = s.rings[0]->written() - 1;
  const auto search = [&](std::int64_t sample) {
    const std::vector<Candidate> c{{0, 0, sample}};
    return coherent_search(map, histories, s.ac, c, settings, Precision::fp32, 2);
  };
  EXPECT_NO_THROW(search(oldest + reach.before));
  EXPECT_THROW(search(oldest + reach.before - 1), UsageError);  // the last slide's oldest sample overwritten
  EXPECT_NO_THROW(search(newest - reach.after));
  EXPECT_THROW(search(newest - reach.after + 1), UsageError);  // the χ²'s last lag not yet written
  const std::vector<Candidate> other{{0, 2, oldest + reach.before}};
  EXPECT_THROW(coherent_search(map, histories, s.ac, other, settings, Precision::fp32, 2), UsageError);
  EXPECT_THROW(coherent_search(map, histories, s.ac, {}, settings, Precision::fp64, 2), UsageError);  // precision
  const std::vector<const SnrHistory*> one{histories[0]};
  EXPECT_THROW(coherent_search(map, one, s.ac, {}, settings, Precision::fp32, 2), UsageError);
}

TEST(HistoryChisq, OneReadEqualsAutocorrelationChisqBitForBit) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g;
  for (const std::size_t length : {1u, 3u, 201u}) {
    std::vector<std::complex<double>> series(length), r(length);
    std::vector<double> r_pairs;
    for (std::size_t i = 0; i < length; ++i) {
      series[i] = {static_cast<double>(static_cast<float>(g(rng))), static_cast<double>(static_cast<float>(g(rng)))};
      r[i] = {g(rng), g(rng)};
      r_pairs.push_back(r[i].real());
      r_pairs.push_back(r[i].imag());
    }
    const int k = static_cast<int>(length / 2);
    const std::complex<double>* centre = series.data() + k;
    const double norm = autocorrelation_chisq_norm(r.data(), length);
    const auto load = [&](int s) { return history_chisq::Value{centre[s].real(), centre[s].imag()}; };
    EXPECT_TRUE(same_bits(history_chisq::chisq(load, r_pairs.data(), k, norm),
                          autocorrelation_chisq(centre, r.data(), length, norm)))
        << length << " lags";
  }
}

// An engine that reads host rings where they lie, as the CUDA engine reads its device rings: the
// CPU's pixel loop written plainly over the rings, the χ² by history_chisq (the kernel's code).
class TwinEngine final : public SkySearchEngine {
 public:
  void load(const SkySearchTables<float>& t) override { load_as(t, f_); }
  void load(const SkySearchTables<double>& t) override { load_as(t, d_); }
  void search(const SkySearchBatch<float>&, std::span<SkyPick>) override { ADD_FAILURE() << "windows asked for"; }
  void search(const SkySearchBatch<double>&, std::span<SkyPick>) override { ADD_FAILURE() << "windows asked for"; }
  [[nodiscard]] std::size_t max_batch(std::size_t) const override { return 1000; }
  [[nodiscard]] double kernel_ms() const override { return 0; }
  [[nodiscard]] bool reads_histories(std::span<const SnrHistory* const> h) const override { return !h.empty(); }
  void load_chisq(const SkyChisqTables& t) override {
    EXPECT_EQ(t.r.size(), t.key.n_templates * t.key.n_det * t.key.length * 2);
    EXPECT_EQ(t.norms.size(), t.key.n_templates * t.key.n_det);
    key_ = t.key;
    r_.assign(t.r.begin(), t.r.end());
    norms_.assign(t.norms.begin(), t.norms.end());
    ++chisq_loads;
  }
  [[nodiscard]] SkyChisqKey chisq_key() const override { return key_; }
  void search_histories(std::span<const SnrHistory* const> histories, const SkyHistoryBatch& b,
                        const SkyHistoryOut& out) override {
    if (histories[0]->precision() == Precision::fp32)
      run(f_, histories, b, out);
    else
      run(d_, histories, b, out);
    tasks += b.n_tasks;
  }
  std::size_t tasks = 0;
  int chisq_loads = 0;

 private:
  template <class Real>
  struct Tables {
    std::size_t n_det = 0, n_pix = 0;
    std::vector<Real> u01;
    std::vector<std::int32_t> reads;
  };
  Tables<float> f_;
  Tables<double> d_;
  SkyChisqKey key_;
  std::vector<double> r_, norms_;

  template <class Real>
  static void load_as(const SkySearchTables<Real>& t, Tables<Real>& to) {
    EXPECT_TRUE(t.weights.empty());
    to.n_det = t.n_det;
    to.n_pix = t.n_pix;
    to.u01.assign(t.u01.begin(), t.u01.end());
    to.reads.assign(t.reads.begin(), t.reads.end());
  }

  template <class Real>
  void run(const Tables<Real>& k, std::span<const SnrHistory* const> histories, const SkyHistoryBatch& b,
           const SkyHistoryOut& out) {
    EXPECT_EQ(key_.n_templates, histories[0]->n_templates());
    const std::size_t n_det = k.n_det, half = static_cast<std::size_t>(b.margin) + key_.length / 2;
    const std::size_t span = 2 * half + 1;
    std::vector<std::complex<double>> window(n_det * span);
    std::vector<Real> coh;
    for (std::size_t t = 0; t < b.n_tasks; ++t) {
      for (std::size_t d = 0; d < n_det; ++d) {
        const std::vector<HistoryRead> read{
            {static_cast<std::size_t>(b.tmpl[t]), b.base[t * n_det + d] - static_cast<std::int64_t>(half)}};
        histories[d]->read(read, span, std::span(window).subspan(d * span, span));
      }
      const auto zeta = [&](std::size_t d, std::int32_t p) {
        const std::int32_t off =
            k.reads[(static_cast<std::size_t>(b.ref[t]) * k.n_pix + static_cast<std::size_t>(p)) * n_det + d];
        return (&window[d * span + half])[off];
      };
      const auto coherent = [&](std::int32_t p, Real& total) {
        const Real* u = &k.u01[static_cast<std::size_t>(p) * 2 * n_det];
        Real w0r = 0, w0i = 0, w1r = 0, w1i = 0;
        total = 0;
        for (std::size_t d = 0; d < n_det; ++d) {
          const auto z = zeta(d, p);
          const auto zr = static_cast<Real>(z.real()), zi = static_cast<Real>(z.imag());
          w0r += u[d] * zr;
          w0i += u[d] * zi;
          w1r += u[n_det + d] * zr;
          w1i += u[n_det + d] * zi;
          total += zr * zr + zi * zi;
        }
        return w0r * w0r + w0i * w0i + w1r * w1r + w1i * w1i;
      };
      coh.clear();
      Real total = 0;
      for (auto p = b.first[t]; p < static_cast<std::int32_t>(k.n_pix); p += b.stride)
        coh.push_back(coherent(p, total));
      const auto pixel = b.first[t] + static_cast<std::int32_t>(reported_pixel(std::span<const Real>(coh))) * b.stride;
      const Real v = coherent(pixel, total);
      out.picks[t] = {pixel, static_cast<double>(v), static_cast<double>(total)};
      for (std::size_t d = 0; d < n_det; ++d) {
        const std::size_t row = static_cast<std::size_t>(b.tmpl[t]) * n_det + d;  // the template's tables
        const std::int32_t off =
            k.reads[(static_cast<std::size_t>(b.ref[t]) * k.n_pix + static_cast<std::size_t>(pixel)) * n_det + d];
        const std::complex<double>* centre = &window[d * span + half] + off;
        const auto load = [&](int s) { return history_chisq::Value{centre[s].real(), centre[s].imag()}; };
        out.zeta[t * n_det + d] = *centre;
        out.chisq[t * n_det + d] =
            history_chisq::chisq(load, &r_[row * key_.length * 2], static_cast<int>(key_.length / 2), norms_[row]);
      }
    }
  }
};

TEST(HistorySearch, TwinEngineEqualsTheCpuBitForBit) {
  for (const auto& ifos : {hlv, hl})
    for (const Precision precision : {Precision::fp32, Precision::fp64}) {
      SCOPED_TRACE(std::to_string(ifos.size()) + " detectors");
      const SkyMap map = map_of(ifos);
      CoherentSettings settings;
      settings.n_slides = 5;
      settings.slide_samples = 113;
      settings.sky_stride = precision == Precision::fp32 ? 1 : 2;
      const Streamed s = stream(ifos, 5, 2048, 700, 6, precision, 31);
      const std::vector<Candidate> c = candidates_over(s, map, settings, 13);
      const auto histories = s.histories();
      TwinEngine engine;
      const auto got = coherent_search(map, histories, s.ac, c, settings, precision, 2, &engine);
      EXPECT_EQ(engine.tasks, c.size() * 6);
      EXPECT_EQ(engine.chisq_loads, 1);
      expect_same(got, coherent_search(map, histories, s.ac, c, settings, precision, 2));
      expect_same(got, linear_search(s, map, c, settings, precision));
    }
}

// Autocorrelations of another bank: `ac`'s with every lag but 0 turned by a template's angle.
TemplateAutocorrelations turned(const TemplateAutocorrelations& ac) {
  TemplateAutocorrelations out = ac;  // a copy: another object
  for (auto& per_ifo : out.per_ifo)
    for (std::size_t j = 0; j < ac.n_templates; ++j)
      for (std::size_t s = 0; s < ac.length; ++s)
        if (s != ac.half_length()) per_ifo[j * ac.length + s] *= std::polar(1.0, 0.3 + 0.1 * static_cast<double>(j));
  return out;
}

// Keeps only the central `length` lags of every template's autocorrelation, in place.
void trim_lags(TemplateAutocorrelations& ac, std::size_t length) {
  const std::size_t cut = (ac.length - length) / 2;
  for (auto& per_ifo : ac.per_ifo) {
    std::vector<std::complex<double>> kept;
    for (std::size_t j = 0; j < ac.n_templates; ++j)
      kept.insert(kept.end(), per_ifo.begin() + static_cast<std::ptrdiff_t>(j * ac.length + cut),
                  per_ifo.begin() + static_cast<std::ptrdiff_t>(j * ac.length + cut + length));
    per_ifo = std::move(kept);
  }
  ac.length = length;
}

bool some_chisq_differs(const std::vector<CoherentResult>& a, const std::vector<CoherentResult>& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (a[i].chisq != b[i].chisq) return true;
  return false;
}

// One engine through searches over one bank's autocorrelations, then another's, then the first's
// again: each search's results against the CPU's over the same autocorrelations. `loaded` says
// after each search which tables the engine holds.
template <class Check>
void search_through_banks(const Streamed& rings, const Streamed& cpu, SkySearchEngine& engine, Precision precision,
                          const Check& loaded) {
  const SkyMap map = map_of(hlv);
  CoherentSettings settings;
  settings.n_slides = 3;
  settings.slide_samples = 97;
  const std::vector<Candidate> all = candidates_over(cpu, map, settings, 11);
  const std::vector<Candidate> few(all.begin(), all.begin() + 2);  // templates 0 and 1 only
  const auto histories = rings.histories();
  const auto on_cpu = cpu.histories();
  const auto search = [&](const TemplateAutocorrelations& ac, std::span<const Candidate> c) {
    auto got = coherent_search(map, histories, ac, c, settings, precision, 2, &engine);
    expect_same(got, coherent_search(map, on_cpu, ac, c, settings, precision, 2));
    return got;
  };
  const auto first = search(cpu.ac, few);
  loaded(cpu.ac, 1);
  search(cpu.ac, all);  // templates the first search did not have: the bank's tables hold them
  loaded(cpu.ac, 1);
  const TemplateAutocorrelations other = turned(cpu.ac);
  const auto second = search(other, few);
  loaded(other, 2);
  EXPECT_TRUE(some_chisq_differs(first, second)) << "the banks' χ² must differ for the test to see stale tables";
  search(cpu.ac, few);
  loaded(cpu.ac, 3);
  // The same object, its sizes changed in place: its tables again.
  TemplateAutocorrelations mine = cpu.ac;
  search(mine, all);
  loaded(mine, 4);
  trim_lags(mine, 11);
  search(mine, all);
  loaded(mine, 5);
}

TEST(HistorySearch, TwinEngineLoadsTheBanksChisqTablesOncePerBank) {
  for (const Precision precision : {Precision::fp32, Precision::fp64}) {
    const Streamed s = stream(hlv, 5, 2048, 700, 6, precision, 31);
    TwinEngine engine;
    EXPECT_EQ(engine.chisq_key(), SkyChisqKey{});
    search_through_banks(s, s, engine, precision, [&](const TemplateAutocorrelations& ac, int loads) {
      EXPECT_EQ(engine.chisq_loads, loads);
      EXPECT_EQ(engine.chisq_key(), (SkyChisqKey{ac.instance.value(), 3, ac.n_templates, ac.length}));
    });
  }
}

TEST(HistorySearch, AutocorrelationsCopiedOrMovedAreAnotherBank) {
  TemplateAutocorrelations a;
  const TemplateAutocorrelations copy = a;
  EXPECT_NE(copy.instance.value(), a.instance.value());
  const std::uint64_t before = a.instance.value();
  const TemplateAutocorrelations moved = std::move(a);
  EXPECT_NE(moved.instance.value(), before);
  EXPECT_NE(a.instance.value(), before);  // NOLINT(bugprone-use-after-move): its number is what is checked
  TemplateAutocorrelations b;
  const std::uint64_t b_before = b.instance.value();
  b = copy;
  EXPECT_NE(b.instance.value(), b_before);
  EXPECT_NE(b.instance.value(), copy.instance.value());
}

TEST(HistoryBackend, AppendSnrEqualsTheRowsAppended) {
  std::mt19937_64 rng(5);
  std::vector<std::vector<IirFilter>> per_template;
  for (int j = 0; j < 3; ++j) per_template.push_back(random_filters(rng, 8, 40));
  const RateBank bank = RateBank::pack(2048, per_template);
  auto backend = make_spiir_backend_cpu(bank, Precision::fp32, {});
  auto by_backend = make_snr_history_host(3, 256, Precision::fp32);
  auto by_rows = make_snr_history_host(3, 256, Precision::fp32);
  const std::vector<double> x = white_noise(500, 9);
  std::vector<SampleMax> best(100);
  std::vector<std::complex<double>> rows(std::size_t{3} * 100);
  const std::vector<std::size_t> every{0, 1, 2};
  EXPECT_THROW(backend->append_snr(*by_backend), UsageError);  // no filter_max yet
  for (int c = 0; c < 5; ++c) {
    backend->filter_max(std::span(x).subspan(static_cast<std::size_t>(c) * 100, 100), best);
    backend->append_snr(*by_backend);
    backend->snr_rows(every, rows);
    by_rows->append(rows, 100);
  }
  std::vector<std::complex<double>> a(std::size_t{3} * 256), b(std::size_t{3} * 256);
  const std::vector<HistoryRead> all{{0, 244}, {1, 244}, {2, 244}};
  by_backend->read(all, 256, a);
  by_rows->read(all, 256, b);
  EXPECT_EQ(a, b);
  auto wrong = make_snr_history_host(2, 256, Precision::fp32);
  EXPECT_THROW(backend->append_snr(*wrong), UsageError);
}

#ifdef ASTROSWEEP_WITH_CUDA
BackendOptions cuda_options() {
  BackendOptions o;
  o.kind = BackendKind::cuda;
  return o;
}

TEST(HistoryGpu, DeviceRingEqualsTheHostRing) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  for (const Precision precision : {Precision::fp32, Precision::fp64}) {
    const Streamed host = stream(hl, 5, 512, 300, 6, precision);
    const Streamed device = stream(hl, 5, 512, 300, 6, precision, 21,
                                   [&] { return make_snr_history_cuda(5, 512, precision, cuda_options()); });
    std::vector<HistoryRead> reads;
    for (std::size_t j = 0; j < 5; ++j) reads.push_back({j, host.rings[0]->oldest() + static_cast<std::int64_t>(j)});
    const std::size_t n = 512 - 5;
    std::vector<std::complex<double>> a(reads.size() * n), b(reads.size() * n);
    for (std::size_t d = 0; d < 2; ++d) {
      host.rings[d]->read(reads, n, a);
      device.rings[d]->read(reads, n, b);
      EXPECT_EQ(a, b);
    }
  }
}

TEST(HistoryGpu, CudaBackendWritesTheRingOnTheDevice) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(5);
  std::vector<std::vector<IirFilter>> per_template;
  for (int j = 0; j < 33; ++j) per_template.push_back(random_filters(rng, 16, 40));
  const RateBank bank = RateBank::pack(2048, per_template);
  // The backend's precision and the ring's, each either: the write kernel converts as append does.
  using Pair = std::pair<Precision, Precision>;  // the backend's, the ring's
  for (const auto& [precision, kept] :
       {Pair{Precision::fp32, Precision::fp32}, Pair{Precision::fp64, Precision::fp64},
        Pair{Precision::fp64, Precision::fp32}, Pair{Precision::fp32, Precision::fp64}}) {
    auto backend = make_spiir_backend_cuda(bank, precision, cuda_options());
    auto ring = make_snr_history_cuda(33, 1024, kept, cuda_options());
    auto host = make_snr_history_host(33, 1024, kept);
    const std::vector<double> x = white_noise(3000, 9);
    std::vector<SampleMax> best(300);
    std::vector<std::size_t> every(33);
    for (std::size_t j = 0; j < 33; ++j) every[j] = j;
    std::vector<std::complex<double>> rows(33 * 300);
    for (int c = 0; c < 10; ++c) {  // 3,000 samples through 1,024: wrapped
      backend->filter_max(std::span(x).subspan(static_cast<std::size_t>(c) * 300, 300), best);
      backend->append_snr(*ring);
      backend->snr_rows(every, rows);
      host->append(rows, 300);
    }
    std::vector<HistoryRead> all;
    for (std::size_t j = 0; j < 33; ++j) all.push_back({j, host->oldest()});
    std::vector<std::complex<double>> a(33 * 1024), b(33 * 1024);
    ring->read(all, 1024, a);
    host->read(all, 1024, b);
    EXPECT_EQ(a, b);
  }
}

TEST(HistoryGpu, CudaEngineOverDeviceRingsEqualsTheCpuBitForBit) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  for (const auto& ifos : {hlv, hl})
    for (const Precision precision : {Precision::fp32, Precision::fp64}) {
      SCOPED_TRACE(std::to_string(ifos.size()) + " detectors");
      const SkyMap map = map_of(ifos, 4);
      CoherentSettings settings;
      settings.n_slides = 20;
      settings.slide_samples = 41;
      settings.sky_stride = ifos.size() == 2 ? 3 : 1;
      const Streamed host = stream(ifos, 7, 2048, 900, 6, precision, 201);
      const Streamed device = stream(ifos, 7, 2048, 900, 6, precision, 201,
                                     [&] { return make_snr_history_cuda(7, 2048, precision, cuda_options()); });
      const std::vector<Candidate> c = candidates_over(host, map, settings, 29);
      const auto on_host = host.histories();
      const auto on_device = device.histories();
      const auto engine = make_sky_search_cuda(cuda_options());
      ASSERT_TRUE(engine->reads_histories(on_device));
      EXPECT_FALSE(engine->reads_histories(on_host));
      expect_same(coherent_search(map, on_device, device.ac, c, settings, precision, 2, engine.get()),
                  coherent_search(map, on_host, host.ac, c, settings, precision, 2));
      // Host rings on the CUDA engine: their windows read and sent, the same results.
      expect_same(coherent_search(map, on_host, host.ac, c, settings, precision, 2, engine.get()),
                  coherent_search(map, on_host, host.ac, c, settings, precision, 2));
    }
}

TEST(HistoryGpu, CudaEngineLoadsTheBanksChisqTablesOncePerBank) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  for (const Precision precision : {Precision::fp32, Precision::fp64}) {
    const Streamed host = stream(hlv, 5, 2048, 700, 6, precision, 31);
    const Streamed device = stream(hlv, 5, 2048, 700, 6, precision, 31,
                                   [&] { return make_snr_history_cuda(5, 2048, precision, cuda_options()); });
    const auto engine = make_sky_search_cuda(cuda_options());
    ASSERT_TRUE(engine->reads_histories(device.histories()));
    EXPECT_EQ(engine->chisq_key(), SkyChisqKey{});
    search_through_banks(device, host, *engine, precision, [&](const TemplateAutocorrelations& ac, int) {
      EXPECT_EQ(engine->chisq_key(), (SkyChisqKey{ac.instance.value(), 3, ac.n_templates, ac.length}));
    });
  }
}
#endif

}  // namespace
}  // namespace astrosweep::spiir
