"""A client generated from docs/openapi.json calls every operation over JSON.

openapi-typescript (npm) turns the document into TypeScript types, `tsc --strict` compiles
openapi_client/call_every_operation.ts against them with openapi-fetch (npm), and Node.js runs it
against the stack: all 13 operations, a keyed top-up sent twice (the second answer replayed), and
a missing parameter's 400. Here the answers and their effects in the database are checked. tsc
must also refuse openapi_client/mistyped.ts, which passes a string as an int32, and
openapi_client/unknown_locale.ts, which passes a locale the document's constraints exclude: the
types the client is checked with are real, constraints included. The npm tools are those scripts/test installed
(KEEPER_TEST_NODE_TOOLS, from tests/e2e/openapi/package-lock.json).
"""
import datetime
import json
import os
import pathlib
import re
import shutil
import subprocess
import unittest

from harness import test_stack as stack

HERE = pathlib.Path(__file__).resolve().parent
DOC = HERE.parents[1] / "docs" / "openapi.json"
TOOLS = pathlib.Path(os.environ["KEEPER_TEST_NODE_TOOLS"])
BIN = TOOLS / "node_modules" / ".bin"
TSCONFIG = {
    "compilerOptions": {"strict": True, "target": "es2022", "module": "es2022", "moduleResolution": "bundler",
                        "types": ["node"], "lib": ["es2022", "dom"], "outDir": "dist", "skipLibCheck": False},
}


def run(*cmd, cwd=None):
    return subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=180)


class GeneratedClient(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Inside the tools' directory, so that Node.js finds openapi-fetch in its node_modules.
        cls.work = TOOLS / "openapi-client"
        shutil.rmtree(cls.work, ignore_errors=True)
        cls.work.mkdir(parents=True)
        for f in ("call_every_operation.ts", "mistyped.ts", "unknown_locale.ts"):
            shutil.copy(HERE / "openapi_client" / f, cls.work / f)
        (cls.work / "package.json").write_text('{"type": "module", "private": true}\n')
        generated = run(BIN / "openapi-typescript", DOC, "-o", cls.work / "keeper-api.d.ts")
        assert generated.returncode == 0, generated.stdout + generated.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def compile(self, source):
        (self.work / "tsconfig.json").write_text(json.dumps(dict(TSCONFIG, files=[source])))
        return run(BIN / "tsc", "-p", self.work / "tsconfig.json", cwd=self.work)

    def test_tsc_refuses_a_call_the_document_does_not_allow(self):
        compiled = self.compile("mistyped.ts")
        self.assertNotEqual(compiled.returncode, 0)
        self.assertIn("mistyped.ts(7,", compiled.stdout)  # the errorCode given as "four"
        self.assertIn("error TS2322: Type 'string' is not assignable to type 'number'", compiled.stdout)

    def test_tsc_refuses_a_value_the_documents_constraints_exclude(self):
        compiled = self.compile("unknown_locale.ts")
        self.assertNotEqual(compiled.returncode, 0)
        self.assertIn("unknown_locale.ts(7,", compiled.stdout)  # locale 1099
        self.assertIn("Type '1099' is not assignable to type '1033 | 1049'", compiled.stdout)

    def test_the_generated_client_calls_every_operation(self):
        compiled = self.compile("call_every_operation.ts")
        self.assertEqual(compiled.returncode, 0, compiled.stdout + compiled.stderr)
        o = stack.Objects(31)
        device = f"openapi-device-{o.id}"
        objects = {"base": stack.BASE, "login": o.login, "session": o.session,
                   "authHash": stack.auth_hash(o.login, o.secret, o.session), "app": o.app,
                   "appHash": stack.auth_hash(o.app, o.app_secret, "app-user"), "purse": o.purse, "id": o.id,
                   "device": device, "key": f"openapi-topup-{o.id}"}
        ran = run("node", self.work / "dist" / "call_every_operation.js", json.dumps(objects))
        self.assertEqual(ran.returncode, 0, ran.stdout + ran.stderr)
        answers = json.loads(ran.stdout)
        print("generated client answers: " + ran.stdout.strip())
        codes = ["Authenticate", "CheckSessionEx", "SetAccountPermits", "SetContactPermitsEx",
                 "FinishCodeProtectedOperation", "TopupPurseFromAtmCard", "TelepaySchedulerConfirmCreate",
                 "RenameTelepayProfile", "SubscribeWithTagAndLocale", "SubscribeAppWithTagAndLocale",
                 "MarkPushSmsAsDelivered"]
        self.assertEqual({k: answers[k] for k in codes}, {k: 0 for k in codes})
        self.assertEqual((answers["TopupRepeated"], answers["TopupReplayed"]), (0, True))
        self.assertEqual(stack.sql(f"SELECT balance FROM purses WHERE purse = '{o.purse}'"), "11.30")  # once
        self.assertEqual(stack.sql(f"SELECT name FROM telepay_profiles WHERE id = {o.id}"), "Квартплата")
        self.assertEqual(stack.sql(f"SELECT status FROM protected_transfers WHERE id = {o.id}"), "completed")
        ms = int(re.fullmatch(r"/Date\((\d+)\)/", answers["GetUtcNow"]).group(1))
        now = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
        self.assertLess(abs(now - datetime.datetime.now(datetime.timezone.utc)), datetime.timedelta(minutes=1))
        self.assertEqual(answers["GetErrorDesc"], "Объект не найден.")
        self.assertEqual(answers["MissingParameterStatus"], 400)
        self.assertEqual(answers["MissingParameterMessage"], "Missing parameter: login.")


if __name__ == "__main__":
    unittest.main(verbosity=2)
