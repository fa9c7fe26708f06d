#include "fuzz_harness.hpp"

#include <hdf5.h>
#include <mpi.h>
#include <omp.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#if defined(__SANITIZE_ADDRESS__)
#define ASTROSWEEP_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASTROSWEEP_LSAN 1
#endif
#endif
#ifdef ASTROSWEEP_LSAN
#include <sanitizer/lsan_interface.h>
#endif

namespace astrosweep::fuzz {

namespace {

std::string make_scratch_directory() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path base = fs::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0 ? fs::path("/dev/shm")
                                                                                            : fs::temp_directory_path();
  const fs::path dir = base / ("astrosweep-fuzz-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir.string();
}

const std::string& scratch_directory() {
  static const std::string dir = make_scratch_directory();
  return dir;
}

void remove_scratch_directory() {
  std::error_code ec;
  std::filesystem::remove_all(scratch_directory(), ec);
}

void finalize_mpi() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
#ifdef ASTROSWEEP_LSAN
  // OpenMPI's teardown drops strings its unloaded components made (vasprintf, strdup); their
  // stacks end in unknown modules, so no suppression can name them, and they are not ours.
  __lsan::ScopedDisabler not_ours;
#endif
  MPI_Finalize();
}

}  // namespace

std::string scratch_path(const std::string& name) { return scratch_directory() + "/" + name; }

std::string scratch_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch_path(name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) finding("cannot write the scratch file " + path);
  return path;
}

void finding(const std::string& what) {
  std::fprintf(stderr, "astrosweep fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace astrosweep::fuzz

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  // One rank, as the readers see it in a one-rank run: rank 0 of a one-rank mpiexec job, for the
  // fuzzers (run_fuzzer.cmake) and the regression replays alike. libFuzzer ends with exit(), so
  // MPI is finalised by an exit handler (mpiexec fails a rank that exits without it); the replay
  // driver finalises itself before that handler runs.
  // No crash handlers from OpenMPI: they would replace ASan's (SEGV) and libFuzzer's (abort), and
  // a crash would then leave neither a report nor the input that caused it.
  ::setenv("OMPI_MCA_opal_signal", "", 0);
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
#ifdef ASTROSWEEP_LSAN
    // What OpenMPI allocates and drops during MPI_Init is not ours to find; without this, the
    // first leak check libFuzzer makes after an input would report it as that input's leak.
    __lsan::ScopedDisabler not_ours;
#endif
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  }
  std::atexit(astrosweep::fuzz::finalize_mpi);
  // One OpenMP thread: an input then takes one deterministic path through the parallel readers.
  omp_set_num_threads(1);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  // The directory's name is made before the clean-up is registered, so it outlives the clean-up.
  astrosweep::fuzz::scratch_directory();
  std::atexit(astrosweep::fuzz::remove_scratch_directory);
  return 0;
}
