#pragma once
// Light curves read a block at a time: the CSV and FITS readers pass whole objects on, in order,
// in blocks of about `block_rows` rows, to a sink (the HDF5 catalog writer of `convert`, or a
// collector that keeps everything for the small-input paths). So `convert` holds one block, not
// the input.

#include <cstdint>

#include "io/light_curves.hpp"

namespace astrosweep::io {

/// Rows per block when none is asked for: 24 MiB of t, y and dy.
inline constexpr std::uint64_t default_block_rows = std::uint64_t{1} << 20;

/// Where a streaming reader puts the objects it has read.
class LightCurveSink {
 public:
  virtual ~LightCurveSink() = default;
  /// The next objects (whole ones), after those appended before.
  virtual void append(const LightCurveBlock& block) = 0;
  /// Forgets the objects from `n_objects` on. The FITS reader does this when a file of an object
  /// it has already passed on turns up later in the list: it passes that object and the ones after
  /// it on again, whole.
  virtual void truncate(std::uint64_t n_objects) = 0;
};

/// The sink of the small-input paths: every object in one block.
class BlockCollector final : public LightCurveSink {
 public:
  void append(const LightCurveBlock& block) override { block_.append_block(block); }
  void truncate(std::uint64_t n_objects) override { block_.truncate(n_objects); }
  [[nodiscard]] LightCurveBlock take() { return std::move(block_); }

 private:
  LightCurveBlock block_;
};

/// A reader's side of the stream: objects are appended to block(); after each whole object,
/// object_done() passes the block on once it holds `block_rows` rows or more.
class ObjectBatcher {
 public:
  ObjectBatcher(LightCurveSink& sink, std::uint64_t block_rows) : sink_(sink), block_rows_(block_rows) {}
  [[nodiscard]] LightCurveBlock& block() noexcept { return block_; }
  void object_done() {
    if (block_.t.size() >= block_rows_) flush();
  }
  /// Passes on what the block holds.
  void flush();
  /// Forgets the objects from `n_objects` on (in the block, and in the sink when passed on).
  void truncate(std::uint64_t n_objects);
  /// Objects passed on or waiting in the block.
  [[nodiscard]] std::uint64_t n_objects() const noexcept { return passed_ + block_.n_objects(); }

 private:
  LightCurveSink& sink_;
  std::uint64_t block_rows_;
  LightCurveBlock block_;
  std::uint64_t passed_ = 0;
};

}  // namespace astrosweep::io
