// The one RocksDB database of a webindex data dir: a column family per store, atomic
// multi-family write batches, snapshots for consistent reads. Thread-safe (RocksDB is).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rocksdb {
class Env;
}

namespace webindex::state {

enum class Family : int {
  kPages = 0,   //!< page stage: uri -> PageState
  kUris,        //!< uri stage: uri -> Counted
  kDomains,     //!< domain stage: domain -> Counted
  kOffsets,     //!< consumer positions: "<group>/<topic>/<partition>" -> next offset
  kOutbox,      //!< records committed but not yet acknowledged by Kafka
  kDedupe,      //!< highest applied seq per (input partition, src)
  kMeta,        //!< counters: next outbox seq, next origin seq
  kTable,       //!< the query table (sink)
  kVersions,    //!< sink: last applied export seq per key
  kCount,
};

//! Keys of a family that are read only by scans (Store::NewIterator), never by key (Get,
//! MultiGet): [begin, end).
struct ScanOnlyKeys {
  Family family = Family::kTable;
  std::string begin, end;
};

struct StoreOptions {
  size_t block_cache_bytes = 256u << 20;
  size_t write_buffer_bytes = 64u << 20;     //!< one memtable of one family at most
  size_t memtable_budget_bytes = 256u << 20; //!< all memtables together; beyond it the largest flushes
  size_t max_wal_bytes = 512u << 20;         //!< WAL size that forces the flush of families holding old logs
  //! fsync the WAL before a commit returns, so that nothing a commit produced can outlive it
  //! in a power loss. false is faster and safe only against process crashes (docs/reliability.md).
  bool sync_commits = true;
  //! Free space below which opening warns; also what a "disk full" error asks to free.
  size_t min_free_bytes = size_t{1} << 30;
  bool read_only = false;
  //! Create the database when `dir` is missing or empty. Never over a damaged one: a dir with
  //! files but no database is refused, so a lost CURRENT file cannot restart from nothing.
  bool create_if_missing = true;
  //! false: files are never compacted, so that a test sees the file layout its flushes made.
  bool auto_compactions = true;
  //! Key ranges that point reads never look for: their rows take no place in the memtables'
  //! Bloom filter, whose every entry costs the write a hash and a cache miss. A point read of
  //! such a key is still answered exactly, only without the filter's shortcut.
  std::vector<ScanOnlyKeys> scan_only;
  //! The file system RocksDB uses; nullptr: the real one. Tests inject faults through it.
  std::shared_ptr<rocksdb::Env> env;
};

class Store;

//! A set of writes applied atomically by Store::Write. Not thread-safe.
class WriteBatch {
 public:
  explicit WriteBatch(const Store& store);
  ~WriteBatch();
  WriteBatch(WriteBatch&&) noexcept;
  void Put(Family f, std::string_view key, std::string_view value);
  void Delete(Family f, std::string_view key);
  //! Makes room for `keys` more puts or deletes of keys and values of `bytes` in all, so that
  //! a large batch is not copied each time it outgrows its buffer.
  void Reserve(size_t keys, size_t bytes);
  //! Deletes every key in [begin, end) with one range tombstone.
  void DeleteRange(Family f, std::string_view begin, std::string_view end);
  size_t Count() const;
  size_t ByteSize() const;

 private:
  friend class Store;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

//! A point-in-time view; reads through it see one consistent state.
class Snapshot {
 public:
  ~Snapshot();
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

 private:
  friend class Store;
  struct Impl;
  explicit Snapshot(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

//! Forward iterator over one family. Owned by the caller; one thread.
class Iterator {
 public:
  virtual ~Iterator() = default;
  virtual void Seek(std::string_view key) = 0;
  virtual void SeekToFirst() = 0;
  virtual bool Valid() const = 0;
  virtual void Next() = 0;
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  virtual Status status() const = 0;
};

//! How an iterator reads.
struct ScanOptions {
  //! A scan over much of a family (PageRank's read of the table): a large readahead, and the
  //! blocks it reads are not kept in the block cache (they would evict the stages' working set).
  bool bulk = false;
  //! Keys from here on are not visited ("": no bound); lets RocksDB stop early at file edges.
  std::string upper_bound;
};

//! Key-value pairs written in ascending key order into a file that Store::Ingest adds to one
//! family at once: for results of millions of rows that are replaced whole (PageRank's), at a
//! fraction of the cost of memtable inserts and a WAL. One thread.
class SortedFile {
 public:
  ~SortedFile();
  SortedFile(const SortedFile&) = delete;
  SortedFile& operator=(const SortedFile&) = delete;
  //! Keys must grow strictly; InvalidArgument otherwise.
  Status Put(std::string_view key, std::string_view value);
  uint64_t count() const { return count_; }

 private:
  friend class Store;
  struct Impl;
  explicit SortedFile(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  uint64_t count_ = 0;
};

class Store {
 public:
  friend class WriteBatch;
  static Result<std::unique_ptr<Store>> Open(const std::string& dir, const StoreOptions& options);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  Result<std::optional<std::string>> Get(Family f, std::string_view key, const Snapshot* snap = nullptr);
  //! out[i] is the value of keys[i], or nullopt.
  Status MultiGet(Family f, const std::vector<std::string>& keys, std::vector<std::optional<std::string>>* out);
  //! The same for keys held elsewhere; `sorted`: the keys are in key order (RocksDB sorts them
  //! otherwise).
  Status MultiGet(Family f, const std::vector<std::string_view>& keys, std::vector<std::optional<std::string>>* out,
                  bool sorted = false);
  Status Write(WriteBatch& batch);
  std::unique_ptr<Iterator> NewIterator(Family f, const Snapshot* snap = nullptr);
  std::unique_ptr<Iterator> NewIterator(Family f, const Snapshot* snap, const ScanOptions& scan);
  //! Up to `parts - 1` keys that cut [begin, end) of family `f` into ranges of about equal size on
  //! disk (memtables are not counted), ascending; none when the range has no data on disk. For
  //! reading one range on several threads.
  std::vector<std::string> SplitKeys(Family f, std::string_view begin, std::string_view end, int parts);
  //! What [begin, end) of family `f` holds, estimated by RocksDB: bytes in files (from their index
  //! blocks) and entries in memtables (from samples of them). Cheap, for query plans.
  struct RangeSize {
    uint64_t file_bytes = 0;
    uint64_t memtable_entries = 0;
  };
  RangeSize ApproximateSize(Family f, std::string_view begin, std::string_view end);
  //! A new, empty sorted file for family `f`, in the store's directory.
  Result<std::unique_ptr<SortedFile>> NewSortedFile(Family f);
  //! Adds the pairs of `file` to its family in one durable step: reads after it see them all
  //! (over any older value of their keys), reads before it and snapshots taken before it none.
  //! The file moves into the database; an empty one is dropped.
  Status Ingest(std::unique_ptr<SortedFile> file);
  //! The same for several files, of one family or several, in one step: reads see all of them or
  //! none. The files of one family must hold disjoint key ranges.
  Status Ingest(std::vector<std::unique_ptr<SortedFile>> files);
  std::unique_ptr<Snapshot> GetSnapshot();
  //! Flushes memtables so that a reopen does not replay the WAL (used on clean shutdown).
  Status Flush();
  //! Ok, or the first error that made the database stop taking writes: a failed commit, or a
  //! flush or compaction that met damage or a full disk (RocksDB's background error). Any thread.
  Status Health() const;
  //! Reads every block of every file and checks its checksum (`webindex verify`).
  Status VerifyChecksums();
  const std::string& dir() const;
  //! Removes the views that read-only opens of this database left behind when their process
  //! died (<dir>/views): their links would keep the files this writer deletes on disk. Opens
  //! do it too; `webindex run` does it every minute.
  void RemoveStaleViews() const;

 private:
  struct Impl;
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

//! Bytes free for unprivileged writers on the file system of `path` (or of its nearest existing
//! parent); nullopt when it cannot be told.
std::optional<uint64_t> FreeBytes(const std::string& path);

//! A value stored as 8 big-endian bytes (BytesWriter::PutFixed64BE: counters, positions);
//! nullopt when absent, Corruption (naming `what`) when it is not 8 bytes.
Result<std::optional<uint64_t>> GetFixed64(Store& store, Family f, std::string_view key, std::string_view what);
//! `v` as GetFixed64 reads it.
std::string Fixed64(uint64_t v);

}  // namespace webindex::state
