"use strict";
// The C++ sources of one CMake library of this checkout, for binding.gyp: node-gyp builds
// the same files CMake lists, read from the CMakeLists.txt that owns them, so the two builds
// cannot drift apart.
//
//   node sources.cjs core thm_core_objects   ->  ../../core/thm/briefing/briefing.cpp ...
const { readFileSync } = require("node:fs");
const { join, relative } = require("node:path");

const [folder, target] = process.argv.slice(2);
const root = join(__dirname, "..", "..");
const cmake = readFileSync(join(root, folder, "CMakeLists.txt"), "utf8");
const start = cmake.indexOf(`add_library(${target} `);
if (start < 0) throw new Error(`sources.cjs: no add_library(${target} ...) in ${folder}/CMakeLists.txt`);
const listed = cmake.slice(start, cmake.indexOf(")", start)).split(/\s+/).filter((word) => word.endsWith(".cpp"));
if (listed.length === 0) throw new Error(`sources.cjs: ${target} lists no .cpp file`);
for (const file of listed) console.log(relative(__dirname, join(root, folder, file)));
