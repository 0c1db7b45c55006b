"""docs/openapi.json against an OpenAPI validator, against what the stack serves, and against
every JSON answer the tests receive.

- The document passes @seriousme/openapi-schema-validator (npm; scripts/test installs it with
  `npm ci` from tests/e2e/openapi/package-lock.json into KEEPER_TEST_NODE_TOOLS), and a broken copy
  of it does not (the check can fail).
- It passes Redocly's linter (@redocly/cli, pinned in the same lock file) with its recommended
  rules (tests/e2e/openapi/redocly.yaml), with neither an error nor a warning; it warns of a copy with
  an operation that lacks its operationId.
- GET /openapi.json through nginx answers the committed document byte for byte.
- Every JSON answer is an instance of the document's schema for its operation and status (JSON
  Schema 2020-12, Debian's python3-jsonschema): the golden JSON cases replayed here, and every JSON
  answer the end-to-end tests received, keeper's and nginx's own (tests/support/http_client.cpp and
  tests/e2e/nginx_faults_test.py append them to KEEPER_TEST_JSON_CAPTURE; ctest runs this test
  after them). An answer whose status the document
  does not list for its operation fails too.
"""
import copy
import json
import os
import pathlib
import subprocess
import tempfile
import unittest
import urllib.parse

import jsonschema

from harness import web

ROOT = pathlib.Path(__file__).resolve().parents[3]
DOC_PATH = ROOT / "docs" / "openapi.json"
PORT = int(os.environ["KEEPER_TEST_PORT"])
VALIDATOR = pathlib.Path(os.environ["KEEPER_TEST_NODE_TOOLS"]) / "node_modules" / ".bin" / "validate-api"
REDOCLY = pathlib.Path(os.environ["KEEPER_TEST_NODE_TOOLS"]) / "node_modules" / ".bin" / "redocly"


def redocly_lint(path):
    """(exit status, what it said) of Redocly's linter on the document at path; no telemetry."""
    env = dict(os.environ, REDOCLY_TELEMETRY="off", REDOCLY_SUPPRESS_UPDATE_NOTICE="true")
    out = subprocess.run([str(REDOCLY), "lint", "--format=summary", "--config", str(ROOT / "tests/e2e/openapi/redocly.yaml"),
                          str(path)], capture_output=True, text=True, env=env, timeout=120)
    return out.returncode, out.stdout + out.stderr
CAPTURE = os.environ.get("KEEPER_TEST_JSON_CAPTURE", "")
DOC = json.loads(DOC_PATH.read_text())


def validate_api(path):
    return subprocess.run([str(VALIDATOR), str(path)], capture_output=True, text=True, timeout=60)


def call(method, target, content_type, body):
    status, headers, answer = web.call(PORT, target, method, {"Content-Type": content_type} if content_type else {},
                                       body.encode(), timeout=30)
    return status, headers.get("jsonerror") or "", answer.decode("utf-8", "replace")


def golden_json_exchanges():
    """The request of every golden JSON case (tests/golden/*.json.case and errors/*.case)."""
    golden = ROOT / "tests" / "golden"
    for f in sorted(list(golden.glob("*.json.case")) + list((golden / "errors").glob("*.case"))):
        text = f.read_text()
        request = text.split("\n=== response\n")[0]
        lines = [l for l in request.split("\n") if not l.startswith("#")]
        method, target = lines[0].split(" ", 1)
        blank = lines.index("")
        headers = dict(l.split(": ", 1) for l in lines[1:blank])
        body = "\n".join(lines[blank + 1:])
        if body.startswith("{{bytes:") and body.endswith("}}"):
            body = "x" * int(body[len("{{bytes:"):-2])
        yield f.name, method, target, headers.get("Content-Type", ""), body


def schema_for(method, target, status):
    """The response schema the document gives this answer, or a reason why there is none."""
    path = urllib.parse.urlsplit(target).path
    item = DOC["paths"].get(path)
    if item is None:
        # A path the document does not describe (an unknown operation, a group path): only its
        # errors are JSON, and those are the shared error shape.
        return ({"$ref": "#/components/schemas/Error"}, True) if status >= 400 else (None, f"{path} is not in the document")
    operation = item.get(method.lower())
    if operation is None:
        return None, f"{method} {path} is not in the document"
    response = operation["responses"].get(str(status))
    if response is None:
        return None, f"status {status} is not listed for {path}"
    if "$ref" in response:
        response = DOC["components"]["responses"][response["$ref"].rsplit("/", 1)[-1]]
    return response["content"]["application/json"]["schema"], status >= 400


def check_answer(schema, body):
    """jsonschema's errors for body against schema, resolved within the document."""
    validator = jsonschema.Draft202012Validator(
        schema, resolver=jsonschema.RefResolver.from_schema(DOC, id_of=lambda _: ""))
    return [e.message for e in validator.iter_errors(json.loads(body))]


class OpenApiDocument(unittest.TestCase):
    def test_the_document_passes_the_openapi_validator(self):
        result = validate_api(DOC_PATH)
        print(result.stdout.strip())
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertTrue(json.loads(result.stdout)["valid"])

    def test_the_validator_refuses_a_broken_document(self):
        broken = copy.deepcopy(DOC)
        first = next(iter(broken["paths"].values()))["post"]
        first["requestBody"]["required"] = "yes"
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump(broken, f)
            f.flush()
            self.assertNotEqual(validate_api(f.name).returncode, 0)

    def test_the_document_passes_redocly_lint_without_a_warning(self):
        status, said = redocly_lint(DOC_PATH)
        self.assertEqual(status, 0, said)
        self.assertNotRegex(said, r"(?m)^\s*(error|warning)\s", said)

    def test_redocly_lint_warns_of_an_operation_without_its_id(self):
        broken = copy.deepcopy(DOC)
        del next(iter(broken["paths"].values()))["post"]["operationId"]
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump(broken, f)
            f.flush()
            _, said = redocly_lint(f.name)
        self.assertRegex(said, r"(?m)^\s*warning\s+operation-operationId: 1", said)

    def test_the_stack_serves_the_committed_document(self):
        status, _, body = call("GET", "/openapi.json", "", "")
        self.assertEqual(status, 200)
        self.assertEqual(body, DOC_PATH.read_text())

    def test_every_operation_is_described_once(self):
        ids = [op["operationId"] for item in DOC["paths"].values() for op in item.values()]
        self.assertEqual(len(ids), 13)
        self.assertEqual(len(set(ids)), 13)


class JsonAnswers(unittest.TestCase):
    def check(self, where, method, target, status, jsonerror, body):
        schema, is_error = schema_for(method, target, status)
        self.assertIsNotNone(schema, f"{where}: {is_error}")
        self.assertEqual(check_answer(schema, body), [], f"{where}: {method} {target} {status} {body[:200]}")
        if is_error:
            self.assertEqual(jsonerror, "true", f"{where}: an error without jsonerror")

    def test_every_golden_json_answer_matches_the_document(self):
        n = 0
        for name, method, target, content_type, body in golden_json_exchanges():
            status, jsonerror, answer = call(method, target, content_type, body)
            self.check(name, method, target, status, jsonerror, answer)
            n += 1
        print(f"golden JSON answers validated: {n}")
        self.assertGreaterEqual(n, 15)  # 13 operations and the error cases

    def test_every_json_answer_of_the_end_to_end_tests_matches_the_document(self):
        # Nothing captured means nothing checked: that fails, rather than pass unseen.
        self.assertTrue(CAPTURE and os.path.exists(CAPTURE),
                        "no JSON answers captured (run through scripts/test, after the end-to-end tests)")
        n = 0
        with open(CAPTURE, encoding="utf-8", errors="replace") as f:
            for line in f:
                r = json.loads(line)
                if ".asmx" not in urllib.parse.urlsplit(r["target"]).path:
                    continue  # /openapi.json itself
                self.check("e2e", r["method"], r["target"], r["status"], r["jsonerror"], r["body"])
                n += 1
        print(f"end-to-end JSON answers validated: {n}")
        self.assertGreater(n, 20)


if __name__ == "__main__":
    unittest.main(verbosity=2)
