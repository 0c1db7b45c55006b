// The yardstick for scripts/bench: the plainest FastCGI responder of keeper's architecture.
// N single-threaded processes on one socket (nginx without keepalive in front), libfcgi, libxml2
// for the SOAP body, OpenSSL for MD5, libpqxx with prepared statements, each write as two
// autocommit statements (read the session or login, then write), no row locks, no result codes
// beyond ok / not found. Each write's statement also inserts the call's audit row (nginx's request
// id), the least a write that audits every call must do; the mode `plain` writes none, the
// yardstick before keeper audited every call (docs/performance.md, "The yardstick"). It answers
// just the benchmark's cases:
//   GET  /GlobalApi.asmx/GetUtcNow
//   POST SOAP 1.1 GetUtcNow, SetAccountPermits, TopupPurseFromAtmCard, Authenticate
// It is deliberately not keeper: no operation table, no validation. Do not grow it.
#include <fcgiapp.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <openssl/evp.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <pqxx/pqxx>
#include <string>

namespace {

const char* const soap_head =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?><soap:Envelope "
    "xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" "
    "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
    "xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\"><soap:Body>";
const char* const soap_tail = "</soap:Body></soap:Envelope>";

std::string utc_now() {
    const auto now = std::chrono::system_clock::now();
    const auto secs = std::chrono::system_clock::to_time_t(now);
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(micros));
    return buf;
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::string md5_hex(const std::string& data) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(data.data(), data.size(), digest, &n, EVP_md5(), nullptr);
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < n; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 15];
    }
    return out;
}

// The operation element inside soap:Body and the text of its children, by local name.
struct soap_call {
    std::string operation;
    std::map<std::string, std::string> args;
};

soap_call parse_soap(const std::string& body) {
    soap_call call;
    xmlDocPtr doc = xmlReadMemory(body.data(), static_cast<int>(body.size()), nullptr, nullptr, XML_PARSE_NONET);
    if (!doc) return call;
    for (xmlNodePtr n = xmlDocGetRootElement(doc)->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE || std::string{reinterpret_cast<const char*>(n->name)} != "Body") continue;
        for (xmlNodePtr op = n->children; op; op = op->next) {
            if (op->type != XML_ELEMENT_NODE) continue;
            call.operation = reinterpret_cast<const char*>(op->name);
            for (xmlNodePtr a = op->children; a; a = a->next) {
                if (a->type != XML_ELEMENT_NODE) continue;
                xmlChar* text = xmlNodeGetContent(a);
                call.args[reinterpret_cast<const char*>(a->name)] = text ? reinterpret_cast<const char*>(text) : "";
                xmlFree(text);
            }
            break;
        }
    }
    xmlFreeDoc(doc);
    return call;
}

std::string soap_result(const std::string& op, const std::string& value) {
    return std::string{soap_head} + "<" + op + "Response xmlns=\"http://tempuri.org/\"><" + op + "Result>" + value +
           "</" + op + "Result></" + op + "Response>" + soap_tail;
}

// The audit row of a write, as keeper's keeper_audit writes it, in a CTE of the write's own
// statement (no round trip more): $login the login's id, $id nginx's request id. The plain mode's
// CTE only types the request id's parameter and is never run (an unreferenced SELECT).
std::string audit(bool audited, const char* operation, int login, int id) {
    const auto n = [](int i) { return "$" + std::to_string(i); };
    if (!audited) return "WITH a AS (SELECT " + n(id) + "::text) ";
    return "WITH a AS (INSERT INTO audit_log (login_id, operation, result, request_id) VALUES (" + n(login) + ", '" +
           operation + "', 0, " + n(id) + ")) ";
}

void prepare(pqxx::connection& c, bool audited) {
    c.prepare("session", "SELECT login_id FROM sessions WHERE session_hash = sha256(convert_to($1, 'UTF8'))");
    c.prepare("permits",
              audit(audited, "SetAccountPermits", 1, 5) +
                  "INSERT INTO account_permits (login_id, accept_payments, accept_invoices, accept_messages) "
                  "VALUES ($1, $2, $3, $4) ON CONFLICT (login_id) DO UPDATE SET "
                  "accept_payments = EXCLUDED.accept_payments, accept_invoices = EXCLUDED.accept_invoices, "
                  "accept_messages = EXCLUDED.accept_messages");
    c.prepare("topup", audit(audited, "TopupPurseFromAtmCard", 4, 5) +
                           ", t AS (INSERT INTO topups (card_id, purse, amount, request_id) "
                           "VALUES ($1, $2, $3::numeric, $5)) "
                           "UPDATE purses SET balance = balance + $3::numeric WHERE purse = $2 AND login_id = $4");
    c.prepare("login", "SELECT id, shared_secret FROM logins WHERE login = $1");
    c.prepare("bind", audit(audited, "Authenticate", 2, 3) +
                          "INSERT INTO sessions (session_hash, login_id, authenticated_at) "
                          "VALUES (sha256(convert_to($1, 'UTF8')), $2, now()) "
                          "ON CONFLICT (session_hash) DO UPDATE SET authenticated_at = now()");
}

bool flag(const std::string& v) { return v == "true" || v == "1"; }

// Runs one SOAP operation; returns its int result.
int run(pqxx::connection& db, const soap_call& call, const std::string& request_id) {
    pqxx::nontransaction tx{db};
    if (call.operation == "Authenticate") {
        const auto login = lower(call.args.at("login"));
        const auto r = tx.exec_prepared("login", login);
        if (r.empty()) return 4;
        const auto session = lower(call.args.at("sessionId"));
        const auto expected = md5_hex(login + ":" + lower(r[0][1].as<std::string>()) + ":" + session);
        if (expected != lower(call.args.at("authHash"))) return 4;
        tx.exec_prepared("bind", session, r[0][0].as<long long>(), request_id);
        return 0;
    }
    const auto s = tx.exec_prepared("session", lower(call.args.at("sessionId")));
    if (s.empty()) return 2;
    const auto login_id = s[0][0].as<long long>();
    if (call.operation == "SetAccountPermits") {
        tx.exec_prepared("permits", login_id, flag(call.args.at("acceptPayments")),
                         flag(call.args.at("acceptInvoices")), flag(call.args.at("acceptMessages")), request_id);
        return 0;
    }
    const auto r = tx.exec_prepared("topup", std::stoll(call.args.at("cardId")), call.args.at("purseDest"),
                                    call.args.at("amount"), login_id, request_id);
    return r.affected_rows() == 1 ? 0 : 5;
}

std::string read_body(FCGX_Request& req) {
    std::string body;
    char buf[8192];
    for (int n; (n = FCGX_GetStr(buf, sizeof buf, req.in)) > 0;) body.append(buf, static_cast<std::size_t>(n));
    return body;
}

void answer(FCGX_Request& req, int status, const std::string& body) {
    std::string head = "Status: " + std::to_string(status) + "\r\nContent-Type: text/xml; charset=utf-8\r\n";
    head += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
    FCGX_PutStr(head.data(), static_cast<int>(head.size()), req.out);
    FCGX_PutStr(body.data(), static_cast<int>(body.size()), req.out);
}

void serve(FCGX_Request& req, pqxx::connection& db) {
    const char* method = FCGX_GetParam("REQUEST_METHOD", req.envp);
    if (method && std::string{method} == "GET") {
        answer(req, 200,
               "<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<dateTime xmlns=\"http://tempuri.org/\">" + utc_now() +
                   "</dateTime>");
        return;
    }
    const auto call = parse_soap(read_body(req));
    if (call.operation == "GetUtcNow") {
        answer(req, 200, soap_result("GetUtcNow", utc_now()));
        return;
    }
    try {
        const char* id = FCGX_GetParam("REQUEST_ID", req.envp);
        answer(req, 200, soap_result(call.operation, std::to_string(run(db, call, id ? id : ""))));
    } catch (const std::exception&) {
        answer(req, 500, soap_result("Error", "server"));
    }
}

int worker(int fd, const std::string& conninfo, bool audited) {
    pqxx::connection db{conninfo};
    prepare(db, audited);
    FCGX_Request req;
    FCGX_InitRequest(&req, fd, 0);
    while (FCGX_Accept_r(&req) >= 0) {
        serve(req, db);
        FCGX_Finish_r(&req);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4 || argc > 5 || (argc == 5 && std::string{argv[4]} != "plain")) {
        std::cerr << "usage: keeper-bench-baseline SOCKET_PATH PROCESSES DATABASE_URL [plain]\n";
        return 2;
    }
    const bool audited = argc == 4;
    FCGX_Init();
    const int fd = FCGX_OpenSocket(argv[1], 1024);
    if (fd < 0) return 1;
    const int processes = std::stoi(argv[2]);
    for (int i = 0; i < processes; ++i) {
        if (fork() == 0) {
            prctl(PR_SET_PDEATHSIG, SIGTERM);  // stop with the parent
            _exit(worker(fd, argv[3], audited));
        }
    }
    while (wait(nullptr) > 0) {
    }
    return 0;
}
