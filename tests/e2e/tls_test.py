"""The stack over HTTPS with the shipped keeper-tls.conf: every transport with the
certificate verified, HSTS, TLS 1.2 as the floor, and WSDL addresses that say https://.

scripts/test serves the same stack on KEEPER_TEST_TLS_PORT with a self-signed certificate for
localhost (KEEPER_TEST_TLS_CA), which this test trusts and nothing else.
"""
import os
import ssl
import unittest
import xml.dom.minidom

from harness import web

PORT = int(os.environ["KEEPER_TEST_TLS_PORT"])
CA = os.environ["KEEPER_TEST_TLS_CA"]

SOAP11 = ('<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>'
          '<GetErrorDesc xmlns="http://tempuri.org/"><errorCode>7</errorCode><cultureCode>1033</cultureCode>'
          '</GetErrorDesc></soap:Body></soap:Envelope>')
SOAP12 = SOAP11.replace("http://schemas.xmlsoap.org/soap/envelope/", "http://www.w3.org/2003/05/soap-envelope")


def verified_context(**limits):
    ctx = ssl.create_default_context(cafile=CA)  # verification and host name checks on
    for name, value in limits.items():
        setattr(ctx, name, value)
    return ctx


def call(method, path, headers=None, body=None, context=None):
    status, answer_headers, answer = web.call(PORT, path, method, headers, body, "localhost",
                                              context or verified_context(), timeout=10)
    return status, answer_headers, answer.decode()


class OverTls(unittest.TestCase):
    def test_every_transport_answers_over_verified_tls_with_hsts(self):
        cases = [
            ("POST", "/ErrorsApi.asmx", {"Content-Type": "text/xml; charset=utf-8", "SOAPAction": '"http://tempuri.org/GetErrorDesc"'}, SOAP11),
            ("POST", "/ErrorsApi.asmx", {"Content-Type": "application/soap+xml; charset=utf-8"}, SOAP12),
            ("GET", "/ErrorsApi.asmx/GetErrorDesc?errorCode=7&cultureCode=1033", {}, None),
            ("POST", "/ErrorsApi.asmx/GetErrorDesc", {"Content-Type": "application/x-www-form-urlencoded"}, "errorCode=7&cultureCode=1033"),
        ]
        for method, path, headers, body in cases:
            status, h, text = call(method, path, headers, body)
            self.assertEqual(status, 200, text)
            self.assertIn("max-age=63072000", h["Strict-Transport-Security"])
            self.assertEqual(h["X-Content-Type-Options"], "nosniff")
            self.assertRegex(text, r"<GetErrorDescResult>[^<]+</GetErrorDescResult>|<string [^>]*>[^<]+</string>")

    def test_the_wsdl_names_https_addresses(self):
        status, _, wsdl = call("GET", "/AccountApi.asmx?WSDL")
        self.assertEqual(status, 200)
        doc = xml.dom.minidom.parseString(wsdl)
        locations = [a.getAttribute("location") for a in doc.getElementsByTagName("soap:address")]
        locations += [a.getAttribute("location") for a in doc.getElementsByTagName("soap12:address")]
        self.assertTrue(locations)
        for location in locations:
            self.assertEqual(location, f"https://localhost:{PORT}/AccountApi.asmx")

    def test_an_untrusted_client_or_an_old_protocol_is_refused(self):
        with self.assertRaises(ssl.SSLCertVerificationError):
            call("GET", "/GlobalApi.asmx/GetUtcNow", context=ssl.create_default_context())  # system CAs only
        old = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        old.load_verify_locations(CA)
        old.minimum_version = ssl.TLSVersion.MINIMUM_SUPPORTED
        old.maximum_version = ssl.TLSVersion.TLSv1_1
        try:
            old.set_ciphers("ALL:@SECLEVEL=0")
        except ssl.SSLError:
            pass
        with self.assertRaises((ssl.SSLError, ConnectionError)):
            call("GET", "/GlobalApi.asmx/GetUtcNow", context=old)


if __name__ == "__main__":
    unittest.main(verbosity=2)
