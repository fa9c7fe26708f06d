#include "core/option_file.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/text.hpp"

namespace astrosweep {

namespace po = boost::program_options;

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// A line as it may be shown in a one-line message: damaged bytes as '?', at most 60 characters.
std::string shown(const std::string& text) {
  std::string out = text.substr(0, 60);
  for (char& c : out)
    if (c < 32 || c > 126) c = '?';
  return text.size() > 60 ? out + "..." : out;
}

}  // namespace

std::ifstream open_parameter_file(const std::string& path, const std::string& expected, const std::string& hint) {
  AS_EXPECTS(!std::filesystem::is_directory(path), InputError, "parameter file '" + path + "' is a directory",
             "pass " + expected);
  errno = 0;
  std::ifstream in(path);
  AS_EXPECTS(in.good(), InputError,
             "cannot read parameter file '" + path + "'" + (errno != 0 ? std::string(": ") + std::strerror(errno) : ""),
             hint);
  return in;
}

std::map<std::string, std::string> store_option_file(const std::string& path,
                                                     const po::options_description& description, po::variables_map& vm,
                                                     const std::vector<std::string>& excluded) {
  std::ifstream in = open_parameter_file(path, "a file of 'name = value' lines", "check the path given to --config");
  std::vector<std::string> names;
  for (const auto& option : description.options())
    if (!option->long_name().empty() &&
        std::find(excluded.begin(), excluded.end(), option->long_name()) == excluded.end())
      names.push_back(option->long_name());

  std::map<std::string, int> line_of;  // each name given so far, on which line
  std::map<std::string, std::string> where;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string at = path + ":" + std::to_string(number);
    const std::string text = trim(line.substr(0, line.find('#')));
    if (text.empty()) continue;
    const auto eq = text.find('=');
    AS_EXPECTS(eq != std::string::npos && eq > 0, InputError,
               at + ": expected 'name = value', found '" + shown(text) + "'",
               "one option per line, named as on the command line without '--' (e.g. fmin = 0.5); '#' starts a "
               "comment");
    const std::string name = trim(text.substr(0, eq));
    const std::string value = trim(text.substr(eq + 1));
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      const bool excluded_name = std::find(excluded.begin(), excluded.end(), name) != excluded.end();
      throw UsageError(at + ": " +
                           (excluded_name ? "'" + name + "' cannot be set in a parameter file"
                                          : "unknown option '" + shown(name) + "'" + did_you_mean(name, names)),
                       "a parameter file takes the long option names of --help, without '--'");
    }
    const auto [first, fresh] = line_of.emplace(name, number);
    AS_EXPECTS(fresh, UsageError,
               at + ": '" + name + "' is given twice (first on line " + std::to_string(first->second) + ")",
               "keep one of the two");
    if (vm.count(name) && !vm[name].defaulted()) continue;  // the command line's value wins
    po::parsed_options parsed(&description);
    parsed.options.emplace_back(name, std::vector<std::string>{value});
    parsed.options.back().original_tokens = {name, value};
    try {
      po::store(parsed, vm);
    } catch (const po::error& e) {
      throw UsageError(at + ": " + e.what(), "see the option in --help");
    }
    where[name] = at;
  }
  AS_EXPECTS(in.eof(), InputError, "error while reading parameter file '" + path + "'");
  return where;
}

std::string option_file_location(const std::string& message, const std::map<std::string, std::string>& where) {
  const auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; };
  for (const auto& [name, at] : where) {
    const std::string option = "--" + name;
    for (auto pos = message.find(option); pos != std::string::npos; pos = message.find(option, pos + 1)) {
      const auto end = pos + option.size();
      if (end == message.size() || !name_char(message[end])) return at;
    }
  }
  return {};
}

}  // namespace astrosweep
