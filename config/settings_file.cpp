#include "config/settings_file.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/api/text_util.hpp"

extern char** environ;

namespace keeper::config {
namespace {

using core::settings;

const setting_def* find_definition(const std::string& key) {
    for (const auto& d : setting_definitions()) {
        if (d.doc.key == key) return &d;
    }
    return nullptr;
}

std::string trim(std::string_view s) { return std::string{core::trim_xml_space(s)}; }

// The keys of the roles that are not the workers': their connection strings may hold passwords.
bool is_admin_key(const std::string& key) {
    return key == "admin_database_url" || key == "provision_database_url" || key == "maintain_database_url";
}

// Applies `key = value` lines; `which` names the file in messages, and only_admin refuses any
// key but the admin ones.
void apply_file(settings& s, const std::string& text, const std::string& which = "config", bool only_admin = false) {
    std::istringstream in{text};
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        const auto content = trim(line);
        if (content.empty() || content.front() == '#') continue;
        const auto where = which + " line " + std::to_string(number);
        const auto eq = content.find('=');
        if (eq == std::string::npos) throw config_error(where + ": expected 'key = value'");
        const auto key = trim(content.substr(0, eq));
        const auto* def = find_definition(key);
        if (!def) throw config_error(where + ": unknown key '" + key + "'");
        if (only_admin && !is_admin_key(key)) {
            throw config_error(where + ": '" + key +
                               "' belongs in keeper.conf (admin.conf holds only admin_database_url, "
                               "provision_database_url and maintain_database_url)");
        }
        def->apply(s, trim(content.substr(eq + 1)));
    }
}

std::string read_file(const std::string& path) {
    std::ifstream in{path};
    if (!in) throw config_error("cannot read config file " + path);
    std::ostringstream buf;
    buf << in.rdbuf();
    return buf.str();
}

std::string env_name(const std::string& key) {
    std::string name = "KEEPER_";
    for (char c : key) name += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    return name;
}

}  // namespace

const std::vector<setting_doc>& setting_docs() {
    static const std::vector<setting_doc> docs = [] {
        std::vector<setting_doc> out;
        for (const auto& d : setting_definitions()) out.push_back(d.doc);
        return out;
    }();
    return docs;
}

// What no single key can check. The deadline stays 2 s under nginx's read timeout: the request's
// wait in the socket's queue, before a worker reads it, and the answer's way back count against
// nginx's timeout and not against the deadline.
void check_together(const settings& s) {
    constexpr std::chrono::milliseconds margin{2000};
    if (s.call_budget + margin > s.nginx_read_timeout) {
        throw config_error("call_budget_ms (" + std::to_string(s.call_budget.count()) +
                           ") must be at least 2000 below nginx_read_timeout_seconds (" +
                           std::to_string(s.nginx_read_timeout.count()) +
                           " s), so that keeper answers every call before nginx gives up on it");
    }
}

namespace {

// The defaults, then the config file, then the admin file, then the environment, which wins.
settings assemble(const std::string& file_text, const std::string& admin_text,
                  const std::map<std::string, std::string>& env) {
    settings s;
    apply_file(s, file_text);
    apply_admin_file(s, admin_text);
    for (const auto& d : setting_definitions()) {
        const auto it = env.find(env_name(d.doc.key));
        if (it != env.end()) d.apply(s, it->second);
    }
    check_together(s);
    return s;
}

}  // namespace

settings parse_settings(const std::string& file_text, const std::map<std::string, std::string>& env) {
    return assemble(file_text, {}, env);
}

std::string default_config_path() {
    if (const char* env = std::getenv("KEEPER_CONFIG"); env && *env) return env;
    const std::string system_path = "/etc/keeper/keeper.conf";
    return std::ifstream{system_path} ? system_path : std::string{};
}

void apply_admin_file(settings& s, const std::string& file_text) { apply_file(s, file_text, "admin.conf", true); }

std::string admin_config_path(const std::string& config_path) {
    if (const char* env = std::getenv("KEEPER_ADMIN_CONFIG"); env && *env) return env;
    if (config_path.empty()) return {};
    const auto slash = config_path.rfind('/');
    const auto beside = (slash == std::string::npos ? std::string{} : config_path.substr(0, slash + 1)) + "admin.conf";
    // There but unreadable (the workers' user) is an error when it is loaded, not a silent
    // fallback to database_url.
    return std::filesystem::exists(beside) ? beside : std::string{};
}

settings load_settings(const std::string& path, const std::string& admin_path) {
    const auto text = path.empty() ? std::string{} : read_file(path);
    std::map<std::string, std::string> env;
    for (char** e = environ; *e; ++e) {
        const std::string entry = *e;
        const auto eq = entry.find('=');
        if (entry.rfind("KEEPER_", 0) == 0 && eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    return assemble(text, admin_path.empty() ? std::string{} : read_file(admin_path), env);
}

core::log_format_kind log_format_of(const std::string& path) {
    settings s;
    const auto* def = find_definition("log_format");
    const auto apply = [&](const std::string& value) {
        try {
            def->apply(s, value);
        } catch (const config_error&) {
            // not a format: the one before stays
        }
    };
    std::ifstream in{path};
    for (std::string line; in && std::getline(in, line);) {
        const auto content = trim(line);
        const auto eq = content.find('=');
        if (eq != std::string::npos && trim(content.substr(0, eq)) == def->doc.key) apply(trim(content.substr(eq + 1)));
    }
    if (const char* env = std::getenv(env_name(def->doc.key).c_str())) apply(env);
    return s.log_format;
}

}  // namespace keeper::config
