#include "period_config.hpp"

#include "core/error.hpp"

namespace astrosweep::period {

Model parse_model(const std::string& s) {
  if (s == "standard") return Model::standard;
  if (s == "generalized") return Model::generalized;
  throw UsageError("unknown --model '" + s + "'", "use standard or generalized");
}

Normalization parse_normalization(const std::string& s) {
  if (s == "standard") return Normalization::standard;
  if (s == "model") return Normalization::model;
  if (s == "log") return Normalization::log;
  if (s == "psd") return Normalization::psd;
  throw UsageError("unknown --normalization '" + s + "'", "use standard, model, log or psd");
}

Precision parse_precision(const std::string& s) {
  if (s == "fp64" || s == "double") return Precision::fp64;
  if (s == "fp32" || s == "float") return Precision::fp32;
  throw UsageError("unknown --precision '" + s + "'", "use fp32 or fp64");
}

Method parse_method(const std::string& s) {
  if (s == "auto") return Method::automatic;
  if (s == "direct") return Method::direct;
  if (s == "fast") return Method::fast;
  throw UsageError("unknown --method '" + s + "'", "use auto, direct or fast");
}

const char* to_string(Method m) {
  switch (m) {
    case Method::automatic: return "auto";
    case Method::direct: return "direct";
    case Method::fast: return "fast";
  }
  return "?";
}

const char* to_string(Model m) { return m == Model::standard ? "standard" : "generalized"; }
const char* to_string(Precision p) { return p == Precision::fp32 ? "fp32" : "fp64"; }
const char* to_string(Normalization n) {
  switch (n) {
    case Normalization::standard: return "standard";
    case Normalization::model: return "model";
    case Normalization::log: return "log";
    case Normalization::psd: return "psd";
  }
  return "?";
}

}  // namespace astrosweep::period
