#pragma once
// What each parameter of the API means and the format the operations hold it to
// (core/domain/formats.hpp, which answers 1 for a value outside it), by its name in the operation
// table, with a sample value: the OpenAPI document's descriptions, constraints and examples, and
// what the parameter adds to a call's meaning for an Idempotency-Key (call_fingerprint.hpp).
// Every parameter of the table has one (a unit test checks).
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace keeper::core {

// What a parameter adds to a call's fingerprint: nothing (the credentials that name the caller),
// its value as decoded, or its value as the handler normalises it.
enum class call_meaning { none, as_decoded, purse, amount, lower_case };

struct param_rule {
    std::string_view name;
    std::string_view description;
    std::optional<int> min_length, max_length;  // in characters
    std::string_view pattern;                   // ECMA-262, as OpenAPI takes it; empty: none
    std::optional<std::int64_t> minimum;        // of a number
    std::vector<std::int64_t> allowed;          // the only values, when few (empty: any)
    std::string_view example;                   // a sample value, as JSON
    call_meaning meaning = call_meaning::as_decoded;
};

// nullptr for a name no operation has.
const param_rule* find_param_rule(std::string_view name);

}  // namespace keeper::core
