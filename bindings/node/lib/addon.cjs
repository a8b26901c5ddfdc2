"use strict";
// The compiled addon, where the one build puts it: `npm install` (build.cjs, which runs CMake)
// copies it here, and the checkout's CMake build lays the package out in its build tree.
module.exports = require("../build/Release/thm.node");
