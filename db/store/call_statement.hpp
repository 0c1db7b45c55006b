#pragma once
// The statement of an operation's function: the call's frame first, as one keeper_call value,
// then the operation's own parameters (db/store/statements.hpp lists them). The frame's part of the
// SQL is written here alone, so the frame is defined once.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "core/domain/call_frame.hpp"
#include "db/store/statement.hpp"

namespace keeper::db {

// The frame of every call that writes an audit row: the keeper_call type's fields, by name and in
// order (db/migrations/0015_call_frame.sql, 0019_call_trace.sql, 0023_call_deadline.sql and
// 0024_call_host_recorded.sql; a database test compares them), and their values from the call's
// frame (core/domain/call_frame.hpp): a new field of the frame is a name here, a value in
// call_frame_values::apply and an attribute of the type. "key" is the Idempotency-Key, '' without
// one; "trace_id" the call's W3C trace id, '' without one; "deadline" when the call must be
// answered by; "host_recorded" whether this attempt is in its host's record of calls in flight
// (db/store/call_record.hpp), so that keeper_claim takes no lock for it.
inline constexpr std::array<std::string_view, 8> call_frame_fields{
    "request_id", "operation", "key", "fingerprint", "key_used", "trace_id", "deadline", "host_recorded",
};

// How a frame field's parameter enters the keeper_call value: as it is, but the deadline, which
// travels as whole microseconds since the Unix epoch and becomes the type's timestamptz in the
// statement. PostgreSQL reads a timestamp's text in about 3 900 instructions, on every write; the
// integer and this sum take about 1 400 (bench/history.md, "The deadline as a number").
consteval void append_frame_field(sql_text& sql, std::size_t field, std::size_t number) {
    const bool deadline = call_frame_fields[field] == "deadline";
    sql.append(deadline ? "timestamptz 'epoch' + $" : "$");
    sql.append_number(number);
    sql.append(deadline ? "::bigint * interval '1 microsecond'" : "");
}

// The frame as a statement passes it (pg_store.cpp). fingerprint: the digests the database records
// and matches (pg_store::stored_fingerprints); key_used: the executor runs a keyed call again to
// read the call its key recorded (call_executor.hpp); the deadline by the wall clock, which the
// database compares with its own (keeper_claim), in microseconds since the epoch
// (append_frame_field); host_recorded: set by the executor for the one attempt its host's record
// holds (call_executor::once).
struct call_frame_values {
    const core::call_frame& frame;
    std::string_view fingerprint;
    bool key_used = false;
    std::int64_t deadline =
        std::chrono::duration_cast<std::chrono::microseconds>(frame.until.wall().time_since_epoch()).count();
    bool host_recorded = false;

    // f(the values, in call_frame_fields' order), as strings (libpqxx 6 binds no string_view).
    template <typename F>
    decltype(auto) apply(F&& f) const {
        return std::forward<F>(f)(frame.request_id, std::string{frame.operation}, frame.idempotency_key,
                                  std::string{fingerprint}, key_used, frame.trace_id, deadline, host_recorded);
    }
};

// A call of an operation's function: "SELECT function(ROW($1, …, $8)::keeper_call, $9, …) AS result",
// or, for a function with several OUT columns, "SELECT a, b FROM function(…)". Its parameters are
// the frame's, then params.
template <std::size_t P, std::size_t C = 1>
consteval statement<call_frame_fields.size() + P, C> call_statement(std::string_view name, std::string_view function,
                                                                    const std::string_view (&params)[P],
                                                                    const std::string_view (&columns)[C] = {"result"}) {
    constexpr std::size_t F = call_frame_fields.size();
    statement<F + P, C> s{name, {}, {}, {}};
    for (std::size_t i = 0; i < F; ++i) s.params[i] = call_frame_fields[i];
    for (std::size_t i = 0; i < P; ++i) s.params[F + i] = params[i];
    for (std::size_t i = 0; i < C; ++i) s.columns[i] = columns[i];
    const bool scalar = C == 1 && columns[0] == "result";
    s.sql_chars.append("SELECT ");
    if (!scalar) {
        for (std::size_t i = 0; i < C; ++i) {
            s.sql_chars.append(i ? ", " : "");
            s.sql_chars.append(columns[i]);
        }
        s.sql_chars.append(" FROM ");
    }
    s.sql_chars.append(function);
    s.sql_chars.append("(ROW(");
    for (std::size_t i = 1; i <= F + P; ++i) {
        if (i > 1) s.sql_chars.append(i == F + 1 ? ")::keeper_call, " : ", ");
        if (i <= F) {
            append_frame_field(s.sql_chars, i - 1, i);
        } else {
            s.sql_chars.append("$");
            s.sql_chars.append_number(i);
        }
    }
    s.sql_chars.append(P == 0 ? ")::keeper_call)" : ")");
    s.sql_chars.append(scalar ? " AS result" : "");
    return s;
}

}  // namespace keeper::db
