// cmd_new.hpp — `mur new NAME [--model script|http]`: scaffolds a formation project to start from.
//
// Invariant: NAME/ is created fresh (an existing path is refused, E-NEW-001, nothing written)
// with a roster.yaml and two capsules — `lead` (the entry) that hands its task to `worker` —
// which `mur install`, `mur doctor` and `mur run --roster` accept as written. `script` (the
// default) runs offline; `http` points both at a local OpenAI-compatible server
// (http://127.0.0.1:11434/v1, model llama3.2). Capsule names are `<base of NAME>-lead` and
// `-worker`, so NAME's last part must be a capsule name (E-NEW-002).
// Rule: `mur new NAME` scaffolds a project whose capsules install, pass doctor and run offline as
// written (docs/spec/choices.md §Command line).
#pragma once

#include <string>

namespace mur {

int cmd_new(const std::string& name, const std::string& model);

} // namespace mur
