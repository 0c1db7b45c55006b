#pragma once
// The table of configuration keys: each key's documentation and how its text sets the value.
#include <functional>
#include <string>
#include <vector>

#include "config/settings_file.hpp"

namespace keeper::config {

struct setting_def {
    setting_doc doc;
    std::function<void(core::settings&, const std::string&)> apply;
};

// Every key in file order; a value that does not parse throws config_error naming the key.
const std::vector<setting_def>& setting_definitions();

}  // namespace keeper::config
