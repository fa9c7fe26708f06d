#pragma once
// FFTW's planner (making and destroying plans) is not thread-safe; executing a plan on new arrays
// is. Every file of ours that makes or destroys FFTW plans, in either precision, holds this one
// lock while it does, so that the lanes of a job (run::run_units with lanes) and OpenMP threads
// may plan at once from different files (fdas's spectrum and correlation, period's NUFFT).
// Why a lock rather than fftw_make_planner_thread_safe(): that function lives in libfftw3_threads,
// which we do not link, and a lock of ours works with any FFTW (or FFTW-compatible library).
// Plain C++: needs no FFTW header.

#include <mutex>

namespace astrosweep {

/// The process's one FFTW planner lock.
std::mutex& fftw_planner_lock() noexcept;

}  // namespace astrosweep
