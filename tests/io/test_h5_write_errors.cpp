// A write that fails in the middle of a run (a disk that fills up after the output was created) is
// an OutputError naming the file and the dataset, with the system's reason. The file-size limit
// (RLIMIT_FSIZE, lowered for the write alone) makes it fail deterministically.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/h5.hpp"
#include "test_data.hpp"

namespace astrosweep::h5 {
namespace {

TEST(H5WriteErrors, AWriteBeyondTheFileSizeLimitNamesTheFileAndDataset) {
  std::signal(SIGXFSZ, SIG_IGN);  // as astrosweep's main does
  test::TempDir dir;
  const auto path = dir.path("product.h5");
  Id file = open_file(path, Access::create_truncate);
  Id rows = create_dataset(file.get(), "rows", H5T_NATIVE_DOUBLE, {1u << 17});  // 1 MiB, allocated now
  flush(file.get());
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit low = old;
  low.rlim_cur = 64 * 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &low), 0);
  const std::vector<double> values(1u << 17, 1.0);
  try {
    write_rows<double>(rows.get(), 0, values);
    ADD_FAILURE() << "a write beyond the file-size limit succeeded";
  } catch (const OutputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path + ":/rows"), std::string::npos) << what;
    EXPECT_NE(what.find("File too large"), std::string::npos) << what;
    EXPECT_NE(e.hint().find("free space"), std::string::npos) << e.hint();
  }
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
}

}  // namespace
}  // namespace astrosweep::h5
