// The `thm` tool: whichever commands are linked into it (thm/cli/tool.hpp).
#include "thm/cli/tool.hpp"

int main(int argc, char** argv) { return thm::cli::run_tool(argc, argv); }
