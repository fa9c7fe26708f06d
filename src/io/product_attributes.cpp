#include "io/product_attributes.hpp"

#include <cstdio>

#include "io/h5.hpp"

namespace astrosweep::io {

namespace {

bool describes_results(const std::string& name) { return name != "command_line" && name != "status"; }

std::string text_of(const AttributeValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", std::get<double>(v));  // round-trips: equal text, equal bits
  return buf;
}

std::optional<std::string> attribute_text(hid_t loc, const std::string& name) {
  if (H5Aexists(loc, name.c_str()) <= 0) return std::nullopt;
  h5::Id attr(H5Aopen(loc, name.c_str(), H5P_DEFAULT));
  h5::Id type(H5Aget_type(attr.get()));
  switch (H5Tget_class(type.get())) {
    case H5T_STRING: return h5::string_attribute(loc, name);
    case H5T_FLOAT: return text_of(*h5::double_attribute(loc, name));
    case H5T_INTEGER: return text_of(*h5::int_attribute(loc, name));
    default: return std::nullopt;
  }
}

}  // namespace

void write_root_attributes(hid_t file, const std::vector<ProductAttribute>& attributes) {
  for (const auto& a : attributes) {
    std::visit([&](const auto& v) { h5::set_attribute(file, a.name, v); }, a.value);
    if (std::string(a.name) == "software_version") h5::set_attribute(file, "status", std::string("incomplete"));
  }
}

Fingerprint results_fingerprint(const std::vector<ProductAttribute>& attributes) {
  Fingerprint fp;
  for (const auto& a : attributes)
    if (describes_results(a.name)) fp.emplace_back(a.name, text_of(a.value));
  return fp;
}

Fingerprint stored_results_fingerprint(hid_t file, const std::vector<ProductAttribute>& attributes) {
  Fingerprint fp;
  for (const auto& a : attributes)
    if (describes_results(a.name))
      if (auto text = attribute_text(file, a.name)) fp.emplace_back(a.name, *text);
  return fp;
}

}  // namespace astrosweep::io
