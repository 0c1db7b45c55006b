#include "core/domain/param_rules.hpp"

namespace keeper::core {
namespace {

// The formats are formats.hpp's; a string "1-64 characters" counts characters, not bytes.
const param_rule rules[] = {
    {"sessionId", "The session the client chose and bound with Authenticate: 1-64 of A-Z a-z 0-9 - _ { }.",
     1, 64, "^[A-Za-z0-9_{}-]{1,64}$", {}, {}, R"("3f2a9c1e-5b7d-4c1a-9e2f-7a6b5c4d3e2f")", call_meaning::none},
    {"login", "The login's name: 1-64 characters, no control characters; compared in lower case.", 1, 64, "", {}, {},
     R"("alice")", call_meaning::lower_case},
    {"authHash", "hex(MD5(lower(login) \":\" lower(secret) \":\" lower(sessionId))): 32 hex digits, either case "
                 "(for SubscribeAppWithTagAndLocale: appId, secret and userId).",
     32, 32, "^[0-9A-Fa-f]{32}$", {}, {}, R"("0cc175b9c0f1b6a831c399e269772661")", call_meaning::none},
    {"wmid", "The counterpart's WMID: exactly 12 decimal digits.", 12, 12, "^[0-9]{12}$", {}, {}, R"("123456789012")"},
    {"acceptPayments", "Accept payments from this counterpart (or from anyone, SetAccountPermits).", {}, {}, "", {}, {},
     "true"},
    {"acceptInvoices", "Accept invoices.", {}, {}, "", {}, {}, "true"},
    {"acceptMessages", "Accept messages.", {}, {}, "", {}, {}, "false"},
    {"dontUseConfirmation", "Payments from this counterpart need no confirmation.", {}, {}, "", {}, {}, "false"},
    {"tranId", "The code-protected transfer, a positive id.", {}, {}, "", 1, {}, "900001"},
    {"protectionCode", "The transfer's protection code: 1-64 characters, no control characters.", 1, 64, "", {}, {},
     R"("4321")"},
    {"purseDest", "The purse to top up: one letter of ZEURBGXCKHY (either case) and 12 digits.", 13, 13,
     "^[ZEURBGXCKHYzeurbgxckhy][0-9]{12}$", {}, {}, R"("Z123456789012")", call_meaning::purse},
    {"cardId", "The bank card, a positive id.", {}, {}, "", 1, {}, "17"},
    {"amount", "The amount: above 0 with at most two decimals, and at most topup_max_amount (else result 1 or 9).", {},
     {}, "", {}, {}, "10.5", call_meaning::amount},
    {"appId", "The application's id: 1-64 characters, no control characters; compared in lower case.", 1, 64, "", {}, {},
     R"("mobile-android")", call_meaning::lower_case},
    {"profileId", "The telepay profile, a positive id.", {}, {}, "", 1, {}, "42"},
    {"taskId", "The scheduler task, a positive id.", {}, {}, "", 1, {}, "7"},
    {"code", "The task's confirmation code: 1-64 characters, no control characters.", 1, 64, "", {}, {}, R"("8642")"},
    {"id", "The object the operation acts on (the telepay profile, or the push SMS), a positive id.", {}, {}, "", 1, {},
     "42"},
    {"name", "The profile's new name: 1-64 characters after trimming white space, no control characters.", 1, 64, "",
     {}, {}, R"("Rent")"},
    {"provider", "The device's push platform.", {}, {}, "", {}, {}, R"("Android")"},
    {"pushServiceUserId", "The device's token at its push service: 1-512 characters.", 1, 512, "", {}, {},
     R"("fcm-token-0123456789")"},
    {"tag", "The subscription's tag, as the app chooses it.", {}, {}, "", {}, {}, "1"},
    {"locale", "The language of pushes: 1033 (English) or 1049 (Russian).", {}, {}, "", {}, {1033, 1049}, "1033"},
    {"userId", "The app's own user id: 1-64 characters, no control characters; compared in lower case.", 1, 64, "", {},
     {}, R"("user-1")", call_meaning::lower_case},
    {"errorCode", "A result code of this API (each operation's codes are listed in docs/api.md).", {}, {}, "", {}, {},
     "4"},
    {"cultureCode", "The language of the text: 1049 for Russian, English otherwise.", {}, {}, "", {}, {}, "1033"},
};

}  // namespace

const param_rule* find_param_rule(std::string_view name) {
    for (const auto& r : rules) {
        if (r.name == name) return &r;
    }
    return nullptr;
}

}  // namespace keeper::core
