// The token types cannot be printed, converted to text or serialised: proven at compile time.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>

#include "messages/credentials/door_token.hpp"
#include "messages/credentials/formation_token.hpp"

namespace {

template <class T, class = void>
struct is_streamable : std::false_type {};
template <class T>
struct is_streamable<T, std::void_t<decltype(std::declval<std::ostream&>() << std::declval<const T&>())>>
    : std::true_type {};

template <class T, class = void>
struct is_appendable_to_string : std::false_type {};
template <class T>
struct is_appendable_to_string<T, std::void_t<decltype(std::declval<std::string&>() += std::declval<const T&>())>>
    : std::true_type {};

template <class T, class = void>
struct is_json_gettable : std::false_type {};
template <class T>
struct is_json_gettable<T, std::void_t<decltype(std::declval<const nlohmann::json&>().template get<T>())>>
    : std::true_type {};

template <class T>
constexpr bool unprintable() {
  static_assert(!is_streamable<T>::value, "a token must not go into an ostream");
  static_assert(!std::is_convertible_v<T, std::string>, "no conversion to std::string");
  static_assert(!std::is_constructible_v<std::string, T>, "no explicit conversion to std::string");
  static_assert(!std::is_convertible_v<T, std::string_view>, "no conversion to string_view");
  static_assert(!std::is_constructible_v<std::string_view, T>, "no explicit string_view");
  static_assert(!std::is_convertible_v<T, const char*>, "no conversion to const char*");
  static_assert(!is_appendable_to_string<T>::value, "cannot be appended to a string");
  static_assert(!std::is_constructible_v<nlohmann::json, T>, "no to_json");
  static_assert(!std::is_constructible_v<nlohmann::ordered_json, T>, "no to_json (ordered)");
  static_assert(!std::is_assignable_v<nlohmann::json&, T>, "cannot be assigned into JSON");
  static_assert(!is_json_gettable<T>::value, "no from_json");
  static_assert(!std::is_default_constructible_v<T>, "made only by adopt()");
  return true;
}

// The detectors do detect: a string is all of these.
static_assert(is_streamable<std::string>::value);
static_assert(is_appendable_to_string<std::string>::value);
static_assert(is_json_gettable<std::string>::value);

static_assert(unprintable<mur::FormationToken>());
static_assert(unprintable<mur::DoorToken>());

} // namespace

TEST_CASE("token types expose their text only through expose()", "[credentials]") {
  const std::string text = "mft1.abc.def";
  mur::FormationToken t = mur::FormationToken::adopt(text);
  CHECK(t.expose() == text);
  mur::FormationToken copy = t;
  CHECK(copy.expose() == text);
  mur::FormationToken moved = std::move(copy);
  CHECK(moved.expose() == text);
  CHECK(copy.expose().empty()); // NOLINT: a moved-from token is wiped
  CHECK(unprintable<mur::FormationToken>());
}
