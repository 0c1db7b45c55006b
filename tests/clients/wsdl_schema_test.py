"""Each group's WSDL, as served: well-formed (xmllint), its types schema compiles as XML Schema
(xmllint --schema), and every golden SOAP request and response body validates against it."""
import os
import re
import subprocess
import tempfile
import unittest
import urllib.request

from harness import test_stack as stack

GOLDEN = os.path.join(os.environ["KEEPER_TEST_SOURCE_DIR"], "tests", "golden")
GROUPS = ["AccountApi", "TelepayApi", "SimpleAuthApi", "PushApi", "GlobalApi", "ErrorsApi"]


def fetch(url):
    with urllib.request.urlopen(url) as r:
        return r.read().decode()


def xmllint(*args):
    return subprocess.run(["xmllint", "--noout", *args], capture_output=True, text=True)


def schema_of(wsdl):
    """The <s:schema> element as a standalone XSD (the prefixes it uses are declared on wsdl:definitions)."""
    body = re.search(r"<s:schema .*?</s:schema>", wsdl, re.S).group(0)
    ns = re.search(r'targetNamespace="([^"]+)"', wsdl).group(1)
    return body.replace("<s:schema ", f'<s:schema xmlns:s="http://www.w3.org/2001/XMLSchema" xmlns:tns="{ns}" ', 1)


def soap_bodies(case_text):
    """The element inside soap:Body of the request and of the expected response."""
    return re.findall(r"<soap:Body>(.*?)</soap:Body>", case_text, re.S)


class WsdlSchemaTest(unittest.TestCase):
    def test_every_group_wsdl_is_valid_and_golden_bodies_validate(self):
        with tempfile.TemporaryDirectory() as tmp:
            for group in GROUPS:
                wsdl = fetch(f"{stack.BASE}/{group}.asmx?wsdl")
                wsdl_file = os.path.join(tmp, f"{group}.wsdl")
                with open(wsdl_file, "w") as f:
                    f.write(wsdl)
                self.assertEqual(xmllint(wsdl_file).returncode, 0, f"{group}: WSDL not well-formed")
                xsd = os.path.join(tmp, f"{group}.xsd")
                with open(xsd, "w") as f:
                    f.write(schema_of(wsdl))
                operations = re.findall(r'<wsdl:operation name="([^"]+)">\s*<wsdl:documentation', wsdl)
                self.assertTrue(operations, group)
                for op in set(operations):
                    with open(os.path.join(GOLDEN, f"{op}.soap11.case"), encoding="utf-8") as f:
                        case = f.read()
                    for i, body in enumerate(soap_bodies(case)):
                        instance = os.path.join(tmp, f"{op}.{i}.xml")
                        with open(instance, "w", encoding="utf-8") as f:
                            f.write(body.replace("{{dateTime}}", "2026-11-22T01:46:25.001054Z"))
                        result = xmllint("--schema", xsd, instance)
                        self.assertEqual(result.returncode, 0, f"{op} body {i}: {result.stderr}")

    def test_addresses_follow_the_host_the_client_used(self):
        request = urllib.request.Request(f"{stack.BASE}/GlobalApi.asmx?WSDL", headers={"Host": "api.example.test:8443"})
        wsdl = fetch(request)
        for address in ("soap:address", "soap12:address", "http:address"):
            self.assertIn(f'<{address} location="http://api.example.test:8443/GlobalApi.asmx" />', wsdl)

    def test_disco_points_at_the_wsdl(self):
        disco = fetch(f"{stack.BASE}/PushApi.asmx?disco")
        self.assertIn(f'ref="{stack.BASE}/PushApi.asmx?wsdl"', disco)
        self.assertIn('binding="q2:PushApiSoap12"', disco)


if __name__ == "__main__":
    unittest.main(verbosity=2)
