#!/usr/bin/python3
"""Each folder under tests/ is one label: a test whose command runs a file of tests/<folder>/ (at
any depth) carries the label <folder>, and its name starts with it. The Boost.Test tiers are made
so by keeper_test_tier and the scripts by their file names (tests/CMakeLists.txt); a test added
there by hand, or a wrapper that runs another folder's file, is held to the same rule."""
import json
import os
import pathlib
import re
import subprocess
import unittest

TESTS = pathlib.Path(__file__).resolve().parents[1]


def registered():
    out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=os.environ["KEEPER_TEST_BUILD_DIR"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["tests"]


def label_of(test):
    for p in test.get("properties", []):
        if p["name"] == "LABELS":
            return p["value"]
    return []


class Labels(unittest.TestCase):
    def test_each_script_carries_its_folders_label(self):
        checked, wrong = 0, []
        for test in registered():
            folders = {m.group(1) for arg in test.get("command", [])
                       for m in [re.match(re.escape(str(TESTS)) + r"/([^/]+)/", arg)] if m}
            folders -= {"support", "harness"}  # helpers that tests of every folder run
            if not folders:
                continue
            checked += 1
            (folder,) = folders
            if label_of(test) != [folder] or not test["name"].startswith(folder + "."):
                wrong.append(f"{test['name']}: runs tests/{folder}/, labelled {label_of(test)}")
        self.assertGreater(checked, 30)
        self.assertEqual(wrong, [])


if __name__ == "__main__":
    unittest.main()
