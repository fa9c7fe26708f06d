#include "core/command_line.hpp"

#include "core/text.hpp"

namespace astrosweep {

namespace po = boost::program_options;

std::string option_error_text(const po::error& e, const po::options_description& description) {
  const auto* unknown = dynamic_cast<const po::unknown_option*>(&e);
  if (unknown == nullptr) return e.what();
  // Boost names it as typed, with its dashes ("--n-freqs"; "-x" for a short one); a value given
  // with '=' is not part of the name.
  std::string name = unknown->get_option_name();
  name = name.substr(0, name.find('='));
  std::vector<std::string> known;
  for (const auto& option : description.options())
    if (!option->long_name().empty()) known.push_back("--" + option->long_name());
  const bool is_long = name.size() > 2 && name.starts_with("--");
  return "unknown option '" + name + "'" + (is_long ? did_you_mean(name, known) : std::string{});
}

}  // namespace astrosweep
