#pragma once
// The table of configuration keys: each key's documentation and how its text sets the value.
// A key's default is its member's in core::settings (core/api/settings.hpp), shown as text here.
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/api/settings.hpp"

namespace keeper::config {

class config_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct setting_doc {
    std::string key;
    std::string default_value;
    std::string description;
};

struct setting_def {
    setting_doc doc;
    std::function<void(core::settings&, const std::string&)> apply;
};

// Every key in file order; a value that does not parse throws config_error naming the key.
const std::vector<setting_def>& setting_definitions();

}  // namespace keeper::config
