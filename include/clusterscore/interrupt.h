// Stopping a long computation from outside: the core polls a check that its host (the
// Python bindings, a command line) installs, between phases and every few million items.
#pragma once

#include <stdexcept>

namespace clusterscore {

// Thrown out of any core function when the installed check asked to stop. Every result
// under construction is dropped; nothing half-done is returned.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

// Returns true to stop the computation. Called from the thread running it, at least every
// ~4 million items of any loop that grows with the input; must be cheap and may not throw.
using InterruptCheck = bool (*)();

// Installs `check` for every later call (nullptr: never stop, the default). Not to be
// changed while a computation runs.
void set_interrupt_check(InterruptCheck check) noexcept;

}  // namespace clusterscore
