"""Python zeep (Debian's python3-zeep) against the running stack, WSDL loaded from the service.

Every operation through the SOAP 1.1 and the SOAP 1.2 binding: the decoded result has the right
Python type and value, and the change shows in the database.
"""
import datetime
import uuid
import unittest

import zeep

from harness import test_stack as stack


def client(group, binding):
    return zeep.Client(stack.wsdl(group), service_name=group, port_name=f"{group}{binding}").service


class ZeepClientTest(unittest.TestCase):
    def run_every_operation(self, binding, tag):
        o = stack.Objects(tag)
        auth = client("SimpleAuthApi", binding)
        account = client("AccountApi", binding)
        telepay = client("TelepayApi", binding)
        push = client("PushApi", binding)

        result = auth.Authenticate(sessionId=o.session, login=o.login, authHash=stack.auth_hash(o.login, o.secret, o.session))
        self.assertIsInstance(result, int)
        self.assertEqual(result, 0)
        self.assertEqual(auth.Authenticate(sessionId=o.session, login=o.login, authHash="0" * 32), 4)
        self.assertEqual(account.CheckSessionEx(sessionId=o.session, appId=o.app), 0)
        self.assertEqual(account.CheckSessionEx(sessionId="no-such-session", appId=o.app), 2)

        self.assertEqual(account.SetAccountPermits(sessionId=o.session, acceptPayments=True, acceptInvoices=False, acceptMessages=True), 0)
        self.assertEqual(stack.sql(f"SELECT accept_payments::text || accept_invoices::text || accept_messages::text FROM account_permits WHERE login_id = {o.login_id()}"), "truefalsetrue")
        self.assertEqual(account.SetContactPermitsEx(sessionId=o.session, wmid="123456789012", acceptPayments=False, acceptInvoices=True, acceptMessages=False, dontUseConfirmation=True), 0)
        self.assertEqual(stack.sql(f"SELECT dont_use_confirmation FROM contact_permits WHERE login_id = {o.login_id()} AND wmid = '123456789012'"), "t")

        self.assertEqual(account.FinishCodeProtectedOperation(sessionId=o.session, tranId=o.id, protectionCode="0000"), 6)
        self.assertEqual(account.FinishCodeProtectedOperation(sessionId=o.session, tranId=o.id, protectionCode="4321"), 0)
        self.assertEqual(stack.sql(f"SELECT status FROM protected_transfers WHERE id = {o.id}"), "completed")

        self.assertEqual(account.TopupPurseFromAtmCard(sessionId=o.session, purseDest=o.purse, cardId=o.id, amount=10.2), 0)
        self.assertEqual(stack.sql(f"SELECT balance FROM purses WHERE purse = '{o.purse}'"), "11.30")
        self.assertEqual(account.TopupPurseFromAtmCard(sessionId=o.session, purseDest=o.purse, cardId=o.id, amount=10.001), 1)
        self.assertEqual(account.TopupPurseFromAtmCard(sessionId=o.session, purseDest=o.purse, cardId=o.id, amount=15000.01), 9)

        self.assertEqual(telepay.TelepaySchedulerConfirmCreate(sessionId=o.session, profileId=o.id, taskId=1, code="777"), 0)
        self.assertEqual(stack.sql(f"SELECT status FROM telepay_tasks WHERE profile_id = {o.id} AND id = 1"), "active")
        self.assertEqual(telepay.RenameTelepayProfile(sessionId=o.session, id=o.id, name=" Квартплата "), 0)
        self.assertEqual(stack.sql(f"SELECT name FROM telepay_profiles WHERE id = {o.id}"), "Квартплата")

        device = f"zeep-device-{o.id}"
        self.assertEqual(push.SubscribeWithTagAndLocale(sessionId=o.session, provider="WindowsUWP", pushServiceUserId=device, tag=4, locale=1049), 0)
        self.assertEqual(stack.sql(f"SELECT tag || ' ' || locale FROM push_subscriptions WHERE provider = 'WindowsUWP' AND push_service_user_id = '{device}'"), "4 1049")
        app_hash = stack.auth_hash(o.app, o.app_secret, "app-user")
        self.assertEqual(push.SubscribeAppWithTagAndLocale(appId=o.app, userId="app-user", pushServiceUserId=device, tag=2, locale=1033, authHash=app_hash), 0)
        self.assertEqual(stack.sql(f"SELECT provider FROM app_push_subscriptions WHERE push_service_user_id = '{device}'"), "iOS")
        self.assertEqual(push.MarkPushSmsAsDelivered(sessionId=o.session, id=o.id), 0)
        self.assertEqual(stack.sql(f"SELECT delivered_at IS NOT NULL FROM push_sms WHERE id = {o.id}"), "t")

        now = client("GlobalApi", binding).GetUtcNow()
        self.assertIsInstance(now, datetime.datetime)
        self.assertLess(abs(now - datetime.datetime.now(datetime.timezone.utc)), datetime.timedelta(minutes=1))
        text = client("ErrorsApi", binding).GetErrorDesc(errorCode=5, cultureCode=1049)
        self.assertIsInstance(text, str)
        self.assertEqual(text, "Объект не найден.")

    def test_soap11_binding(self):
        self.run_every_operation("Soap", 1)

    def test_soap12_binding(self):
        self.run_every_operation("Soap12", 2)

    def test_a_keyed_topup_repeated_is_applied_once(self):
        # As docs/api.md shows it for zeep: the key in extra_http_headers for the calls in the block.
        o = stack.Objects(5)
        auth = client("SimpleAuthApi", "Soap")
        self.assertEqual(auth.Authenticate(sessionId=o.session, login=o.login, authHash=stack.auth_hash(o.login, o.secret, o.session)), 0)
        c = zeep.Client(stack.wsdl("AccountApi"), service_name="AccountApi", port_name="AccountApiSoap")
        key = str(uuid.uuid4())
        for _ in range(3):
            with c.settings(extra_http_headers={"Idempotency-Key": key}):
                self.assertEqual(c.service.TopupPurseFromAtmCard(sessionId=o.session, purseDest=o.purse, cardId=o.id, amount=2.5), 0)
        self.assertEqual(stack.sql(f"SELECT balance FROM purses WHERE purse = '{o.purse}'"), "3.60")
        with c.settings(extra_http_headers={"Idempotency-Key": key}):
            with self.assertRaises(zeep.exceptions.Fault) as raised:
                c.service.TopupPurseFromAtmCard(sessionId=o.session, purseDest=o.purse, cardId=o.id, amount=3)
        self.assertIn("Idempotency-Key", raised.exception.message)

    def test_a_bad_value_is_a_soap_fault(self):
        transport = zeep.Transport()
        c = zeep.Client(stack.wsdl("ErrorsApi"), transport=transport)
        # Bypass client-side typing: send an envelope whose int is not an int.
        with self.assertRaises(zeep.exceptions.Fault) as raised:
            c.service.GetErrorDesc(errorCode=zeep.xsd.AnyObject(zeep.xsd.String(), "four"), cultureCode=1033)
        self.assertIn("errorCode", raised.exception.message)


if __name__ == "__main__":
    unittest.main(verbosity=2)
