# The addon thm.node as `npm install` builds it, with the node-gyp bundled with npm and
# Node's own headers (build.cjs points node-gyp at them; nothing is downloaded). The checkout's
# CMake build makes the same addon from the same sources (CMakeLists.txt), which it lists:
# sources.cjs reads them from there. ICU and nlohmann_json come from the system (Debian's
# libicu-dev and nlohmann-json3-dev), as for every other build of thm.
{
  "target_defaults": {
    "cflags_cc!": ["-std=gnu++17", "-fno-rtti"],
    "cflags_cc": ["-std=c++20"],
    "include_dirs": ["../../core", "../../adapters/json"],
  },
  "targets": [
    {
      # thm::core, without exceptions (node-gyp's default), as CMake builds it (SPEC §0.4)
      "target_name": "thm_core",
      "type": "static_library",
      "sources": ["<!@(node sources.cjs core thm_core_objects)"],
    },
    {
      "target_name": "thm_json",
      "type": "static_library",
      "cflags_cc!": ["-fno-exceptions"],
      "sources": ["<!@(node sources.cjs adapters/json thm_json)"],
    },
    {
      "target_name": "thm",
      "dependencies": ["thm_core", "thm_json"],
      "cflags_cc!": ["-fno-exceptions"],
      "sources": ["src/addon.cpp", "src/convert.cpp", "src/operations.cpp", "src/queue.cpp"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": [
        "THM_VERSION=\"<!(node -p \"require('./package.json').version\")\"",
        "NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED",
        # A worker terminated while inside thm cannot take a JavaScript exception; without
        # this, node-addon-api's attempt to throw one ends the whole process.
        "NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS",
      ],
      "libraries": ["-licuuc"],
    },
  ],
}
