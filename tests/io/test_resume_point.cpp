// --resume's refusals name what changed: an input rewritten or touched since the interrupted run
// is named, with its size and modification time before and now, one line per changed file
// (io::with_input_files, io::find_resume_point).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "io/resume_point.hpp"
#include "test_data.hpp"

namespace astrosweep::io {
namespace {

namespace fs = std::filesystem;

class ResumePointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::scratch_directory("resume");
    product_ = (dir_ / "product.h5").string();
    a_ = (dir_ / "a.csv").string();
    b_ = (dir_ / "b.csv").string();
    std::ofstream(a_) << "1,2,3\n";
    std::ofstream(b_) << "4,5,6\n";
    std::ofstream(product_) << "an incomplete product";  // inspect() below says what it holds
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// An interrupted run on `inputs`: its journal (one finished unit) and the product's fingerprint.
  void interrupted_run(const std::string& inputs) {
    Journal journal = Journal::create(journal_path(product_), with_input_files(product_fp_, inputs));
    journal.append({0, 4});
  }
  /// --resume now, on `inputs`: the UsageError's message, or "" when it resumes.
  std::string resume_message(const std::string& inputs) {
    auto inspect = [&](const std::string&) { return std::optional<ExistingProduct>({product_fp_, false}); };
    try {
      const ResumePoint p = find_resume_point(product_, "period", "finished unit", inspect, product_fp_,
                                              with_input_files(product_fp_, inputs));
      EXPECT_EQ(p.start, ResumePoint::Start::resume);
      return {};
    } catch (const UsageError& e) {
      return e.what();
    }
  }

  fs::path dir_;
  std::string product_, a_, b_;
  const Fingerprint product_fp_{{"format", "astrosweep.period"}, {"grid_n", "1000"}};
};

TEST_F(ResumePointTest, TheSameInputsResume) {
  interrupted_run(a_ + "\n" + b_ + "\n" + a_);  // a file named twice counts once
  EXPECT_EQ(resume_message(a_ + "\n" + b_), "");
}

TEST_F(ResumePointTest, ARewrittenInputIsNamedWithItsSizeAndTimeBeforeAndNow) {
  interrupted_run(a_ + "\n" + b_);
  const auto before = fs::last_write_time(b_);
  std::ofstream(b_) << "4,5,6\n7,8,9\n";  // 6 bytes -> 12
  fs::last_write_time(b_, before + std::chrono::seconds(90));
  const std::string message = resume_message(a_ + "\n" + b_);
  EXPECT_NE(message.find("the journal '" + product_ + ".journal' was written for other input:\n    input '" + b_ +
                         "' changed: 6 bytes before, 12 now; modified "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(" UTC before, "), std::string::npos) << message;
  EXPECT_EQ(message.find(a_), std::string::npos) << message;  // the unchanged file is not named
  EXPECT_EQ(message.find('\n', message.find("input '")), std::string::npos) << message;  // one line
}

TEST_F(ResumePointTest, ATouchedInputIsNamedOnePerLine) {
  interrupted_run(a_ + "\n" + b_);
  for (const auto& path : {a_, b_}) fs::last_write_time(path, fs::last_write_time(path) + std::chrono::seconds(5));
  const std::string message = resume_message(a_ + "\n" + b_);
  const auto first = message.find("\n    input '" + a_ + "' changed: modified ");
  const auto second = message.find("\n    input '" + b_ + "' changed: modified ");
  EXPECT_NE(first, std::string::npos) << message;
  EXPECT_NE(second, std::string::npos) << message;
  EXPECT_EQ(message.find("bytes"), std::string::npos) << message;  // the sizes are the same
}

}  // namespace
}  // namespace astrosweep::io
