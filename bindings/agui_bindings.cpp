// The embind boundary: the only file that includes an Emscripten header. Plain
// values cross it (strings in, bytes in, JSON text out; the stream's bytes and
// the large texts as views of the heap), and a failure comes back as
// {"error": {code, message}}. The module is built without exceptions: every
// failure a caller can cause is a value all the way from the core.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "client/round_driver.hpp"
#include "client/tool_registry.hpp"
#include "common/error.hpp"
#include "common/json_text.hpp"

namespace {

using agui::ErrorCode;
using agui::json;

json error_value(ErrorCode code, const std::string& message) {
  return json{{"error", {{"code", std::string(agui::to_string(code))}, {"message", message}}}};
}

// Runs `body` (which returns JSON: the answer or an error value) and writes
// it out. One out-of-line function holds the serialisation, so each entry
// point adds only its own small body to the module. Nothing is caught: the
// core reports every failure as a value, and the only failure that is not
// one, memory exhausted, aborts the module (Emscripten's operator new does
// without exceptions).
using Body = json (*)(void*);
std::string run_guarded(Body body, void* context) { return agui::dump_json(body(context)); }

template <class F>
std::string guarded(F&& body) {
  using Fn = std::remove_reference_t<F>;
  return run_guarded([](void* c) -> json { return (*static_cast<Fn*>(c))(); }, &body);
}

// Parses JSON text handed in by the shim; `error` is set when it is not JSON.
json parse_arg(const std::string& text, const char* what, json& error) {
  json value = agui::parse_json(text);
  if (value.is_discarded())
    error = error_value(ErrorCode::kInvalidJson, std::string(what) + " is not valid JSON");
  return value;
}

json status_json(const agui::Status& st) {
  if (!st) return json{{"ok", true}};
  return error_value(st->code, st->message);
}

class Registry {
 public:
  Registry() : registry_(std::make_shared<agui::ToolRegistry>()) {}

  // Must come before the first add(): options change how schemas compile.
  std::string configure(const std::string& options_text) {
    return guarded([&] {
      json options = agui::parse_json(options_text);
      if (!options.is_object())
        return error_value(ErrorCode::kInvalidArgument, "registry options must be an object");
      if (registry_->size() != 0)
        return error_value(ErrorCode::kInvalidState, "configure the registry before adding tools");
      agui::RegistryOptions o;
      for (auto [key, flag] :
           {std::pair{"stampSchemaExtensions", &o.stamp_schema_extensions},
            {"allowBacktrackingPatterns", &o.schema.allow_backtracking_patterns}}) {
        const auto it = options.find(key);
        if (it == options.end()) continue;
        if (!it->is_boolean()) {
          return error_value(ErrorCode::kInvalidArgument,
                             std::string("registry option '") + key + "' must be a boolean");
        }
        *flag = it->get<bool>();
      }
      registry_ = std::make_shared<agui::ToolRegistry>(o);
      return json{{"ok", true}};
    });
  }

  std::string add(const std::string& definition_text) {
    return guarded([&] {
      json definition = agui::parse_json(definition_text);
      if (definition.is_discarded())
        return error_value(ErrorCode::kInvalidJson, "tool definition is not valid JSON");
      auto spec = agui::ToolSpec::from_json(definition);
      if (auto* err = std::get_if<agui::Error>(&spec)) return status_json(*err);
      return status_json(registry_->add(std::get<agui::ToolSpec>(std::move(spec))));
    });
  }
  std::string remove(const std::string& name) {
    return guarded([&] { return status_json(registry_->remove(name)); });
  }
  std::string setEnabled(const std::string& name, bool enabled) {
    return guarded([&] { return status_json(registry_->set_enabled(name, enabled)); });
  }
  std::string advertise() const {
    return guarded([&] { return registry_->advertise(); });
  }
  std::string catalog() const {
    return guarded([&] { return registry_->catalog(); });
  }
  std::string list() const {
    return guarded([&] { return registry_->list(); });
  }

  std::shared_ptr<const agui::ToolRegistry> shared() const { return registry_; }

 private:
  std::shared_ptr<agui::ToolRegistry> registry_;
};

// One thread's round driver, sharing its page's registry.
class Driver {
 public:
  Driver(const Registry& registry, const std::string& thread_id)
      : registry_(registry.shared()), thread_id_(thread_id) {}

  // Options ({maxRounds, repeatLimit, defaultTimeoutMs, context, forwardedProps,
  // idPrefix, limits...}) or an exported thread ({export, options}) to restore.
  std::string open(const std::string& config_text, double now) {
    return guarded([&]() -> json {
      json config = agui::parse_json(config_text);
      if (!config.is_object())
        return error_value(ErrorCode::kInvalidJson, "runtime options must be a JSON object");
      auto options = agui::DriverOptions::from_json(config.value("options", json::object()));
      if (auto* err = std::get_if<agui::Error>(&options)) return status_json(*err);
      if (config.contains("export")) {
        auto restored = agui::RoundDriver::from_export(registry_, config["export"],
                                                       std::get<agui::DriverOptions>(options), now);
        if (auto* err = std::get_if<agui::Error>(&restored)) return status_json(*err);
        driver_ = std::move(std::get<std::unique_ptr<agui::RoundDriver>>(restored));
      } else {
        driver_ = std::make_unique<agui::RoundDriver>(
            registry_, thread_id_, std::get<agui::DriverOptions>(std::move(options)));
      }
      return json{{"ok", true}, {"threadId", driver_->thread_id()}};
    });
  }

  // `options_text`: send()'s options ({forwardedProps?}), as JSON text.
  std::string send(const std::string& input_text, const std::string& options_text) {
    return run_step("send", [&] {
      json error;
      json input = parse_arg(input_text, "send() input", error);
      json options = error.is_null() ? parse_arg(options_text, "send() options", error) : json();
      return error.is_null() ? driver_->send(input, options) : error;
    });
  }
  // The body's bytes cross without embind's std::string marshalling, which
  // copies a Uint8Array into the heap and the answer out of it one byte at a
  // time in JS, and scans the answer for NULs twice more (3.1.6's embind.js):
  // a fifth of the stream's time. The shim writes each chunk into the view
  // inputBuffer() returns (no call into wasm in between, so the heap cannot
  // grow under it), then feed() reads it and returns the step as a view of the
  // heap, which the shim decodes at once (core.js, feedBytes()): both views are
  // valid only until the next call. inputBuffer() answers null when a chunk
  // that size does not fit in the heap (the shim reports it).
  // The buffer is malloc's, not a std::string: malloc answers null when the
  // heap cannot grow that far, where operator new would abort the module.
  emscripten::val inputBuffer(std::size_t size) {
    char* bytes = static_cast<char*>(std::realloc(input_.get(), size == 0 ? 1 : size));
    if (bytes == nullptr) {  // realloc left the old buffer: free it too
      input_.reset();
      input_size_ = 0;
      return emscripten::val::null();
    }
    (void)input_.release();
    input_.reset(bytes);
    input_size_ = size;
    return heap_view(std::string_view(bytes, size));
  }
  emscripten::val feed(const std::string& run_id) {
    step_ = run_step(
        "feed", [&] { return driver_->feed(run_id, std::string_view(input_.get(), input_size_)); });
    return heap_view(step_);
  }
  // A side request (round_driver.hpp): its body is requestInput(), its bytes go
  // through inputBuffer() as feed()'s do.
  std::string request(const std::string& options_text) {
    return query("request", [&] {
      json error;
      json options = parse_arg(options_text, "request() options", error);
      return error.is_null() ? driver_->request(options) : error;
    });
  }
  emscripten::val requestInput() const {
    static const std::string none;
    return heap_view(driver_ ? driver_->request_input() : none);
  }
  std::string requestFeed(const std::string& run_id, bool end) {
    return query("request", [&] {
      return driver_->request_feed(run_id, std::string_view(input_.get(), input_size_), end);
    });
  }
  void requestCancel(const std::string& run_id) {
    if (driver_) driver_->request_cancel(run_id);
  }
  // `now`, here and below: the page's Date.now(); the core reads no clock.
  std::string endOfStream(const std::string& run_id, double now) {
    return run_step("endOfStream", [&] { return driver_->end_of_stream(run_id, now); });
  }
  std::string transportFailed(const std::string& run_id, const std::string& message) {
    return run_step("transportFailed", [&] { return driver_->transport_failed(run_id, message); });
  }
  std::string submitResult(const std::string& call_id, const std::string& content) {
    return run_step("submitResult", [&] { return driver_->submit_result(call_id, content); });
  }
  std::string submitError(const std::string& call_id, const std::string& message) {
    return run_step("submitError", [&] { return driver_->submit_error(call_id, message); });
  }
  std::string approve(const std::string& thread_id, const std::string& call_id) {
    return run_step("approvals.approve", [&] { return driver_->approve(thread_id, call_id); });
  }
  std::string reject(const std::string& thread_id, const std::string& call_id,
                     const std::string& reason) {
    return run_step("approvals.reject",
                    [&] { return driver_->reject(thread_id, call_id, reason); });
  }
  std::string resolveInterrupt(const std::string& id, const std::string& payload_text, double now) {
    return run_step("interrupts.resolve", [&] {
      json error;
      json payload = parse_arg(payload_text, "interrupt payload", error);
      return error.is_null() ? driver_->resolve_interrupt(id, std::move(payload), now) : error;
    });
  }
  std::string cancelInterrupt(const std::string& id, const std::string& reason) {
    return run_step("interrupts.cancel", [&] { return driver_->cancel_interrupt(id, reason); });
  }
  std::string abort(const std::string& reason) {
    return run_step("abort", [&] { return driver_->abort(reason); });
  }
  std::string continueTurn(double now) {
    return run_step("continueTurn", [&] { return driver_->continue_turn(now); });
  }
  std::string expire(double now) {
    return run_step("expire", [&] { return driver_->expire(now); });
  }
  // The request body of the run the last step started ({"run": {"runId"}}),
  // written by the core: the shim posts this text as it is. A view of the
  // heap, as feed()'s step and for the same reason (a long thread's body is
  // megabytes); core.js's heapText() decodes it at once.
  emscripten::val runInput() const {
    static const std::string none;
    return heap_view(driver_ ? driver_->run_input() : none);
  }
  // The change log is kept as JSON text already: handed over as it is. (Steps
  // carry their changes; this drains what no step has taken.)
  std::string takeChanges() {
    return driver_ ? driver_->take_changes_text() : agui::dump_json(not_open("takeChanges"));
  }
  std::string status() {
    return query("status", [&] { return driver_->status(); });
  }
  std::string messages() {
    return query("messages", [&] { return driver_->thread().messages(); });
  }
  std::string state() {
    return query("state", [&] { return driver_->thread().state(); });
  }
  std::string exportThread() {
    return query("thread.export", [&] { return driver_->export_thread(); });
  }
  std::string exportJournal(bool whole) {
    return query("journal", [&] { return driver_->export_journal(whole); });
  }

 private:
  static json not_open(const char* where) {
    return error_value(ErrorCode::kInvalidState, std::string(where) + ": the runtime is not open");
  }
  template <class F>
  std::string query(const char* where, F&& body) {
    return guarded([&]() -> json { return driver_ ? body() : not_open(where); });
  }
  // A step carries the changes recorded since the last step as its "changes"
  // member, so the shim crosses the boundary and parses once per step. A
  // refusal (or a failure) carries none: what is pending goes with the next step.
  template <class F>
  std::string run_step(const char* where, F&& body) {
    bool carried_out = false;
    std::string text = query(where, [&]() -> json {
      json step = body();
      carried_out = !step.contains("error");
      return step;
    });
    if (!carried_out || driver_->changes_empty()) return text;
    std::string out = "{\"changes\":";
    out += driver_->take_changes_text();
    if (text != "{}") out += ',';
    out.append(text, 1, std::string::npos);
    return out;
  }

  static emscripten::val heap_view(std::string_view bytes) {
    return emscripten::val(emscripten::typed_memory_view(
        bytes.size(), reinterpret_cast<const unsigned char*>(bytes.data())));
  }

  std::shared_ptr<const agui::ToolRegistry> registry_;
  std::string thread_id_;
  std::unique_ptr<agui::RoundDriver> driver_;
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> input_;  // the chunk feed() reads (inputBuffer())
  std::size_t input_size_ = 0;
  std::string step_;  // the last feed() step, viewed by the shim
};

// The wire names of one vocabulary, as a JSON array: the names are data (one
// string table), not a push_back each in code.
template <std::size_t N>
json wire_names(const char* const (&names)[N]) {
  json out = json::array();
  for (const char* name : names) out.push_back(name);
  return out;
}

#define AGUI_WIRE(id, wire) wire,
constexpr const char* kErrorCodes[] = {AGUI_ERROR_CODES(AGUI_WIRE)};
constexpr const char* kChangeKinds[] = {AGUI_CHANGE_KINDS(AGUI_WIRE)};
constexpr const char* kProblemCodes[] = {AGUI_PROBLEM_CODES(AGUI_WIRE)};
constexpr const char* kCallStates[] = {AGUI_CALL_STATES(AGUI_WIRE)};
#undef AGUI_WIRE

// The error codes, for the test that keeps the JS and .d.ts mirrors in step.
std::string error_codes() { return wire_names(kErrorCodes).dump(); }

// The core's other vocabularies, each defined once in C++, for the tests that
// keep the package's mirrors (index.js, index.d.ts) equal to them.
std::string vocabulary() {
  return json{{"changeKinds", wire_names(kChangeKinds)},
              {"problemCodes", wire_names(kProblemCodes)},
              {"callStates", wire_names(kCallStates)},
              {"maxFrontendToolRounds", agui::kMaxFrontendToolRounds}}
      .dump();
}

// Bytes of the wasm heap in use by live allocations. The memory itself never
// shrinks (WebAssembly cannot give pages back); this is what tests and the
// bench read to see that a disposed runtime freed everything it held.
// mallinfo() answers for emmalloc (shipped) and dlmalloc (a bench variant) alike.
double heap_in_use() { return static_cast<double>(mallinfo().uordblks); }

}  // namespace

EMSCRIPTEN_BINDINGS(agui_client_tools) {
  using namespace emscripten;
  function("errorCodes", &error_codes);
  function("vocabulary", &vocabulary);
  function("heapInUse", &heap_in_use);
  class_<Registry>("Registry")
      .constructor<>()
      .function("configure", &Registry::configure)
      .function("add", &Registry::add)
      .function("remove", &Registry::remove)
      .function("setEnabled", &Registry::setEnabled)
      .function("advertise", &Registry::advertise)
      .function("catalog", &Registry::catalog)
      .function("list", &Registry::list);
  class_<Driver>("Driver")
      .constructor<const Registry&, const std::string&>()
      .function("open", &Driver::open)
      .function("send", &Driver::send)
      .function("inputBuffer", &Driver::inputBuffer)
      .function("feed", &Driver::feed)
      .function("endOfStream", &Driver::endOfStream)
      .function("transportFailed", &Driver::transportFailed)
      .function("submitResult", &Driver::submitResult)
      .function("submitError", &Driver::submitError)
      .function("approve", &Driver::approve)
      .function("reject", &Driver::reject)
      .function("resolveInterrupt", &Driver::resolveInterrupt)
      .function("cancelInterrupt", &Driver::cancelInterrupt)
      .function("abort", &Driver::abort)
      .function("continueTurn", &Driver::continueTurn)
      .function("expire", &Driver::expire)
      .function("runInput", &Driver::runInput)
      .function("request", &Driver::request)
      .function("requestInput", &Driver::requestInput)
      .function("requestFeed", &Driver::requestFeed)
      .function("requestCancel", &Driver::requestCancel)
      .function("takeChanges", &Driver::takeChanges)
      .function("status", &Driver::status)
      .function("messages", &Driver::messages)
      .function("state", &Driver::state)
      .function("exportThread", &Driver::exportThread)
      .function("exportJournal", &Driver::exportJournal);
}
