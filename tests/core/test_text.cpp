// The nearest-name helper behind every "did you mean": the edit distance counts insertions,
// deletions, substitutions and neighbour swaps, ignores case, and a suggestion is made only when
// the misspelling is near enough for it to be a typo.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/text.hpp"

namespace astrosweep {
namespace {

TEST(EditDistance, CountsEachKindOfEditOnce) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("threshold", "threshold"), 0u);
  EXPECT_EQ(edit_distance("threshhold", "threshold"), 1u);  // insertion
  EXPECT_EQ(edit_distance("thresold", "threshold"), 1u);    // deletion
  EXPECT_EQ(edit_distance("threshoId", "threshold"), 1u);   // substitution
  EXPECT_EQ(edit_distance("thresohld", "threshold"), 1u);   // neighbours swapped
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(EditDistance, IgnoresCaseAndIsSymmetric) {
  EXPECT_EQ(edit_distance("scfind.KernelsXY", "scfind.kernelsxy"), 0u);
  EXPECT_EQ(edit_distance("n-freqs", "n-freq"), edit_distance("n-freq", "n-freqs"));
  EXPECT_EQ(edit_distance("ab", "ba"), 1u);
  EXPECT_EQ(edit_distance("ba", "ab"), 1u);
}

TEST(NearestName, FindsTheTypo) {
  const std::vector<std::string> keys{"scfind.kernelsXY", "scfind.kernelsZ", "scfind.threshold", "scfind.replacement",
                                      "threshold.threshold"};
  EXPECT_EQ(nearest_name("scfind.threshhold", keys), "scfind.threshold");
  EXPECT_EQ(nearest_name("scfind.kernelsZZ", keys), "scfind.kernelsZ");
  EXPECT_EQ(nearest_name("scfind.Threshold", keys), "scfind.threshold");  // case only
  EXPECT_EQ(nearest_name("n-freqs", {"n-freq", "fmin", "fmax"}), "n-freq");
  EXPECT_EQ(nearest_name("fmx", {"n-freq", "fmin", "fmax"}), "fmax");
  EXPECT_EQ(nearest_name("ab", {"ax", "ay"}), "ax");  // equally near: the first
}

TEST(NearestName, SuggestsNothingFarAwayOrFromNothing) {
  EXPECT_FALSE(nearest_name("linker.radiusSpatial", {"linker.radiusXY", "linker.radiusZ"}));
  EXPECT_FALSE(nearest_name("frequency-max", {"fmin", "fmax", "n-freq"}));
  EXPECT_FALSE(nearest_name("xyz", {"abc"}));  // 3 characters: one edit at most
  EXPECT_FALSE(nearest_name("anything", {}));
  EXPECT_EQ(nearest_name("", {"abc", "a"}), "a");  // an empty name is near only a 1-letter one
}

TEST(NearestName, AllowsMoreEditsInLongerNames) {
  EXPECT_EQ(nearest_name("abxd", {"abcd"}), "abcd");                                    // 4 characters: 1 edit
  EXPECT_FALSE(nearest_name("axyd", {"abcd"}));                                         // ... not 2
  EXPECT_EQ(nearest_name("abcxyfgh", {"abcdefgh"}), "abcdefgh");                        // 8 characters: 2 edits
  EXPECT_FALSE(nearest_name("abxyzfgh", {"abcdefgh"}));                                 // ... not 3
  EXPECT_EQ(nearest_name("scfind.thrshld", {"scfind.threshold"}), "scfind.threshold");  // longer: 3
  EXPECT_FALSE(nearest_name("scfind.thld", {"scfind.threshold"}));                      // ... not 5
}

TEST(DidYouMean, IsTheSuggestionOrNothing) {
  EXPECT_EQ(did_you_mean("--n-freqs", {"--n-freq", "--fmin"}), " (did you mean '--n-freq'?)");
  EXPECT_EQ(did_you_mean("--frequency-max", {"--n-freq", "--fmin"}), "");
}

}  // namespace
}  // namespace astrosweep
