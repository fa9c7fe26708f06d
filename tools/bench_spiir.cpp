// astrosweep_bench_spiir: the SPIIR filtering of spec §14 (the seed's Table II workload: 1,024
// templates × 512 filters, mean delay spacing Δd = 20, one second of data) through the OpenMP and
// CUDA backends in FP32 and FP64, in filter updates per second (templates × filters × samples over
// the time), beside the seed's figures and the targets.
//
//   astrosweep_bench_spiir [--backend cpu|cuda|all] [--threads N] [--repeat R] [--quick]
//
// "end to end" is SpiirBackend::filter(): the chunk up, the kernel, the SNRs down (through pinned
// staging) and widened to complex<double> for the job, best of R calls after a warm-up on a backend
// that runs on (states carried). "kernel" (CUDA only) is the filtering kernel alone on the same
// workload (with the shifted copies of the input it reads), between CUDA events, best of R. --quick runs the 1-s rows
// only.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "device.hpp"
#include "spiir_backend.hpp"
#ifdef ASTROSWEEP_WITH_CUDA
#include "cuda_device.hpp"
#include "cuda_memory.hpp"
#include "spiir_backend_cuda.hpp"
#include "spiir_filter_launch.hpp"
#endif

using namespace astrosweep;
using namespace astrosweep::spiir;

namespace {

struct Workload {
  std::string name;
  std::size_t templates, filters, rate, samples;
  bool gpu_only;  ///< too long for the CPU rows of a quick table
};

/// The seed's synthetic bank: |a1| in [0.9, 0.999), random phases, delays l · Δd (mean spacing Δd).
RateBank seed_bank(std::size_t templates, std::size_t filters, std::int64_t rate, int spacing) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::vector<IirFilter>> per_template(templates);
  for (auto& t : per_template)
    for (std::size_t l = 0; l < filters; ++l)
      t.push_back({std::polar(0.9 + 0.099 * u(rng), -3.0 * u(rng)), std::polar(0.1 + u(rng), 6.28 * u(rng)),
                   static_cast<std::int64_t>(l) * spacing});
  return RateBank::pack(rate, per_template);
}

std::vector<double> noise(std::size_t n) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> g(0, 1);
  std::vector<double> x(n);
  for (auto& v : x) v = g(rng);
  return x;
}

/// Best seconds of `repeat` filter() calls after one warm-up.
double end_to_end_seconds(SpiirBackend& backend, const std::vector<double>& x, int repeat) {
  std::vector<std::complex<double>> z(backend.n_templates() * x.size());
  backend.filter(x, z);
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    backend.filter(x, z);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

#ifdef ASTROSWEEP_WITH_CUDA
/// Best milliseconds of the filtering kernel alone on `bank` and `n` samples (of noise), the states
/// carried from launch to launch as in a run.
template <class Real>
double kernel_ms(const RateBank& bank, std::size_t n, int repeat) {
  const std::size_t k = bank.a1.size();
  std::vector<Real> a_re(k), a_im(k), b_re(k), b_im(k);
  for (std::size_t i = 0; i < k; ++i) {
    a_re[i] = static_cast<Real>(bank.a1[i].real()), a_im[i] = static_cast<Real>(bank.a1[i].imag());
    b_re[i] = static_cast<Real>(bank.b0[i].real()), b_im[i] = static_cast<Real>(bank.b0[i].imag());
  }
  const auto max_delay = static_cast<std::size_t>(bank.max_delay());
  std::vector<Real> ext(max_delay + n);
  const auto x = noise(ext.size());
  std::transform(x.begin(), x.end(), ext.begin(), [](double v) { return static_cast<Real>(v); });
  cuda::Stream stream;
  std::vector<cuda::DeviceMemory> d(9);
  const auto put = [&](cuda::DeviceMemory& m, const void* p, std::size_t bytes) {
    m.reserve(bytes);
    AS_CUDA_TRY(cudaMemcpy(m.as<void>(), p, bytes, cudaMemcpyHostToDevice));
  };
  put(d[0], a_re.data(), k * sizeof(Real));
  put(d[1], a_im.data(), k * sizeof(Real));
  put(d[2], b_re.data(), k * sizeof(Real));
  put(d[3], b_im.data(), k * sizeof(Real));
  put(d[4], bank.delay.data(), k * sizeof(std::int32_t));
  put(d[5], bank.n_filters.data(), bank.n_templates * sizeof(std::int32_t));
  const std::vector<Real> zeros(k, 0);
  put(d[6], zeros.data(), k * sizeof(Real));
  put(d[7], zeros.data(), k * sizeof(Real));
  put(d[8], ext.data(), ext.size() * sizeof(Real));
  cuda::DeviceMemory z, shifted;
  z.reserve(2 * bank.n_templates * n * sizeof(Real));
  shifted.reserve(kernels::spiir_shifted_size<Real>(ext.size()) * sizeof(Real));
  kernels::DeviceRateBank<Real> v;
  v.a_re = d[0].as<Real>(), v.a_im = d[1].as<Real>(), v.b_re = d[2].as<Real>(), v.b_im = d[3].as<Real>();
  v.delay = d[4].as<std::int32_t>(), v.n_filters = d[5].as<std::int32_t>();
  v.y_re = d[6].as<Real>(), v.y_im = d[7].as<Real>();
  v.n_templates = bank.n_templates, v.width = bank.width, v.max_delay = max_delay;
  v.max_filters = *std::max_element(bank.n_filters.begin(), bank.n_filters.end());
  cuda::Event begin, end;
  kernels::launch_spiir_filter<Real>(v, d[8].as<Real>(), n, shifted.as<Real>(), z.as<Real>(), stream.get());  // warm-up
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    begin.record(stream);
    kernels::launch_spiir_filter<Real>(v, d[8].as<Real>(), n, shifted.as<Real>(), z.as<Real>(), stream.get());
    end.record(stream);
    end.synchronize();
    best = std::min(best, static_cast<double>(end.since(begin)));
  }
  return best;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::string which = "all";
  int threads = 0, repeat = 5;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--backend" && i + 1 < argc) {
      which = argv[++i];
    } else if (a == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--quick") {
      quick = true;
    } else {
      std::fprintf(stderr, "usage: %s [--backend cpu|cuda|all] [--threads N] [--repeat R] [--quick]\n", argv[0]);
      return 2;
    }
  }
  if (threads <= 0) threads = omp_get_max_threads();
  const bool run_cpu = which == "cpu" || which == "all";
  const bool run_cuda = (which == "cuda" || which == "all") && cuda_device_count() > 0;
  if (which == "cuda" && !run_cuda) {
    std::fprintf(stderr, "no CUDA device (or no CUDA build): nothing to run\n");
    return 5;
  }

  const std::vector<Workload> workloads{
      {"seed Table II, 1 s at 4096 Hz", 1024, 512, 4096, 4096, false},
      {"seed Table II, 1 s at 2048 Hz", 1024, 512, 2048, 2048, false},
      {"few templates: 64 x 512, 1 s at 4096 Hz", 64, 512, 4096, 4096, false},
      {"long chunk: 16 s at 4096 Hz", 1024, 512, 4096, 65536, true},
  };
  std::printf("# astrosweep_bench_spiir --backend %s --threads %d --repeat %d%s (best of %d)\n", which.c_str(), threads,
              repeat, quick ? " --quick" : "", repeat);
  std::printf(
      "# delays l x 20 (the seed's mean spacing), |a1| in [0.9, 0.999); updates = templates x filters x samples\n");
  std::printf(
      "# seed (Table II, VMA+RODC, mean of 50): P100 21.4 ms, K40m 90.2 ms, P4 41.5 ms; targets (1 s at 4096 Hz):\n");
  std::printf("#   H100 < 4.6 ms, H200 < 3.2 ms, stretch <= 1 ms (FP32 floor ~0.4 ms on an H100)\n");
  std::printf("%-42s %-28s %-5s %12s %12s %13s %13s\n", "workload", "backend", "prec", "end-to-end", "kernel",
              "updates/s e2e", "updates/s krn");
  for (const Workload& w : workloads) {
    if (quick && w.samples != w.rate) continue;
    const RateBank bank = seed_bank(w.templates, w.filters, static_cast<std::int64_t>(w.rate), 20);
    const auto x = noise(w.samples);
    const double updates = static_cast<double>(w.templates * w.filters * w.samples);
    for (Precision precision : {Precision::fp32, Precision::fp64}) {
      const char* prec = precision == Precision::fp32 ? "fp32" : "fp64";
      if (run_cpu && !w.gpu_only) {
        BackendOptions options;
        options.kind = BackendKind::cpu;
        options.threads = threads;
        auto backend = make_spiir_backend_cpu(bank, precision, options);
        const double s = end_to_end_seconds(*backend, x, repeat);
        std::printf("%-42s %-28s %-5s %9.3f ms %12s %13.3g %13s\n", w.name.c_str(),
                    ("OpenMP, " + std::to_string(threads) + " threads").c_str(), prec, s * 1e3, "-", updates / s, "-");
        std::fflush(stdout);
      }
#ifdef ASTROSWEEP_WITH_CUDA
      if (run_cuda) {
        BackendOptions options;
        options.kind = BackendKind::cuda;
        auto backend = make_spiir_backend_cuda(bank, precision, options);
        const double s = end_to_end_seconds(*backend, x, repeat);
        const double k = precision == Precision::fp32 ? kernel_ms<float>(bank, w.samples, repeat)
                                                      : kernel_ms<double>(bank, w.samples, repeat);
        std::string name = cuda::choose_device(options).name;
        if (name.size() > 28) name.resize(28);
        std::printf("%-42s %-28s %-5s %9.3f ms %9.3f ms %13.3g %13.3g\n", w.name.c_str(), name.c_str(), prec, s * 1e3,
                    k, updates / s, updates / (k * 1e-3));
        std::fflush(stdout);
      }
#endif
    }
  }
  return 0;
}
