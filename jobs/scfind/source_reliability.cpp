#include "source_reliability.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numbers>
#include <optional>
#include <sstream>

#include "core/error.hpp"
#include "core/text.hpp"

namespace astrosweep::scfind {

const std::vector<ReliabilityKey> reliability_keys{
    {"reliability.enable", "filter the linker's sources by their reliability (needs the linker) [false]"},
    {"reliability.parameters", "2 or more of peak, sum, mean, chan, pix, fill, std, skew, kurt [peak, sum, mean]"},
    {"reliability.threshold", "lowest reliability kept [0.9]"},
    {"reliability.scaleKernel", "kernel size over the negatives' spread; <= 0: 0.4 [0.4]"},
    {"reliability.minSNR", "lowest sum / sqrt(voxels) over the rms, in units of sqrt(beam area) [3.0]"},
    {"reliability.minPixels", "sources with at most this many voxels get reliability 0 [0]"},
    {"reliability.autoKernel", "find the kernel scale from the Skellam distribution [false]"},
    {"reliability.iterations", "autoKernel's most iterations [30]"},
    {"reliability.tolerance", "autoKernel's tolerance on |median Skellam| [0.05]"},
    {"reliability.catalog", "file of longitude latitude lines; negative sources around them are left out []"},
    {"reliability.plot", "SoFiA-2's EPS plots (not written: a warning says so) [true]"},
    {"reliability.debug", "SoFiA-2's reliability debugging catalogues (not written: a warning) [false]"},
};

namespace {

enum class Axis { peak, sum, mean, chan, pix, fill, std, skew, kurt };

bool parse_flag(const std::string& key, const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  throw UsageError(key + ": '" + text + "' is not true or false", "write true or false");
}

double parse_real(const std::string& key, const std::string& text) {
  const std::optional<double> value = parse_number(text);
  AS_EXPECTS(value && std::isfinite(*value), UsageError, key + ": '" + text + "' is not a finite number");
  return *value;
}

std::size_t parse_count(const std::string& key, const std::string& text) {
  const std::optional<double> value = parse_number(text);
  AS_EXPECTS(value && *value >= 0 && *value < 1e9 && *value == std::floor(*value), UsageError,
             key + ": '" + text + "' is not a whole number >= 0");
  return static_cast<std::size_t>(*value);
}

// SoFiA-2 splits the list at commas and spaces (strtok with ", ").
std::vector<std::string> parse_names(const std::string& key, const std::string& text) {
  std::vector<std::string> names;
  std::string name;
  for (char c : text + ",") {
    if (c == ',' || c == ' ' || c == '\t') {
      if (!name.empty()) names.push_back(name);
      name.clear();
    } else {
      name += c;
    }
  }
  for (const std::string& n : names)
    AS_EXPECTS(n == "peak" || n == "sum" || n == "mean" || n == "chan" || n == "pix" || n == "fill" || n == "std" ||
                   n == "skew" || n == "kurt",
               UsageError, key + ": unknown reliability parameter '" + n + "'",
               "use peak, sum, mean, chan, pix, fill, std, skew or kurt");
  AS_EXPECTS(names.size() > 1, UsageError, key + ": '" + text + "' has fewer than 2 parameters",
             "SoFiA-2 needs a parameter space of 2 or more dimensions, e.g. peak, sum, mean");
  return names;
}

Axis axis_of(const std::string& name) {
  if (name == "peak") return Axis::peak;
  if (name == "sum") return Axis::sum;
  if (name == "mean") return Axis::mean;
  if (name == "chan") return Axis::chan;
  if (name == "pix") return Axis::pix;
  if (name == "fill") return Axis::fill;
  if (name == "std") return Axis::std;
  if (name == "skew") return Axis::skew;
  return Axis::kurt;
}

std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

// A square matrix of doubles, row-major.
using Matrix = std::vector<double>;

// The inverse, or nullopt when singular: the cofactor formula up to 3 × 3 (as SoFiA-2), Gauss-
// Jordan with partial pivoting above.
std::optional<Matrix> inverse(const Matrix& m, std::size_t n) {
  auto a = [&](std::size_t r, std::size_t c) { return m[r * n + c]; };
  Matrix r(n * n, 0.0);
  if (n == 2) {
    const double det = a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0);
    if (det == 0.0) return std::nullopt;
    r = {a(1, 1) / det, -a(0, 1) / det, -a(1, 0) / det, a(0, 0) / det};
    return r;
  }
  if (n == 3) {
    const double A = a(0, 0), B = a(0, 1), C = a(0, 2), D = a(1, 0), E = a(1, 1), F = a(1, 2), G = a(2, 0), H = a(2, 1),
                 I = a(2, 2);
    const double det = A * (E * I - F * H) - B * (D * I - F * G) + C * (D * H - E * G);
    if (det == 0.0) return std::nullopt;
    r = {(E * I - F * H) / det, (C * H - B * I) / det, (B * F - C * E) / det,
         (F * G - D * I) / det, (A * I - C * G) / det, (C * D - A * F) / det,
         (D * H - E * G) / det, (B * G - A * H) / det, (A * E - B * D) / det};
    return r;
  }
  Matrix l = m;
  for (std::size_t i = 0; i < n; ++i) r[i * n + i] = 1.0;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t pivot_row = i;
    for (std::size_t j = i + 1; j < n; ++j)
      if (std::fabs(l[j * n + i]) > std::fabs(l[pivot_row * n + i])) pivot_row = j;
    if (l[pivot_row * n + i] == 0.0) return std::nullopt;
    if (pivot_row != i)
      for (std::size_t c = 0; c < n; ++c) {
        std::swap(l[i * n + c], l[pivot_row * n + c]);
        std::swap(r[i * n + c], r[pivot_row * n + c]);
      }
    const double scale = 1.0 / l[i * n + i];
    for (std::size_t c = 0; c < n; ++c) {
      l[i * n + c] *= scale;
      r[i * n + c] *= scale;
    }
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const double factor = -l[j * n + i];
      for (std::size_t c = 0; c < n; ++c) {
        l[j * n + c] += factor * l[i * n + c];
        r[j * n + c] += factor * r[i * n + c];
      }
    }
  }
  return r;
}

// The parameter-space points, `dim` coordinates each.
struct Points {
  std::size_t dim = 0;
  std::vector<double> coordinates;
  [[nodiscard]] std::size_t size() const { return dim == 0 ? 0 : coordinates.size() / dim; }
  [[nodiscard]] const double* at(std::size_t i) const { return coordinates.data() + i * dim; }
};

// Summed Gaussian kernels exp(-v'C⁻¹v / 2) of every point of `from` at `here`.
double kernel_sum(const Points& from, const double* here, const Matrix& inverse_covariance) {
  const std::size_t dim = from.dim;
  std::vector<double> v(dim), w(dim);
  double total = 0.0;
  for (std::size_t p = 0; p < from.size(); ++p) {
    const double* q = from.at(p);
    for (std::size_t j = 0; j < dim; ++j) v[j] = q[j] - here[j];
    double quadratic = 0.0;
    for (std::size_t c = 0; c < dim; ++c) {
      double s = 0.0;
      for (std::size_t r = 0; r < dim; ++r) s += v[r] * inverse_covariance[r * dim + c];
      quadratic += s * v[c];
    }
    total += std::exp(-0.5 * quadratic);
  }
  return total;
}

// |median| of the Skellam values (P - N) / sqrt(P + N) at the negative points.
double skellam_median(const Points& positive, const Points& negative, const Matrix& inverse_covariance) {
  std::vector<double> skellam(negative.size());
  const auto n = static_cast<std::ptrdiff_t>(negative.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const double* here = negative.at(static_cast<std::size_t>(i));
    const double neg = kernel_sum(negative, here, inverse_covariance);
    const double pos = kernel_sum(positive, here, inverse_covariance);
    skellam[static_cast<std::size_t>(i)] = (pos - neg) / std::sqrt(pos + neg);
  }
  const std::size_t half = skellam.size() / 2;
  std::nth_element(skellam.begin(), skellam.begin() + static_cast<std::ptrdiff_t>(half), skellam.end());
  double median = skellam[half];
  if (skellam.size() % 2 == 0) median = 0.5 * (median + *std::max_element(skellam.begin(), skellam.begin() + half));
  return std::fabs(median);
}

Matrix invert_or_throw(const Matrix& covariance, std::size_t dim) {
  std::optional<Matrix> inv = inverse(covariance, dim);
  AS_EXPECTS(inv.has_value(), InputError,
             "reliability: the negative sources' covariance matrix is not invertible (SoFiA-2 stops here too)",
             "there are too few negative detections for the reliability filter; lower scfind.threshold or the "
             "linker's size limits, or switch the filter off");
  return *inv;
}

}  // namespace

bool ReliabilityParameters::needs_moments() const {
  for (const std::string& n : parameters)
    if (n == "std" || n == "skew" || n == "kurt") return true;
  return false;
}

ReliabilityParameters reliability_parameters_from_text(const std::map<std::string, std::string>& values,
                                                       const ReliabilityParameters& fallback) {
  ReliabilityParameters p = fallback;
  auto take = [&](const char* key, auto&& parse, auto& field) {
    const auto it = values.find(key);
    if (it != values.end()) field = parse(key, it->second);
  };
  take("reliability.enable", parse_flag, p.enable);
  take("reliability.parameters", parse_names, p.parameters);
  take("reliability.threshold", parse_real, p.threshold);
  take("reliability.scaleKernel", parse_real, p.scale_kernel);
  take("reliability.minSNR", parse_real, p.min_snr);
  take("reliability.minPixels", parse_count, p.min_pixels);
  take("reliability.autoKernel", parse_flag, p.auto_kernel);
  std::size_t iterations = static_cast<std::size_t>(p.iterations);
  take("reliability.iterations", parse_count, iterations);
  p.iterations = static_cast<int>(iterations);
  take("reliability.tolerance", parse_real, p.tolerance);
  if (const auto it = values.find("reliability.catalog"); it != values.end()) p.catalog = it->second;
  take("reliability.plot", parse_flag, p.plot);
  take("reliability.debug", parse_flag, p.debug);
  if (p.enable) {
    // SoFiA-2 2.5.1 computes the Skellam values autoKernel needs only when it plots them or the
    // kernel scale is 0, and stops otherwise ("skellam must not be NULL").
    AS_EXPECTS(!p.auto_kernel || p.plot || p.scale_kernel == 0.0, UsageError,
               "reliability.autoKernel = true needs reliability.plot = true or reliability.scaleKernel = 0 "
               "(SoFiA-2 v2.5.1 stops: 'With kernel auto-scaling enabled, skellam must not be NULL')",
               "set reliability.plot = true (astrosweep writes no plot but warns) or reliability.scaleKernel = 0");
  }
  return p;
}

std::vector<std::pair<std::string, std::string>> reliability_parameters_as_text(const ReliabilityParameters& p) {
  auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
  std::string names;
  for (const std::string& n : p.parameters) names += (names.empty() ? "" : ", ") + n;
  return {{"reliability.enable", flag(p.enable)},
          {"reliability.parameters", names},
          {"reliability.threshold", number_text(p.threshold)},
          {"reliability.scaleKernel", number_text(p.scale_kernel)},
          {"reliability.minSNR", number_text(p.min_snr)},
          {"reliability.minPixels", std::to_string(p.min_pixels)},
          {"reliability.autoKernel", flag(p.auto_kernel)},
          {"reliability.iterations", std::to_string(p.iterations)},
          {"reliability.tolerance", number_text(p.tolerance)},
          {"reliability.catalog", p.catalog},
          {"reliability.plot", flag(p.plot)},
          {"reliability.debug", flag(p.debug)}};
}

void check_linker_for_reliability(const LinkerParameters& linker, const ReliabilityParameters& reliability) {
  // As SoFiA-2, whether the linker runs or not (without it the filter does not run either).
  if (!reliability.enable) return;
  AS_EXPECTS(!linker.keep_negative, UsageError,
             "linker.keepNegative = true contradicts reliability.enable = true (SoFiA-2 refuses it: the filter "
             "always discards negative sources)",
             "set linker.keepNegative = false or switch the reliability filter off");
  AS_EXPECTS(!linker.positivity, UsageError,
             "linker.positivity = true contradicts reliability.enable = true (SoFiA-2 refuses it: no negative "
             "sources would be left for the filter)",
             "set linker.positivity = false or switch the reliability filter off");
}

double sqrt_beam_area(double bmaj, double bmin, double cdelt1) {
  if (std::isnan(bmaj) || std::isnan(bmin) || std::isnan(cdelt1)) return 1.0;
  const double cdelt = std::fabs(cdelt1);
  return std::sqrt(std::numbers::pi * bmaj * bmin / (4.0 * std::log(2.0) * cdelt * cdelt));
}

std::optional<std::vector<std::array<double, 2>>> read_reliability_catalog(const std::string& path) {
  std::ifstream in(path);
  AS_EXPECTS(in.good(), InputError, "reliability.catalog: cannot read '" + path + "'",
             "check the path (SoFiA-2 stops too)");
  auto is_data = [](const std::string& line) {
    const auto b = line.find_first_not_of(" \t\r\n\v\f");
    return b != std::string::npos && std::isalnum(static_cast<unsigned char>(line[b]));
  };
  auto fields = [](const std::string& line) {
    std::vector<std::string> out;
    std::string field;
    for (char c : line + " ") {
      if (c == ' ' || c == '\t' || c == ',' || c == '|' || c == '\r' || c == '\n') {
        if (!field.empty()) out.push_back(field);
        field.clear();
      } else {
        field += c;
      }
    }
    return out;
  };
  std::vector<std::vector<double>> rows;
  std::size_t columns = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (!is_data(line)) continue;
    const std::vector<std::string> f = fields(line);
    if (columns == 0) columns = f.size();
    AS_EXPECTS(f.size() >= columns, InputError,
               "reliability.catalog: '" + path + "': " + std::to_string(columns) + " columns expected, " +
                   std::to_string(f.size()) + " found in data row " + std::to_string(rows.size() + 1));
    std::vector<double> row;
    for (std::size_t i = 0; i < columns; ++i) row.push_back(std::strtod(f[i].c_str(), nullptr));
    rows.push_back(row);
  }
  if (rows.empty() || columns != 2) return std::nullopt;
  std::vector<std::array<double, 2>> positions;
  for (const auto& r : rows) positions.push_back({r[0], r[1]});
  return positions;
}

ReliabilityOutcome source_reliability(std::span<const Component> sources, std::span<const SourceMoments> moments,
                                      double rms, double fmin, const ReliabilityParameters& parameters,
                                      std::span<const std::array<double, 2>> excluded_xy) {
  ReliabilityOutcome out;
  out.reliability.assign(sources.size(), 0.0);
  const std::size_t dim = parameters.parameters.size();
  std::vector<Axis> axes;
  for (const std::string& name : parameters.parameters) axes.push_back(axis_of(name));
  const double rms_inv = 1.0 / rms;
  AS_EXPECTS(!parameters.needs_moments() || moments.size() == sources.size(), InternalError,
             "source_reliability: std, skew or kurt asked for without the sources' moments");

  // SoFiA-2 walks its source list from the last to the first; the sums below follow that order.
  Points positive{dim, {}}, negative{dim, {}};
  std::vector<std::size_t> positive_source;
  for (std::size_t i = sources.size(); i-- > 0;) {
    const Component& c = sources[i];
    const double sum = c.sum.value() * rms_inv;
    if (sum == 0.0) continue;
    const bool is_negative = sum < 0.0;
    if (is_negative) {
      // reliability.catalog: SoFiA-2 leaves out a negative source whose x/y bounding box holds one of
      // the positions (bounds inclusive, in pixels).
      const bool excluded = std::any_of(excluded_xy.begin(), excluded_xy.end(), [&](const std::array<double, 2>& p) {
        return p[0] >= static_cast<double>(c.x_min) && p[0] <= static_cast<double>(c.x_max) &&
               p[1] >= static_cast<double>(c.y_min) && p[1] <= static_cast<double>(c.y_max);
      });
      if (excluded) {
        ++out.negatives_excluded;
        continue;
      }
    }
    const double n = static_cast<double>(c.voxels);
    const double peak =
        is_negative ? -static_cast<double>(c.value_min) * rms_inv : static_cast<double>(c.value_max) * rms_inv;
    const double fill = n / static_cast<double>(c.size_x() * c.size_y() * c.size_z());
    Points& to = is_negative ? negative : positive;
    for (Axis a : axes) {
      switch (a) {
        case Axis::peak: to.coordinates.push_back(std::log10(peak)); break;
        case Axis::sum: to.coordinates.push_back(std::log10(std::fabs(sum))); break;
        case Axis::mean: to.coordinates.push_back(std::log10(std::fabs(sum) / n)); break;
        case Axis::chan: to.coordinates.push_back(static_cast<double>(c.size_z())); break;
        case Axis::pix: to.coordinates.push_back(std::log10(n)); break;
        case Axis::fill: to.coordinates.push_back(std::log10(fill)); break;
        // SoFiA-2's expressions, term for term (LinkerPar_reliability).
        case Axis::std: to.coordinates.push_back(std::sqrt(moments[i].m2 / (n - 1.0))); break;
        case Axis::skew: to.coordinates.push_back(std::sqrt(n) * moments[i].m3 / std::pow(moments[i].m2, 1.5)); break;
        case Axis::kurt: to.coordinates.push_back(moments[i].m4 * n / (moments[i].m2 * moments[i].m2) - 3.0); break;
      }
    }
    if (!is_negative) positive_source.push_back(i);
  }
  out.positives = positive.size();
  out.negatives = negative.size();
  AS_EXPECTS(out.negatives > 0, InputError, "reliability: no negative sources found (SoFiA-2 stops here too)",
             "the filter compares positive with negative detections; lower scfind.threshold or switch it off");
  AS_EXPECTS(out.positives > 0, InputError, "reliability: no positive sources found (SoFiA-2 stops here too)");

  // The negatives' covariance: 1/N normalisation, as SoFiA-2's Matrix_covar.
  Matrix covariance(dim * dim, 0.0);
  std::vector<double> mean(dim, 0.0);
  const auto samples = static_cast<double>(negative.size());
  for (std::size_t j = 0; j < dim; ++j) {
    for (std::size_t p = 0; p < negative.size(); ++p) mean[j] += negative.at(p)[j];
    mean[j] *= 1.0 / samples;
  }
  for (std::size_t r = 0; r < dim; ++r)
    for (std::size_t c = 0; c < dim; ++c) {
      double s = 0.0;
      for (std::size_t p = 0; p < negative.size(); ++p)
        s += (negative.at(p)[r] - mean[r]) * (negative.at(p)[c] - mean[c]);
      covariance[r * dim + c] = s * (1.0 / samples);
    }
  out.covariance = covariance;

  double scale_kernel = parameters.scale_kernel > 0.0 ? parameters.scale_kernel : 0.4;
  Matrix scaled = covariance;
  auto scale_by = [&](double factor) {
    for (double& v : scaled) v *= factor;
  };
  Matrix inv;
  if (!parameters.auto_kernel) {
    scale_by(scale_kernel * scale_kernel);
    inv = invert_or_throw(scaled, dim);
  } else {
    // SoFiA-2 rescales the covariance step by step ((scale / previous)² each time); so does this.
    double scale = 0.1, previous = 1.0, median = 1e5;
    const double step = 0.02;
    int iteration = 0;
    while (iteration < parameters.iterations && median > parameters.tolerance) {
      scale_by(std::pow(scale / previous, 2));
      inv = invert_or_throw(scaled, dim);
      median = skellam_median(positive, negative, inv);
      previous = scale;
      if (median < 10.0 * parameters.tolerance)
        scale += 2.0 * step;
      else if (median < 30.0 * parameters.tolerance)
        scale += 5.0 * step;
      else if (median < 50.0 * parameters.tolerance)
        scale += 10.0 * step;
      else
        scale += step;
      ++iteration;
    }
    out.kernel_iterations = iteration;
    out.converged = median <= parameters.tolerance;
    if (out.converged) {
      scale_kernel = previous;
    } else {
      scale_by(std::pow(scale_kernel / previous, 2));
      inv = invert_or_throw(scaled, dim);
    }
  }
  out.scale_kernel = scale_kernel;

  const double fmin_squared = fmin * fmin;
  const auto n_pos = static_cast<std::ptrdiff_t>(positive.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < n_pos; ++k) {
    const Component& c = sources[positive_source[static_cast<std::size_t>(k)]];
    const double sum = c.sum.value() * rms_inv;
    if (!(sum * sum / static_cast<double>(c.voxels) > fmin_squared && c.voxels > parameters.min_pixels)) continue;
    const double* here = positive.at(static_cast<std::size_t>(k));
    const double neg = kernel_sum(negative, here, inv);
    const double pos = kernel_sum(positive, here, inv);
    out.reliability[positive_source[static_cast<std::size_t>(k)]] = pos > neg ? (pos - neg) / pos : 0.0;
  }
  return out;
}

std::vector<std::int32_t> reliability_filter(std::span<const Component> sources, std::span<const double> reliability,
                                             double rms, double fmin, double threshold) {
  std::vector<std::int32_t> numbers(sources.size(), 0);
  std::int32_t next = 1;
  const double rms_inv = 1.0 / rms;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const double sum = sources[i].sum.value() * rms_inv;
    if (reliability[i] >= threshold && sum / std::sqrt(static_cast<double>(sources[i].voxels)) > fmin)
      numbers[i] = next++;
  }
  return numbers;
}

void renumber_labels(std::span<std::int32_t> labels, std::span<const std::int32_t> new_numbers) {
  // A pass over a whole slab: on all OpenMP threads (each voxel alone, so any split gives the same).
  std::int32_t* const out = labels.data();
  const std::size_t n = labels.size();
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i)
    if (out[i] > 0) out[i] = new_numbers[static_cast<std::size_t>(out[i]) - 1];
}

}  // namespace astrosweep::scfind
