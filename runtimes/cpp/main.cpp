// The C++ kit's entry: one trial, answered by the C kit's protocol code
// (../c/kit.c) as the runtime "cpp".
#include "kit.h"

int main(int argc, char **argv) { return kit_main(argc, argv, "cpp"); }
