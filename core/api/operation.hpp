#pragma once
// One entry of the operation table: where it lives, what it takes, what it returns, and the
// handler. Parameter and result types are deduced from the handler's C++ signature, so the table
// cannot disagree with the code; only the wire names are written by hand.
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "core/api/date_time.hpp"
#include "core/api/param_value.hpp"
#include "core/api/result_code.hpp"

namespace keeper::core {

// What a handler gets besides its parameters (core/domain/call_context.hpp). The vocabulary only
// names it: operations live in the domain wing.
class call_context;

// Each group's name is in group_names (core/domain/operation_table.cpp), in this order.
enum class api_group { account, telepay, simple_auth, push, global, errors };

// "AccountApi" for api_group::account: the group's path is "/" + this + ".asmx".
std::string_view group_name(api_group g);

// Each type's XML Schema name is in result_type_names (core/wire/result_text.cpp), in this order.
enum class result_type { int32, date_time, string };

// Whether a call can change what the database holds. Only writes take an Idempotency-Key
// (docs/api-decisions.md, "Idempotency-Key"); a read is safe to repeat as it is.
enum class call_effect { reads, writes };

using result_value = std::variant<result_code, utc_time, std::string>;

// What a handler answered: its value, and whether the store answered it as a keyed repeat
// (store_result::replayed), which the answer then says.
struct call_result {
    result_value value;
    bool replayed = false;
};

struct param_spec {
    std::string_view name;
    param_type type;
};

struct operation {
    api_group group;
    std::string_view name;
    std::string_view summary;  // one sentence for help pages and docs
    call_effect effect;
    std::vector<param_spec> params;
    result_type result;
    std::vector<result_code> results;  // the int results it can give (empty for dateTime/string)
    // Decoded arguments, one per param, of the declared types, in declaration order.
    call_result (*invoke)(call_context&, const std::vector<param_value>&);
};

namespace detail {

// The wire type of a handler's parameter and of its result, by C++ type: a handler of another
// type does not compile.
template <typename T>
constexpr param_type param_type_of() {
    if constexpr (std::is_same_v<T, std::string>) return param_type::string;
    else if constexpr (std::is_same_v<T, bool>) return param_type::boolean;
    else if constexpr (std::is_same_v<T, std::int32_t>) return param_type::int32;
    else if constexpr (std::is_same_v<T, std::int64_t>) return param_type::int64;
    else if constexpr (std::is_same_v<T, double>) return param_type::float64;
    else if constexpr (std::is_same_v<T, provider>) return param_type::provider;
    else static_assert(sizeof(T) == 0, "no wire type for this parameter's C++ type");
}

template <typename T>
constexpr result_type result_type_of() {
    if constexpr (std::is_same_v<T, result_code> || std::is_same_v<T, store_result>) return result_type::int32;
    else if constexpr (std::is_same_v<T, utc_time>) return result_type::date_time;
    else if constexpr (std::is_same_v<T, std::string>) return result_type::string;
    else static_assert(sizeof(T) == 0, "no wire type for this result's C++ type");
}

template <typename F>
struct handler_traits;
template <typename R, typename... A>
struct handler_traits<R (*)(call_context&, A...)> {
    using result = R;
    using args = std::tuple<std::remove_cvref_t<A>...>;
    static constexpr std::size_t arity = sizeof...(A);
};

template <typename R>
call_result answer_of(R&& r) {
    return {result_value{std::forward<R>(r)}};
}
inline call_result answer_of(store_result r) { return {result_value{r.code}, r.replayed}; }

template <auto Handler>
call_result invoke(call_context& ctx, const std::vector<param_value>& values) {
    using traits = handler_traits<decltype(Handler)>;
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return answer_of(Handler(ctx, std::get<std::tuple_element_t<I, typename traits::args>>(values[I])...));
    }
    (std::make_index_sequence<traits::arity>{});
}

template <auto Handler, std::size_t N>
std::vector<param_spec> param_specs(const std::string_view (&names)[N]) {
    using traits = handler_traits<decltype(Handler)>;
    static_assert(N == traits::arity, "one wire name per handler parameter");
    std::vector<param_spec> out;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (out.push_back({names[I], param_type_of<std::tuple_element_t<I, typename traits::args>>()}), ...);
    }
    (std::make_index_sequence<N>{});
    return out;
}

}  // namespace detail

template <auto Handler, std::size_t N>
operation make_operation(api_group group, std::string_view name, call_effect effect,
                         const std::string_view (&param_names)[N], std::vector<result_code> results,
                         std::string_view summary) {
    using traits = detail::handler_traits<decltype(Handler)>;
    return {group,
            name,
            summary,
            effect,
            detail::param_specs<Handler>(param_names),
            detail::result_type_of<typename traits::result>(),
            std::move(results),
            &detail::invoke<Handler>};
}

// For operations without parameters.
template <auto Handler>
operation make_operation(api_group group, std::string_view name, std::string_view summary) {
    using traits = detail::handler_traits<decltype(Handler)>;
    static_assert(traits::arity == 0);
    return {group,   name,
            summary, call_effect::reads,
            {},      detail::result_type_of<typename traits::result>(),
            {},      &detail::invoke<Handler>};
}

}  // namespace keeper::core
