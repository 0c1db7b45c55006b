// Shared secrets sealed at rest: AES-256-GCM bound to their row, key ids for rotation.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <thread>

#include "db/secrets/key_file.hpp"
#include "db/secrets/sealed_secrets.hpp"

using keeper::db::key_error;
using keeper::db::secret_keyring;

namespace {

const std::string key_a = "ka " + std::string{"MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="};  // 32 bytes
const std::string key_b = secret_keyring::new_key_line("kb");

}  // namespace

BOOST_AUTO_TEST_SUITE(sealed_secrets)

BOOST_AUTO_TEST_CASE(a_sealed_secret_opens_only_for_its_row_and_holds_no_clear_text) {
    const auto ring = secret_keyring::parse(key_a + "\n");
    const auto sealed = ring.seal("correct horse", "logins:alice");
    BOOST_TEST(sealed.rfind("sealed:v1:ka:", 0) == 0u);
    BOOST_TEST(sealed.find("correct") == std::string::npos);
    BOOST_TEST(ring.open(sealed, "logins:alice").value() == "correct horse");
    BOOST_CHECK_THROW(ring.open(sealed, "logins:bob"), key_error);     // copied onto another row: does not open
    BOOST_TEST(ring.seal("correct horse", "logins:alice") != sealed);  // a fresh nonce every time
    auto tampered = sealed;
    tampered[tampered.size() - 6] = tampered[tampered.size() - 6] == 'A' ? 'B' : 'A';
    BOOST_CHECK_THROW(ring.open(tampered, "logins:alice"), key_error);
    BOOST_TEST(!ring.open("a clear secret", "logins:alice").has_value());  // from before 0005: not sealed
}

BOOST_AUTO_TEST_CASE(the_first_key_seals_and_the_older_ones_still_open) {
    const auto old_ring = secret_keyring::parse(key_a);
    const auto sealed_old = old_ring.seal("s1", "applications:app");
    const auto ring = secret_keyring::parse("# rotated\n" + key_b + "\n" + key_a + "\n");
    BOOST_TEST(ring.current_id() == "kb");
    BOOST_TEST(ring.open(sealed_old, "applications:app").value() == "s1");
    BOOST_TEST(keeper::db::sealed_key_id(ring.seal("s2", "x")) == "kb");
    try {
        (void)secret_keyring::parse(key_b).open(sealed_old, "applications:app");
        BOOST_FAIL("opened with a key it was not sealed with");
    } catch (const key_error& e) {
        BOOST_TEST(std::string{e.what()}.find("key ka") != std::string::npos);  // names the missing key, nothing else
    }
}

BOOST_AUTO_TEST_CASE(a_wrong_key_file_is_refused_naming_the_line) {
    const auto refused = [](const std::string& text, const std::string& words) {
        try {
            (void)secret_keyring::parse(text);
            return false;
        } catch (const key_error& e) {
            return std::string{e.what()}.find(words) != std::string::npos;
        }
    };
    BOOST_TEST(refused("", "no key"));
    BOOST_TEST(refused("# only a comment\n", "no key"));
    BOOST_TEST(refused("ka c2hvcnQ=\n", "line 1: the key must be 32 bytes"));
    BOOST_TEST(refused("ka not-base64!\n", "line 1"));
    BOOST_TEST(refused(key_a + "\n" + key_a + "\n", "line 2: key id ka appears twice"));
    BOOST_TEST(refused("bad/id " + key_a.substr(3) + "\n", "line 1: expected"));
    BOOST_CHECK_THROW(secret_keyring::load("/nonexistent/secret.keys"), key_error);
    BOOST_CHECK_THROW(secret_keyring::new_key_line("no spaces allowed"), key_error);
}

// A reinstall on the same day, or a key made on another host in the same second, gets an id of
// its own: a database never meets two different keys under one id.
BOOST_AUTO_TEST_CASE(new_key_ids_never_repeat_and_make_valid_lines) {
    std::set<std::string> ids;
    for (int i = 0; i < 200; ++i) ids.insert(secret_keyring::new_key_id());
    BOOST_TEST(ids.size() == 200u);
    const auto& id = *ids.begin();
    BOOST_TEST(id.size() == 24u, id);  // k, 14 digits of UTC time, -, 8 hex digits
    BOOST_TEST(id.front() == 'k');
    BOOST_TEST(secret_keyring::parse(secret_keyring::new_key_line(id)).current_id() == id);
}

// A worker started before a rotation opens what rotate-key sealed with the new key, once the key
// file holds it: the file is read again when a value names a key the worker lacks.
BOOST_AUTO_TEST_CASE(a_key_added_to_the_file_later_opens_without_a_restart) {
    char path[] = "/tmp/keeper-key-file-XXXXXX";
    const int fd = mkstemp(path);
    BOOST_REQUIRE(fd >= 0);
    close(fd);
    std::ofstream{path} << key_a << "\n";
    const auto keys = keeper::db::key_file::load(path);
    const auto sealed_new = secret_keyring::parse(key_b).seal("s3", "logins:carol");
    BOOST_CHECK_THROW(keys->open(sealed_new, "logins:carol"), key_error);  // not in the file yet
    std::ofstream{path} << key_b << "\n" << key_a << "\n";
    std::this_thread::sleep_for(std::chrono::milliseconds{1100});  // the file is read at most once a second
    BOOST_TEST(keys->open(sealed_new, "logins:carol") == "s3");
    BOOST_TEST(keys->open(secret_keyring::parse(key_a).seal("s1", "x"), "x") == "s1");
    std::remove(path);
}

BOOST_AUTO_TEST_SUITE_END()
