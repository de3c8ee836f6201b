// atoms.hpp — the project's CAF atoms are declared in the one type-ID block,
// messages/vocabulary/message_types.hpp (spelt `x_atom` as a type, `x_atom_v` as a value); this header
// stays so the actors keep one include for them.
#pragma once

#include "messages/vocabulary/message_types.hpp"
