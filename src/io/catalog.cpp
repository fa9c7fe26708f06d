#include "io/catalog.hpp"

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/mpi.hpp"
#include "io/csv_light_curves.hpp"
#include "io/h5.hpp"
#include "io/h5_catalog.hpp"

namespace astrosweep::io {

InputFormat parse_input_format(const std::string& name) {
  if (name == "auto") return InputFormat::automatic;
  if (name == "csv") return InputFormat::csv;
  if (name == "fits") return InputFormat::fits;
  if (name == "hdf5") return InputFormat::hdf5;
  throw UsageError("unknown input format '" + name + "'", "use one of auto, csv, fits, hdf5");
}

const char* input_format_name(InputFormat format) {
  switch (format) {
    case InputFormat::automatic: return "auto";
    case InputFormat::csv: return "csv";
    case InputFormat::fits: return "fits";
    case InputFormat::hdf5: return "hdf5";
  }
  return "?";
}

namespace {

std::vector<std::string> read_list_file(const std::string& list) {
  std::ifstream in(list);
  AS_EXPECTS(in.good(), InputError, "cannot read the input list '" + list + "'", "check the path after '@'");
  std::vector<std::string> paths;
  const auto dir = std::filesystem::path(list).parent_path();
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty() || line.front() == '#') continue;
    const std::filesystem::path p(line);
    paths.push_back(p.is_absolute() ? line : (dir / p).string());
  }
  AS_EXPECTS(!paths.empty(), InputError, "the input list '" + list + "' names no files");
  return paths;
}

bool looks_like_fits(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[9] = {};
  in.read(head, 8);
  return std::string(head) == "SIMPLE  ";
}

bool ends_with(const std::string& path, std::initializer_list<const char*> suffixes) {
  for (const char* s : suffixes)
    if (path.ends_with(s)) return true;
  return false;
}

}  // namespace

std::vector<std::string> expand_input_lists(const std::vector<std::string>& inputs) {
  std::vector<std::string> paths;
  for (const auto& in : inputs) {
    if (!in.empty() && in.front() == '@') {
      auto listed = read_list_file(in.substr(1));
      paths.insert(paths.end(), listed.begin(), listed.end());
    } else {
      paths.push_back(in);
    }
  }
  return paths;
}

ResolvedInputs resolve_inputs(const CatalogOptions& options) {
  AS_EXPECTS(!options.inputs.empty(), UsageError, "no input given", "pass --input PATH (see --help)");
  ResolvedInputs r{expand_input_lists(options.inputs), options.format};
  for (const auto& p : r.paths) {
    std::error_code ec;
    AS_EXPECTS(std::filesystem::exists(p, ec), InputError, "input '" + p + "' does not exist",
               "check the path given to --input");
  }
  if (r.format == InputFormat::automatic) {
    const auto& first = r.paths.front();
    std::error_code ec;
    // By content first; a file whose content is no format (empty, damaged) by its name, so the
    // message comes from the reader of the format the user meant.
    if (r.paths.size() == 1 && h5::is_hdf5(first))
      r.format = InputFormat::hdf5;
    else if (std::filesystem::is_directory(first, ec) || looks_like_fits(first))
      r.format = InputFormat::fits;
    else if (r.paths.size() == 1 && ends_with(first, {".h5", ".hdf5", ".he5"}))
      r.format = InputFormat::hdf5;
    else if (ends_with(first, {".fits", ".fit", ".fts", ".fits.gz"}))
      r.format = InputFormat::fits;
    else
      r.format = InputFormat::csv;
  }
  for (const auto& p : r.paths) {
    std::error_code ec;
    AS_EXPECTS(r.format == InputFormat::csv || !std::filesystem::is_regular_file(p, ec) ||
                   std::filesystem::file_size(p, ec) > 0,
               InputError, "input '" + p + "' is empty (0 bytes)",
               "the file is incomplete (an interrupted copy or download?); copy it again");
  }
  AS_EXPECTS(r.format == InputFormat::fits || r.paths.size() == 1, UsageError,
             std::string("the ") + input_format_name(r.format) + " format reads one input file, " +
                 std::to_string(r.paths.size()) + " were given",
             "merge them, or convert them into one HDF5 catalog with 'astrosweep convert'");
  return r;
}

StreamedInput stream_serial(const ResolvedInputs& inputs, const CatalogOptions& options, LightCurveSink& sink,
                            std::uint64_t block_rows) {
  // Ids come out unique: the CSV reader refuses an id that comes back, the FITS reader merges
  // files of one id into one object.
  StreamedInput out;
  if (inputs.format == InputFormat::csv)
    out = stream_csv_light_curves(inputs.paths.front(), sink, block_rows);
  else if (inputs.format == InputFormat::fits)
    out = stream_fits_light_curves(expand_fits_inputs(inputs.paths), options.fits, sink, block_rows);
  else
    throw InternalError("stream_serial called for an HDF5 catalog");
  if (!options.time_reference.empty()) out.time_reference = options.time_reference;
  return out;
}

SerialRead read_serial(const ResolvedInputs& inputs, const CatalogOptions& options) {
  BlockCollector all;
  auto streamed = stream_serial(inputs, options, all);
  SerialRead out{all.take(), std::move(streamed.identity), std::move(streamed.time_reference)};
  if (!streamed.has_time_references) {
    out.block.bjdrefi.clear();
    out.block.bjdreff.clear();
  }
  require_unique_ids(out.block.ids, inputs.paths.front());
  return out;
}

ConvertedCatalog convert_to_catalog(const ResolvedInputs& inputs, const CatalogOptions& options,
                                    const std::string& output, std::uint64_t block_rows) {
  H5CatalogWriter writer(output);
  writer.finish(stream_serial(inputs, options, writer, block_rows));
  return {writer.n_objects(), writer.n_rows(), writer.has_errors()};
}

Catalog::Catalog(const CatalogOptions& options, MPI_Comm comm) {
  ResolvedInputs inputs;
  mpi::on_root_then_share_failure(comm, [&] { inputs = resolve_inputs(options); });
  int fmt = static_cast<int>(inputs.format);
  mpi::broadcast_value(comm, fmt);
  format_ = static_cast<InputFormat>(fmt);

  if (format_ == InputFormat::hdf5) {
    std::string path = inputs.paths.empty() ? std::string() : inputs.paths.front();
    mpi::broadcast_string(comm, path);
    // Rank 0 looks at the file alone first, so a damaged or foreign file gives one message and
    // every rank the same exit code; then every rank opens it for itself. Not through MPI-IO: the
    // ranks read their own rows at their own times, and POSIX reads of a warm file went at 4 GB/s
    // where MPI-IO's independent reads went at 1.7 (H200 host, 2026-11-25).
    mpi::on_root_then_share_failure(comm, [&] { H5Catalog(path, MPI_COMM_NULL).check_layout(); });
    try {
      h5_ = std::make_unique<H5Catalog>(path, MPI_COMM_NULL);
    } catch (const Error& e) {  // rank 0 has just opened it: a rank that cannot is alone, the others go on
      mpi::abort_all(comm, e.code(), std::string("astrosweep: error: ") + e.what());
    }
    mpi::on_root_then_share_failure(comm, [&] {
      index_ = h5_->read_index();
      if (!options.time_reference.empty()) index_.time_reference = options.time_reference;
      identity_ = h5_->identity(index_);
    });
    return;
  }

  LightCurveBlock block;
  mpi::on_root_then_share_failure(comm, [&] {
    auto read = read_serial(inputs, options);
    index_ = index_of(read.block, read.time_reference);
    identity_ = std::move(read.identity);
    block = std::move(read.block);
  });
  mpi::broadcast_vector(comm, block.ids);
  mpi::broadcast_vector(comm, block.counts);
  mpi::broadcast_vector(comm, block.n_flagged);
  mpi::broadcast_vector(comm, block.t);
  mpi::broadcast_vector(comm, block.y);
  mpi::broadcast_vector(comm, block.dy);
  mpi::broadcast_vector(comm, block.bjdrefi);
  mpi::broadcast_vector(comm, block.bjdreff);
  memory_ = std::move(block);
}

Catalog::~Catalog() = default;

LightCurveBlock Catalog::read(std::uint64_t first_object, std::uint64_t n_objects, std::uint64_t first_row,
                              std::uint64_t n_rows) const {
  LightCurveBlock block;
  read(first_object, n_objects, first_row, n_rows, block);
  return block;
}

void Catalog::read(std::uint64_t first_object, std::uint64_t n_objects, std::uint64_t first_row, std::uint64_t n_rows,
                   LightCurveBlock& into, std::mutex* hdf5_lock) const {
  if (h5_) return h5_->read(first_object, n_objects, first_row, n_rows, into, hdf5_lock);
  const auto& m = *memory_;
  AS_ASSERT(first_object + n_objects <= m.n_objects() && first_row + n_rows <= m.t.size());
  auto slice = [](const auto& v, std::uint64_t first, std::uint64_t n, auto& out) {
    if (v.empty()) return out.clear();
    out.assign(v.begin() + static_cast<std::ptrdiff_t>(first), v.begin() + static_cast<std::ptrdiff_t>(first + n));
  };
  slice(m.ids, first_object, n_objects, into.ids);
  slice(m.counts, first_object, n_objects, into.counts);
  slice(m.n_flagged, first_object, n_objects, into.n_flagged);
  slice(m.t, first_row, n_rows, into.t);
  slice(m.y, first_row, n_rows, into.y);
  slice(m.dy, first_row, n_rows, into.dy);
  slice(m.bjdrefi, first_object, n_objects, into.bjdrefi);
  slice(m.bjdreff, first_object, n_objects, into.bjdreff);
}

}  // namespace astrosweep::io
