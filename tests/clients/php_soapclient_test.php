<?php
// PHP's SoapClient (Debian's php-soap) against the running stack, WSDL loaded from the service.
// Every operation over SOAP_1_1 and SOAP_1_2: the decoded result has the right PHP type and value,
// and the change shows in the database. Prints "N passed, N failed" and exits non-zero on failure.

$port = (int)getenv("KEEPER_TEST_PORT");
$db = getenv("KEEPER_TEST_DATABASE_URL");
$keeperctl = getenv("KEEPER_TEST_KEEPERCTL");
$provision = getenv("KEEPER_TEST_PROVISION_DATABASE_URL");  // keeperctl add-* as keeper_provision
if (!$port || !$db || !$keeperctl || !$provision) { fwrite(STDERR, "run through scripts/test\n"); exit(2); }

$passed = 0; $failed = 0;
function check($what, $ok) {
    global $passed, $failed;
    if ($ok) { $passed++; } else { $failed++; fwrite(STDERR, "FAIL: $what\n"); }
}
function same($what, $expected, $actual) {
    check("$what: expected " . var_export($expected, true) . ", got " . var_export($actual, true), $expected === $actual);
}
function ctl(...$args) {
    global $provision, $keeperctl;
    $cmd = "KEEPER_CONFIG=/dev/null KEEPER_PROVISION_DATABASE_URL=" . escapeshellarg($provision) . " " . escapeshellarg($keeperctl);
    foreach ($args as $a) $cmd .= " " . escapeshellarg((string)$a);
    exec($cmd . " >/dev/null", $out, $rc);
    if ($rc !== 0) throw new RuntimeException("keeperctl " . implode(" ", $args) . " failed");
}
function sql($query) {
    global $db;
    return trim(shell_exec("psql " . escapeshellarg($db) . " -XAtqc " . escapeshellarg($query)));
}
function auth_hash(...$parts) { return md5(implode(":", array_map("strtolower", $parts))); }
function client($group, $version) {
    global $port;
    return new SoapClient("http://127.0.0.1:$port/$group.asmx?WSDL",
        ["soap_version" => $version, "cache_wsdl" => WSDL_CACHE_NONE, "exceptions" => true]);
}

function run_every_operation($version, $tag) {
    $n = (getmypid() % 10000) * 100 + $tag;
    $login = "pc$n"; $secret = sprintf("php-secret-%06d", $n); $session = "php-session-$n"; $app = "pc-app-$n"; $app_secret = sprintf("php-app-secret-%06d", $n);
    $purse = "Z" . (600000000000 + $n); $id = 600000 + $n;
    ctl("add-login", $login, $secret); ctl("add-app", $app, $app_secret, "Android");
    ctl("add-purse", $login, $purse, "--balance", "0.10"); ctl("add-card", $login, $id);
    ctl("add-transfer", $login, $id, "50", "4321"); ctl("add-profile", $login, $id, "Old");
    ctl("add-task", $id, 1, "777"); ctl("add-sms", $login, $id);
    $login_id = sql("SELECT id FROM logins WHERE login = '$login'");
    $v = $version === SOAP_1_1 ? "1.1" : "1.2";

    $auth = client("SimpleAuthApi", $version);
    same("$v Authenticate", 0, $auth->Authenticate(["sessionId" => $session, "login" => $login, "authHash" => auth_hash($login, $secret, $session)])->AuthenticateResult);
    same("$v Authenticate wrong hash", 4, $auth->Authenticate(["sessionId" => $session, "login" => $login, "authHash" => str_repeat("0", 32)])->AuthenticateResult);

    $account = client("AccountApi", $version);
    same("$v CheckSessionEx", 0, $account->CheckSessionEx(["sessionId" => $session, "appId" => $app])->CheckSessionExResult);
    same("$v SetAccountPermits", 0, $account->SetAccountPermits(["sessionId" => $session, "acceptPayments" => false, "acceptInvoices" => true, "acceptMessages" => true])->SetAccountPermitsResult);
    same("$v account permits stored", "falsetruetrue", sql("SELECT accept_payments::text || accept_invoices::text || accept_messages::text FROM account_permits WHERE login_id = $login_id"));
    same("$v SetContactPermitsEx", 0, $account->SetContactPermitsEx(["sessionId" => $session, "wmid" => "210987654321", "acceptPayments" => true, "acceptInvoices" => true, "acceptMessages" => false, "dontUseConfirmation" => false])->SetContactPermitsExResult);
    same("$v contact permits stored", "1", sql("SELECT count(*) FROM contact_permits WHERE login_id = $login_id AND wmid = '210987654321'"));
    same("$v FinishCodeProtectedOperation", 0, $account->FinishCodeProtectedOperation(["sessionId" => $session, "tranId" => $id, "protectionCode" => "4321"])->FinishCodeProtectedOperationResult);
    same("$v FinishCodeProtectedOperation other code", 8, $account->FinishCodeProtectedOperation(["sessionId" => $session, "tranId" => $id, "protectionCode" => "1111"])->FinishCodeProtectedOperationResult);
    same("$v transfer completed", "completed", sql("SELECT status FROM protected_transfers WHERE id = $id"));
    same("$v TopupPurseFromAtmCard", 0, $account->TopupPurseFromAtmCard(["sessionId" => $session, "purseDest" => strtolower($purse), "cardId" => $id, "amount" => 0.2])->TopupPurseFromAtmCardResult);
    same("$v purse balance exact", "0.30", sql("SELECT balance FROM purses WHERE purse = '$purse'"));

    $telepay = client("TelepayApi", $version);
    same("$v TelepaySchedulerConfirmCreate", 0, $telepay->TelepaySchedulerConfirmCreate(["sessionId" => $session, "profileId" => $id, "taskId" => 1, "code" => "777"])->TelepaySchedulerConfirmCreateResult);
    same("$v task active", "active", sql("SELECT status FROM telepay_tasks WHERE profile_id = $id"));
    same("$v RenameTelepayProfile", 0, $telepay->RenameTelepayProfile(["sessionId" => $session, "id" => $id, "name" => "Интернет"])->RenameTelepayProfileResult);
    same("$v profile renamed", "Интернет", sql("SELECT name FROM telepay_profiles WHERE id = $id"));

    $push = client("PushApi", $version);
    $device = "php-device-$n";
    same("$v SubscribeWithTagAndLocale", 0, $push->SubscribeWithTagAndLocale(["sessionId" => $session, "provider" => "iOS", "pushServiceUserId" => $device, "tag" => 11, "locale" => 1033])->SubscribeWithTagAndLocaleResult);
    same("$v device stored", "11 1033", sql("SELECT tag || ' ' || locale FROM push_subscriptions WHERE provider = 'iOS' AND push_service_user_id = '$device'"));
    same("$v SubscribeAppWithTagAndLocale", 0, $push->SubscribeAppWithTagAndLocale(["appId" => $app, "userId" => "U1", "pushServiceUserId" => $device, "tag" => 1, "locale" => 1049, "authHash" => auth_hash($app, $app_secret, "U1")])->SubscribeAppWithTagAndLocaleResult);
    same("$v app device stored", "Android u1", sql("SELECT provider || ' ' || user_id FROM app_push_subscriptions WHERE push_service_user_id = '$device'"));
    same("$v MarkPushSmsAsDelivered", 0, $push->MarkPushSmsAsDelivered(["sessionId" => $session, "id" => $id])->MarkPushSmsAsDeliveredResult);
    same("$v sms delivered", "t", sql("SELECT delivered_at IS NOT NULL FROM push_sms WHERE id = $id"));
    try {
        $push->SubscribeWithTagAndLocale(["sessionId" => $session, "provider" => "Bogus", "pushServiceUserId" => "d", "tag" => 1, "locale" => 1033]);
        check("$v bad enum faults", false);
    } catch (SoapFault $f) {
        check("$v bad enum names the parameter: " . $f->getMessage(), str_contains($f->getMessage(), "provider"));
    }

    $now = client("GlobalApi", $version)->GetUtcNow()->GetUtcNowResult;
    check("$v GetUtcNow is a UTC date-time string: $now", is_string($now) && preg_match('/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,7})?Z$/', $now));
    check("$v GetUtcNow is now", abs(strtotime($now) - time()) < 60);
    $text = client("ErrorsApi", $version)->GetErrorDesc(["errorCode" => 12, "cultureCode" => 1033])->GetErrorDescResult;
    same("$v GetErrorDesc", "The transaction or task has expired.", $text);
}

// As docs/api.md shows it for PHP: the key as an HTTP header of the client's stream context.
function keyed_topup_is_applied_once() {
    global $port;
    $n = (getmypid() % 10000) * 100 + 6;
    $login = "pc$n"; $session = "php-session-$n"; $purse = sprintf("Z%012d", 800000000000 + $n); $id = 800000 + $n;
    $secret = "php-keyed-secret-$n";
    ctl("add-login", $login, $secret);
    ctl("add-purse", $login, $purse);
    ctl("add-card", $login, $id);
    same("keyed: Authenticate", 0, client("SimpleAuthApi", SOAP_1_1)->Authenticate(["sessionId" => $session, "login" => $login, "authHash" => auth_hash($login, $secret, $session)])->AuthenticateResult);
    $context = stream_context_create();
    $account = new SoapClient("http://127.0.0.1:$port/AccountApi.asmx?WSDL",
        ["soap_version" => SOAP_1_1, "cache_wsdl" => WSDL_CACHE_NONE, "stream_context" => $context, "trace" => true]);
    stream_context_set_option($context, 'http', 'header', "Idempotency-Key: php-" . bin2hex(random_bytes(8)));
    for ($i = 0; $i < 3; $i++) {
        same("keyed: TopupPurseFromAtmCard #$i", 0, $account->TopupPurseFromAtmCard(["sessionId" => $session, "purseDest" => $purse, "cardId" => $id, "amount" => 4.5])->TopupPurseFromAtmCardResult);
        check("keyed: #$i answered as a replay after the first", ($i > 0) === str_contains($account->__getLastResponseHeaders() ?? "", "Idempotent-Replayed: true"));
    }
    same("keyed: applied once", "4.50", sql("SELECT balance FROM purses WHERE purse = '$purse'"));
}

try {
    keyed_topup_is_applied_once();
    run_every_operation(SOAP_1_1, 3);
    run_every_operation(SOAP_1_2, 4);
} catch (Throwable $e) {
    $failed++;
    fwrite(STDERR, "FAIL: " . get_class($e) . ": " . $e->getMessage() . "\n");
}
echo "$passed passed, $failed failed\n";
exit($failed === 0 ? 0 : 1);
