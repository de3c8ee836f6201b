// message_fields.hpp — a message struct lists its fields once; equality and CAF inspection
// follow from that one list.
//
// Invariant: for every struct that declares MUR_FIELDS(a, b, …), `operator==` compares exactly
// those fields and `inspect` visits exactly those fields, in that order, under the struct's name
// in the type-ID block (messages/vocabulary/message_types.hpp). A field added to the struct but not to the
// list is neither compared nor printed — tests/unit/message_fields_test.cpp checks the lists of
// the messages whose comparison has drifted before.
#pragma once

#include "messages/vocabulary/message_types.hpp"

#include <caf/meta/type_name.hpp>

#include <tuple>
#include <type_traits>
#include <utility>

// Inside a struct: MUR_FIELDS(name, formation_id, entry) — the one list of its fields.
#define MUR_FIELDS(...)                                                                            \
  auto tie() { return std::tie(__VA_ARGS__); }                                                      \
  auto tie() const { return std::tie(__VA_ARGS__); }

namespace mur {

template <class T, class = void>
struct has_fields : std::false_type {};

template <class T>
struct has_fields<T, std::void_t<decltype(std::declval<const T&>().tie())>> : std::true_type {};

template <class T>
std::enable_if_t<has_fields<T>::value, bool> operator==(const T& a, const T& b) {
  return a.tie() == b.tie();
}

template <class T>
std::enable_if_t<has_fields<T>::value, bool> operator!=(const T& a, const T& b) {
  return !(a == b);
}

template <class Inspector, class T>
std::enable_if_t<has_fields<T>::value, typename Inspector::result_type> inspect(Inspector& f, T& x) {
  return std::apply([&f](auto&... fields) { return f(caf::meta::type_name(caf::type_name<T>::value), fields...); },
                    x.tie());
}

} // namespace mur
