#include "http/otlp_exporter.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <iterator>
#include <mutex>

namespace mur {
namespace {

std::once_flag curl_ready;

size_t discard(char*, size_t size, size_t n, void*) { return size * n; }

std::int64_t steady_ns(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

// libcurl asks this often while a request runs (at least once a second when nothing moves): a
// non-zero answer abandons the request once the final flush's bound has passed.
int past_bound(void* abort_at, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto& at = *static_cast<const std::atomic<std::int64_t>*>(abort_at);
  return steady_ns(std::chrono::steady_clock::now()) >= at.load() ? 1 : 0;
}

} // namespace

OtlpExporter::OtlpExporter(OtelSettings settings, std::function<std::vector<OtelAttribute>()> resource)
    : settings_(std::move(settings)), resource_(std::move(resource)) {
  std::call_once(curl_ready, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  thread_ = std::thread([this] { run(); });
}

OtlpExporter::~OtlpExporter() { finish(std::chrono::milliseconds(0)); }

void OtlpExporter::offer(std::vector<OtelSpan> spans) {
  if (spans.empty()) return;
  bool full_batch = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& s : spans) {
      if (stopping_ || queue_.size() >= settings_.max_queue) {
        ++counts_.dropped;
        continue;
      }
      queue_.push_back(std::move(s));
    }
    full_batch = queue_.size() >= settings_.max_batch;
  }
  if (full_batch) wake_.notify_one();
}

OtlpCounts OtlpExporter::counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

OtlpCounts OtlpExporter::finish(std::chrono::milliseconds bound) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_) {
      stopping_ = true;
      stop_by_ = std::chrono::steady_clock::now() + bound;
      abort_at_ns_ = steady_ns(stop_by_);
    }
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  return counts();
}

void OtlpExporter::run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    wake_.wait_for(lock, settings_.schedule_delay,
                   [&] { return stopping_ || queue_.size() >= settings_.max_batch; });
    if (queue_.empty()) {
      if (stopping_) return;
      continue;
    }
    std::chrono::milliseconds limit = settings_.timeout;
    if (stopping_) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(stop_by_ - std::chrono::steady_clock::now());
      if (left.count() <= 0) { // out of time: what waits is dropped, counted
        counts_.dropped += queue_.size();
        queue_.clear();
        return;
      }
      limit = std::min(limit, left);
    }
    OtlpBatch batch;
    const std::size_t n = std::min(queue_.size(), settings_.max_batch);
    batch.spans.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.begin() + static_cast<std::ptrdiff_t>(n)));
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    lock.unlock();
    batch.resource = resource_();
    batch.scope_name = "mur";
    std::string why;
    const bool ok = post(encode_otlp_traces(batch), limit, why);
    lock.lock();
    if (ok) {
      counts_.exported += n;
    } else {
      counts_.failed += n;
      counts_.last_failure = why;
    }
  }
}

bool OtlpExporter::post(const std::string& body, std::chrono::milliseconds limit, std::string& why) {
  CURL* e = curl_easy_init();
  if (!e) {
    why = "libcurl could not start a request";
    return false;
  }
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/x-protobuf");
  headers = curl_slist_append(headers, "Expect:");
  for (const auto& [k, v] : settings_.headers) headers = curl_slist_append(headers, (k + ": " + v).c_str());
  curl_easy_setopt(e, CURLOPT_URL, settings_.url.c_str());
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(e, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<std::int64_t>(1, limit.count())));
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
  curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, past_bound);
  curl_easy_setopt(e, CURLOPT_XFERINFODATA, &abort_at_ns_);
  curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
  const CURLcode rc = curl_easy_perform(e);
  long status = 0;
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(e);
  if (rc == CURLE_ABORTED_BY_CALLBACK) {
    why = "the final flush ran out of time";
    return false;
  }
  if (rc != CURLE_OK) {
    why = curl_easy_strerror(rc);
    return false;
  }
  if (status < 200 || status > 299) {
    why = "the collector answered HTTP " + std::to_string(status);
    return false;
  }
  return true;
}

} // namespace mur
