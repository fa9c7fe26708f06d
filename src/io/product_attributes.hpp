#pragma once
// A product's root attributes as one list per job (format, versions, inputs, parameters), which
// its writer, its fingerprint for --resume and its reader all use, so the three cannot drift.

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "io/journal.hpp"

namespace astrosweep::io {

using AttributeValue = std::variant<std::string, std::int64_t, double>;

struct ProductAttribute {
  const char* name;
  AttributeValue value;
};

/// Writes `attributes` in order on `file`, with "status" = "incomplete" after "software_version"
/// (the finished product sets it "complete").
void write_root_attributes(hid_t file, const std::vector<ProductAttribute>& attributes);

/// The attributes that decide the results, as text: everything but "command_line" (it names the
/// output and options such as --threads) and "status" (what resuming changes). Numbers as text
/// that round-trips, so equal text means equal bits.
Fingerprint results_fingerprint(const std::vector<ProductAttribute>& attributes);

/// The same, read back from an existing product's root: the attributes `attributes` names (their
/// values unused) that `file` has.
Fingerprint stored_results_fingerprint(hid_t file, const std::vector<ProductAttribute>& attributes);

}  // namespace astrosweep::io
