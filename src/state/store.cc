// One type, one file (~600 lines): opening a data dir's database with its checks (families,
// damage, free space), the commit path and the readers' views share the Store's handles.
// Error texts are in store_errors.cc, read-only views in read_views.cc.
#include "state/store.h"

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/listener.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <rocksdb/write_buffer_manager.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <atomic>
#include <mutex>
#include <thread>
#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "common/bytes.h"
#include "common/log.h"
#include "state/read_views.h"
#include "state/store_errors.h"

namespace webindex::state {
namespace {

constexpr std::array<const char*, static_cast<int>(Family::kCount)> kFamilyNames = {
    "pages", "uris", "domains", "offsets", "outbox", "dedupe", "meta", "table", "versions"};

//! The families written with DeleteRange; the others' memtables insert with hints.
bool TakesRangeDeletes(Family f) { return f == Family::kOutbox || f == Family::kMeta; }

rocksdb::Slice ToSlice(std::string_view v) { return {v.data(), v.size()}; }
std::string_view ToView(const rocksdb::Slice& s) { return {s.data(), s.size()}; }

//! The keys of a family that point reads look for: all but its scan-only ranges. As RocksDB's
//! prefix extractor, with each such key its own "prefix", it makes the memtable's Bloom filter
//! (memtable_whole_key_filtering off) hold exactly those keys. Iterators never use it
//! (ReadOptions::total_order_seek, Store::Impl::Read); SST filters keep every whole key.
class PointReadKeys final : public rocksdb::SliceTransform {
 public:
  explicit PointReadKeys(std::vector<std::pair<std::string, std::string>> scan_only)
      : scan_only_(std::move(scan_only)), name_("webindex.PointReadKeys:") {
    for (const auto& [begin, end] : scan_only_) {
      for (const auto* part : {&begin, &end}) {
        for (unsigned char c : *part) name_ += fmt::format("{:02x}", c);
        name_ += part == &begin ? "-" : ";";
      }
    }
  }
  const char* Name() const override { return name_.c_str(); }
  rocksdb::Slice Transform(const rocksdb::Slice& key) const override { return key; }
  bool InDomain(const rocksdb::Slice& key) const override {
    const std::string_view k = ToView(key);
    for (const auto& [begin, end] : scan_only_) {
      if (k >= begin && k < end) return false;
    }
    return true;
  }

 private:
  std::vector<std::pair<std::string, std::string>> scan_only_;
  std::string name_;
};

//! RocksDB's own log, into webindex's (warnings and errors; the rest at debug level). Not a file
//! in the data dir: a log file on a full disk fails, and Debian's RocksDB asserts on its next line.
class RocksLogger final : public rocksdb::Logger {
 public:
  //! A checksum verification (`webindex verify`) opens each table file without the unique ID the
  //! MANIFEST would check it against, and RocksDB warns of that: nothing for the user.
  static constexpr const char* kNoUniqueId = "opened without unique ID to verify";

  RocksLogger() : rocksdb::Logger(rocksdb::InfoLogLevel::INFO_LEVEL) {}
  void Logv(const char* format, va_list ap) override { Logv(rocksdb::InfoLogLevel::INFO_LEVEL, format, ap); }
  void Logv(const rocksdb::InfoLogLevel level, const char* format, va_list ap) override {
    char buf[1024];
    std::vsnprintf(buf, sizeof(buf), format, ap);
    if (level >= rocksdb::InfoLogLevel::ERROR_LEVEL) {
      LOG_ERROR("rocksdb: {}", buf);
    } else if (level == rocksdb::InfoLogLevel::WARN_LEVEL && !std::strstr(buf, kNoUniqueId)) {
      LOG_WARN("rocksdb: {}", buf);
    } else {
      LOG_DEBUG("rocksdb: {}", buf);
    }
  }
};

//! True when every family of the database in `dir` is empty, WAL included: a first open cut
//! short between the creation of two families, whose missing ones may be made (nothing of them
//! was ever written). False when any holds a key or it cannot be told.
bool AllEmpty(const rocksdb::Options& options, const std::string& dir, const std::vector<std::string>& families) {
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  for (const auto& name : families) cfs.emplace_back(name, rocksdb::ColumnFamilyOptions(options));
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  if (!rocksdb::DB::OpenForReadOnly(rocksdb::DBOptions(options), dir, cfs, &handles, &raw).ok()) return false;
  std::unique_ptr<rocksdb::DB> db(raw);
  bool empty = true;
  for (auto* handle : handles) {
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), handle));
    it->SeekToFirst();
    if (it->Valid() || !it->status().ok()) empty = false;
    it.reset();
    db->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
  }
  return empty;
}

class RocksIterator final : public Iterator {
 public:
  explicit RocksIterator(rocksdb::Iterator* it) : it_(it) {}
  //! With an upper bound, which the iterator's ReadOptions point to.
  RocksIterator(rocksdb::DB* db, rocksdb::ReadOptions ro, rocksdb::ColumnFamilyHandle* h, std::string upper_bound)
      : bound_(std::move(upper_bound)), bound_slice_(bound_) {
    if (!bound_.empty()) ro.iterate_upper_bound = &bound_slice_;
    it_.reset(db->NewIterator(ro, h));
  }
  void Seek(std::string_view key) override { it_->Seek(ToSlice(key)); }
  void SeekToFirst() override { it_->SeekToFirst(); }
  bool Valid() const override { return it_->Valid(); }
  void Next() override { it_->Next(); }
  std::string_view key() const override { return ToView(it_->key()); }
  std::string_view value() const override { return ToView(it_->value()); }
  Status status() const override { return FromRocks(it_->status(), "iterator"); }

 private:
  std::string bound_;
  rocksdb::Slice bound_slice_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

constexpr char kIngestDir[] = "ingest";
constexpr int kReadOnlyOpenAttempts = 100;  // 10 ms apart

}  // namespace

struct SortedFile::Impl {
  rocksdb::ColumnFamilyHandle* family;
  std::string path;
  std::unique_ptr<rocksdb::SstFileWriter> writer;
  ~Impl() {
    if (writer) std::filesystem::remove(path);  // never ingested
  }
};
SortedFile::SortedFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SortedFile::~SortedFile() = default;
Status SortedFile::Put(std::string_view key, std::string_view value) {
  RETURN_IF_ERROR(FromRocks(impl_->writer->Put(ToSlice(key), ToSlice(value)), "sorted file"));
  ++count_;
  return Status::Ok();
}

struct Snapshot::Impl {
  rocksdb::DB* db;
  const rocksdb::Snapshot* snap;
  ~Impl() { db->ReleaseSnapshot(snap); }
};
Snapshot::Snapshot(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Snapshot::~Snapshot() = default;

struct Store::Impl {
  std::string dir;
  size_t min_free_bytes = 0;
  std::shared_ptr<rocksdb::Env> env;  // outlives db
  std::unique_ptr<rocksdb::DB> db;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  ViewDir view;  //!< read-only: the directory of links the database was opened from
  rocksdb::WriteOptions write_options;
  //! Errors of RocksDB's flushes and compactions; shared with the DB's options, which outlive it.
  std::shared_ptr<BackgroundErrors> background;
  //! Set by the first failed write or flush: later ones return that first error (the cause)
  //! instead of going back to a database that stopped taking writes.
  std::atomic<bool> broken{false};
  std::mutex broken_mu;
  Status broken_status;
  rocksdb::ColumnFamilyHandle* h(Family f) const { return handles[static_cast<int>(f)]; }
  Status Broken() {
    std::lock_guard<std::mutex> lock(broken_mu);
    return broken_status;
  }
  Status Fail(Status st) {
    if (st.ok()) return st;
    std::lock_guard<std::mutex> lock(broken_mu);
    if (broken_status.ok()) broken_status = st;
    broken = true;
    return st;
  }
  //! Errors of writes: a full disk says where, how much is free and what to do.
  Status Check(const rocksdb::Status& s, const char* what) const {
    return s.IsNoSpace() ? NoSpaceError(dir, min_free_bytes, s.ToString()) : FromRocks(s, what);
  }
  rocksdb::ReadOptions Read(const Snapshot* snap) const {
    rocksdb::ReadOptions ro;
    // A family's prefix extractor (PointReadKeys) serves point reads only: a seek in "prefix
    // mode" would skip whatever its filters do not hold.
    ro.total_order_seek = true;
    if (snap) ro.snapshot = snap->impl_->snap;
    return ro;
  }
  ~Impl() {
    if (db) {
      for (auto* handle : handles) db->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
      db->Close().PermitUncheckedError();
      db.reset();
    }
    view.Remove();
  }
};

struct WriteBatch::Impl {
  //! rocksdb::WriteBatch reserves room only when it is made; its buffer is open to subclasses.
  struct Batch : rocksdb::WriteBatch {
    void Reserve(size_t more) { rep_.reserve(rep_.size() + more); }
  };
  const Store::Impl* store;
  Batch batch;
};

WriteBatch::WriteBatch(const Store& store) : impl_(std::make_unique<Impl>()) { impl_->store = store.impl_.get(); }
void WriteBatch::Reserve(size_t keys, size_t bytes) {
  // Per entry: a type byte, the family's id and the two lengths as varints.
  impl_->batch.Reserve(bytes + keys * 12);
}
WriteBatch::~WriteBatch() = default;
WriteBatch::WriteBatch(WriteBatch&&) noexcept = default;
void WriteBatch::Put(Family f, std::string_view key, std::string_view value) {
  impl_->batch.Put(impl_->store->h(f), ToSlice(key), ToSlice(value)).PermitUncheckedError();
}
void WriteBatch::Delete(Family f, std::string_view key) {
  impl_->batch.Delete(impl_->store->h(f), ToSlice(key)).PermitUncheckedError();
}
void WriteBatch::DeleteRange(Family f, std::string_view begin, std::string_view end) {
  if (!TakesRangeDeletes(f)) {  // its memtable inserts with hints (Store::Open): a range deletion would corrupt it
    std::fprintf(stderr, "fatal: DeleteRange on family %s, which is opened without range deletions\n",
                 kFamilyNames[static_cast<int>(f)]);
    std::abort();
  }
  impl_->batch.DeleteRange(impl_->store->h(f), ToSlice(begin), ToSlice(end)).PermitUncheckedError();
}
size_t WriteBatch::Count() const { return impl_->batch.Count(); }
size_t WriteBatch::ByteSize() const { return impl_->batch.GetDataSize(); }

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::~Store() = default;

Result<std::unique_ptr<Store>> Store::Open(const std::string& dir, const StoreOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool has_db = fs::exists(fs::path(dir) / "CURRENT", ec);
  if (!has_db) {
    const bool empty = !fs::exists(dir, ec) || fs::is_empty(dir, ec);
    if (options.read_only || !options.create_if_missing) {
      return Status::NotFound("no database in " + dir + (empty ? "" : " (files there, but no CURRENT file)"));
    }
    if (!empty) {
      return Status::Corruption("the database in " + dir +
                                " is damaged: it holds files but no CURRENT file, so its state cannot be read. "
                                "It is never replaced by an empty one; " + kDamagedAdvice);
    }
  }
  rocksdb::Options db_opts;
  db_opts.create_if_missing = !has_db;
  // An existing database missing a family is damaged (a cut MANIFEST can lose the record that
  // added it): refused below, never given an empty family in its place, unless nothing was ever
  // written to it (its first open was cut short between two families).
  db_opts.create_missing_column_families = !has_db;
  if (options.env) db_opts.env = options.env.get();
  db_opts.info_log = std::make_shared<RocksLogger>();
  // Damage is reported, never turned into another state: a committed write is never rolled
  // back (outputs it made may be in Kafka already), so the WAL may lose only a torn last record;
  // corruption anywhere else fails the open. Every read verifies block checksums.
  db_opts.wal_recovery_mode = rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  db_opts.paranoid_checks = true;
  db_opts.track_and_verify_wals_in_manifest = true;
  db_opts.IncreaseParallelism(2);
  db_opts.max_open_files = 512;
  // Memory is bounded across the nine families, and small families that rarely fill a
  // memtable cannot pin the WAL: beyond max_wal_bytes they are flushed.
  db_opts.write_buffer_manager = std::make_shared<rocksdb::WriteBufferManager>(options.memtable_budget_bytes);
  db_opts.max_total_wal_size = options.max_wal_bytes;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(options.block_cache_bytes);
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  // Index and filter blocks live in the block cache, partitioned so that a point read pulls in
  // one small partition instead of a whole SST's index; the top level stays pinned and
  // index/filter blocks are evicted after data blocks.
  table.cache_index_and_filter_blocks = true;
  table.cache_index_and_filter_blocks_with_high_priority = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  table.index_type = rocksdb::BlockBasedTableOptions::IndexType::kTwoLevelIndexSearch;
  table.partition_filters = true;
  table.metadata_block_size = 4096;
  table.pin_top_level_index_and_filter = true;
  rocksdb::ColumnFamilyOptions cf_opts;
  cf_opts.write_buffer_size = options.write_buffer_bytes;
  cf_opts.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  cf_opts.compression = rocksdb::kLZ4Compression;
  cf_opts.disable_auto_compactions = !options.auto_compactions;
  // Point reads (the stages' MultiGets, the sink's versions) mostly look for keys the memtable
  // does not hold: a whole-key Bloom filter answers those without walking the skiplist.
  cf_opts.memtable_prefix_bloom_size_ratio = 0.05;
  cf_opts.memtable_whole_key_filtering = true;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  cfs.emplace_back(rocksdb::kDefaultColumnFamilyName, cf_opts);
  for (int f = 0; f < static_cast<int>(Family::kCount); ++f) {
    rocksdb::ColumnFamilyOptions family_opts = cf_opts;
    // Commits write their keys in key order (the sink's TableWriter, the counters' maps): an
    // insert starts from where the previous one into the memtable ended instead of from the top
    // of the skiplist (one hint per memtable: the empty prefix). RocksDB keeps that hint for the
    // memtable's range deletions too and corrupts them, so families with DeleteRange go without.
    if (!TakesRangeDeletes(static_cast<Family>(f))) {
      family_opts.memtable_insert_with_hint_prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(0));
    }
    std::vector<std::pair<std::string, std::string>> scan_only;
    for (const auto& range : options.scan_only) {
      if (static_cast<int>(range.family) == f) scan_only.emplace_back(range.begin, range.end);
    }
    if (!scan_only.empty()) {
      family_opts.prefix_extractor = std::make_shared<PointReadKeys>(std::move(scan_only));
      family_opts.memtable_whole_key_filtering = false;
    }
    cfs.emplace_back(kFamilyNames[f], family_opts);
  }

  if (has_db) {
    std::vector<std::string> present;
    // A listing that fails (a MANIFEST being replaced, damage) is left to the open to report.
    if (rocksdb::DB::ListColumnFamilies(db_opts, dir, &present).ok()) {
      std::string missing;
      for (const auto& cf : cfs) {
        if (std::find(present.begin(), present.end(), cf.name) != present.end()) continue;
        missing += (missing.empty() ? "" : ", ") + cf.name;
      }
      const bool unfinished = !missing.empty() && AllEmpty(db_opts, dir, present);
      db_opts.create_missing_column_families = unfinished;
      if (!missing.empty() && !unfinished) {
        return Status::Corruption("the database in " + dir + " is damaged: its MANIFEST lacks the families " +
                                  missing +
                                  ", so part of its state is gone. It is never given empty ones in their place; " +
                                  kDamagedAdvice);
      }
    }
  }
  auto impl = std::make_unique<Impl>();
  impl->dir = dir;
  impl->background = std::make_shared<BackgroundErrors>(dir, options.min_free_bytes);
  db_opts.listeners.push_back(impl->background);
  impl->min_free_bytes = options.min_free_bytes;
  impl->env = options.env;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s;
  if (options.read_only) {
    // Another process (`webindex run`) may be writing this database: its flushes and
    // compactions delete WAL and SST files. The open goes through a view of links (LinkView);
    // where links cannot be made, straight to the directory, with every file opened up front
    // (max_open_files = -1) so that one deleted afterwards stays readable. An open that raced
    // the writer ("No such file", "Missing WAL") is tried again on a newer MANIFEST; damage that
    // stays is reported after the last try.
    db_opts.max_open_files = -1;
    RemoveStaleViewsOf(dir);
    bool direct = false;  // no views here
    for (int attempt = 1;; ++attempt) {
      if (!direct) {
        switch (LinkView(dir, &impl->view)) {
          case ViewOutcome::kMade:
            break;
          case ViewOutcome::kRefused:
            direct = true;
            break;
          case ViewOutcome::kRaced:
            s = rocksdb::Status::IOError("could not make a view of " + dir);
            break;
        }
      }
      if (direct || !impl->view.path.empty()) {
        s = rocksdb::DB::OpenForReadOnly(db_opts, direct ? dir : impl->view.path, cfs, &handles, &raw);
      }
      const bool maybe_raced = s.IsIOError() || s.IsPathNotFound() || s.IsCorruption();
      if (s.ok() || !maybe_raced || attempt == kReadOnlyOpenAttempts) break;
      impl->view.Remove();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!s.ok() && !direct) {  // the error names the files of the data dir, not of a view
      impl->view.Remove();
      s = rocksdb::DB::OpenForReadOnly(db_opts, dir, cfs, &handles, &raw);
    }
  } else {
    RemoveStaleViewsOf(dir);
    s = rocksdb::DB::Open(db_opts, dir, cfs, &handles, &raw);
  }
  if (!s.ok()) {
    if (s.IsNoSpace()) return impl->Check(s, ("opening " + dir).c_str());
    return FromRocks(s, ("opening the database in " + dir).c_str());
  }
  impl->db.reset(raw);
  raw->DestroyColumnFamilyHandle(handles[0]).PermitUncheckedError();  // default family is unused
  impl->handles.assign(handles.begin() + 1, handles.end());
  impl->write_options.sync = options.sync_commits;
  if (!options.read_only) {
    // Sorted files of a process that stopped before ingesting them.
    std::filesystem::remove_all(std::filesystem::path(dir) / kIngestDir, ec);
    const auto free = FreeBytes(dir);
    if (free && *free < options.min_free_bytes) {
      LOG_WARN("only {} free on the disk of {}; webindex needs up to {} (store.min_free_mb) for its write-ahead log, "
               "memtable flushes and compactions, and stops when the disk is full",
               HumanBytes(*free), dir, HumanBytes(options.min_free_bytes));
    }
  }
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

Result<std::optional<std::string>> Store::Get(Family f, std::string_view key, const Snapshot* snap) {
  std::string value;
  auto s = impl_->db->Get(impl_->Read(snap), impl_->h(f), ToSlice(key), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  RETURN_IF_ERROR(FromRocks(s, "get"));
  return std::optional<std::string>(std::move(value));
}

namespace {

//! Store::MultiGet of keys already made slices.
Status MultiGetSlices(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* family, const std::vector<rocksdb::Slice>& keys,
                      bool sorted, std::vector<std::optional<std::string>>* out) {
  std::vector<rocksdb::PinnableSlice> values(keys.size());
  std::vector<rocksdb::Status> statuses(keys.size());
  db.MultiGet(rocksdb::ReadOptions(), family, keys.size(), keys.data(), values.data(), statuses.data(), sorted);
  out->assign(keys.size(), std::nullopt);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (statuses[i].IsNotFound()) continue;
    RETURN_IF_ERROR(FromRocks(statuses[i], "multiget"));
    (*out)[i] = values[i].ToString();
  }
  return Status::Ok();
}

}  // namespace

Status Store::MultiGet(Family f, const std::vector<std::string>& keys, std::vector<std::optional<std::string>>* out) {
  return MultiGetSlices(*impl_->db, impl_->h(f), std::vector<rocksdb::Slice>(keys.begin(), keys.end()), false, out);
}

Status Store::MultiGet(Family f, const std::vector<std::string_view>& keys, std::vector<std::optional<std::string>>* out,
                       bool sorted) {
  std::vector<rocksdb::Slice> slices;
  slices.reserve(keys.size());
  for (const auto& k : keys) slices.emplace_back(ToSlice(k));
  return MultiGetSlices(*impl_->db, impl_->h(f), slices, sorted, out);
}

Status Store::Write(WriteBatch& batch) {
  if (impl_->broken) return impl_->Broken();
  RETURN_IF_ERROR(impl_->Fail(impl_->background->First()));
  return impl_->Fail(impl_->Check(impl_->db->Write(impl_->write_options, &batch.impl_->batch), "commit"));
}

std::unique_ptr<Iterator> Store::NewIterator(Family f, const Snapshot* snap) {
  return std::make_unique<RocksIterator>(impl_->db->NewIterator(impl_->Read(snap), impl_->h(f)));
}

std::unique_ptr<Iterator> Store::NewIterator(Family f, const Snapshot* snap, const ScanOptions& scan) {
  rocksdb::ReadOptions ro = impl_->Read(snap);
  if (scan.bulk) {
    ro.readahead_size = 4u << 20;
    ro.fill_cache = false;
  }
  return std::make_unique<RocksIterator>(impl_->db.get(), ro, impl_->h(f), scan.upper_bound);
}

namespace {

//! A key between `a` and `b` (a < b): the mean of the two read as base-256 fractions; equal to
//! `a` or `b` when none lies between them at this length.
std::string MidKey(std::string_view a, std::string_view b) {
  const size_t n = std::max(a.size(), b.size()) + 1;
  std::vector<unsigned> sum(n, 0);
  for (size_t i = n; i-- > 0;) {
    const unsigned x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    sum[i] += x + y;
    if (i > 0 && sum[i] > 255) {
      sum[i - 1] += sum[i] >> 8;
      sum[i] &= 255;
    }
  }
  // Halve: sum[0] may be up to 511 (a carry into the first byte).
  std::string mid(n, '\0');
  unsigned carry = 0;
  for (size_t i = 0; i < n; ++i) {
    const unsigned v = (carry << 8) | sum[i];
    mid[i] = static_cast<char>(v >> 1);
    carry = v & 1;
  }
  while (!mid.empty() && mid.back() == '\0') mid.pop_back();
  return mid;
}

}  // namespace

Store::RangeSize Store::ApproximateSize(Family f, std::string_view begin, std::string_view end) {
  rocksdb::SizeApproximationOptions size_options;
  size_options.include_memtables = false;
  size_options.include_files = true;
  const rocksdb::Range range(ToSlice(begin), ToSlice(end));
  RangeSize size;
  if (!impl_->db->GetApproximateSizes(size_options, impl_->h(f), &range, 1, &size.file_bytes).ok()) size.file_bytes = 0;
  uint64_t memtable_bytes = 0;
  impl_->db->GetApproximateMemTableStats(impl_->h(f), range, &size.memtable_entries, &memtable_bytes);
  return size;
}

std::vector<std::string> Store::SplitKeys(Family f, std::string_view begin, std::string_view end, int parts) {
  // Bytes on disk from `begin` to a key, estimated by RocksDB from the files' index blocks
  // (files that span the whole range count in part), then a bisection over keys per cut.
  rocksdb::SizeApproximationOptions size_options;
  size_options.include_memtables = false;
  size_options.include_files = true;
  auto bytes_to = [&](std::string_view key) -> uint64_t {
    const rocksdb::Range range(ToSlice(begin), ToSlice(key));
    uint64_t size = 0;
    if (!impl_->db->GetApproximateSizes(size_options, impl_->h(f), &range, 1, &size).ok()) return 0;
    return size;
  };
  std::vector<std::string> cuts;
  const uint64_t total = begin < end ? bytes_to(end) : 0;
  constexpr int kSteps = 256;  // keys share long prefixes: up to 32 bytes of bisection
  for (int k = 1; k < parts && total > 0; ++k) {
    const uint64_t goal = total * static_cast<uint64_t>(k) / static_cast<uint64_t>(parts);
    std::string lo(cuts.empty() ? begin : std::string_view(cuts.back())), hi(end);
    for (int step = 0; step < kSteps; ++step) {
      std::string mid = MidKey(lo, hi);
      if (!(lo < mid && mid < hi)) break;
      (bytes_to(mid) < goal ? lo : hi) = std::move(mid);
    }
    if (hi >= end || hi <= begin || (!cuts.empty() && hi <= cuts.back())) break;
    cuts.push_back(std::move(hi));
  }
  return cuts;
}

Result<std::unique_ptr<SortedFile>> Store::NewSortedFile(Family f) {
  namespace fs = std::filesystem;
  static std::atomic<uint64_t> next{0};
  const fs::path dir = fs::path(impl_->dir) / kIngestDir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IoError("creating " + dir.string() + ": " + ec.message());
  auto impl = std::make_unique<SortedFile::Impl>();
  impl->family = impl_->h(f);
  impl->path = (dir / fmt::format("{}-{}.sst", ::getpid(), next++)).string();
  rocksdb::Options options(impl_->db->GetDBOptions(), impl_->db->GetOptions(impl->family));
  impl->writer = std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(), options, impl->family);
  RETURN_IF_ERROR(impl_->Check(impl->writer->Open(impl->path), "creating a sorted file"));
  return std::unique_ptr<SortedFile>(new SortedFile(std::move(impl)));
}

Status Store::Ingest(std::unique_ptr<SortedFile> file) {
  std::vector<std::unique_ptr<SortedFile>> files;
  files.push_back(std::move(file));
  return Ingest(std::move(files));
}

Status Store::Ingest(std::vector<std::unique_ptr<SortedFile>> files) {
  if (impl_->broken) return impl_->Broken();
  rocksdb::IngestExternalFileOptions io;
  io.move_files = true;
  io.allow_global_seqno = true;
  io.allow_blocking_flush = true;  // a memtable holding keys of its range is flushed first
  std::vector<rocksdb::IngestExternalFileArg> args;  // one per family
  std::vector<std::string> paths;
  for (auto& file : files) {
    auto& f = *file->impl_;
    if (file->count() == 0) continue;  // ~Impl removes it
    RETURN_IF_ERROR(impl_->Check(f.writer->Finish(), "writing a sorted file"));
    f.writer.reset();
    paths.push_back(f.path);
    auto arg = std::find_if(args.begin(), args.end(), [&](const auto& a) { return a.column_family == f.family; });
    if (arg == args.end()) {
      arg = args.emplace(args.end());
      arg->column_family = f.family;
      arg->options = io;
    }
    arg->external_files.push_back(f.path);
  }
  if (args.empty()) return Status::Ok();
  // Atomic across families: all files are added, or none.
  auto s = impl_->db->IngestExternalFiles(args);
  if (!s.ok()) {
    std::error_code ec;
    for (const auto& path : paths) std::filesystem::remove(path, ec);
  }
  return impl_->Fail(impl_->Check(s, paths.size() == 1 ? "ingesting a sorted file" : "ingesting sorted files"));
}

std::unique_ptr<Snapshot> Store::GetSnapshot() {
  auto impl = std::make_unique<Snapshot::Impl>();
  impl->db = impl_->db.get();
  impl->snap = impl_->db->GetSnapshot();
  return std::unique_ptr<Snapshot>(new Snapshot(std::move(impl)));
}

Status Store::Flush() {
  rocksdb::FlushOptions fo;
  if (impl_->broken) return impl_->Broken();
  return impl_->Fail(impl_->Check(impl_->db->Flush(fo, impl_->handles), "flush"));
}

Status Store::Health() const {
  if (impl_->broken) return impl_->Broken();
  return impl_->background->First();
}

Status Store::VerifyChecksums() { return FromRocks(impl_->db->VerifyChecksum(), ("verifying " + impl_->dir).c_str()); }

void Store::RemoveStaleViews() const { RemoveStaleViewsOf(impl_->dir); }

const std::string& Store::dir() const { return impl_->dir; }

std::optional<uint64_t> FreeBytes(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p(path);
  std::error_code ec;
  while (!p.empty() && !fs::exists(p, ec)) p = p.parent_path();  // a dir about to be created
  struct statvfs st {};
  if (p.empty() || ::statvfs(p.c_str(), &st) != 0) return std::nullopt;
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

std::string Fixed64(uint64_t v) {
  BytesWriter w;
  w.PutFixed64BE(v);
  return w.Take();
}

Result<std::optional<uint64_t>> GetFixed64(Store& store, Family f, std::string_view key, std::string_view what) {
  ASSIGN_OR_RETURN(auto value, store.Get(f, key));
  if (!value) return std::optional<uint64_t>();
  uint64_t v = 0;
  BytesReader r(*value);
  if (!r.GetFixed64BE(&v)) return Status::Corruption(std::string(what) + " is not an 8-byte number");
  return std::optional<uint64_t>(v);
}

}  // namespace webindex::state
