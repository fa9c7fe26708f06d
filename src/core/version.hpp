#pragma once
namespace astrosweep {
/// "0.1.0 (git abcdef0)": the version of this build, stored in every product.
const char* version_string() noexcept;
}  // namespace astrosweep
