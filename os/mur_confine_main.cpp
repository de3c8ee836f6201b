// mur_confine_main.cpp — the `mur-confine` executable, installed beside `mur`: a member starts
// each of its programs and tool servers through it (os/confined_start.hpp). It holds no runtime
// of its own (no actor system, no threads), so it can fork before it runs the program.
#include "os/confined_start.hpp"

int main(int argc, char** argv) { return mur::confined_start_main(argc, argv); }
