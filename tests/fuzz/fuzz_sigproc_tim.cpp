// Fuzz target: the SIGPROC time-series reader (src/io/sigproc_tim.cpp): the header parser on the
// bytes themselves, then the whole file as fdas and convert read it (header, the time-series
// checks, the samples). A damaged header must end in an InputError: never a crash, a read past
// the end, or an allocation sized by a header value rather than by the file.
#include <span>

#include "fuzz_harness.hpp"
#include "io/sigproc_tim.hpp"

using namespace astrosweep;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = std::as_bytes(std::span(data, size));
  fuzz::expect_rejection_or_success([&] {
    const auto header = io::parse_sigproc_header(bytes, "input.tim", true);
    fuzz::require(header.size <= size, "the header lies within the input");
    for (const auto& [keyword, value] : header.strings)
      fuzz::require(!value.empty() && value.size() <= io::sigproc_max_string, "string values within bounds");
  });
  const std::string path = fuzz::scratch_file("input.tim", data, size);
  fuzz::expect_rejection_or_success([&] {
    const auto tim = io::read_sigproc_tim(path);
    const auto& info = tim.info;
    fuzz::require(info.nbits == 8 || info.nbits == 16 || info.nbits == 32, "nbits checked");
    fuzz::require(info.tsamp > 0, "tsamp checked");
    fuzz::require(info.n_samples > 0 && tim.samples.size() == info.n_samples, "every sample read");
    fuzz::require(info.data_offset + info.n_samples * static_cast<std::uint64_t>(info.nbits / 8) == size,
                  "the samples fill the file after the header");
  });
  return 0;
}
