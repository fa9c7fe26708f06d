#include "scfind_exchange.hpp"

namespace astrosweep::scfind {

dist::RowBlocks spectral_row_blocks(const CubeShape& cube) {
  constexpr std::size_t row_block_count = 16;
  return dist::split_rows(cube.ny, row_block_count);
}

}  // namespace astrosweep::scfind
