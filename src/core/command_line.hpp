#pragma once
// The option parsing every job command shares: all ranks parse the same arguments, so a mistake
// is the same everywhere and ends every rank with one message (a SharedError), and --help prints
// once.

#include <mpi.h>

#include <boost/program_options.hpp>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/mpi.hpp"

namespace astrosweep {

/// What to tell the user about a Boost.Program_options error: for an option `description` does not
/// have, "unknown option '--n-freqs' (did you mean '--n-freq'?)"; otherwise Boost's message.
std::string option_error_text(const boost::program_options::error& e,
                              const boost::program_options::options_description& description);

/// Parses `args` against `description` and turns the result into the command's options with
/// `to_options`; `before_notify` may add more values (a parameter file) after the command line,
/// whose values win. Returns nullopt when --help was asked for (printed on rank 0).
template <class Options>
std::optional<Options> parse_command_line(
    const std::vector<std::string>& args, const boost::program_options::options_description& description,
    const std::string& command, MPI_Comm comm,
    const std::function<Options(const boost::program_options::variables_map&)>& to_options,
    const std::function<void(boost::program_options::variables_map&)>& before_notify = {}) {
  namespace po = boost::program_options;
  po::variables_map vm;
  try {
    try {
      po::store(po::command_line_parser(args).options(description).run(), vm);
      if (before_notify) before_notify(vm);
      po::notify(vm);
    } catch (const po::error& e) {
      throw UsageError(command + ": " + option_error_text(e, description), "see astrosweep " + command + " --help");
    }
    if (vm.count("help")) {
      int rank = 0;
      MPI_Comm_rank(comm, &rank);
      if (rank == 0) std::cout << description << "\n";
      return std::nullopt;
    }
    return to_options(vm);
  } catch (const Error& e) {
    throw mpi::SharedError(e.code(), e.what(), e.hint());
  }
}

/// "astrosweep COMMAND ARGS...", for the product's provenance.
inline std::string command_line_text(const std::string& command, const std::vector<std::string>& args) {
  std::string text = "astrosweep " + command;
  for (const auto& a : args) text += " " + a;
  return text;
}

}  // namespace astrosweep
