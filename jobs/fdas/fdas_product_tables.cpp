// The tables rank 0 adds to the fdas product when every series is done (fdas_product.hpp).
#include <algorithm>
#include <cstring>
#include <functional>

#include "core/error.hpp"
#include "fdas_product.hpp"

namespace astrosweep::fdas {

namespace {

// A column of `rows` (member by member) as a 1-D dataset of its native type.
template <class Row, class Get>
void write_column(hid_t group, const char* name, const char* units, const char* description,
                  const std::vector<Row>& rows, Get get) {
  using V = std::decay_t<decltype(get(rows.front()))>;
  std::vector<V> values;
  values.reserve(rows.size());
  for (const auto& r : rows) values.push_back(get(r));
  h5::Id ds = h5::described(h5::create_dataset(group, name, h5::native_type<V>(), {rows.size()}), units, description);
  h5::write_rows<V>(ds.get(), 0, std::span<const V>(values));
}

// Fixed-length, NUL-padded strings (h5py reads them as bytes; astropy as str).
void write_strings(hid_t group, const char* name, const char* description, const std::vector<std::string>& values,
                   std::size_t width = 0) {
  for (const auto& v : values) width = std::max(width, v.size());
  width = std::max<std::size_t>(width, 1);
  h5::Id type(H5Tcopy(H5T_C_S1));
  h5::check(H5Tset_size(type.get(), width), "H5Tset_size");
  h5::check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "H5Tset_strpad");
  std::string packed(values.size() * width, '\0');
  for (std::size_t i = 0; i < values.size(); ++i)
    std::memcpy(packed.data() + i * width, values[i].data(), values[i].size());
  h5::Id ds = h5::described(h5::create_dataset(group, name, type.get(), {values.size()}), "", description);
  h5::write_rows(ds.get(), type.get(), 0, values.size(), packed.data());
}

void write_candidates(hid_t file, const std::vector<CandidateRow>& c, const std::vector<std::uint64_t>& harmonic_offset,
                      const std::vector<double>& dm) {
  h5::Id group = h5::create_group(file, "candidates");
  const hid_t g = group.get();
  h5::set_attribute(g, "description",
                    std::string("every series' candidates after polishing and harmonic elimination, series by series, "
                                "sigma descending within a series (PRESTO's ACCEL fundamental table)"));
  write_column(g, "series", "", "row of /series the candidate belongs to", c, [](auto& r) { return r.series; });
  write_column(g, "number", "", "its number within the series (PRESTO's Cand), 1 = most significant", c,
               [](auto& r) { return r.number; });
  std::size_t i = 0;
  write_column(g, "dm", "pc cm-3", "DM of its series", c, [&](auto&) { return dm[i++]; });
  write_column(g, "sigma", "", "Gaussian-equivalent significance of the polished summed power (PRESTO's sigma)", c,
               [](auto& r) { return r.sigma; });
  write_column(g, "summed_power", "normalised power", "sum of the harmonics' powers at the polished (r, z)", c,
               [](auto& r) { return r.summed_power; });
  write_column(g, "coherent_power", "normalised power",
               "|sum_h sqrt(P_h) exp(i(phi_h + phi_1 - (h phi_1 mod 2 pi)))|^2 over the polished harmonics", c,
               [](auto& r) { return r.coherent_power; });
  write_column(g, "numharm", "", "harmonics summed", c, [](auto& r) { return r.numharm; });
  write_column(g, "r", "bins", "fundamental Fourier frequency at the middle of the series (f T)", c,
               [](auto& r) { return r.r; });
  write_column(g, "r_err", "bins", "its error", c, [](auto& r) { return r.r_err; });
  write_column(g, "z", "bins", "fundamental drift over the series (fdot T^2)", c, [](auto& r) { return r.z; });
  write_column(g, "z_err", "bins", "its error", c, [](auto& r) { return r.z_err; });
  write_column(g, "frequency", "Hz", "fundamental frequency r/T", c, [](auto& r) { return r.frequency_hz; });
  write_column(g, "frequency_err", "Hz", "its error", c, [](auto& r) { return r.frequency_err_hz; });
  write_column(g, "period", "ms", "period T/r", c, [](auto& r) { return r.period_ms; });
  write_column(g, "period_err", "ms", "its error", c, [](auto& r) { return r.period_err_ms; });
  write_column(g, "fdot", "Hz s-1", "frequency derivative z/T^2", c, [](auto& r) { return r.fdot_hz_s; });
  write_column(g, "fdot_err", "Hz s-1", "its error", c, [](auto& r) { return r.fdot_err_hz_s; });
  write_column(g, "pdot", "s s-1", "period derivative -z/r^2", c, [](auto& r) { return r.pdot; });
  write_column(g, "pdot_err", "s s-1", "its error", c, [](auto& r) { return r.pdot_err; });
  write_column(g, "accel", "m s-2",
               "z c/(f T^2), PRESTO's column: positive when the apparent frequency rises (line-of-sight acceleration "
               "away from the observer is -accel)",
               c, [](auto& r) { return r.accel_m_s2; });
  write_column(g, "accel_err", "m s-2", "its error", c, [](auto& r) { return r.accel_err_m_s2; });
  write_column(g, "found_r", "bins", "r where the search found it, before polishing", c,
               [](auto& r) { return r.found_r; });
  write_column(g, "found_z", "bins", "z where the search found it, before polishing", c,
               [](auto& r) { return r.found_z; });
  write_column(g, "found_sigma", "", "its sigma there", c, [](auto& r) { return r.found_sigma; });
  write_column(g, "found_power", "normalised power", "its summed power there", c,
               [](auto& r) { return static_cast<double>(r.found_power); });
  std::size_t j = 0;
  write_column(g, "harmonic_offset", "", "first row of its harmonics in /harmonics (numharm rows)", c,
               [&](auto&) { return harmonic_offset[j++]; });
  std::vector<std::string> notes;
  for (const auto& r : c) notes.push_back(from_notes_text(r.notes));
  write_strings(g, "notes", "PRESTO's notes: 'H k of Cand i' (a harmonic), 'SL? of Cand i' (a possible sidelobe)",
                notes, sizeof(NotesText));
}

void write_harmonics(hid_t file, const std::vector<HarmonicRow>& h) {
  h5::Id group = h5::create_group(file, "harmonics");
  const hid_t g = group.get();
  h5::set_attribute(g, "description",
                    std::string("each candidate's harmonics (PRESTO's harmonic table), numharm rows per candidate in "
                                "the order of /candidates"));
  write_column(g, "series", "", "row of /series", h, [](auto& r) { return r.series; });
  write_column(g, "number", "", "the candidate's number within the series", h, [](auto& r) { return r.number; });
  write_column(g, "harmonic", "", "harmonic number h (1 = fundamental)", h, [](auto& r) { return r.harmonic; });
  write_column(g, "sigma", "", "significance of this harmonic's power alone", h, [](auto& r) { return r.sigma; });
  write_column(g, "power", "normalised power", "power / local power", h, [](auto& r) { return r.power; });
  write_column(g, "raw_power", "normalised power", "|A|^2 at the harmonic's (r, z)", h,
               [](auto& r) { return r.raw_power; });
  write_column(g, "r", "bins", "where the harmonic peaks", h, [](auto& r) { return r.r; });
  write_column(g, "r_predicted", "bins", "h r_1", h, [](auto& r) { return r.r_predicted; });
  write_column(g, "z", "bins", "the harmonic's drift", h, [](auto& r) { return r.z; });
  write_column(g, "z_predicted", "bins", "h z_1", h, [](auto& r) { return r.z_predicted; });
  write_column(g, "phase", "deg", "phase of the harmonic's complex amplitude", h, [](auto& r) { return r.phase_deg; });
  write_column(g, "centroid", "", "PRESTO's pulse centroid (fraction of a period)", h,
               [](auto& r) { return r.centroid; });
  write_column(g, "purity", "", "PRESTO's purity (1 for a sinusoid)", h, [](auto& r) { return r.purity; });
}

void write_sifted(hid_t file, const SiftResult& s, const SiftOptions& options) {
  h5::Id group = h5::create_group(file, "sifted");
  const hid_t g = group.get();
  h5::set_attribute(g, "description",
                    std::string("candidates kept by PRESTO's sifting across DM trials (sifting.py, ACCEL_sift.py), "
                                "sigma descending; each with the DMs it was seen at in /sifted/hits"));
  h5::set_attribute(g, "min_num_dms", static_cast<std::int64_t>(options.min_num_dms));
  std::vector<std::size_t> rejected(9, 0);
  for (const auto& [c, why] : s.rejected) ++rejected[static_cast<std::size_t>(why)];
  for (std::size_t k = 0; k < rejected.size(); ++k)
    h5::set_attribute(g, std::string("rejected_") + to_string(static_cast<SiftRejection>(k)),
                      static_cast<std::int64_t>(rejected[k]));
  const auto& k = s.kept;
  write_column(g, "series", "", "row of /series of the candidate kept for the group", k,
               [](auto& c) { return static_cast<std::uint64_t>(c.input.series); });
  write_column(g, "number", "", "its number within that series", k,
               [](auto& c) { return static_cast<std::int32_t>(c.input.candnum); });
  write_column(g, "dm", "pc cm-3", "DM of that series", k, [](auto& c) { return c.input.dm; });
  write_column(g, "sigma", "", "sigma of its harmonic powers (sifting.py recomputes it)", k,
               [](auto& c) { return c.sigma; });
  write_column(g, "snr", "", "sum_h sqrt(max(0, P_h - 1))", k, [](auto& c) { return c.snr; });
  write_column(g, "summed_power", "normalised power", "sum of its harmonic powers", k,
               [](auto& c) { return c.summed_power; });
  write_column(g, "coherent_power", "normalised power", "its coherent power", k,
               [](auto& c) { return c.input.coherent_power; });
  write_column(g, "numharm", "", "harmonics summed", k,
               [](auto& c) { return static_cast<std::int32_t>(c.input.numharm); });
  write_column(g, "r", "bins", "fundamental r", k, [](auto& c) { return c.input.r; });
  write_column(g, "z", "bins", "fundamental z", k, [](auto& c) { return c.input.z; });
  write_column(g, "frequency", "Hz", "fundamental frequency r/T", k, [](auto& c) { return c.f(); });
  write_column(g, "period", "ms", "period T/r", k, [](auto& c) { return 1e3 * c.period(); });
  write_column(g, "n_hits", "", "DM trials it was seen at (rows of /sifted/hits)", k,
               [](auto& c) { return static_cast<std::uint64_t>(c.hits.size()); });
  std::uint64_t at = 0;
  write_column(g, "hit_offset", "", "first row of its hits in /sifted/hits", k, [&](auto& c) {
    const auto first = at;
    at += c.hits.size();
    return first;
  });
  std::vector<DmHit> hits;
  for (const auto& c : k) hits.insert(hits.end(), c.hits.begin(), c.hits.end());
  h5::Id hit_group = h5::create_group(g, "hits");
  write_column(hit_group.get(), "dm", "pc cm-3", "a DM trial the candidate was seen at", hits,
               [](auto& h) { return h.dm; });
  write_column(hit_group.get(), "snr", "", "its S/N there", hits, [](auto& h) { return h.snr; });
  write_column(hit_group.get(), "sigma", "", "its sigma there", hits, [](auto& h) { return h.sigma; });
}

}  // namespace

void write_final_tables(const std::string& path, const FinalTables& t) {
  AS_ASSERT(t.spool);
  h5::Id file = h5::open_file(path, h5::Access::read_write);
  const hid_t f = file.get();
  // A run stopped while writing these left some of them; the spool they come from is still there.
  for (const char* name : {"series/candidate_offset", "series/source", "candidates", "harmonics", "sifted"})
    if (h5::exists(f, name)) h5::check(H5Ldelete(f, name, H5P_DEFAULT), "H5Ldelete");
  std::vector<CandidateRow> candidates;
  std::vector<HarmonicRow> harmonics;
  std::vector<std::uint64_t> offsets, harmonic_offsets;
  std::vector<double> dms;
  for (const auto& [series, record] : t.spool->records) {
    offsets.push_back(candidates.size());
    // Harmonic rows follow their candidates' order, numharm rows each.
    std::uint64_t h_at = harmonics.size();
    for (const auto& c : record.candidates) {
      harmonic_offsets.push_back(h_at);
      h_at += static_cast<std::uint64_t>(c.numharm);
      dms.push_back(record.series.dm);
    }
    AS_ASSERT(h_at == harmonics.size() + record.harmonics.size());
    candidates.insert(candidates.end(), record.candidates.begin(), record.candidates.end());
    harmonics.insert(harmonics.end(), record.harmonics.begin(), record.harmonics.end());
  }
  {
    h5::Id series = h5::open_group(f, "series");
    write_column(series.get(), "candidate_offset", "", "first row of the series' candidates in /candidates", offsets,
                 [](auto v) { return v; });
    write_strings(series.get(), "source", "the file the series was read from (for a batch: the batch and its index)",
                  t.series_sources);
  }
  write_candidates(f, candidates, harmonic_offsets, dms);
  write_harmonics(f, harmonics);
  write_sifted(f, t.sifted, t.sift_options);
  h5::close_file(file);
}

void mark_complete(const std::string& path) {
  h5::Id file = h5::open_file(path, h5::Access::read_write);
  h5::set_attribute(file.get(), "status", std::string("complete"));
  h5::close_file(file);
}

}  // namespace astrosweep::fdas
