#pragma once
// What the configuration means for connecting: the workers' connection string with its timeouts,
// each keeperctl task's database role, and where the secret key file is.
#include <string>

#include "core/api/settings.hpp"

namespace keeper::config {

// database_url with connect_timeout, TCP keepalives and tcp_user_timeout added (each unless it
// sets it): a dead host costs seconds, not the minutes of a TCP connect or retransmission. Works
// for key=value strings and postgresql:// URIs, with one host or several (docs/scaling.md).
std::string worker_conninfo(const core::settings& s);

// The key file in use: systemd's credential (LoadCredential=secret.keys:...) when the unit passes
// one, else secret_key_file.
std::string secret_key_path(const core::settings& s);

// The connection string each keeperctl task uses, after the fallbacks of docs/configuration.md.
std::string admin_url(const core::settings& s);
std::string provision_url(const core::settings& s);
std::string maintain_url(const core::settings& s);

}  // namespace keeper::config
