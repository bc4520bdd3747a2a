#include "state/external_sort.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <utility>

#include <fmt/format.h>

#include "state/key_sorter.h"
#include "state/run_file.h"

namespace webindex::state {

//! A buffered record: its key at `key` in the buffer, its value right after it. Entries grow
//! down from the buffer's end while records grow up from its start; a record's offset grows
//! with the order it was added, so it also breaks ties between equal keys.
struct ExternalSorter::Entry {
  uint64_t key;
  uint32_t key_size;
  uint32_t value_size;
};

struct ExternalSorter::Run {
  std::unique_ptr<TempFile> file;
  uint64_t bytes = 0;
};

struct ExternalSorter::RunOut {
  std::unique_ptr<TempFile> file;  // before the writer: a failed run is removed
  std::unique_ptr<RunWriter> writer;
};

//! A k-way merge of sources given in the order their records were added (runs, then the
//! buffer): a binary heap of source indices by (key, index), so equal keys come out in that
//! order. Owns the sources' files and buffer.
class SortedRecords::Merge {
 public:
  using Entry = ExternalSorter::Entry;
  Merge(std::vector<ExternalSorter::Run> runs, std::unique_ptr<std::byte[]> buffer, const Entry* entries, size_t n)
      : runs_(std::move(runs)), buffer_(std::move(buffer)) {
    sources_.resize(runs_.size() + (n > 0 ? 1 : 0));
    if (n > 0) {
      sources_.back().next = entries;
      sources_.back().end = entries + n;
    }
  }

  //! Opens the run files (checking their footers) and reads the first record of each source.
  Status Start() {
    for (size_t i = 0; i < runs_.size(); ++i) {
      ASSIGN_OR_RETURN(sources_[i].run, RunReader::Open(runs_[i].file->path()));
    }
    for (uint32_t i = 0; i < sources_.size(); ++i) {
      if (Advance(sources_[i])) {
        heap_.push_back(i);
      } else {
        RETURN_IF_ERROR(sources_[i].run ? sources_[i].run->status() : Status::Ok());
      }
    }
    for (size_t i = heap_.size() / 2; i-- > 0;) SiftDown(i);
    return Status::Ok();
  }
  bool Valid() const { return !heap_.empty(); }
  std::string_view key() const { return sources_[heap_[0]].key; }
  std::string_view value() const { return sources_[heap_[0]].value; }
  Status Next() {
    Source& top = sources_[heap_[0]];
    if (!Advance(top)) {
      if (top.run && !top.run->status().ok()) {
        heap_.clear();
        return top.run->status();
      }
      heap_[0] = heap_.back();
      heap_.pop_back();
    }
    if (!heap_.empty()) SiftDown(0);
    return Status::Ok();
  }

 private:
  struct Source {
    std::unique_ptr<RunReader> run;  // or the buffer's entries [next, end)
    const Entry* next = nullptr;
    const Entry* end = nullptr;
    std::string_view key, value;
  };
  bool Advance(Source& s) {
    if (s.run) {
      if (!s.run->Next()) return false;
      s.key = s.run->key();
      s.value = s.run->value();
      return true;
    }
    if (s.next == s.end) return false;
    const char* data = reinterpret_cast<const char*>(buffer_.get()) + s.next->key;
    s.key = std::string_view(data, s.next->key_size);
    s.value = std::string_view(data + s.next->key_size, s.next->value_size);
    ++s.next;
    return true;
  }
  bool Before(uint32_t a, uint32_t b) const {
    const int c = sources_[a].key.compare(sources_[b].key);
    return c < 0 || (c == 0 && a < b);
  }
  void SiftDown(size_t i) {
    const size_t n = heap_.size();
    const uint32_t moving = heap_[i];
    for (size_t child; (child = 2 * i + 1) < n; i = child) {
      if (child + 1 < n && Before(heap_[child + 1], heap_[child])) ++child;
      if (!Before(heap_[child], moving)) break;
      heap_[i] = heap_[child];
    }
    heap_[i] = moving;
  }

  std::vector<ExternalSorter::Run> runs_;  // before sources_: files outlive their readers
  std::unique_ptr<std::byte[]> buffer_;
  std::vector<Source> sources_;
  std::vector<uint32_t> heap_;
};

ExternalSorter::ExternalSorter(ExternalSortOptions options) : options_(std::move(options)) {
  static_assert(sizeof(Entry) == kSortRecordOverhead);
  static std::atomic<uint64_t> next_id{0};
  id_ = next_id++;
  capacity_ = options_.budget_bytes / alignof(std::max_align_t) * alignof(std::max_align_t);
}

ExternalSorter::~ExternalSorter() = default;

ExternalSorter::Entry* ExternalSorter::entries() const {
  return reinterpret_cast<Entry*>(buffer_.get() + capacity_) - count_;
}

size_t ExternalSorter::buffered() const { return data_end_ + count_ * sizeof(Entry); }

Status ExternalSorter::Add(std::string_view key, std::string_view value) {
  if (finished_) return Status::InvalidArgument("a record added to a finished sort");
  if (key.size() > UINT32_MAX || value.size() > UINT32_MAX) {
    return Status::InvalidArgument("a key or value of more than 4 GiB for the external sort");
  }
  ++stats_.records;
  stats_.bytes += key.size() + value.size();
  // An empty record still takes a byte, so that offsets keep telling the order of equal keys.
  const size_t data = std::max<size_t>(1, key.size() + value.size());
  const size_t need = data + sizeof(Entry);
  if (need > capacity_) {  // larger than the whole buffer: a run of its own, after the buffer's
    RETURN_IF_ERROR(Spill());
    ASSIGN_OR_RETURN(RunOut out, NewRun());
    RETURN_IF_ERROR(out.writer->Add(key, value));
    return EndRun(std::move(out), &stats_.runs);
  }
  if (buffered() + need > capacity_) RETURN_IF_ERROR(Spill());
  if (!buffer_) buffer_ = std::make_unique_for_overwrite<std::byte[]>(capacity_);  // pages touched as they fill
  char* at = reinterpret_cast<char*>(buffer_.get()) + data_end_;
  // An empty view may hold no pointer at all, which memcpy must never get, even for 0 bytes.
  if (!key.empty()) std::memcpy(at, key.data(), key.size());
  if (!value.empty()) std::memcpy(at + key.size(), value.data(), value.size());
  new (entries() - 1) Entry{data_end_, static_cast<uint32_t>(key.size()), static_cast<uint32_t>(value.size())};
  data_end_ += data;
  ++count_;
  stats_.peak_buffered_bytes = std::max<uint64_t>(stats_.peak_buffered_bytes, buffered());
  return Status::Ok();
}

void ExternalSorter::SortBuffer() {
  const std::string_view keys(reinterpret_cast<const char*>(buffer_.get()), data_end_);
  KeySorter<Entry, &Entry::key>(keys).Sort(entries(), count_, 0);
}

Status ExternalSorter::Spill() {
  if (count_ == 0) return Status::Ok();
  SortBuffer();
  ASSIGN_OR_RETURN(RunOut out, NewRun());
  const char* data = reinterpret_cast<const char*>(buffer_.get());
  for (const Entry *e = entries(), *end = e + count_; e != end; ++e) {
    RETURN_IF_ERROR(out.writer->Add(std::string_view(data + e->key, e->key_size),
                                    std::string_view(data + e->key + e->key_size, e->value_size)));
  }
  data_end_ = 0;
  count_ = 0;
  return EndRun(std::move(out), &stats_.runs);
}

Result<ExternalSorter::RunOut> ExternalSorter::NewRun() {
  RunOut out;
  out.file =
      std::make_unique<TempFile>(fmt::format("{}/sort-{}-{}-{}.run", options_.temp_dir, ::getpid(), id_, next_run_++));
  ASSIGN_OR_RETURN(out.writer, RunWriter::Create(out.file->path()));
  return out;
}

Status ExternalSorter::EndRun(RunOut out, uint64_t* counter) {
  const Status st = out.writer->Finish();
  stats_.spilled_bytes += out.writer->file_bytes();
  RETURN_IF_ERROR(st);
  stats_.disk_bytes += out.writer->file_bytes();
  stats_.peak_disk_bytes = std::max(stats_.peak_disk_bytes, stats_.disk_bytes);
  ++*counter;
  runs_.push_back(Run{std::move(out.file), out.writer->file_bytes()});
  return Status::Ok();
}

//! While there are more runs than a merge reads at once, merges groups of consecutive runs
//! (keeping the order of equal keys) into one each, just enough of them to get down to the fan-in.
Status ExternalSorter::MergePasses() {
  const size_t fan_in = std::max<size_t>(2, options_.max_fan_in);
  while (runs_.size() > fan_in) {
    std::vector<Run> runs = std::move(runs_);
    runs_.clear();
    size_t i = 0;
    while (i < runs.size() && runs_.size() + (runs.size() - i) > fan_in) {
      const size_t left = runs_.size() + (runs.size() - i);
      const size_t group = std::min({fan_in, runs.size() - i, left - fan_in + 1});
      std::vector<Run> inputs(std::make_move_iterator(runs.begin() + static_cast<std::ptrdiff_t>(i)),
                              std::make_move_iterator(runs.begin() + static_cast<std::ptrdiff_t>(i + group)));
      i += group;
      uint64_t input_bytes = 0;
      for (const Run& r : inputs) input_bytes += r.bytes;
      auto merge = std::make_unique<SortedRecords::Merge>(std::move(inputs), nullptr, nullptr, 0);
      RETURN_IF_ERROR(merge->Start());
      ASSIGN_OR_RETURN(RunOut out, NewRun());
      while (merge->Valid()) {
        RETURN_IF_ERROR(out.writer->Add(merge->key(), merge->value()));
        RETURN_IF_ERROR(merge->Next());
      }
      RETURN_IF_ERROR(EndRun(std::move(out), &stats_.merged_runs));
      merge.reset();  // removes the inputs
      stats_.disk_bytes -= input_bytes;
    }
    for (; i < runs.size(); ++i) runs_.push_back(std::move(runs[i]));
  }
  return Status::Ok();
}

Result<std::unique_ptr<SortedRecords>> ExternalSorter::Finish() {
  if (finished_) return Status::InvalidArgument("a sort finished twice");
  finished_ = true;
  if (count_ > 0) SortBuffer();
  RETURN_IF_ERROR(MergePasses());
  const Entry* sorted = count_ > 0 ? entries() : nullptr;
  auto merge = std::make_unique<SortedRecords::Merge>(std::move(runs_), std::move(buffer_), sorted, count_);
  runs_.clear();
  data_end_ = count_ = 0;
  RETURN_IF_ERROR(merge->Start());
  return std::unique_ptr<SortedRecords>(new SortedRecords(std::move(merge), stats_));
}

SortedRecords::SortedRecords(std::unique_ptr<Merge> merge, ExternalSortStats stats)
    : merge_(std::move(merge)), stats_(stats) {
  Load();
}

SortedRecords::~SortedRecords() = default;

void SortedRecords::Next() {
  status_ = merge_->Next();
  Load();
}

void SortedRecords::Load() {
  valid_ = merge_->Valid();
  key_ = valid_ ? merge_->key() : std::string_view();
  value_ = valid_ ? merge_->value() : std::string_view();
}

}  // namespace webindex::state
