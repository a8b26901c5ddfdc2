#!/usr/bin/env python3
"""The GoogleTest suite writes the reports `thm conformance` writes (gtest.hpp): runs the
typed suite's EQ-05 and EQ-24 for the in-memory harness with THM_CONFORMANCE_REPORT,
_JUNIT and _HTML set, and reads the three files back.

    gtest_reports_test.py TEST_BINARY WORK_DIR
"""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

binary, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
paths = {kind: os.path.join(work, f"report.{kind}") for kind in ("json", "xml", "html")}
for path in paths.values():
    if os.path.exists(path):
        os.remove(path)
environment = dict(os.environ, THM_CONFORMANCE_SHORT="1", THM_CONFORMANCE_REPORT=paths["json"],
                   THM_CONFORMANCE_JUNIT=paths["xml"], THM_CONFORMANCE_HTML=paths["html"])
run = subprocess.run([binary, "--gtest_filter=Memory/QueueConformance/*.EQ05_*:"
                      "Memory/QueueConformance/*.EQ24_*"], env=environment, capture_output=True,
                     text=True, check=False)
assert run.returncode == 0, run.stdout + run.stderr

report = json.load(open(paths["json"], encoding="utf-8"))
assert report["harness"] == "memory", report["harness"]
assert [check["id"] for check in report["checks"]] == ["EQ-05", "EQ-24"], report["checks"]
assert all(check["result"] == "pass" for check in report["checks"]), report["checks"]
assert report["options"]["short"] is True, report["options"]
cases = ET.parse(paths["xml"]).getroot().iter("testcase")
assert [case.get("name", "").split(" ")[0] for case in cases] == ["EQ-05", "EQ-24"]
page = open(paths["html"], encoding="utf-8").read()
assert page.startswith("<!DOCTYPE html>") and "EQ-24" in page, page[:200]
print("gtest_reports_test: JSON, JUnit and HTML written for EQ-05 and EQ-24")
