#include "cli/trial_options.hpp"

#include <cstdint>
#include <iostream>
#include <limits>

#include "cli/renamed_options.hpp"
#include "core/errors.hpp"
#include "models/shared/model_kind.hpp"
#include "study/grid_spec.hpp"

namespace wordsens::cli {

namespace po = boost::program_options;

void add_trial_options(po::options_description& options, TrialOptions& t,
                       const std::string& positions_help, bool ws_options) {
  std::string models;
  for (const auto& name : known_models()) models += (models.empty() ? "" : "|") + name;
  options.add_options()                                                              //
      ("model", po::value(&t.model), ("feature map (required): " + models).c_str())  //
      ("n", po::value(&t.n), "words per text (required, >= 1)")                      //
      ("d", po::value(&t.d), "embedding dimension (required, >= 1)")                 //
      ("k", po::value(&t.k_text)->default_value(t.k_text),
       "width of rf/drf: an integer or a multiple of D = n*d such as 1.0D or 0.5D")       //
      ("layers", po::value(&t.layers)->default_value(t.layers), "depth L of drf (>= 1)")  //
      ("activation", po::value(&t.activation)->default_value(t.activation),
       "activation of rf/drf: relu|tanh")  //
      ("rf-sampling", po::value(&t.rf_sampling)->default_value(t.rf_sampling),
       "rf weights: full (all of V) | marginal (only the blocks of the examined positions plus "
       "an exact Gaussian residual per text: same law, O(k*d*|P|) normals instead of O(k*n*d); "
       "S_upper then bounds the examined positions only)")                                        //
      ("trials", po::value(&t.trials)->default_value(t.trials), "number of trials (>= 1)")        //
      ("seed", po::value(&t.seed)->default_value(t.seed), "master seed (0 .. 2^32-1)")            //
      ("positions", po::value(&t.positions)->default_value(t.positions), positions_help.c_str())  //
      ("format", po::value(&t.format)->default_value(t.format),
       "output: text (one readable line per trial) | csv");
  add_search_options(options, t.search, ws_options);
}

StudyConfig checked_search_settings(const TrialOptions& t) {
  StudyConfig study;
  study.search.positions = PositionSet::parse(t.positions);
  apply_search_options(t.search, study);
  return study;
}

bool parse_command_line(int argc, char** argv, const po::options_description& options,
                        po::variables_map& vm) {
  reject_renamed_options(argc, argv);
  po::store(po::command_line_parser(argc, argv).options(options).run(), vm);
  if (vm.count("help") != 0) {
    std::cout << options << "\n";
    return false;
  }
  po::notify(vm);
  return true;
}

ModelSpec checked_model_spec(const po::variables_map& vm, const TrialOptions& t) {
  for (const char* name : {"model", "n", "d"}) {
    require_input(vm.count(name) > 0, std::string("missing required option --") + name);
  }
  require_input(t.n >= 1 && t.d >= 1, "--n and --d must be at least 1");
  require_input(t.n * t.d <= std::numeric_limits<std::int32_t>::max(), "n*d is too large");
  require_input(t.trials >= 1 && t.trials <= std::numeric_limits<std::uint32_t>::max(),
                "--trials must be in 1 .. 2^32-1");
  require_input(t.seed >= 0 && t.seed <= std::numeric_limits<std::uint32_t>::max(),
                "--seed must be in 0 .. 2^32-1");
  require_input(t.layers >= 1 && t.layers <= 1000, "--layers must be in 1 .. 1000");
  require_input(t.format == "text" || t.format == "csv", "--format must be text or csv");
  require_input(t.activation == "relu" || t.activation == "tanh",
                "--activation must be relu or tanh");
  require_input(t.rf_sampling == "full" || t.rf_sampling == "marginal",
                "--rf-sampling must be full or marginal");
  const auto kind = find_model(t.model);  // an unknown model is refused by the registry
  require_input(t.rf_sampling == "full" || (kind && traits(*kind).marginal_sampler),
                "--rf-sampling marginal applies to rf only");
  const auto k_items = parse_k_grid(t.k_text, std::numeric_limits<std::int32_t>::max());
  require_input(k_items.size() == 1, "--k takes one width, e.g. 2560 or 1.0D");

  ModelSpec spec;
  spec.name = t.model;
  spec.n = t.n;
  spec.d = t.d;
  spec.k = k_items.front().resolve(t.n, t.d);
  spec.layers = static_cast<int>(t.layers);
  spec.activation = t.activation == "tanh" ? Activation::tanh : Activation::relu;
  spec.sampling = t.rf_sampling == "marginal" ? RfSampling::marginal : RfSampling::full;
  return spec;
}

}  // namespace wordsens::cli
