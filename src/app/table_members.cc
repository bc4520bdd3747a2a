#include "app/table_members.h"

#include <map>

#include <simdjson.h>

#include <algorithm>

#include "codec/json_writer.h"
#include "common/log.h"
#include "common/time.h"
#include "kafka/admin.h"
#include "query/sharded_table.h"

namespace webindex::app {
namespace {

//! The whole table as the members serve it at each Read.
class MembersTable final : public query::TableSource {
 public:
  explicit MembersTable(std::function<std::vector<std::shared_ptr<query::TableSource>>()> sources)
      : sources_(std::move(sources)) {}
  std::unique_ptr<query::TableRead> Read() override { return query::ShardedTableSource(sources_()).Read(); }

 private:
  std::function<std::vector<std::shared_ptr<query::TableSource>>()> sources_;
};

}  // namespace

std::string EncodeTableMemberRecord(const TableMemberRecord& r) {
  codec::JsonWriter w;
  w.BeginObject();
  w.Key("group").String(r.group);
  w.Key("member").String(r.member);
  w.Key("http").String(r.http);
  w.Key("shards").BeginArray();
  for (int32_t p : r.shards) w.Int(p);
  w.EndArray();
  w.Key("generation").Int(r.generation);
  w.Key("at_ms").Int(r.at_ms);
  w.Key("pagerank_result").Uint(r.pagerank_result);
  w.EndObject();
  return w.Take();
}

Result<TableMemberRecord> DecodeTableMemberRecord(std::string_view json) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  auto bad = [&](const std::string& why) {
    return Status::Corruption("table member record " + std::string(json.substr(0, 200)) + ": " + why);
  };
  simdjson::ondemand::document doc;
  if (parser.iterate(padded).get(doc)) return bad("not JSON");
  simdjson::ondemand::object obj;
  if (doc.get_object().get(obj)) return bad("not an object");
  TableMemberRecord r;
  bool have_member = false, have_shards = false;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return bad("bad key");
    auto value = field.value();
    if (key == "group" || key == "member" || key == "http") {
      std::string_view s;
      if (value.get_string().get(s)) return bad(std::string(key) + " must be a string");
      (key == "group" ? r.group : key == "member" ? r.member : r.http) = std::string(s);
      have_member |= key == "member";
    } else if (key == "shards") {
      simdjson::ondemand::array shards;
      if (value.get_array().get(shards)) return bad("shards must be an array");
      for (auto item : shards) {
        int64_t p = 0;
        if (item.get_int64().get(p) || p < 0 || p > 65535) return bad("a shard must be a number from 0 to 65535");
        r.shards.insert(static_cast<int32_t>(p));
      }
      have_shards = true;
    } else if (key == "pagerank_result") {  // absent from the words of earlier versions
      if (value.get_uint64().get(r.pagerank_result)) return bad("pagerank_result must be a number");
    } else if (key == "generation" || key == "at_ms") {
      int64_t v = 0;
      if (value.get_int64().get(v)) return bad(std::string(key) + " must be a number");
      if (key == "generation") {
        r.generation = static_cast<int32_t>(v);
      } else {
        r.at_ms = v;
      }
    }  // other keys: written by a later version, ignored
  }
  if (!have_member || !have_shards) return bad("member and shards are required");
  return r;
}

const TableMemberRecord* OwnerOf(const std::vector<TableMemberRecord>& records, const std::string& group,
                                 const std::string& self, int32_t shard, int64_t now_ms, int64_t stale_after_ms) {
  const TableMemberRecord* best = nullptr;
  for (const auto& r : records) {
    if (r.group != group || r.member == self || r.http.empty() || !r.shards.count(shard)) continue;
    if (r.at_ms < now_ms - stale_after_ms) continue;
    if (!best || r.generation > best->generation || (r.generation == best->generation && r.at_ms > best->at_ms)) {
      best = &r;
    }
  }
  return best;
}

TableMembers::TableMembers(TableMembersOptions options, TableShards& shards, RemoteShardFactory remote)
    : options_(std::move(options)), shards_(shards), remote_(std::move(remote)) {}

Result<std::unique_ptr<TableMembers>> TableMembers::Start(TableMembersOptions options, TableShards& shards,
                                                          RemoteShardFactory remote) {
  std::unique_ptr<TableMembers> members(new TableMembers(std::move(options), shards, std::move(remote)));
  RETURN_IF_ERROR(members->Open());
  return members;
}

Status TableMembers::Open() {
  {
    ASSIGN_OR_RETURN(auto admin, kafka::Admin::Create(options_.kafka));
    RETURN_IF_ERROR(admin->EnsureTopics({{options_.topic, 1, 1, {{"cleanup.policy", "compact"}}}}, 10000)
                        .WithContext("creating topic " + options_.topic));
  }
  ASSIGN_OR_RETURN(producer_, kafka::Producer::Create(options_.kafka, [](uint64_t, const Status& st) {
    if (!st.ok()) LOG_WARN("table members: a word of this member did not reach Kafka: {}", st.ToString());
  }));
  ASSIGN_OR_RETURN(consumer_, kafka::Consumer::Create(options_.kafka, options_.group_id + ".members"));
  RETURN_IF_ERROR(consumer_->Assign({{options_.topic, 0, kafka::kBeginning}}));
  LOG_INFO("table members: this member ({}) answers other members at {}; their words are on {}", options_.member,
           options_.http, options_.topic);
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

TableMembers::~TableMembers() { Stop(); }

void TableMembers::Stop() {
  if (stop_.exchange(true)) return;
  if (thread_.joinable()) thread_.join();
  Advertise(/*serving=*/false);
  if (producer_) (void)producer_->Flush(5000);
}

void TableMembers::Advertise(bool serving) {
  TableMemberRecord r;
  r.group = options_.group_id;
  r.member = options_.member;
  r.http = options_.http;
  if (serving) {
    const auto sources = shards_.Sources();
    for (size_t p = 0; p < sources.size(); ++p) {
      if (sources[p]) r.shards.insert(static_cast<int32_t>(p));
    }
  }
  r.generation = shards_.group_generation();
  r.at_ms = NowMs();
  r.pagerank_result = options_.pagerank_result ? options_.pagerank_result() : 0;
  OutRecord out{options_.topic, 0, options_.group_id + "/" + options_.member, EncodeTableMemberRecord(r), {}};
  if (Status st = producer_->Produce(out, 0); !st.ok()) LOG_WARN("table members: {}", st.ToString());
}

void TableMembers::Loop() {
  auto advertised = std::chrono::steady_clock::time_point{};
  while (!stop_) {
    if (std::chrono::steady_clock::now() - advertised >= options_.every) {
      Advertise(/*serving=*/true);
      advertised = std::chrono::steady_clock::now();
    }
    kafka::MessageBatch batch;
    if (Status st = consumer_->PollBatch(1000, 100, &batch); !st.ok()) {
      LOG_WARN("table members: reading {}: {}", options_.topic, st.ToString());
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      continue;
    }
    std::lock_guard lock(mu_);
    for (const InRecord& in : batch.records()) {
      if (in.tombstone) continue;
      auto r = DecodeTableMemberRecord(in.value);
      if (!r.ok()) {
        LOG_WARN("table members: passed over a record at offset {} of {}: {}", in.offset, options_.topic,
                 r.status().ToString());
        continue;
      }
      if (r->group == options_.group_id) heard_[r->member] = std::move(r).value();
    }
  }
}

std::vector<TableMemberRecord> TableMembers::Heard() const {
  std::vector<TableMemberRecord> records;
  std::lock_guard lock(mu_);
  for (const auto& [member, r] : heard_) records.push_back(r);
  return records;
}

std::string TableMembers::AddressOf(int32_t shard) const {
  const std::vector<TableMemberRecord> records = Heard();
  const TableMemberRecord* owner =
      OwnerOf(records, options_.group_id, options_.member, shard, NowMs(), options_.stale_after.count());
  return owner ? owner->http : "";
}

uint64_t TableMembers::HighestPageRankResult() const {
  uint64_t highest = 0;
  for (const TableMemberRecord& r : Heard()) highest = std::max(highest, r.pagerank_result);
  return highest;
}

std::vector<std::shared_ptr<query::TableSource>> TableMembers::Sources() const {
  std::vector<std::shared_ptr<query::TableSource>> sources = shards_.Sources();
  const std::vector<TableMemberRecord> records = Heard();
  const int64_t now = NowMs();
  std::map<std::string, std::vector<int32_t>> asked;  // member's address -> the shards asked of it
  for (size_t p = 0; p < sources.size(); ++p) {
    if (sources[p]) continue;
    const TableMemberRecord* owner = OwnerOf(records, options_.group_id, options_.member, static_cast<int32_t>(p), now,
                                             options_.stale_after.count());
    if (owner) asked[owner->http].push_back(static_cast<int32_t>(p));
  }
  // One source per member for all its shards: the merged read asks each member once.
  for (const auto& [http, shards] : asked) {
    auto source = remote_(http, shards, static_cast<int32_t>(sources.size()));
    for (int32_t p : shards) sources[p] = source;
  }
  return sources;
}

std::shared_ptr<query::TableSource> TableMembers::Table() {
  return std::make_shared<MembersTable>([this] { return Sources(); });
}

}  // namespace webindex::app
