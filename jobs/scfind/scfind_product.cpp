#include "scfind_product.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <vector>

#include "checkpoint_labels.hpp"
#include "core/error.hpp"
#include "core/mpi.hpp"
#include "core/version.hpp"
#include "cube_header.hpp"
#include "io/h5.hpp"
#include "io/h5_deflate_chunks.hpp"
#include "io/output_path.hpp"
#include "io/posix_file.hpp"

namespace astrosweep::scfind {

namespace {

constexpr const char* product_format_name = "astrosweep-scfind";
// 2: parameters and cube shape written at creation; 3: checkpoint labels beside the product, /mask
// written once at the end (deflate-compressed by default).
// 4: the linker's parameters among the attributes; /source_mask when the linker runs.
// 5: the parameter.* and output.writeCat* settings among the attributes; /catalogue when the linker
// runs (SoFiA-2's catalogue, one dataset per column).
// 6: the reliability.* settings among the attributes; /source_mask and /catalogue hold the
// reliable sources when the filter runs.
constexpr std::int64_t product_format_version = 6;

// Root attributes written at creation, all text, in this order; every one but command_line is
// part of the fingerprint.
std::vector<std::pair<std::string, std::string>> creation_attributes(const ScfindOptions& o, const io::CubeInfo& cube,
                                                                     const std::string& command_line) {
  std::vector<std::pair<std::string, std::string>> attributes{
      {"format", product_format_name},
      {"software", "astrosweep"},
      {"software_version", version_string()},
      {"command_line", command_line},
      {"input", o.input},
      {"cube_shape", std::to_string(cube.nx) + " " + std::to_string(cube.ny) + " " + std::to_string(cube.nz)}};
  for (auto& key_value : parameters_as_text(o.parameters)) attributes.push_back(std::move(key_value));
  for (auto& key_value : linker_parameters_as_text(o.linker)) attributes.push_back(std::move(key_value));
  for (auto& key_value : reliability_parameters_as_text(o.reliability)) attributes.push_back(std::move(key_value));
  for (auto& key_value : catalogue_parameters_as_text(o.catalogue, o.catalogue_files))
    attributes.push_back(std::move(key_value));
  return attributes;
}

const char* const fingerprint_excluded = "command_line";  // names the output and options such as --threads

// The file a product written to `path` ends up in: through a symbolic link, its target (the
// rename that completes a resumed product must replace the file, not the link).
std::string final_name(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(path, ec)) return path;
  const auto target = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : target.string();
}

}  // namespace

io::Fingerprint scfind_fingerprint(const ScfindOptions& options, const io::CubeInfo& cube) {
  io::Fingerprint fp;
  for (auto& [name, value] : creation_attributes(options, cube, options.command_line))
    if (name != fingerprint_excluded) fp.emplace_back(name, value);
  fp.emplace_back("format_version", std::to_string(product_format_version));
  return fp;
}

struct ScfindProduct::Files {
  h5::Id file;
  h5::Id mask;
  h5::Id noise;
  h5::Id source_mask;     ///< with the linker
  io::PosixFile durable;  ///< this rank's descriptor of the product, for fsync
  std::optional<CheckpointLabels> labels;
  std::optional<io::FitsMaskWriter> fits;
  std::optional<io::FitsMaskWriter> fits_sources;  ///< the linker's source mask as FITS
};

ScfindProduct::ScfindProduct(const ScfindOptions& options, const io::CubeInfo& cube,
                             const std::vector<KernelPair>& pairs, Open open, std::uint64_t pairs_done, MPI_Comm comm)
    : files_(std::make_unique<Files>()),
      options_(options),
      cube_(cube),
      comm_(comm),
      compressed_(options.mask_compression == MaskCompression::deflate && h5::deflate_available()) {
  // Both paths were checked when the run started (run::Lifecycle). The FITS mask is written at the
  // end under a temporary name and renamed when whole, so a stopped run never leaves one that
  // looks finished; a resumed run may replace its own.
  const std::uint64_t voxels = static_cast<std::uint64_t>(cube.nx) * cube.ny * cube.nz;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (open == Open::resume) {
    // The checkpoint's mask first: without it there is nothing to continue, and the product stays
    // as it was.
    files_->labels.emplace(options.output, voxels, CheckpointLabels::Open::resume, comm);
    // What the interrupted run's product holds that this run needs: the command line that created
    // it (a resumed product keeps the first run's) and the noise of the pairs its checkpoints made
    // durable. The rest is made anew, so nothing a killed write left in /mask or in the HDF5
    // metadata of its compressed chunks matters.
    std::string command_line = options.command_line;
    mpi::on_root_then_share_failure(comm, [&] {
      h5::Id old = h5::open_file(options.output, h5::Access::read);
      command_line = h5::string_attribute(old.get(), "command_line").value_or(options.command_line);
      h5::Id noise = h5::open_dataset(old.get(), "kernel_pairs/noise");
      resumed_noise_ = h5::read_rows<double>(noise.get(), 0, pairs_done);
    });
    mpi::broadcast_string(comm, command_line);
    mpi::broadcast_vector(comm, resumed_noise_);
    // Written whole under a temporary name, then renamed over the old product in one step: a kill
    // at any moment leaves a readable product with the checkpoint's noise.
    const std::string product = final_name(options.output);
    const std::string part = product + ".part";
    io::check_output_space(part, compressed_ ? voxels / 1000 : voxels, comm);  // as for a new product, below
    create(part, pairs, command_line);
    write_noise(std::span<const double>(resumed_noise_).first(rank == 0 ? resumed_noise_.size() : 0));
    files_->mask = h5::Id();
    files_->noise = h5::Id();
    files_->source_mask = h5::Id();
    h5::close_file(files_->file);
    mpi::on_root_then_share_failure(comm, [&] {
      io::PosixFile(part, O_RDWR).sync();
      std::error_code ec;
      std::filesystem::rename(part, product, ec);
      AS_EXPECTS(!ec, OutputError, "cannot rename '" + part + "' to '" + product + "': " + ec.message(),
                 "check that the directory is writable; then run with --resume again");
      io::sync_directory_of(product);
    });
    files_->file = h5::open_file(options.output, h5::Access::read_write, comm);
    files_->mask = h5::open_dataset(files_->file.get(), "mask");
    if (options.linker.enable) files_->source_mask = h5::open_dataset(files_->file.get(), "source_mask");
    files_->noise = h5::open_dataset(files_->file.get(), "kernel_pairs/noise");
  } else {
    // Labels an older run left (one killed after its product was complete) belong to no journal.
    mpi::on_root_then_share_failure(comm, [&] { remove_checkpoint_labels(options.output); });
    // A full disk found before HDF5's collective writes. A plain mask takes a byte per voxel; a
    // compressed one what it compresses to, known only as it is written, but at least the chunks
    // of zeros parallel HDF5 writes at creation (deflate: about a thousandth of a byte per voxel).
    // A disk that fills while the compressed mask is written ends the run with exit code 4 too.
    io::check_output_space(options.output, compressed_ ? voxels / 1000 : voxels, comm);
    if (!options.fits_mask.empty())
      io::check_output_space(options.fits_mask,
                             options.fits_mask_compression == io::FitsCompression::none ? voxels : voxels / 1000, comm);
    create(options.output, pairs, options.command_line);
  }
  files_->durable = io::PosixFile(options.output, O_RDWR);
}

void ScfindProduct::create(const std::string& path, const std::vector<KernelPair>& pairs,
                           const std::string& command_line) {
  files_->file = h5::open_file(path, h5::Access::create_truncate, comm_);
  const hid_t f = files_->file.get();
  for (const auto& [name, value] : creation_attributes(options_, cube_, command_line))
    h5::set_attribute(f, name, value);
  h5::set_attribute(f, "format_version", product_format_version);
  h5::set_attribute(f, "status", std::string("incomplete"));
  // (nz, ny, nx) like the FITS data unit. Chunks of whole rows of one channel, about 1 MiB: ranks
  // split the cube along its channels, so every chunk lies in one rank's slab whatever the slab
  // boundaries, and each rank compresses and writes its own chunks. (Parallel HDF5 handles a chunk
  // two ranks write by shipping one rank's part to the other before compressing it: correct, but
  // traffic and a serial step these chunks never need.) 1 MiB keeps deflate near its best ratio for
  // runs of zeros (about 1000:1) and the chunk index small: 4,200 chunks for 1500 x 1500 x 1400.
  // Deflate at level 1: a mask is almost all zeros, which every level packs alike, and level 1 is
  // the fastest.
  const std::vector<std::uint64_t> dims{cube_.nz, cube_.ny, cube_.nx};
  const std::uint64_t rows_per_chunk = std::max<std::uint64_t>(1, (1U << 20) / std::max<std::uint64_t>(1, cube_.nx));
  files_->mask = h5::create_chunked_dataset(f, "mask", H5T_NATIVE_UINT8, dims, {1, rows_per_chunk, cube_.nx},
                                            compressed_ ? std::optional<unsigned>(1) : std::nullopt);
  h5::set_attribute(files_->mask.get(), "description",
                    std::string("SoFiA-2 raw mask: 1 where a kernel pair clipped the voxel"));
  h5::set_attribute(files_->mask.get(), "units", std::string());  // a flag
  if (options_.linker.enable) {
    // The linker's source ids, chunked and compressed like /mask (4 bytes a voxel).
    const std::uint64_t rows = std::max<std::uint64_t>(1, (1U << 18) / std::max<std::uint64_t>(1, cube_.nx));
    files_->source_mask =
        h5::create_chunked_dataset(f, "source_mask", H5T_NATIVE_INT32, dims, {1, std::min(rows, cube_.ny), cube_.nx},
                                   compressed_ ? std::optional<unsigned>(1) : std::nullopt);
    h5::set_attribute(files_->source_mask.get(), "description",
                      std::string("SoFiA-2 linker's source mask: the source id of each voxel, 0 outside sources; "
                                  "with the reliability filter, the reliable sources renumbered "
                                  "(SoFiA-2's _mask.fits)"));
    h5::set_attribute(files_->source_mask.get(), "units", std::string());  // an id
  }
  // One row per kernel pair in the order they run: FWHM, width, and the noise the clip used.
  const std::uint64_t n = pairs.size();
  h5::Id table = h5::create_group(f, "kernel_pairs");
  h5::Id fwhm = h5::described(h5::create_dataset(table.get(), "fwhm_xy", H5T_NATIVE_DOUBLE, {n}), "pixel",
                              "the kernel pair's spatial Gaussian FWHM (0: no spatial smoothing)");
  h5::Id width = h5::described(h5::create_dataset(table.get(), "width_z", H5T_NATIVE_INT64, {n}), "channel",
                               "the kernel pair's spectral boxcar width (0: no spectral smoothing)");
  // The noise is in the cube's data unit (its BUNIT card; empty when the cube has none).
  const std::string data_unit = CubeHeader(cube_.header_cards, {cube_.nx, cube_.ny, cube_.nz}).text("BUNIT");
  files_->noise = h5::described(h5::create_dataset(table.get(), "noise", H5T_NATIVE_DOUBLE, {n}), data_unit,
                                "the noise level of the smoothed cube the kernel pair clipped at (scfind.threshold "
                                "times it), in the cube's data unit");
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  std::vector<double> fwhms;
  std::vector<std::int64_t> widths;
  for (const auto& pair : pairs) {
    fwhms.push_back(pair.fwhm_xy);
    widths.push_back(static_cast<std::int64_t>(pair.width_z));
  }
  const std::uint64_t rows = rank == 0 ? n : 0;  // one rank writes the small tables
  h5::write_rows(fwhm.get(), H5T_NATIVE_DOUBLE, 0, rows, fwhms.data());
  h5::write_rows(width.get(), H5T_NATIVE_INT64, 0, rows, widths.data());
  h5::flush(f);  // on disk as "incomplete" from the start; from here on only raw data changes
}

ScfindProduct::~ScfindProduct() = default;

std::optional<io::ExistingProduct> ScfindProduct::inspect(const std::string& path) {
  if (!h5::is_hdf5(path)) return std::nullopt;
  try {
    h5::Id file = h5::open_file(path, h5::Access::read);
    const hid_t f = file.get();
    if (h5::string_attribute(f, "format") != std::string(product_format_name) || !h5::exists(f, "mask") ||
        !h5::exists(f, "kernel_pairs/noise"))
      return std::nullopt;
    io::ExistingProduct found;
    const ScfindOptions no_options;  // the attributes' names, in order
    for (const auto& [name, value] : creation_attributes(no_options, io::CubeInfo{}, {}))
      if (name != fingerprint_excluded)
        if (auto text = h5::string_attribute(f, name)) found.fingerprint.emplace_back(name, *text);
    if (auto version = h5::int_attribute(f, "format_version"))
      found.fingerprint.emplace_back("format_version", std::to_string(*version));
    found.complete = h5::string_attribute(f, "status") == std::string("complete");
    return found;
  } catch (const Error&) {
    return std::nullopt;  // damaged: a run killed while HDF5 wrote the file's metadata
  }
}

void ScfindProduct::write_labels(std::size_t z0, std::span<const std::uint8_t> labels) {
  const std::uint64_t plane = static_cast<std::uint64_t>(cube_.nx) * cube_.ny;
  AS_ASSERT(plane > 0 && labels.size() % plane == 0);
  if (!files_->labels) files_->labels.emplace(options_.output, plane * cube_.nz, CheckpointLabels::Open::create, comm_);
  files_->labels->write(z0 * plane, labels);
}

std::vector<std::uint8_t> ScfindProduct::read_labels(std::size_t z0, std::size_t z1) {
  AS_ASSERT(files_->labels.has_value());
  const std::uint64_t plane = static_cast<std::uint64_t>(cube_.nx) * cube_.ny;
  return files_->labels->read(z0 * plane, (z1 - z0) * plane);
}

void ScfindProduct::write_noise(std::span<const double> noise) {
  h5::write_rows(files_->noise.get(), H5T_NATIVE_DOUBLE, 0, noise.size(), noise.data());
}

std::vector<double> ScfindProduct::read_noise(std::size_t n) const {
  AS_ASSERT(n <= resumed_noise_.size());
  return {resumed_noise_.begin(), resumed_noise_.begin() + static_cast<std::ptrdiff_t>(n)};
}

void ScfindProduct::sync() {
  files_->durable.sync();
  if (files_->labels) files_->labels->sync();
}

void ScfindProduct::write_mask(std::size_t z0, std::span<const std::uint8_t> mask) {
  const std::uint64_t plane = static_cast<std::uint64_t>(cube_.nx) * cube_.ny;
  AS_ASSERT(plane > 0 && mask.size() % plane == 0);
  const std::uint64_t channels = mask.size() / plane;
  // Plain chunks independently: a rank's channels are whole chunks of its own, so there is nothing
  // to aggregate (measured: collective MPI-IO only adds coordination, 0.76 s against 0.21 s for
  // 256 MiB). Compressed chunks on all the rank's cores (h5_deflate_chunks.hpp: HDF5's own
  // collective write compresses on one thread, 19.5 s for a 3.15 GB mask).
  if (compressed_)
    h5::write_deflated_channels(files_->mask.get(), H5T_NATIVE_UINT8, z0, std::as_bytes(mask), comm_);
  else
    h5::write_hyperslab(files_->mask.get(), H5T_NATIVE_UINT8, {z0, 0, 0}, {channels, cube_.ny, cube_.nx}, mask.data(),
                        h5::Transfer::independent);
  if (!options_.fits_mask.empty()) {
    // Created only now: the writer lays out NAME.part and renames it when whole (io/cube.hpp), and
    // the path was checked when the run started.
    if (!files_->fits) files_->fits.emplace(options_.fits_mask, cube_, comm_, true, options_.fits_mask_compression);
    files_->fits->write_channels(z0, mask);
  }
}

void ScfindProduct::write_mask_offsets(std::size_t z0, std::size_t channels, std::span<const std::uint64_t> offsets) {
  AS_ASSERT(compressed_ && options_.fits_mask.empty());
  h5::write_deflated_mask_offsets(files_->mask.get(), z0, channels, offsets, comm_);
}

void ScfindProduct::write_source_mask(std::size_t z0, std::span<const std::int32_t> labels) {
  const std::uint64_t plane = static_cast<std::uint64_t>(cube_.nx) * cube_.ny;
  AS_ASSERT(files_->source_mask.valid() && plane > 0 && labels.size() % plane == 0);
  const std::uint64_t channels = labels.size() / plane;
  if (compressed_)
    h5::write_deflated_channels(files_->source_mask.get(), H5T_NATIVE_INT32, z0, std::as_bytes(labels), comm_);
  else
    h5::write_hyperslab(files_->source_mask.get(), H5T_NATIVE_INT32, {z0, 0, 0}, {channels, cube_.ny, cube_.nx},
                        labels.data(), h5::Transfer::independent);
  if (!options_.fits_source_mask.empty()) {
    // As the raw mask's writer: created now, NAME.part until whole; the path was checked at the start.
    if (!files_->fits_sources)
      files_->fits_sources.emplace(options_.fits_source_mask, cube_, comm_, true, io::FitsCompression::none, 32);
    files_->fits_sources->write_channels(z0, labels);
  }
}

void ScfindProduct::write_catalogue(const Catalogue& catalogue, bool write_rows) {
  const hid_t f = files_->file.get();
  h5::Id group = h5::create_group(f, "catalogue");
  h5::set_attribute(group.get(), "description",
                    std::string("SoFiA-2 2.5.1's source catalogue: one dataset per column, in its order (attribute "
                                "columns), one row per source in id order"));
  h5::set_attribute(group.get(), "sources", static_cast<std::int64_t>(catalogue.size()));
  std::string order = "name";
  for (const auto& c : catalogue.columns) order += "," + c.name;
  h5::set_attribute(group.get(), "columns", order);
  const std::uint64_t n = catalogue.size();
  // Names: fixed-length strings as long as the longest.
  std::size_t longest = 1;
  for (const auto& name : catalogue.names) longest = std::max(longest, name.size());
  std::string packed(n * longest, '\0');
  for (std::size_t i = 0; i < n; ++i) catalogue.names[i].copy(packed.data() + i * longest, longest);
  h5::Id text_type(H5Tcopy(H5T_C_S1));
  h5::check(H5Tset_size(text_type.get(), longest), "H5Tset_size");
  h5::check(H5Tset_strpad(text_type.get(), H5T_STR_NULLPAD), "H5Tset_strpad");
  h5::Id names = h5::described(h5::create_dataset(group.get(), "name", text_type.get(), {n}), "",
                               "source name, as SoFiA-2 forms it (prefix and position, or prefix-id)");
  h5::set_attribute(names.get(), "ucd", std::string("meta.id"));
  h5::write_rows(names.get(), text_type.get(), 0, write_rows ? n : 0, packed.data());
  for (const auto& c : catalogue.columns) {
    h5::Id d =
        h5::described(h5::create_dataset(group.get(), c.name, c.integer ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, {n}),
                      c.unit, c.description);
    h5::set_attribute(d.get(), "ucd", c.ucd);
    if (c.integer)
      h5::write_rows(d.get(), H5T_NATIVE_INT64, 0, write_rows ? n : 0, c.whole.data());
    else
      h5::write_rows(d.get(), H5T_NATIVE_DOUBLE, 0, write_rows ? n : 0, c.real.data());
  }
}

void ScfindProduct::write_images(const std::vector<Image>& images) {
  if (images.empty()) return;
  const hid_t f = files_->file.get();
  h5::Id group = h5::create_group(f, "images");
  h5::set_attribute(group.get(), "description",
                    std::string("SoFiA-2 2.5.1's image outputs of the final source mask (output.writeMoments, "
                                "output.writeMask2d): 2-D maps of ny rows by nx pixels, as its FITS files"));
  // The maps' axes as dimension scales (h5py: mom0.dims[0][0] is y, dims[1][0] is x): 0-based
  // pixel indices, shared by every map. Pixel, not world, coordinates: a projected sky map's
  // right ascension and declination are not functions of one axis each, so no 1-D world scale is
  // exact; the cube's WCS keywords are in the FITS maps beside the product for that.
  h5::Id y = h5::described(h5::create_dataset(group.get(), "y", H5T_NATIVE_INT64, {cube_.ny}), "pixel",
                           "the maps' row axis (FITS axis 2): 0-based pixel index, a dimension scale");
  h5::Id x = h5::described(h5::create_dataset(group.get(), "x", H5T_NATIVE_INT64, {cube_.nx}), "pixel",
                           "the maps' column axis (FITS axis 1): 0-based pixel index, a dimension scale");
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  std::vector<std::int64_t> index(std::max(cube_.nx, cube_.ny));
  for (std::size_t i = 0; i < index.size(); ++i) index[i] = static_cast<std::int64_t>(i);
  h5::write_rows(y.get(), H5T_NATIVE_INT64, 0, rank == 0 ? cube_.ny : 0, index.data());
  h5::write_rows(x.get(), H5T_NATIVE_INT64, 0, rank == 0 ? cube_.nx : 0, index.data());
  for (const auto& image : images) {
    const hid_t type = image.is_integer ? H5T_NATIVE_INT32 : H5T_NATIVE_FLOAT;
    h5::Id d = h5::described(h5::create_dataset(group.get(), image.name, type, {cube_.ny, cube_.nx}), image.units,
                             image.description);
    const void* data = image.is_integer ? static_cast<const void*>(image.integer) : image.real;
    h5::write_rows(d.get(), type, 0, data != nullptr ? cube_.ny : 0, data);
    h5::attach_scale(d.get(), y.get(), 0, "y");
    h5::attach_scale(d.get(), x.get(), 1, "x");
  }
}

void ScfindProduct::close() {
  files_->source_mask = h5::Id();
  files_->fits_sources.reset();
  files_->fits.reset();
  files_->labels.reset();
  files_->mask = h5::Id();
  files_->noise = h5::Id();
  if (files_->file.valid()) h5::close_file(files_->file);
}

void ScfindProduct::finish(std::span<const double> noise, const ScfindSummary& summary, std::size_t cadence) {
  const hid_t f = files_->file.get();
  h5::set_attribute(f, "noise_sample_stride", static_cast<std::int64_t>(cadence));
  h5::set_attribute(f, "mask_voxels", static_cast<std::int64_t>(summary.mask_voxels));
  h5::set_attribute(f, "noise_original", summary.noise.at(0));
  if (files_->source_mask.valid()) {
    h5::set_attribute(f, "sources", static_cast<std::int64_t>(summary.sources));
    h5::set_attribute(f, "source_voxels", static_cast<std::int64_t>(summary.source_voxels));
  }
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  write_noise(noise.first(rank == 0 ? noise.size() : 0));  // one rank writes the small table
  // Everything on disk before either file says it is complete: a full disk fails here (exit 4),
  // leaving the product "incomplete" and no FITS mask under its own name.
  h5::flush(f);
  if (files_->fits) files_->fits->close();
  if (files_->fits_sources) files_->fits_sources->close();
  h5::set_attribute(f, "status", std::string("complete"));
  files_->mask = h5::Id();
  files_->noise = h5::Id();
  files_->source_mask = h5::Id();
  h5::close_file(files_->file);
  files_->labels.reset();  // served: the job removes the file (remove_checkpoint_labels)
}

}  // namespace astrosweep::scfind
