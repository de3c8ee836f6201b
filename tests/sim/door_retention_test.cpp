// The door's bounded task table and its ListTasks cursor, under the CAF test scheduler with
// simulated time: ended tasks are forgotten by count and by age (lifecycle.retain_tasks), a
// forgotten task answers -32001 exactly like an id the door never held, a task actor that ends
// without reporting is found by its address and its task retired like any other, and a
// listing's cursor serves no row twice when tasks arrive between pages.
#include "caf_catch.hpp"

#include "actors/atoms.hpp"
#include "actors/door.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/wire/door_request.hpp"
#include "messages/wire/task_progress.hpp"

#include <caf/all.hpp>

#include <set>

using namespace mur;
using namespace std::chrono_literals;

namespace {

// A task actor that ends its task as soon as it starts: it reports TaskFinished, or, when
// `report` is false, just stops (as a crashed task would).
caf::behavior instant_task(caf::event_based_actor* self, TaskView t, task_owner door, bool report) {
  if (report) {
    TaskFinished f;
    f.task_id = t.id;
    f.state = TaskState::completed;
    f.answer = "echo: " + t.request;
    f.status_text = f.answer;
    f.exit_status = TaskExit::ok;
    self->send(door, f);
  }
  self->quit();
  return {};
}

struct retention_fixture : test_coordinator_fixture<caf::actor_system_config> {
  door_handle door;
  bool report = true;

  void open(TaskRetention keep) {
    DoorSetup d;
    d.session_id = ids::mint(ids::session);
    d.capsule_name = "echo";
    d.acceptance.kind = AcceptancePolicy::Kind::queue;
    d.acceptance.queue_depth = 100;
    d.acceptance.exit_after_task = false;
    d.acceptance.retention = keep;
    d.ids.simulated = true; // the door's time of day follows the test scheduler's clock
    auto& s = sys;
    d.start_task = [&s, this](const TaskView& t, const Transcript&, const task_owner& door) {
      return caf::actor_cast<task_handle>(s.spawn(instant_task, t, door, report));
    };
    door = spawn_door(sys, std::move(d));
    sched.run();
  }
  ~retention_fixture() override {
    if (door) anon_send_exit(door, caf::exit_reason::kill);
    sched.run();
    sched.clock().cancel_all();
  }

  DoorReply ask(const DoorRequest& req) {
    self->send(door, req);
    sched.run();
    return received<DoorReply>(self);
  }
  std::string run_task(const std::string& text) { // blocking SendMessage: answers at the task's end
    DoorRequest r;
    r.method = DoorMethod::send_message;
    r.text = text;
    auto done = ask(r);
    REQUIRE(done.ok());
    REQUIRE(is_terminal(done.task.state));
    return done.task.id;
  }
  DoorReply on_task(const std::string& method, const std::string& id) {
    DoorRequest r;
    r.method = door_method_named(method).value();
    r.task_id = id;
    return ask(r);
  }
  DoorReply list(std::int32_t page_size, const std::string& token = {}) {
    DoorRequest r;
    r.method = DoorMethod::list_tasks;
    r.page_size = page_size;
    r.page_token = token;
    return ask(r);
  }
  std::size_t held() {
    self->send(door, caf::get_atom_v);
    sched.run();
    std::size_t n = 0;
    self->receive([&](const std::vector<TaskView>& all) { n = all.size(); }, caf::after(0s) >> [] {});
    return n;
  }
  void advance(caf::timespan d) {
    sched.clock().advance_time(d);
    sched.run();
  }
};

void check_forgotten(retention_fixture& f, const std::string& id) {
  INFO(id);
  auto never = f.on_task("GetTask", ids::mint(ids::task));
  for (const char* m : {"GetTask", "CancelTask", "SubscribeToTask"}) {
    INFO(m);
    auto r = f.on_task(m, id);
    CHECK(r.rpc_code == -32001);
    CHECK(r.rpc_reason == never.rpc_reason);
    CHECK(r.rpc_message == "Task not found: " + id);
  }
  DoorRequest more; // a message for a forgotten task too
  more.method = DoorMethod::send_message;
  more.task_id = id;
  more.text = "again";
  CHECK(f.ask(more).rpc_code == -32001);
}

} // namespace

TEST_CASE_METHOD(retention_fixture, "a door keeps the newest max ended tasks and forgets older ones",
                 "[sim][door][retention]") {
  open({3, 1h});
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(run_task("t" + std::to_string(i)));
  CHECK(held() == 3);
  check_forgotten(*this, ids[0]);
  check_forgotten(*this, ids[1]);
  for (int i = 2; i < 5; ++i) {
    auto r = on_task("GetTask", ids[i]);
    REQUIRE(r.ok());
    CHECK(r.task.state == TaskState::completed);
    CHECK(r.task.answer == "echo: t" + std::to_string(i));
  }
  auto all = list(100);
  CHECK(all.total_size == 3);
  REQUIRE(all.tasks.size() == 3);
  CHECK(all.tasks[0].id == ids[4]);
  CHECK(all.tasks[2].id == ids[2]);
}

TEST_CASE_METHOD(retention_fixture, "a door forgets an ended task max_age after it ended, in simulated time",
                 "[sim][door][retention]") {
  open({1000, 1h});
  const auto first = run_task("first");
  advance(30min);
  const auto second = run_task("second");
  advance(29min);
  CHECK(on_task("GetTask", first).ok()); // 59 min after it ended
  advance(1min);
  check_forgotten(*this, first); // 60 min: gone, with nothing else asked of the door meanwhile
  CHECK(on_task("GetTask", second).ok());
  CHECK(held() == 1);
  advance(30min);
  check_forgotten(*this, second);
  CHECK(held() == 0);
  CHECK(list(10).total_size == 0);
}

TEST_CASE_METHOD(retention_fixture, "a task whose actor stops without reporting fails, and is retired like any other",
                 "[sim][door][retention]") {
  open({1, 1h});
  report = false;
  const auto crashed = run_task("crash");
  auto r = on_task("GetTask", crashed);
  REQUIRE(r.ok());
  CHECK(r.task.state == TaskState::failed);
  CHECK(r.task.status_text.find("ended unexpectedly") != std::string::npos);
  report = true;
  const auto next = run_task("after"); // the slot was freed by the down message
  CHECK(on_task("GetTask", next).task.state == TaskState::completed);
  check_forgotten(*this, crashed); // max 1: the newer ended task pushed it out
  CHECK(held() == 1);
}

TEST_CASE_METHOD(retention_fixture, "retention 0 keeps no ended task, yet a blocking caller gets its answer",
                 "[sim][door][retention]") {
  open({0, 1h});
  DoorRequest r;
  r.method = DoorMethod::send_message;
  r.text = "quick";
  auto done = ask(r);
  REQUIRE(done.ok());
  CHECK(done.task.answer == "echo: quick");
  check_forgotten(*this, done.task.id);
  CHECK(held() == 0);
}

TEST_CASE_METHOD(retention_fixture, "ListTasks pages newest first and serves no row twice when tasks arrive between pages",
                 "[sim][door][list]") {
  open({1000, 1h});
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    ids.push_back(run_task("t" + std::to_string(i)));
    advance(10ms); // distinct status timestamps
  }
  std::vector<std::string> seen;
  auto page = list(2);
  CHECK(page.total_size == 5);
  REQUIRE(page.tasks.size() == 2);
  CHECK(page.tasks[0].id == ids[4]);
  CHECK(page.tasks[1].id == ids[3]);
  REQUIRE(!page.next_page_token.empty());
  for (const auto& t : page.tasks) seen.push_back(t.id);

  ids.push_back(run_task("arrives between pages")); // newest: sorts before the cursor
  ids.push_back(run_task("and another"));
  page = list(2, page.next_page_token);
  CHECK(page.total_size == 7); // counts every match, not what is left
  REQUIRE(page.tasks.size() == 2);
  CHECK(page.tasks[0].id == ids[2]);
  CHECK(page.tasks[1].id == ids[1]);
  for (const auto& t : page.tasks) seen.push_back(t.id);

  page = list(2, page.next_page_token);
  REQUIRE(page.tasks.size() == 1);
  CHECK(page.tasks[0].id == ids[0]);
  CHECK(page.next_page_token.empty()); // the last page
  seen.push_back(page.tasks[0].id);
  CHECK(std::set<std::string>(seen.begin(), seen.end()).size() == seen.size());
  CHECK(seen.size() == 5);
}

TEST_CASE_METHOD(retention_fixture, "ListTasks orders ties by id, keeps a cursor whose row was forgotten, refuses a foreign token",
                 "[sim][door][list]") {
  open({4, 1h});
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(run_task("t" + std::to_string(i))); // same simulated ms
  auto page = list(3);
  REQUIRE(page.tasks.size() == 3);
  CHECK(page.tasks[0].id == ids[3]);
  CHECK(page.tasks[2].id == ids[1]);
  // Two more tasks push ids[0] and ids[1] out of the table, the row the cursor names included.
  ids.push_back(run_task("t4"));
  ids.push_back(run_task("t5"));
  page = list(3, page.next_page_token);
  CHECK(page.tasks.empty()); // nothing older than the cursor is left
  CHECK(page.total_size == 4);
  CHECK(page.next_page_token.empty());

  CHECK(list(3, "7").rpc_code == -32602); // a raw offset is no cursor
  CHECK(list(3, "not a token!").rpc_code == -32602);
}
