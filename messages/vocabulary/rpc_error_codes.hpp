// rpc_error_codes.hpp — every JSON-RPC 2.0 and A2A error code a door answers or reads, by name.
//
// Invariant: no other file spells one of these numbers; a code's meaning is the one A2A v1.0
// gives it (standard codes carry no ErrorInfo — but for the -32603 that drops a stream subscriber
// that fell behind, SUBSCRIBER_BEHIND — and A2A codes carry one with the reason beside it).
// Spec: docs/spec/door.md §JSON-RPC errors on the wire; docs/spec/a2a.md §Errors.
#pragma once

#include <cstdint>

namespace mur::rpc {

// JSON-RPC 2.0 standard codes.
inline constexpr std::int32_t parse_error = -32700;      // not JSON (or nested too deep)
inline constexpr std::int32_t invalid_request = -32600;  // not one request object
inline constexpr std::int32_t method_not_found = -32601;
inline constexpr std::int32_t invalid_params = -32602;
inline constexpr std::int32_t internal_error = -32603;

// A2A v1.0 codes (reason in google.rpc.ErrorInfo).
inline constexpr std::int32_t task_not_found = -32001;              // TASK_NOT_FOUND
inline constexpr std::int32_t task_not_cancelable = -32002;         // TASK_NOT_CANCELABLE
inline constexpr std::int32_t push_not_supported = -32003;          // PUSH_NOTIFICATION_NOT_SUPPORTED
inline constexpr std::int32_t unsupported_operation = -32004;       // UNSUPPORTED_OPERATION
inline constexpr std::int32_t content_type_not_supported = -32005;  // CONTENT_TYPE_NOT_SUPPORTED
inline constexpr std::int32_t version_not_supported = -32009;       // VERSION_NOT_SUPPORTED

// The standard range: answered without ErrorInfo.
constexpr bool is_standard(std::int32_t code) { return code <= invalid_request && code >= parse_error; }

} // namespace mur::rpc
