// http_inference.hpp — the `inference` keys of `transport: http` (an OpenAI-compatible Chat
// Completions server), read from a capsule's `murmur.yaml`.
//
// Invariant: what this accepts is something the model port can send as it is: an endpoint that
// is `https://`, or `http://` to a loopback host only, with no user info, query or fragment; a
// model; a key only as `${ENV_NAME}` (a literal key in a file is refused, and the refusal never
// quotes it), required unless the endpoint is loopback; a system prompt from exactly one place;
// numbers in range; `params` that never override a field mur sets itself. Every refusal names
// the key path; unknown keys are refused by the caller's expect_map.
// Spec: docs/spec/choices.md §Real models; docs/models.md.
#pragma once

#include "capsule/manifest.hpp"
#include "capsule/yaml_reader.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mur {

// The `inference` keys that only transport http reads (besides endpoint/model/api_key/prompts).
const std::vector<const char*>& http_only_inference_keys();

// A YAML value as the JSON it stands for (quoted scalars are strings; plain ones null, booleans
// or numbers when they look like one); deeper than 16 levels is refused.
nlohmann::json yaml_as_json(const yaml::Value& v);

// Reads the http keys of `inf` into `out`; throws Failure (E-MAN-002 / E-MAN-003).
void parse_http_inference(const yaml::Value& inf, Inference& out);

} // namespace mur
