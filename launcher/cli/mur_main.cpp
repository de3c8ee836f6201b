// mur_main.cpp — the `mur` executable: a thin dispatcher. Every refusal leaves as its code
// and a Fix: line on stderr with exit 1; nothing escapes as an uncaught exception.
#include "launcher/cli/cli.hpp"
#include "messages/vocabulary/failure.hpp"
#include "os/private_process.hpp"

#include <csignal>
#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  mur::make_process_private();
  std::signal(SIGPIPE, SIG_IGN);
  try {
    return mur::run_cli(argc, argv);
  } catch (const mur::Failure& f) {
    std::cerr << f.render();
    return mur::exit_refused;
  } catch (const std::exception& e) {
    std::cerr << "error[E-ERR-001]: unexpected failure: " << e.what()
              << "\nFix: this is a bug in mur; please report it with the command you ran\n";
    return mur::exit_refused;
  } catch (...) {
    std::cerr << "error[E-ERR-001]: unexpected failure\nFix: this is a bug in mur; please report it\n";
    return mur::exit_refused;
  }
}
