"""The repository walk under scripts/ never enters a build tree: another test may be creating
and deleting folders there while the walk runs (a CMake try-compile in an install test), and a
folder that vanishes or cannot be read must not fail a check about the sources."""

import os
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import source_tree  # noqa: E402


def unreadable_depth(base):
    """Nests folders under `base` until their path is longer than the system allows, so that
    listing the innermost one fails with an error other than a permission error."""
    limit = os.pathconf(base, "PC_PATH_MAX")
    name = "d" * 200
    fd = os.open(base, os.O_RDONLY)
    depth = 0
    try:
        while len(str(base)) + depth * (len(name) + 1) <= limit + len(name):
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
            depth += 1
    finally:
        os.close(fd)


class SourceTreeTest(unittest.TestCase):
    def test_skips_build_trees_without_listing_them(self):
        with tempfile.TemporaryDirectory() as directory:
            root = Path(directory)
            (root / "core").mkdir()
            (root / "core" / "a.cpp").write_text("int a;\n")
            (root / "core" / "run").write_text("#!/usr/bin/env python3\n")
            for skipped in ("build", "build-x", "node_modules", ".git", "core/__pycache__"):
                (root / skipped).mkdir()
                (root / skipped / "b.cpp").write_text("int b;\n")
            unreadable_depth(root / "build")
            found = [p.relative_to(root).as_posix()
                     for p in source_tree.files(root, (".cpp",), python_scripts=True)]
            self.assertEqual(found, ["core/a.cpp", "core/run"])

    def test_a_suffix_outside_the_list_is_not_a_source(self):
        with tempfile.TemporaryDirectory() as directory:
            root = Path(directory)
            (root / "a.txt").write_text("text\n")
            (root / "b.py").write_text("pass\n")
            (root / "c").write_text("#!/bin/sh\n")
            found = [p.name for p in source_tree.files(root, (".py",), python_scripts=True)]
            self.assertEqual(found, ["b.py"])


if __name__ == "__main__":
    unittest.main()
