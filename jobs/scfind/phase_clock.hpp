#pragma once
// Where a rank's smooth-and-clip time goes (issue 16: on 4 GPUs the loop took 1.53 s a rank while
// its kernels took 0.29 s). Scopes name what the host is doing; nested scopes take their time out
// of the enclosing one, so each moment of the host's wall time counts once, in the innermost open
// phase, and the phases add up to no more than the wall time they were open in. Cheap: two
// steady_clock reads a scope, no synchronisation. One thread (the rank's main thread) uses a clock.

#include <mpi.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace astrosweep::scfind {

enum class Phase : std::size_t {
  compute,     ///< the backend computing: a GPU's kernels launched and waited for, a CPU's own work
  transfers,   ///< copies between host and device memory (a GPU backend's)
  hand_over,   ///< the spectral running sum's hand-over between slabs (MPI; mostly waiting for the slab above)
  statistics,  ///< the noise measure's and the mask count's collectives (after the ranks have met)
  halos,       ///< the mask halos' exchange (MPI and packing; its copies to and from a GPU are transfers)
  waiting,     ///< a barrier before the statistics and the halos: how long this rank waited for the slowest
  reading,     ///< streamed slabs read again from the file
};
inline constexpr std::size_t phase_count = 7;

/// Seconds per phase, in Phase order.
struct PhaseSeconds {
  std::array<double, phase_count> seconds{};
  [[nodiscard]] double operator[](Phase p) const noexcept { return seconds[static_cast<std::size_t>(p)]; }
  [[nodiscard]] double total() const noexcept;
  /// Each phase's seconds minus `earlier`'s: the time between two snapshots.
  [[nodiscard]] PhaseSeconds since(const PhaseSeconds& earlier) const noexcept;
};

class PhaseClock {
 public:
  /// Opens `phase` on `clock` for its lifetime; no-op for a null clock.
  class Scope {
   public:
    Scope(PhaseClock* clock, Phase phase);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    PhaseClock* clock_;
  };

  [[nodiscard]] PhaseSeconds snapshot() const noexcept { return seconds_; }
  /// Waits for every rank of `comm` at a barrier, counted as Phase::waiting: the collectives that
  /// follow then measure their own cost, not the slowest rank's lag. Collective.
  void wait_for_ranks(MPI_Comm comm);

 private:
  using Clock = std::chrono::steady_clock;
  void enter(Phase phase);
  void leave();
  void charge(Clock::time_point now);

  std::vector<Phase> open_;
  Clock::time_point since_{};
  PhaseSeconds seconds_;
};

/// "compute 0.12 s, transfers 0.03 s, ..., other 0.01 s" for `split` over `whole` seconds (other:
/// the wall time no phase took: the job's own bookkeeping, checkpoints, progress lines).
std::string describe_phases(const PhaseSeconds& split, double whole);

}  // namespace astrosweep::scfind
