#pragma once
// Parameter files of command-line options (period --config): "name = value" lines with the long
// option names, '#' comments. Every mistake names FILE:LINE; a misspelt name gets the nearest
// option's.

#include <boost/program_options.hpp>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace astrosweep {

/// Opens a parameter file of `name = value` lines for reading: an InputError naming it when it is a
/// directory (`expected`: what should be there) or cannot be read (`hint`: what to check).
std::ifstream open_parameter_file(const std::string& path, const std::string& expected, const std::string& hint);

/// Stores the values of the parameter file `path` in `vm`, except those the command line already
/// gave (it wins). Names are the long names of `description`'s options other than `excluded`.
/// Returns "FILE:LINE" of each value stored, for messages about it (option_file_location).
/// Throws InputError (unreadable file, a line not "name = value") or UsageError (an unknown name,
/// with the nearest known one; a name given twice; a value the option refuses).
std::map<std::string, std::string> store_option_file(const std::string& path,
                                                     const boost::program_options::options_description& description,
                                                     boost::program_options::variables_map& vm,
                                                     const std::vector<std::string>& excluded = {"config", "help"});

/// "FILE:LINE" of the first option in `where` that `message` names as --NAME; "" if none.
std::string option_file_location(const std::string& message, const std::map<std::string, std::string>& where);

}  // namespace astrosweep
