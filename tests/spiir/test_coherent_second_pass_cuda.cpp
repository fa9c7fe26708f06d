// The coherent stage's second pass on a GPU (coherent_second_pass.hpp, kernels/spiir/spiir_filter.cu):
// a template's SNRs filtered by the CUDA backend in a batch (all the bank's templates, in another
// order, with other neighbours, twice) are bit for bit its SNRs filtered alone, in FP32 and FP64,
// single- and multi-rate. The templates' filter counts (5 to 1000) give the batches blocks of 1 to 8
// warps: a template uses its own warps, whatever the block has. The batch agrees with the OpenMP
// backend within the CUDA backend's tolerances. Skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "device.hpp"
#include "second_pass_test_support.hpp"
#include "spiir_backend_cuda.hpp"

namespace astrosweep::spiir {
namespace {

TEST(SecondPassBatchesCuda, ATemplatesSnrInABatchIsItsSnrAloneBitForBit) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  for (const bool multirate : {false, true})
    for (const Precision precision : {Precision::fp32, Precision::fp64}) {
      SCOPED_TRACE(std::string(multirate ? "multi-rate" : "single-rate") +
                   (precision == Precision::fp32 ? " fp32" : " fp64"));
      BackendOptions options;
      options.kind = BackendKind::cuda;
      const SpiirBank bank = second_pass_test::random_spiir_bank(multirate, 5);
      const second_pass_test::Maker cuda = [&](const RateBank& r) {
        return make_spiir_backend_cuda(r, precision, options);
      };
      second_pass_test::expect_batches_bit_identical(bank, cuda);
      // And right: the whole batch against the OpenMP backend in FP64, within the CUDA backend's
      // tolerances (test_spiir_backend_cuda.cpp: 1e-12 of the peak in FP64, 1e-5 in FP32).
      BackendOptions cpu_options;
      cpu_options.kind = BackendKind::cpu;
      const std::vector<double> x = white_noise(6000, 31);
      const std::vector<std::size_t> all = {0, 1, 2, 3, 4, 5};
      const auto got = second_pass_test::batch_snr(bank, all, x, 512, 4608, cuda);
      const auto want = second_pass_test::batch_snr(bank, all, x, 512, 4608, [&](const RateBank& r) {
        return make_spiir_backend_cpu(r, Precision::fp64, cpu_options);
      });
      double peak = 0, worst = 0;
      for (std::size_t i = 0; i < want.size(); ++i) {
        peak = std::max(peak, std::abs(want[i]));
        worst = std::max(worst, std::abs(got[i] - want[i]));
      }
      EXPECT_LE(worst, (precision == Precision::fp64 ? 1e-12 : 1e-5) * peak) << "peak " << peak;
    }
}

}  // namespace
}  // namespace astrosweep::spiir
