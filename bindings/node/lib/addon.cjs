"use strict";
// The compiled addon, where both builds put it: `npm install` (node-gyp, binding.gyp) and
// the checkout's CMake build, which lays the package out in its build tree.
module.exports = require("../build/Release/thm.node");
