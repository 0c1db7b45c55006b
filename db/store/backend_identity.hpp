#pragma once
// The PostgreSQL server process that ran a connection's statements: its pid and start time, which
// together name it on one server (a pid is reused, with a later start). A call that ends in doubt
// ends this process before it asks whether the call committed (docs/design.md, "In-doubt calls").
#include <string>

namespace keeper::db {

struct backend_identity {
    int pid = 0;             // 0: no connection opened, so nothing ran
    std::string started_at;  // pg_stat_activity.backend_start, as PostgreSQL writes it
    bool known() const { return pid > 0; }
};

}  // namespace keeper::db
