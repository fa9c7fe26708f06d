// The SIGPROC time-series reader: round trips of 32-, 16- and 8-bit samples, every keyword of the
// table, and damaged headers and data (each an InputError naming the file, never a crash).
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/binary_file.hpp"
#include "io/sigproc_tim.hpp"
#include "io/time_series_fixtures.hpp"
#include "test_data.hpp"

namespace astrosweep::io {
namespace {

using test::TimHeader;
using test::TimSpec;

// The message of the InputError `read` throws ("" when it throws none).
template <class Read>
std::string input_error(Read&& read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::vector<float> ramp(std::size_t n, float first, float step) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = first + step * static_cast<float>(i);
  return v;
}

TEST(SigprocTim, Float32RoundTripWithTheHeaderValues) {
  test::TempDir dir;
  const auto path = dir.path("a.tim");
  const auto samples = test::noise_series(1000, 1, 3.5f);
  test::write_file(path, test::tim_file({}, samples));
  const auto tim = read_sigproc_tim(path);
  EXPECT_EQ(tim.samples, samples);
  EXPECT_EQ(tim.info.nbits, 32);
  EXPECT_EQ(tim.info.n_samples, 1000u);
  EXPECT_DOUBLE_EQ(tim.info.tsamp, 64e-6);
  EXPECT_DOUBLE_EQ(tim.info.tstart_mjd, 60123.456789);
  EXPECT_DOUBLE_EQ(tim.info.dm, 12.5);
  EXPECT_TRUE(tim.info.has_dm);
  EXPECT_EQ(tim.info.source_name, "J1234+5678");
  EXPECT_EQ(tim.info.data_offset, test::tim_header({}).size());
  // The other values are kept for provenance.
  EXPECT_EQ(tim.header.int_value("telescope_id"), 6);
  EXPECT_EQ(tim.header.int_value("machine_id"), 10);
  EXPECT_EQ(tim.header.double_value("fch1"), 1500.0);
  EXPECT_EQ(tim.header.double_value("src_raj"), 123456.78);
  EXPECT_EQ(tim.header.int_value("barycentric"), 0);
  EXPECT_FALSE(tim.header.int_value("nsamples").has_value());
}

TEST(SigprocTim, IntegerSamplesBecomeFloats) {
  test::TempDir dir;
  // 16 bits are signed, 8 bits unsigned: the extremes of each.
  const std::vector<float> s16{-32768, -1, 0, 1, 32767, 1234};
  const std::vector<float> s8{0, 1, 127, 128, 255, 42};
  TimSpec spec;
  spec.nbits = 16;
  test::write_file(dir.path("s16.tim"), test::tim_file(spec, s16));
  spec.nbits = 8;
  test::write_file(dir.path("s8.tim"), test::tim_file(spec, s8));
  const auto a = read_sigproc_tim(dir.path("s16.tim"));
  const auto b = read_sigproc_tim(dir.path("s8.tim"));
  EXPECT_EQ(a.samples, s16);
  EXPECT_EQ(a.info.nbits, 16);
  EXPECT_EQ(b.samples, s8);
  EXPECT_EQ(b.info.nbits, 8);
}

TEST(SigprocTim, NsamplesFromTheHeaderOrTheFileSize) {
  test::TempDir dir;
  const auto samples = ramp(33, -1, 0.25f);
  TimSpec spec;
  spec.nsamples = 33;
  test::write_file(dir.path("with.tim"), test::tim_file(spec, samples));
  EXPECT_EQ(read_sigproc_tim(dir.path("with.tim")).samples, samples);
  spec.nsamples = 0;  // a placeholder some writers leave: the file size counts
  test::write_file(dir.path("zero.tim"), test::tim_file(spec, samples));
  EXPECT_EQ(read_sigproc_tim(dir.path("zero.tim")).info.n_samples, 33u);
  // One sample: the smallest series.
  test::write_file(dir.path("one.tim"), test::tim_file({}, {7.0f}));
  EXPECT_EQ(read_sigproc_tim(dir.path("one.tim")).samples, std::vector<float>{7.0f});
}

TEST(SigprocTim, EveryKeywordOfTheTableIsRead) {
  TimHeader h;
  h.start().text("source_name", "B1937+21").text("rawdatafile", "/data/raw/obs.fil");
  std::int32_t i = 1;
  for (const char* k : {"telescope_id", "machine_id", "barycentric", "pulsarcentric", "nbeams", "ibeam"})
    h.int32(k, i++);
  h.int32("data_type", 2).int32("nbits", 32).int32("nsamples", 0).int32("nchans", 1).int32("nifs", 1);
  double d = 0.5;
  for (const char* k : {"fch1", "foff", "refdm", "period", "refrf", "az_start", "za_start", "src_raj", "src_dej"})
    h.float64(k, d += 1);
  h.float64("tstart", 58000.25).float64("tsamp", 1e-3).end();
  const auto& bytes = h.bytes();
  const auto header = parse_sigproc_header(std::as_bytes(std::span(bytes.data(), bytes.size())), "k.tim", true);
  EXPECT_EQ(header.size, bytes.size());
  EXPECT_EQ(header.string_value("source_name"), "B1937+21");
  EXPECT_EQ(header.string_value("rawdatafile"), "/data/raw/obs.fil");
  EXPECT_EQ(header.ints.size(), 11u);
  EXPECT_EQ(header.doubles.size(), 11u);
  EXPECT_EQ(header.int_value("ibeam"), 6);
  EXPECT_EQ(header.double_value("src_dej"), 9.5);
  EXPECT_EQ(header.double_value("refdm"), 3.5);
  for (const auto& [k, v] : header.ints) EXPECT_EQ(sigproc_keyword_type(k), SigprocValueType::int32) << k;
  for (const auto& [k, v] : header.doubles) EXPECT_EQ(sigproc_keyword_type(k), SigprocValueType::float64) << k;
  EXPECT_FALSE(sigproc_keyword_type("signed").has_value());
}

TEST(SigprocTim, WithoutRefdmTheDmIsZero) {
  test::TempDir dir;
  TimHeader h;
  h.start().float64("tsamp", 1e-3).float64("tstart", 59000).int32("nbits", 32).end();
  test::write_file(dir.path("a.tim"), h.bytes() + test::tim_samples({1, 2, 3}, 32));
  const auto tim = read_sigproc_tim(dir.path("a.tim"));
  EXPECT_EQ(tim.info.dm, 0);
  EXPECT_FALSE(tim.info.has_dm);
  EXPECT_EQ(tim.info.source_name, "");
  EXPECT_EQ(tim.samples.size(), 3u);
}

TEST(SigprocTim, UnknownKeywordIsNamedWithTheFile) {
  test::TempDir dir;
  TimHeader h;
  h.start().float64("tsamp", 1e-3).int32("signed", 1).end();
  test::write_file(dir.path("u.tim"), h.bytes() + test::tim_samples({1, 2}, 32));
  const auto what = input_error([&] { read_sigproc_tim(dir.path("u.tim")); });
  EXPECT_NE(what.find("u.tim"), std::string::npos) << what;
  EXPECT_NE(what.find("unknown SIGPROC header keyword 'signed'"), std::string::npos) << what;
}

TEST(SigprocTim, EveryCutOfTheHeaderIsAnInputError) {
  test::TempDir dir;
  const auto header = test::tim_header({});
  const auto path = dir.path("cut.tim");
  for (std::size_t n = 0; n < header.size(); ++n) {
    test::write_file(path, header.substr(0, n));
    const auto what = input_error([&] { read_sigproc_tim(path); });
    EXPECT_NE(what.find("cut.tim"), std::string::npos) << "cut at " << n << ": " << what;
    if (n >= 16) {
      EXPECT_NE(what.find("cut short"), std::string::npos) << "cut at " << n << ": " << what;
    }
  }
  // The header whole, no samples.
  test::write_file(path, header);
  EXPECT_NE(input_error([&] { read_sigproc_tim(path); }).find("no samples"), std::string::npos);
}

TEST(SigprocTim, DamagedHeadersAreClearErrors) {
  test::TempDir dir;
  const auto path = dir.path("d.tim");
  auto error_of = [&](const std::string& bytes) {
    test::write_file(path, bytes + test::tim_samples({1, 2, 3, 4}, 32));
    return input_error([&] { read_sigproc_tim(path); });
  };
  // Not SIGPROC at all.
  EXPECT_NE(error_of("SIMPLE  =                    T").find("does not start with the string HEADER_START"),
            std::string::npos);
  // An absurd string length, a negative one: no allocation from them.
  EXPECT_NE(error_of(TimHeader().start().raw("\xff\xff\xff\x7f").bytes()).find("length of 2147483647 bytes"),
            std::string::npos);
  EXPECT_NE(error_of(TimHeader().start().raw("\xfe\xff\xff\xff").bytes()).find("length of -2"), std::string::npos);
  EXPECT_NE(error_of(TimHeader().start().raw(std::string("\0\0\0\0", 4)).bytes()).find("length of 0"),
            std::string::npos);
  // A keyword with damaged bytes.
  EXPECT_NE(error_of(TimHeader().start().string("ts\x01mp").bytes()).find("not printable"), std::string::npos);
  // No HEADER_END: the data read as keywords (a length from float bytes) or cut short.
  const auto no_end = error_of(TimHeader().start().float64("tsamp", 1e-3).bytes());
  EXPECT_NE(no_end.find("d.tim"), std::string::npos) << no_end;
}

TEST(SigprocTim, NotATimeSeries) {
  test::TempDir dir;
  const auto path = dir.path("f.tim");
  auto error_of = [&](const TimSpec& spec) {
    test::write_file(path, test::tim_file(spec, {1, 2, 3, 4}));
    return input_error([&] { read_sigproc_tim(path); });
  };
  TimSpec filterbank;
  filterbank.nchans = 64;
  EXPECT_NE(error_of(filterbank).find("nchans = 64: a filterbank"), std::string::npos);
  TimSpec data_type;
  data_type.data_type = 1;
  EXPECT_NE(error_of(data_type).find("data_type = 1 (filterbank)"), std::string::npos);
  TimSpec nbits;
  nbits.nbits = 4;
  EXPECT_NE(error_of(nbits).find("nbits = 4 is not supported"), std::string::npos);
  TimSpec tsamp;
  tsamp.tsamp = 0;
  EXPECT_NE(error_of(tsamp).find("tsamp = 0"), std::string::npos);
  tsamp.tsamp = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(error_of(tsamp).find("positive number"), std::string::npos);
}

TEST(SigprocTim, TruncatedDataNamesExpectedAndFoundBytes) {
  test::TempDir dir;
  const auto path = dir.path("t.tim");
  TimSpec spec;
  spec.nsamples = 100;
  test::write_file(path, test::tim_file(spec, ramp(60, 0, 1)));
  auto what = input_error([&] { read_sigproc_tim(path); });
  EXPECT_NE(
      what.find("t.tim': truncated: nsamples = 100 samples of 4 bytes need 400 bytes after the header, found 240"),
      std::string::npos)
      << what;
  // More bytes than nsamples says.
  spec.nsamples = 10;
  test::write_file(path, test::tim_file(spec, ramp(12, 0, 1)));
  what = input_error([&] { read_sigproc_tim(path); });
  EXPECT_NE(what.find("holds 48 bytes, more than nsamples = 10"), std::string::npos) << what;
  // Without nsamples: a partial last sample.
  test::write_file(path, test::tim_file({}, ramp(5, 0, 1)).substr(0, test::tim_header({}).size() + 18));
  what = input_error([&] { read_sigproc_tim(path); });
  EXPECT_NE(what.find("truncated: the data section of 18 bytes is not a whole number of 4-byte samples"),
            std::string::npos)
      << what;
  // A huge nsamples is compared with the file, never allocated.
  spec.nsamples = std::numeric_limits<std::int32_t>::max();
  test::write_file(path, test::tim_file(spec, ramp(3, 0, 1)));
  EXPECT_NE(input_error([&] { read_sigproc_tim(path); }).find("truncated"), std::string::npos);
}

TEST(SigprocTim, MissingEmptyAndDirectory) {
  test::TempDir dir;
  EXPECT_NE(input_error([&] { read_sigproc_tim(dir.path("none.tim")); }).find("does not exist"), std::string::npos);
  test::write_file(dir.path("empty.tim"), "");
  EXPECT_NE(input_error([&] { read_sigproc_tim(dir.path("empty.tim")); }).find("is empty"), std::string::npos);
  EXPECT_NE(input_error([&] { read_sigproc_tim(dir.path("")); }).find("is a directory"), std::string::npos);
}

TEST(SigprocTim, FileRangesAreReadStraightIntoTheCallersMemory) {
  // read_file_into, which float samples are read with: bytes from an offset into a span, the
  // whole file, nothing, and a range past the end (named with expected and found bytes).
  test::TempDir dir;
  const auto path = dir.path("bytes.bin");
  std::string text(3 * 4096 + 5, '\0');
  for (std::size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>(i * 7 % 251);
  test::write_file(path, text);
  std::vector<std::byte> out(5000);
  read_file_into(path, 100, out);
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(std::to_integer<char>(out[i]), text[100 + i]) << "byte " << i;
  EXPECT_EQ(read_file_range(path, 0, text.size()).size(), text.size());
  EXPECT_NO_THROW(read_file_into(path, text.size(), {}));
  std::vector<std::byte> beyond(10);
  const auto what = input_error([&] { read_file_into(path, text.size() - 4, beyond); });
  EXPECT_NE(what.find("expected 10 bytes from byte " + std::to_string(text.size() - 4) + ", found 4"),
            std::string::npos)
      << what;
  EXPECT_NE(input_error([&] { read_file_into(dir.path("none.bin"), 0, beyond); }).find("cannot read input file"),
            std::string::npos);
}

}  // namespace
}  // namespace astrosweep::io
