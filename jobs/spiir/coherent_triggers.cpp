#include "coherent_triggers.hpp"

#include <hdf5_hl.h>
#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "detector_geometry.hpp"
#include "io/h5.hpp"
#include "subsample_interpolation.hpp"
#include "trigger_clustering.hpp"

namespace astrosweep::spiir {
namespace {

// gstlal-spiir recomputes its sky maps every 1800 s; one map serves the candidates of each block.
constexpr double sky_map_seconds = 1800;

}  // namespace

void check_coherent_settings(const CoherentStageSettings& s) {
  AS_EXPECTS(s.sky_order >= 0 && s.sky_order <= 10, UsageError,
             "--sky-order must lie in 0 ... 10, not " + std::to_string(s.sky_order),
             "4 gives 3072 pixels, 5 (the default) 12288");
  AS_EXPECTS(s.n_slides >= 0, UsageError, "--n-slides must be >= 0");
  AS_EXPECTS(
      s.sky_stride >= 1 && s.sky_stride <= 12 * (1 << (2 * s.sky_order)), UsageError,
      "--sky-stride must lie in 1 ... the number of sky pixels (12 * 4^order), not " + std::to_string(s.sky_stride));
  AS_EXPECTS(std::isfinite(s.slide_seconds) && (s.slide_seconds > 0 || s.n_slides == 0), UsageError,
             "--slide-seconds must be positive");
  AS_EXPECTS(std::isfinite(s.cluster_window_seconds) && s.cluster_window_seconds >= 0, UsageError,
             "--cluster-window must be >= 0 seconds");
}

CoherentStagePlan plan_coherent_stage(const SpiirBank& bank, const CoherentStageInput& input,
                                      const CoherentStageSettings& settings) {
  const std::size_t n_det = input.ifos.size();
  const double fs = input.sample_rate;
  CoherentStagePlan plan;
  const auto slide = static_cast<std::int64_t>(std::llround(settings.slide_seconds * fs));
  plan.search = CoherentSettings{settings.n_slides, slide, settings.subsample, settings.sky_stride};
  // Sensitivities: each detector's mean √sigmasq over the bank (U depends only on their ratios).
  plan.sigma.assign(n_det, 0.0);
  for (std::size_t d = 0; d < n_det; ++d) {
    for (double s : bank.sigmasq.at(input.ifos[d])) plan.sigma[d] += std::sqrt(s);
    plan.sigma[d] /= static_cast<double>(bank.n_templates());
  }
  // The largest offset any map can have: the longest baseline, rounded up, plus one (plus the
  // interpolation's half-width with subsample reads).
  double baseline = 0;
  for (std::size_t a = 0; a < n_det; ++a)
    for (std::size_t b = 0; b < n_det; ++b) {
      double s = 0;
      for (int i = 0; i < 3; ++i)
        s += std::pow(detector(input.ifos[a]).vertex[i] - detector(input.ifos[b]).vertex[i], 2);
      baseline = std::max(baseline, std::sqrt(s) / speed_of_light);
    }
  const auto reach =
      static_cast<std::int64_t>(std::ceil(baseline * fs)) + 1 + (settings.subsample ? interpolation_half_width : 0);
  const auto k = static_cast<std::int64_t>(bank.autocorrelation_length / 2);
  plan.before = reach + settings.n_slides * slide + k;
  plan.after = reach + k;
  for (std::size_t d = 0; d < n_det; ++d)
    for (std::size_t i = 0; i < input.peak_samples[d].size(); ++i) {
      const std::int64_t n = input.peak_samples[d][i];
      if (n - plan.before < 0 || n + plan.after >= static_cast<std::int64_t>(input.n_samples)) {
        ++plan.dropped;
        continue;
      }
      plan.candidates.push_back({d, static_cast<std::size_t>(input.peak_templates[d][i]), n});
    }
  return plan;
}

CoherentSkyMaps::CoherentSkyMaps(const CoherentStageInput& input, const CoherentStageSettings& settings,
                                 const CoherentStagePlan& plan)
    : input_(input),
      order_(settings.sky_order),
      sigma_(plan.sigma),
      block_samples_(static_cast<std::int64_t>(sky_map_seconds * input.sample_rate)) {}

const SkyMap& CoherentSkyMaps::of_block(std::int64_t block) {
  if (const auto it = maps_.find(block); it != maps_.end()) return it->second;
  // At the middle of the strain the block covers.
  const double fs = input_.sample_rate;
  const double b0 = static_cast<double>(block * block_samples_) / fs;
  const double b1 =
      std::min(static_cast<double>((block + 1) * block_samples_), static_cast<double>(input_.n_samples)) / fs;
  const double start = static_cast<double>(input_.gps_start_s) + input_.gps_start_ns * 1e-9;
  return maps_.emplace(block, make_sky_map(order_, input_.ifos, sigma_, start + 0.5 * (b0 + b1), fs)).first->second;
}

std::vector<CoherentResult> search_candidates(const SpiirBank& bank, const CoherentStageInput& input,
                                              const CoherentStageSettings& settings, const CoherentStagePlan& plan,
                                              std::span<const std::size_t> members, const NetworkSnr& windows,
                                              CoherentSkyMaps& maps, std::size_t batch, bool stop_on_signal) {
  AS_ASSERT(batch >= 1);
  const std::size_t n_det = input.ifos.size();
  AS_ASSERT(windows.n_templates == members.size() && windows.n_samples == plan.window_length());
  if (members.empty()) return {};  // a rank without candidates
  // Autocorrelations as the windows' rows: row m is members[m]'s template.
  TemplateAutocorrelations ac;
  {
    const auto all = TemplateAutocorrelations::from_bank(bank, input.ifos, input.bank_path);
    ac.length = all.length;
    ac.n_templates = members.size();
    ac.per_ifo.assign(n_det, {});
    for (std::size_t d = 0; d < n_det; ++d)
      for (const std::size_t c : members) {
        const std::size_t j = plan.candidates[c].tmpl;
        ac.per_ifo[d].insert(ac.per_ifo[d].end(), all.of(d, j), all.of(d, j) + all.length);
      }
  }
  const auto trials = static_cast<std::size_t>(plan.trials());
  std::vector<CoherentResult> results(members.size() * trials);
  std::map<std::int64_t, std::vector<std::size_t>> blocks;  // block -> rows
  for (std::size_t m = 0; m < members.size(); ++m)
    blocks[maps.block_of(plan.candidates[members[m]].sample)].push_back(m);
  const std::unique_ptr<SkySearchEngine> engine = make_sky_search(settings.backend);  // null: the CPU's loop
  for (const auto& [block, rows] : blocks) {
    const SkyMap& map = maps.of_block(block);
    AS_ASSERT(read_margin(map, plan.search) + plan.search.n_slides * plan.search.slide_samples +
                  static_cast<std::int64_t>(ac.half_length()) <
              plan.before);
    for (std::size_t from = 0; from < rows.size(); from += batch) {
      if (stop_on_signal && interrupt::received() != 0) return results;
      const std::size_t to = std::min(rows.size(), from + batch);
      std::vector<Candidate> searched;
      for (std::size_t i = from; i < to; ++i)
        searched.push_back({plan.candidates[members[rows[i]]].ref_ifo, rows[i], plan.before});
      auto r =
          coherent_search(map, windows, ac, searched, plan.search, settings.precision, settings.threads, engine.get());
      for (std::size_t i = from; i < to; ++i)
        for (std::size_t t = 0; t < trials; ++t) results[rows[i] * trials + t] = std::move(r[(i - from) * trials + t]);
    }
  }
  return results;
}

CoherentStageSummary write_coherent_triggers(hid_t file, const SpiirBank& bank, const CoherentStageInput& input,
                                             const CoherentStageSettings& settings, const CoherentStagePlan& plan,
                                             const std::vector<CoherentResult>& results, CoherentSkyMaps& maps,
                                             const WindowsOf& windows_of) {
  const std::size_t n_det = input.ifos.size();
  const double fs = input.sample_rate;
  const auto& candidates = plan.candidates;
  const int trials = plan.trials();
  const std::int64_t slide = plan.search.slide_samples;
  AS_ASSERT(results.size() == candidates.size() * static_cast<std::size_t>(trials));
  CoherentStageSummary summary;
  summary.candidates = candidates.size();
  summary.dropped = plan.dropped;
  const std::vector<SkyDirection> pixels = sky_grid(settings.sky_order);

  // Clustering of the foreground by ρ_coh.
  std::vector<std::int64_t> times;
  std::vector<double> loudness;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    times.push_back(candidates[c].sample);
    loudness.push_back(results[c * static_cast<std::size_t>(trials)].coh_snr2);
  }
  const auto kept = cluster_triggers(times, loudness, std::llround(settings.cluster_window_seconds * fs));
  summary.triggers = kept.size();

  const std::int64_t start_ns = input.gps_start_s * 1000000000LL + input.gps_start_ns;
  auto end_time = [&](const Candidate& c) {
    const double seconds = static_cast<double>(c.sample) / fs + bank.templates[c.tmpl].end_offset;
    return start_ns + std::llround(seconds * 1e9);
  };
  const auto n_side = std::int64_t{1} << settings.sky_order;
  {
    h5::Id g = h5::create_group(file, "triggers");
    std::vector<std::int64_t> end_s, end_ns, tmpl, ref, pixel, nside;
    std::vector<double> coh, null, chisq, ra, dec;
    for (std::size_t c : kept) {
      const auto& r = results[c * static_cast<std::size_t>(trials)];
      const std::int64_t t = end_time(candidates[c]);
      end_s.push_back(t / 1000000000LL);
      end_ns.push_back(t % 1000000000LL);
      tmpl.push_back(static_cast<std::int64_t>(candidates[c].tmpl));
      ref.push_back(static_cast<std::int64_t>(candidates[c].ref_ifo));
      coh.push_back(std::sqrt(r.coh_snr2));
      null.push_back(std::sqrt(std::max(0.0, r.null_snr2)));
      chisq.push_back(r.network_chisq);
      pixel.push_back(r.pixel);
      nside.push_back(n_side);
      ra.push_back(pixels[static_cast<std::size_t>(r.pixel)].ra);
      dec.push_back(pixels[static_cast<std::size_t>(r.pixel)].dec);
    }
    h5::set_attribute(g.get(), "ifos", [&] {
      std::string s;
      for (const auto& i : input.ifos) s += (s.empty() ? "" : ",") + i;
      return s;
    }());
    h5::set_attribute(g.get(), "n_slides", static_cast<std::int64_t>(settings.n_slides));
    h5::set_attribute(g.get(), "slide_seconds", static_cast<double>(slide) / fs);
    h5::set_attribute(g.get(), "cluster_window_seconds", settings.cluster_window_seconds);
    h5::write_column(g.get(), "end_time_gps_s", end_s, "s",
                     "GPS seconds of the coalescence at the reference detector: peak sample time plus end_offset");
    h5::write_column(g.get(), "end_time_gps_ns", end_ns, "ns", "nanoseconds to add to end_time_gps_s");
    h5::write_column(g.get(), "template", tmpl, "", "row of the template in the bank's /templates");
    h5::write_column(g.get(), "ref_ifo", ref, "", "reference detector: index into the group's 'ifos' attribute");
    h5::write_column(g.get(), "coh_snr", coh, "", "coherent SNR rho_coh, maximised over the sky");
    h5::write_column(g.get(), "null_snr", null, "", "null SNR rho_null at the pixel of the largest rho_coh");
    h5::write_column(g.get(), "network_chisq", chisq, "", "sum over detectors of the autocorrelation chi^2");
    h5::write_column(g.get(), "pixel", pixel, "", "HEALPix NESTED pixel of the largest rho_coh");
    h5::write_column(g.get(), "n_side", nside, "", "HEALPix n_side of the sky grid");
    h5::write_column(g.get(), "ra", ra, "rad", "right ascension of the pixel's centre");
    h5::write_column(g.get(), "dec", dec, "rad", "declination of the pixel's centre");
    for (std::size_t d = 0; d < n_det; ++d) {
      h5::Id gd = h5::create_group(g.get(), input.ifos[d]);
      std::vector<double> snr_d, phase_d, chisq_d;
      std::vector<std::int64_t> offset_d;
      for (std::size_t c : kept) {
        const auto& r = results[c * static_cast<std::size_t>(trials)];
        snr_d.push_back(std::abs(r.snr[d]));
        phase_d.push_back(std::arg(r.snr[d]));
        chisq_d.push_back(r.chisq[d]);
        offset_d.push_back(r.offset[d]);
      }
      h5::write_column(gd.get(), "snr", snr_d, "", "|z| of this detector at the pixel's arrival-time offset");
      h5::write_column(gd.get(), "phase", phase_d, "rad", "arg z (the complex conjugate of the usual convention)");
      h5::write_column(gd.get(), "chisq", chisq_d, "", "autocorrelation chi^2 of this detector");
      h5::write_column(gd.get(), "time_offset_samples", offset_d, "",
                       "samples from the reference detector's peak to where this detector was read");
    }
  }
  if (settings.skymaps) {
    // Spec §10's /skymaps/<trigger>: the foreground's ρ_coh² at every pixel (the sky stride does
    // not thin it), named by the trigger's row in /triggers; ra and dec are the pixel axis' scales.
    h5::Id g = h5::create_group(file, "skymaps");
    h5::set_attribute(g.get(), "n_side", n_side);
    h5::set_attribute(g.get(), "ordering", std::string("NESTED"));
    h5::set_attribute(g.get(), "description",
                      std::string("rho_coh^2 per HEALPix pixel of each clustered trigger (dataset name: its row in "
                                  "/triggers), in the arithmetic of the search"));
    std::vector<double> ra, dec;
    for (const auto& p : pixels) {
      ra.push_back(p.ra);
      dec.push_back(p.dec);
    }
    h5::Id ra_ds = h5::described(h5::create_dataset(g.get(), "ra", h5::native_type<double>(), {ra.size()}), "rad",
                                 "right ascension of the pixel's centre (a dimension scale of the maps)");
    h5::write_rows(ra_ds.get(), h5::native_type<double>(), 0, ra.size(), ra.data());
    h5::Id dec_ds = h5::described(h5::create_dataset(g.get(), "dec", h5::native_type<double>(), {dec.size()}), "rad",
                                  "declination of the pixel's centre (a dimension scale of the maps)");
    h5::write_rows(dec_ds.get(), h5::native_type<double>(), 0, dec.size(), dec.data());
    h5::check(H5DSset_scale(ra_ds.get(), "ra"), "H5DSset_scale");
    h5::check(H5DSset_scale(dec_ds.get(), "dec"), "H5DSset_scale");
    const NetworkSnr snr = windows_of(kept);  // row r: trigger r's candidate
    for (std::size_t row = 0; row < kept.size(); ++row) {
      const std::size_t c = kept[row];
      const SkyMap& map = maps.of_block(maps.block_of(candidates[c].sample));
      const auto values =
          coherent_sky_map(map, snr, {candidates[c].ref_ifo, row, plan.before}, plan.search, 0, settings.precision);
      const std::vector<float> stored(values.begin(), values.end());
      h5::Id ds =
          h5::described(h5::create_dataset(g.get(), std::to_string(row), h5::native_type<float>(), {stored.size()}), "",
                        "rho_coh^2 at every HEALPix NESTED pixel for trigger " + std::to_string(row) + " of /triggers");
      h5::write_rows(ds.get(), h5::native_type<float>(), 0, stored.size(), stored.data());
      h5::set_attribute(ds.get(), "trigger", static_cast<std::int64_t>(row));
      h5::check(H5DSattach_scale(ds.get(), ra_ds.get(), 0), "H5DSattach_scale");
      h5::check(H5DSattach_scale(ds.get(), dec_ds.get(), 0), "H5DSattach_scale");
    }
  }
  {
    h5::Id g = h5::create_group(file, "background");
    std::vector<std::int64_t> cand, trial, pixel;
    std::vector<double> coh, null, chisq;
    std::vector<std::vector<double>> snr_d(n_det), chisq_d(n_det);
    for (std::size_t c = 0; c < candidates.size(); ++c)
      for (int t = 1; t < trials; ++t) {
        const auto& r = results[c * static_cast<std::size_t>(trials) + static_cast<std::size_t>(t)];
        cand.push_back(static_cast<std::int64_t>(c));
        trial.push_back(t);
        coh.push_back(std::sqrt(r.coh_snr2));
        null.push_back(std::sqrt(std::max(0.0, r.null_snr2)));
        chisq.push_back(r.network_chisq);
        pixel.push_back(r.pixel);
        for (std::size_t d = 0; d < n_det; ++d) {
          snr_d[d].push_back(std::abs(r.snr[d]));
          chisq_d[d].push_back(r.chisq[d]);
        }
      }
    h5::write_column(g.get(), "candidate", cand, "", "the candidate (a peak of any detector, before clustering)");
    h5::write_column(g.get(), "trial", trial, "",
                     "time slide k: detectors other than the reference read k * slide_seconds earlier");
    h5::write_column(g.get(), "coh_snr", coh, "", "coherent SNR rho_coh of this trial, maximised over the sky");
    h5::write_column(g.get(), "null_snr", null, "", "null SNR rho_null at that pixel");
    h5::write_column(g.get(), "network_chisq", chisq, "", "sum over detectors of the autocorrelation chi^2");
    h5::write_column(g.get(), "pixel", pixel, "", "HEALPix NESTED pixel of the largest rho_coh");
    for (std::size_t d = 0; d < n_det; ++d) {
      h5::Id gd = h5::create_group(g.get(), input.ifos[d]);
      h5::write_column(gd.get(), "snr", snr_d[d], "", "|z| of this detector at the pixel's offset and the slide");
      h5::write_column(gd.get(), "chisq", chisq_d[d], "", "autocorrelation chi^2 of this detector");
    }
    // The candidates the trials belong to.
    std::vector<std::int64_t> c_end_s, c_end_ns, c_tmpl, c_ref;
    for (const auto& c : candidates) {
      const std::int64_t t = end_time(c);
      c_end_s.push_back(t / 1000000000LL);
      c_end_ns.push_back(t % 1000000000LL);
      c_tmpl.push_back(static_cast<std::int64_t>(c.tmpl));
      c_ref.push_back(static_cast<std::int64_t>(c.ref_ifo));
    }
    h5::Id gc = h5::create_group(g.get(), "candidates");
    h5::write_column(gc.get(), "end_time_gps_s", c_end_s, "s", "GPS seconds of the candidate's coalescence");
    h5::write_column(gc.get(), "end_time_gps_ns", c_end_ns, "ns", "nanoseconds to add to end_time_gps_s");
    h5::write_column(gc.get(), "template", c_tmpl, "", "row of the template in the bank's /templates");
    h5::write_column(gc.get(), "ref_ifo", c_ref, "", "reference detector: index into /triggers' 'ifos' attribute");
  }
  return summary;
}

}  // namespace astrosweep::spiir
