#pragma once
// A typed handle of one SQL statement: its name (the prepared statement's), its SQL, the names of
// its parameters ($1, $2, … in order) and of the columns it returns. pg_store.cpp runs statements
// by handle: a call with the wrong number of arguments, or a read of a column the statement does
// not return, does not compile. db/store/statements.hpp lists every statement the worker runs.
#include <array>
#include <cstddef>
#include <span>
#include <string_view>

namespace keeper::db {

// What the list holds: a handle with its sizes erased.
struct statement_text {
    std::string_view name;
    std::string_view sql;
    std::span<const std::string_view> params;
    std::span<const std::string_view> columns;
};

// A statement's SQL, held by the handle itself: call_statement composes it at compile time.
struct sql_text {
    static constexpr std::size_t capacity = 512;
    std::array<char, capacity> chars{};
    std::size_t size = 0;

    consteval void append(std::string_view part) {
        if (size + part.size() > capacity) throw "statement longer than sql_text::capacity";  // does not compile
        for (const char c : part) chars[size++] = c;
    }
    consteval void append_number(std::size_t n) {
        char digits[20];
        std::size_t count = 0;
        do {
            digits[count++] = static_cast<char>('0' + n % 10);
            n /= 10;
        } while (n != 0);
        while (count > 0) append(std::string_view{&digits[--count], 1});
    }
    constexpr std::string_view view() const { return {chars.data(), size}; }
};

template <std::size_t P, std::size_t C>
struct statement {
    std::string_view name;
    sql_text sql_chars;
    std::array<std::string_view, P> params;
    std::array<std::string_view, C> columns;

    static constexpr std::size_t param_count = P;

    constexpr std::string_view sql() const { return sql_chars.view(); }
    // The name of a column this statement returns; any other name is a compile error. (Its data()
    // is the string literal's, so it also serves as a C string.)
    consteval std::string_view column(std::string_view wanted) const {
        for (const auto c : columns) {
            if (c == wanted) return c;
        }
        throw "statement does not return this column";  // not a constant expression: does not compile
    }
    constexpr statement_text text() const { return {name, sql(), params, columns}; }
};

template <std::size_t P, std::size_t C>
consteval statement<P, C> make_statement(std::string_view name, std::string_view sql,
                                         const std::string_view (&params)[P], const std::string_view (&columns)[C]) {
    statement<P, C> s{name, {}, {}, {}};
    s.sql_chars.append(sql);
    for (std::size_t i = 0; i < P; ++i) s.params[i] = params[i];
    for (std::size_t i = 0; i < C; ++i) s.columns[i] = columns[i];
    return s;
}

// A statement without parameters.
template <std::size_t C>
consteval statement<0, C> make_statement(std::string_view name, std::string_view sql,
                                         const std::string_view (&columns)[C]) {
    statement<0, C> s{name, {}, {}, {}};
    s.sql_chars.append(sql);
    for (std::size_t i = 0; i < C; ++i) s.columns[i] = columns[i];
    return s;
}

}  // namespace keeper::db
