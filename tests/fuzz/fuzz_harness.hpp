#pragma once
// What every fuzz target (tests/fuzz/fuzz_*.cpp) shares: MPI initialised once per process as one
// rank, inputs written to a scratch file (the readers take paths, as in production), and the rule
// that separates an expected rejection from a finding. docs/testing.md describes the set-up.

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"

// libFuzzer's entry points; fuzz_replay_main.cpp calls the same two without libFuzzer.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace astrosweep::fuzz {

/// The path of `name` in this process's scratch directory (in /dev/shm when it is there: memory,
/// not disk), removed when the process exits.
std::string scratch_path(const std::string& name);
/// Writes `data` to scratch_path(name) and returns the path; the next input overwrites it.
std::string scratch_file(const std::string& name, const std::uint8_t* data, std::size_t size);

/// A finding: prints what went wrong and aborts, which libFuzzer reports as a crash with the input.
[[noreturn]] void finding(const std::string& what);

/// Stops the fuzzer when `cond` fails: a reader returned something inconsistent.
inline void require(bool cond, const char* what) {
  if (!cond) finding(std::string("invariant violated: ") + what);
}

/// Runs `read`; a bad input must end in an astrosweep::Error with a user-facing exit code (input or
/// usage). An internal error (a failed AS_ASSERT, an HDF5 call that was not expected to fail) is
/// a finding, and so is anything else that escapes: libFuzzer turns it into a crash.
template <class Read>
void expect_rejection_or_success(Read&& read) {
  try {
    read();
  } catch (const Error& e) {
    if (e.code() == ExitCode::internal) finding(std::string("internal error on a bad input: ") + e.what());
  }
}

/// Inputs whose headers promise more elements than this are skipped before any data is read, so
/// the fuzzer does not spend its time (and its memory limit) on allocations the readers would
/// make for a real file of that size.
inline constexpr std::uint64_t max_elements = std::uint64_t{1} << 20;

}  // namespace astrosweep::fuzz
