#include "scfind_product.hpp"

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "core/mpi.hpp"
#include "core/version.hpp"
#include "io/h5.hpp"
#include "io/output_path.hpp"

namespace astrosweep::scfind {

constexpr const char* product_format_name = "astrosweep-scfind";
constexpr std::int64_t product_format_version = 1;

struct ScfindProduct::Files {
  h5::Id file;
  h5::Id mask;
  std::optional<io::FitsMaskWriter> fits;
};

ScfindProduct::ScfindProduct(const ScfindOptions& options, const io::CubeInfo& cube, MPI_Comm comm)
    : files_(std::make_unique<Files>()), options_(options), cube_(cube), comm_(comm) {
  mpi::on_root_then_share_failure(comm, [&] {
    io::check_output_path(options.output, options.overwrite, "--output");
    AS_EXPECTS(options.fits_mask != options.output, UsageError, "the FITS mask and the product have the same name",
               "give --fits-mask another path");
    if (!options.fits_mask.empty()) io::check_output_path(options.fits_mask, options.overwrite, "--fits-mask");
  });
  files_->file = h5::open_file(options.output, h5::Access::create_truncate, comm);
  const hid_t f = files_->file.get();
  h5::set_attribute(f, "format", std::string(product_format_name));
  h5::set_attribute(f, "format_version", product_format_version);
  h5::set_attribute(f, "software", std::string("astrosweep"));
  h5::set_attribute(f, "software_version", std::string(version_string()));
  h5::set_attribute(f, "status", std::string("incomplete"));
  h5::set_attribute(f, "command_line", options.command_line);
  h5::set_attribute(f, "input", options.input);
  // (nz, ny, nx) like the FITS data unit; chunks of whole rows over a few channels keep a rank's
  // channel range in its own chunks for most slab boundaries.
  const std::vector<std::uint64_t> dims{cube.nz, cube.ny, cube.nx};
  const std::uint64_t rows_per_chunk = std::max<std::uint64_t>(1, (1U << 20) / std::max<std::uint64_t>(1, cube.nx));
  files_->mask = h5::create_chunked_dataset(f, "mask", H5T_NATIVE_UINT8, dims, {1, rows_per_chunk, cube.nx});
  h5::set_attribute(files_->mask.get(), "description",
                    std::string("SoFiA-2 raw mask: 1 where a kernel pair clipped the voxel"));
  h5::flush(f);  // on disk as "incomplete" from the start, whatever stops the run later
  if (!options.fits_mask.empty()) files_->fits.emplace(options.fits_mask, cube, comm, options.overwrite);
}

ScfindProduct::~ScfindProduct() = default;

void ScfindProduct::write_mask(std::size_t z0, std::span<const std::uint8_t> mask) {
  const std::uint64_t plane = static_cast<std::uint64_t>(cube_.nx) * cube_.ny;
  AS_ASSERT(plane > 0 && mask.size() % plane == 0);
  const std::uint64_t channels = mask.size() / plane;
  // Independent: a rank's channels are whole chunks of its own, so there is nothing to aggregate
  // (measured: collective MPI-IO only adds coordination, 0.76 s against 0.21 s for 256 MiB).
  h5::write_hyperslab(files_->mask.get(), H5T_NATIVE_UINT8, {z0, 0, 0}, {channels, cube_.ny, cube_.nx}, mask.data(),
                      h5::Transfer::independent);
  if (files_->fits) files_->fits->write_channels(z0, mask);
}

void ScfindProduct::finish(const std::vector<KernelPair>& pairs, const ScfindSummary& summary, std::size_t cadence) {
  const hid_t f = files_->file.get();
  const auto& p = options_.parameters;
  h5::set_attribute(f, "scfind.threshold", p.threshold);
  h5::set_attribute(f, "scfind.replacement", p.replacement);
  h5::set_attribute(f, "scfind.statistic", std::string(to_string(p.statistic)));
  h5::set_attribute(f, "scfind.fluxRange", std::string(to_string(p.flux_range)));
  h5::set_attribute(f, "noise_sample_stride", static_cast<std::int64_t>(cadence));
  h5::set_attribute(f, "mask_voxels", static_cast<std::int64_t>(summary.mask_voxels));
  h5::set_attribute(f, "fits_mask", options_.fits_mask);
  // One row per kernel pair in the order they ran: FWHM, width, and the noise the clip used.
  const std::uint64_t n = pairs.size();
  h5::Id table = h5::create_group(f, "kernel_pairs");
  h5::Id fwhm = h5::create_dataset(table.get(), "fwhm_xy", H5T_NATIVE_DOUBLE, {n});
  h5::Id width = h5::create_dataset(table.get(), "width_z", H5T_NATIVE_INT64, {n});
  h5::Id noise = h5::create_dataset(table.get(), "noise", H5T_NATIVE_DOUBLE, {n});
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  std::vector<double> fwhms, noises;
  std::vector<std::int64_t> widths;
  std::size_t smoothing = 0;
  for (const auto& pair : pairs) {
    fwhms.push_back(pair.fwhm_xy);
    widths.push_back(static_cast<std::int64_t>(pair.width_z));
    noises.push_back(pair.smooths() ? summary.noise.at(++smoothing) : summary.noise.at(0));
  }
  const std::uint64_t rows = rank == 0 ? n : 0;  // one rank writes the small tables
  h5::write_rows(fwhm.get(), H5T_NATIVE_DOUBLE, 0, rows, fwhms.data());
  h5::write_rows(width.get(), H5T_NATIVE_INT64, 0, rows, widths.data());
  h5::write_rows(noise.get(), H5T_NATIVE_DOUBLE, 0, rows, noises.data());
  h5::set_attribute(f, "noise_original", summary.noise.at(0));
  // Everything on disk before either file says it is complete: a full disk fails here (exit 4),
  // leaving the product "incomplete" and the FITS mask under its temporary name.
  h5::flush(f);
  if (files_->fits) files_->fits->close();
  h5::set_attribute(f, "status", std::string("complete"));
  files_->mask = h5::Id();
  fwhm = h5::Id();
  width = h5::Id();
  noise = h5::Id();
  table = h5::Id();
  h5::close_file(files_->file);
}

}  // namespace astrosweep::scfind
