#pragma once
// A request turned into a typed call: which operation, and its arguments in declaration order.
// The wire wing makes them (core/wire/call_decoders.hpp), the domain runs them.
#include <vector>

#include "core/api/operation.hpp"

namespace keeper::core {

struct decoded_call {
    const operation* op = nullptr;
    std::vector<param_value> args;
};

}  // namespace keeper::core
