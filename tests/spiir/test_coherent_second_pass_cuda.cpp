// The coherent stage's second pass on a GPU (coherent_second_pass.hpp, kernels/spiir/spiir_filter.cu):
// a template's SNRs filtered by the CUDA backend in a batch (all the bank's templates, in another
// order, with other neighbours, twice) are bit for bit its SNRs filtered alone, in FP32 and FP64,
// single- and multi-rate. The templates' filter counts (5 to 1000) give the batches blocks of 1 to 8
// warps: a template uses its own warps, whatever the block has. Skipped without a GPU.
#include <gtest/gtest.h>

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
      second_pass_test::expect_batches_bit_identical(
          second_pass_test::random_spiir_bank(multirate, 5),
          [&](const RateBank& r) { return make_spiir_backend_cuda(r, precision, options); });
    }
}

}  // namespace
}  // namespace astrosweep::spiir
