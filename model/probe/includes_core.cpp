// Compiled with the model's include path only, this must FAIL: the model cannot see core.
#include "thm/core.hpp"
int main() { return 0; }
