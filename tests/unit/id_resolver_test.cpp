// The ids a command line names (launcher/cli/id_resolver.hpp): a whole id passes as typed, a
// unique prefix (with its kind or its hex alone, any case) names its id, several matches are
// listed, none is said, and `last` is the newest by mint time — of formations and lone sessions
// when formations are taken, of every session when only sessions are.
#include <catch2/catch.hpp>

#include "launcher/cli/id_resolver.hpp"

using mur::IdKinds;
using mur::IdMatch;
using mur::KnownIds;
using mur::match_id;

namespace {

// Minted in this order (the hex after the prefix grows with the mint time).
const std::string frm_old = "frm_01a244e2078a712b815a894151a63ba2";
const std::string frm_new = "frm_01a244e2e7e7704e9e243364694354b9";
const std::string ses_mid = "ses_01a244e2e80f7386bc15193ba29d63c2";
const std::string ses_new = "ses_01a244fa0b9777a99408ee148bd7dbab";
const std::string tsk_one = "tsk_01a244fa0fb472f4926ffbb1790b0274";

constexpr IdKinds frm_or_ses{true, true, false};
constexpr IdKinds sessions{false, true, false};
constexpr IdKinds tasks{false, false, true};

const KnownIds known{{frm_old, ses_mid, frm_new, ses_new, tsk_one}, {frm_old, frm_new, ses_mid}};

} // namespace

TEST_CASE("a unique prefix names its id, with its kind or its hex alone, in any case", "[unit][ids]") {
  IdMatch m = match_id("frm_01a244e2e", frm_or_ses, known);
  CHECK(m.kind == IdMatch::Kind::found);
  CHECK(m.id == frm_new);
  m = match_id("ses_01a244f", frm_or_ses, known);
  CHECK(m.kind == IdMatch::Kind::found);
  CHECK(m.id == ses_new);
  m = match_id("01a244e2e8", frm_or_ses, known); // the hex alone
  CHECK(m.kind == IdMatch::Kind::found);
  CHECK(m.id == ses_mid);
  m = match_id("FRM_01A244E207", frm_or_ses, known);
  CHECK(m.kind == IdMatch::Kind::found);
  CHECK(m.id == frm_old);
  m = match_id("tsk_01", tasks, known);
  CHECK(m.kind == IdMatch::Kind::found);
  CHECK(m.id == tsk_one);
}

TEST_CASE("a prefix of several ids lists them all, sorted, and one of none says so", "[unit][ids]") {
  IdMatch m = match_id("frm_01a244e2", frm_or_ses, known);
  CHECK(m.kind == IdMatch::Kind::ambiguous);
  CHECK(m.matches == std::vector<std::string>{frm_old, frm_new});
  m = match_id("01a244e2", frm_or_ses, known); // bare hex reaches every kind the argument takes
  CHECK(m.kind == IdMatch::Kind::ambiguous);
  CHECK(m.matches == std::vector<std::string>{frm_old, frm_new, ses_mid});
  m = match_id("frm_", frm_or_ses, known);
  CHECK(m.kind == IdMatch::Kind::ambiguous);
  CHECK(m.matches.size() == 2);
  m = match_id("frm_01ab", frm_or_ses, known); // a short prefix of nothing: none, not "not an id"
  CHECK(m.kind == IdMatch::Kind::none);
  CHECK(m.matches.empty());
  m = match_id("ses_01a244e2e", sessions, known); // only sessions are taken: the formation is no match
  CHECK(m.kind == IdMatch::Kind::found);
  CHECK(m.id == ses_mid);
}

TEST_CASE("a whole id and words that are no id pass on as typed for the command's own checks", "[unit][ids]") {
  const std::string unknown = "ses_0000000000007000800000000000000a";
  for (const std::string& word : {frm_new, unknown, std::string("http://127.0.0.1:8080"), std::string("tsk_01"),
                                  std::string("ses_x1"), std::string("lastly"), std::string("")}) {
    const IdMatch m = match_id(word, frm_or_ses, known);
    INFO(word);
    CHECK(m.kind == IdMatch::Kind::passed);
    CHECK(m.id == word);
  }
}

TEST_CASE("last is the newest of the ids it may name, and nothing when there are none", "[unit][ids]") {
  IdMatch m = match_id("last", frm_or_ses, known); // the lone session ses_mid was minted after frm_new
  CHECK(m.kind == IdMatch::Kind::found);
  CHECK(m.id == ses_mid);
  m = match_id("last", frm_or_ses, KnownIds{{frm_old, frm_new, ses_new}, {frm_new, frm_old}}); // ses_new: a member
  CHECK(m.kind == IdMatch::Kind::found);
  CHECK(m.id == frm_new);
  m = match_id("LAST", sessions, KnownIds{{ses_mid, ses_new}, {ses_new, ses_mid}});
  CHECK(m.kind == IdMatch::Kind::found);
  CHECK(m.id == ses_new);
  m = match_id("last", frm_or_ses, KnownIds{{ses_new}, {}});
  CHECK(m.kind == IdMatch::Kind::none);
}
