#!/usr/bin/env python3
"""compat.py judges what it is given: a report that differs, a missing report, a missing
check, a red cell without its reason, a red cell red for another reason than the one its
evidence names and a stale matrix each fail."""
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

COMPAT = Path(__file__).with_name("compat.py")

EXPECTED = {
    "library": "toy 1.0",
    "runs": [{
        "recipe": "as documented", "flag": "plain", "setup": "a toy",
        "expected": {"EQ-01": "pass", "EQ-02": "skip", "EQ-04": "pass in part"},
        "why": {"EQ-02": "no hooks", "EQ-04": "judged the reported index"},
        "evidence": {"EQ-02": "why eq-02", "EQ-04": "why EQ-04"},
    }],
}


def report(**results):
    checks = []
    for check, result in results.items():
        check = check.replace("_", "-")
        checks.append({"id": check, "result": result.replace(" in part", ""),
                       "left_unproven": result.endswith("in part"), "reason": f"why {check}"})
    return {"harness": "toy", "passed": False, "checks": checks}


class CompatTest(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp())
        self.expected = self.dir / "expected.json"
        self.expected.write_text(json.dumps(EXPECTED))
        self.report = self.dir / "report.json"

    def compat(self, *args):
        done = subprocess.run([sys.executable, str(COMPAT), *map(str, args)],
                              capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr

    def run_with(self, found):
        """compat.py run, with a 'suite' that writes `found` as its report (None: none)."""
        written = self.dir / "found.json"
        command = ["true"]
        if found is not None:
            written.write_text(json.dumps(found))
            command = ["cp", str(written), str(self.report)]
        return self.compat("run", self.expected, "plain", self.report, "--", *command)

    def test_a_report_as_expected_passes(self):
        status, out = self.run_with(report(EQ_01="pass", EQ_02="skip", EQ_04="pass in part"))
        self.assertEqual(status, 0, out)
        self.assertIn("all 3 checks as expected", out)

    def test_a_changed_result_fails_naming_the_check(self):
        status, out = self.run_with(report(EQ_01="fail", EQ_02="skip", EQ_04="pass in part"))
        self.assertEqual(status, 1, out)
        self.assertIn("EQ-01: expected pass, the suite found fail: why EQ-01", out)

    def test_a_pass_in_part_is_not_a_pass(self):
        status, out = self.run_with(report(EQ_01="pass in part", EQ_02="skip", EQ_04="pass in part"))
        self.assertEqual(status, 1, out)

    def test_a_check_the_suite_did_not_run_fails(self):
        status, out = self.run_with(report(EQ_01="pass", EQ_02="skip"))
        self.assertEqual(status, 1, out)
        self.assertIn("EQ-04: expected pass in part, but the suite did not run it", out)

    def test_a_check_without_an_expected_result_fails(self):
        status, out = self.run_with(
            report(EQ_01="pass", EQ_02="skip", EQ_04="pass in part", EQ_05="pass"))
        self.assertEqual(status, 1, out)

    def test_an_expected_failure_for_the_adapters_own_reason_is_not_the_finding(self):
        # A red cell must stay red for the library's reason: an adapter that crashed or went
        # silent fails the check too, and that is a difference, not the expected result.
        broken = json.loads(json.dumps(EXPECTED))
        broken["runs"][0]["expected"]["EQ-01"] = "fail"
        broken["runs"][0]["why"]["EQ-01"] = "the library duplicates"
        broken["runs"][0]["evidence"]["EQ-01"] = "got Enqueued"
        self.expected.write_text(json.dumps(broken))
        found = report(EQ_01="fail", EQ_02="skip", EQ_04="pass in part")
        found["checks"][0]["reason"] = "harness error: the adapter failed 'enqueue_once': boom"
        status, out = self.run_with(found)
        self.assertEqual(status, 1, out)
        self.assertIn("EQ-01: expected fail, and it failed, but for the adapter's own reason", out)

    def test_a_suite_that_crashed_is_not_judged(self):
        written = self.dir / "found.json"
        written.write_text(json.dumps(report(EQ_01="pass", EQ_02="skip", EQ_04="pass in part")))
        status, out = self.compat("run", self.expected, "plain", self.report, "--", "sh", "-c",
                                  f"cp {written} {self.report}; exit 134")
        self.assertEqual(status, 1, out)
        self.assertIn("exit 134", out)

    def test_no_report_is_not_a_pass(self):
        status, out = self.run_with(None)
        self.assertEqual(status, 1, out)
        self.assertIn("wrote no report", out)

    def test_a_red_cell_needs_its_reason(self):
        broken = json.loads(json.dumps(EXPECTED))
        del broken["runs"][0]["why"]["EQ-02"]
        self.expected.write_text(json.dumps(broken))
        status, out = self.run_with(report(EQ_01="pass", EQ_02="skip", EQ_04="pass in part"))
        self.assertEqual(status, 2, out)
        self.assertIn("EQ-02 is skip without a reason", out)

    def test_a_red_cell_needs_the_phrase_the_suite_must_say(self):
        broken = json.loads(json.dumps(EXPECTED))
        del broken["runs"][0]["evidence"]["EQ-04"]
        self.expected.write_text(json.dumps(broken))
        status, out = self.run_with(report(EQ_01="pass", EQ_02="skip", EQ_04="pass in part"))
        self.assertEqual(status, 2, out)
        self.assertIn("EQ-04 is pass in part without its `evidence`", out)

    def test_a_red_cell_red_for_another_reason_fails(self):
        # The colour held, but the suite's reason is not the one the cell was written for:
        # the library changed, or the check now stops earlier, and the note below the matrix
        # would no longer be true.
        found = report(EQ_01="pass", EQ_02="skip", EQ_04="pass in part")
        found["checks"][1]["reason"] = "needs capability `leases`"
        status, out = self.run_with(found)
        self.assertEqual(status, 1, out)
        self.assertIn("EQ-02: skip as expected, but the suite's reason does not say 'why eq-02':"
                      " needs capability `leases`", out)

    def test_evidence_may_name_each_way_the_suite_reports_one_cause(self):
        either = json.loads(json.dumps(EXPECTED))
        either["runs"][0]["evidence"]["EQ-02"] = ["capability `hooks`", "why eq-02"]
        self.expected.write_text(json.dumps(either))
        status, out = self.run_with(report(EQ_01="pass", EQ_02="skip", EQ_04="pass in part"))
        self.assertEqual(status, 0, out)
        found = report(EQ_01="pass", EQ_02="skip", EQ_04="pass in part")
        found["checks"][1]["reason"] = "needs capability `leases`"
        status, out = self.run_with(found)
        self.assertEqual(status, 1, out)

    def test_the_matrix_must_be_the_one_the_expected_results_give(self):
        matrix = self.dir / "COMPATIBILITY.md"
        matrix.write_text("# m\n<!-- matrix: written by kit/adapters/compat.py from each"
                          " expected.json -->\nstale\n<!-- end of the matrix -->\ntail\n")
        self.assertEqual(self.compat("table", matrix, self.expected)[0], 1)
        self.assertEqual(self.compat("table", "--write", matrix, self.expected)[0], 0)
        status, out = self.compat("table", matrix, self.expected)
        self.assertEqual(status, 0, out)
        text = matrix.read_text()
        self.assertIn("| EQ-02 | skip |", text)
        self.assertIn("- EQ-02 skip: no hooks", text)
        self.assertTrue(text.endswith("tail\n"))


    def test_a_recipe_on_the_page_is_its_file(self):
        matrix = self.dir / "COMPATIBILITY.md"
        (self.dir / "recipe.mjs").write_text("export const step = 1;\n")
        matrix.write_text("# m\n<!-- matrix: written by kit/adapters/compat.py from each"
                          " expected.json -->\n<!-- end of the matrix -->\n"
                          "<!-- recipe: recipe.mjs -->\n```js\nan old sketch\n```\ntail\n")
        self.assertEqual(self.compat("table", "--write", matrix, self.expected)[0], 0)
        self.assertIn("```js\nexport const step = 1;\n```\ntail\n", matrix.read_text())
        self.assertEqual(self.compat("table", matrix, self.expected)[0], 0)
        (self.dir / "recipe.mjs").write_text("export const step = 2;\n")
        status, out = self.compat("table", matrix, self.expected)
        self.assertEqual(status, 1, out)
        self.assertIn("or a recipe as its file is", out)
        (self.dir / "recipe.mjs").unlink()
        status, out = self.compat("table", matrix, self.expected)
        self.assertEqual(status, 2, out)
        self.assertIn("the recipe recipe.mjs", out)


if __name__ == "__main__":
    unittest.main()
