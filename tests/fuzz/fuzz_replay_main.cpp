// replay_<target> FILE_OR_DIRECTORY...: feeds every file (a directory: its files, in name order)
// once to the fuzz target's LLVMFuzzerTestOneInput, without libFuzzer, so the regression inputs
// (tests/fuzz/regressions/<target>) and the seeds run as ordinary tests in every build, sanitized
// or not, with any compiler. A finding aborts (the file's name is printed before it runs); a
// missing directory is reported and skipped (a target without regressions has none).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_harness.hpp"

namespace {

std::vector<std::string> inputs_of(const std::string& arg) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(arg, ec)) {
    if (!fs::exists(arg, ec)) std::printf("replay: %s does not exist, skipped\n", arg.c_str());
    return fs::exists(arg, ec) ? std::vector<std::string>{arg} : std::vector<std::string>{};
  }
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(arg, ec))
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  std::size_t replayed = 0;
  for (int a = 1; a < argc; ++a) {
    for (const auto& path : inputs_of(argv[a])) {
      std::printf("replay: %s\n", path.c_str());
      std::fflush(stdout);
      std::ifstream in(path, std::ios::binary);
      const std::vector<char> bytes{std::istreambuf_iterator<char>(in), {}};
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  std::printf("replay: %zu inputs, no findings\n", replayed);
  MPI_Finalize();
  return 0;
}
