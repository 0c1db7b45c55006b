#pragma once
// The configuration file: one file of `key = value` lines, every key with a default, each
// overridable by the environment variable KEEPER_<KEY in upper case>. Unknown keys and bad values
// stop the start with a message naming the key (validated once, never per request).
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/setting_keys.hpp"
#include "core/api/settings.hpp"

namespace keeper::config {

// Every key, its default and what it means, in file order (docs and the sample file use it).
const std::vector<setting_doc>& setting_docs();

// Applies file text, then environment overrides (KEEPER_*), to the defaults.
core::settings parse_settings(const std::string& file_text, const std::map<std::string, std::string>& env);

// KEEPER_CONFIG if set, else /etc/keeper/keeper.conf if it exists, else "" (defaults only).
std::string default_config_path();

// The file of the connection strings only keeperctl may read (admin_database_url,
// provision_database_url, maintain_database_url): KEEPER_ADMIN_CONFIG if set, else admin.conf
// beside the config file when it exists (readable or not), else "". The workers never read it, and its owner is
// the system user keeper-admin (docs/operations.md, "Install").
std::string admin_config_path(const std::string& config_path);

// Applies the file text of the admin file (admin.conf) to settings: only the three admin keys.
void apply_admin_file(core::settings& s, const std::string& file_text);

// Reads the file at path (empty path: no file), then the admin file at admin_path (empty: none),
// and the process environment.
core::settings load_settings(const std::string& path, const std::string& admin_path = {});

// The log format the file at path (or KEEPER_LOG_FORMAT, which wins) asks for, read leniently: its
// log_format line, whatever else of the file is wrong; text when none names a known format. The
// pool logs in it while it waits for a file it refuses.
core::log_format_kind log_format_of(const std::string& path);

}  // namespace keeper::config
