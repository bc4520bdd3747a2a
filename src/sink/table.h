// The query table's layout (docs/semantics.md §4): cells (row, cf, cq) -> value in the kTable family,
// keyed so that RocksDB's byte order is the order of (row, cf, cq). Stateless helpers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/page.h"
#include "state/sorted_writes.h"
#include "state/store.h"

namespace webindex::sink {

struct Cell {
  std::string row, cf, cq, value;
};

//! Each part with 0x00 escaped as 00 ff and ended by 00 01, so tuple order = byte order.
std::string EncodeCellKey(std::string_view row, std::string_view cf, std::string_view cq);
void AppendCellKey(std::string_view row, std::string_view cf, std::string_view cq, std::string* key);
bool DecodeCellKey(std::string_view key, std::string* row, std::string* cf, std::string* cq);
//! DecodeCellKey without copies, for the usual key whose parts hold no '\0': views into `key`.
//! nullopt for a key with an escaped '\0' or a malformed one (DecodeCellKey tells which).
struct CellKeyView {
  std::string_view row, cf, cq;
};
std::optional<CellKeyView> ViewCellKey(std::string_view key);
//! The smallest key of any cell whose row starts with `row_prefix`.
std::string RowPrefixKey(std::string_view row_prefix);
//! The prefix of every cell key of row `row` and column family `cf`.
std::string CellPrefixKey(std::string_view row, std::string_view cf);

//! Keys of the family that are no cells: other stores keep their rows there under prefixes
//! 00 XX with XX neither 01 nor FF (a cell key never starts so), e.g. the graph store under
//! 00 67. Such a key's prefix is its first two bytes; nullopt for a key that may be a cell.
std::optional<std::string> ForeignKeyPrefix(std::string_view key);

//! Row names of the three row families.
std::string DomainRow(std::string_view domain);                                   // d:<domain>
std::string RankRow(std::string_view domain, uint64_t count, std::string_view uri);  // d:<domain>:<rev>:<uri>
std::string PageRow(std::string_view uri);                                        // p:<uri>
std::string TotalRow(uint64_t count, std::string_view uri);                        // t:<rev>:<uri>

//! Writes of exports' new values; reads the current table where the old value matters.
//! Cell writes are collected and reach the batch in key order on Flush (or destruction):
//! RocksDB's memtable inserts sorted keys much faster than scattered ones. The last write
//! of a cell wins, as it would in the batch.
class TableWriter {
 public:
  TableWriter(state::Store& store, state::WriteBatch& batch) : store_(store), batch_(batch) {}
  ~TableWriter() { Flush(); }
  TableWriter(const TableWriter&) = delete;
  TableWriter& operator=(const TableWriter&) = delete;
  //! Adds the collected writes to the batch, in key order.
  void Flush();
  //! Replaces page|cur and the inlinks rows the page's links make (old ones read from page|cur).
  Status SetPage(std::string_view uri, const std::optional<model::Page>& page, const std::string& page_json);
  //! Replaces incount, the t: row and the d: rank row of `uri`.
  Status SetUriInfo(std::string_view uri, const model::UriInfo& info);

  //! The cells SetPage and SetUriInfo read the old value from, so that a batch reads them all
  //! in one MultiGet and passes them in below.
  static std::string PageCurKey(std::string_view uri);
  static std::string IncountKey(std::string_view uri);
  static std::string PagecountKey(std::string_view domain);
  //! The other cells' keys, for a build that writes the table whole (a replay's bulk build): the
  //! inlink of `source` in `target`'s row, `uri`'s t: row and its domain's rank row at count `n`.
  static std::string InlinkKey(std::string_view target, std::string_view source);
  static std::string TotalKey(uint64_t n, std::string_view uri);
  static std::string RankKey(std::string_view domain, uint64_t n, std::string_view uri);
  //! As above, given the old value of PageCurKey / IncountKey (nullopt: none).
  Status SetPage(std::string_view uri, const std::optional<model::Page>& page, const std::string& page_json,
                 const std::optional<std::string>& old_json);
  void SetUriInfo(std::string_view uri, const model::UriInfo& info, const std::optional<std::string>& old_incount);
  void SetDomainCount(std::string_view domain, int64_t pagecount);

 private:
  void Put(std::string_view row, std::string_view cf, std::string_view cq, std::string_view value);
  void Delete(std::string_view row, std::string_view cf, std::string_view cq);
  state::Store& store_;
  state::WriteBatch& batch_;
  state::SortedWrites writes_;
};

}  // namespace webindex::sink
