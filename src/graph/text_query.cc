#include "graph/text_query.h"

#include <algorithm>
#include <memory>
#include <queue>

#include "common/base64url.h"
#include "graph/index_set.h"
#include "graph/text_index.h"

namespace webindex::graph {
namespace {

using Node = TextQueryNode;
constexpr size_t kMaxCursorChars = 1 << 20;

//! True when the candidates of `node` are exactly its matches (no NOT inside), so that they
//! need no check against the literal's tokens.
bool IsExactCover(const Node& node) {
  if (node.kind == Node::Kind::kNot) return false;
  return std::all_of(node.children.begin(), node.children.end(), IsExactCover);
}

// ---- candidate streams: sorted s p o encodings ----

class Stream {
 public:
  virtual ~Stream() = default;
  //! Positions at the first key >= target.
  virtual void Seek(std::string_view target) = 0;
  virtual void Next() = 0;
  virtual bool Valid() const = 0;
  virtual std::string_view Key() const = 0;
  virtual Status status() const = 0;

  //! Positions at the first key >= target, from a position before it: a few steps first, as
  //! the next match is usually near (a step is far cheaper than a seek), then a seek.
  void SeekForward(std::string_view target) {
    for (int steps = 0; steps < 8; ++steps) {
      if (!Valid() || Key() >= target) return;
      Next();
    }
    if (Valid() && Key() < target) Seek(target);
  }
};

//! The rows under one key prefix (a token's postings, or a graph's SPO rows): the rest of each key.
class PrefixStream final : public Stream {
 public:
  PrefixStream(std::unique_ptr<state::Iterator> it, std::string base) : it_(std::move(it)), base_(std::move(base)) {}
  void Seek(std::string_view target) override {
    seek_.assign(base_).append(target);
    it_->Seek(seek_);
  }
  void Next() override { it_->Next(); }
  bool Valid() const override { return it_->Valid() && it_->key().starts_with(base_); }
  std::string_view Key() const override { return it_->key().substr(base_.size()); }
  Status status() const override { return it_->status(); }

 private:
  std::unique_ptr<state::Iterator> it_;
  std::string base_;
  std::string seek_;  // the last Seek's key, its buffer reused
};

class EmptyStream final : public Stream {
 public:
  void Seek(std::string_view) override {}
  void Next() override {}
  bool Valid() const override { return false; }
  std::string_view Key() const override { return {}; }
  Status status() const override { return Status::Ok(); }
};

class UnionStream final : public Stream {
 public:
  explicit UnionStream(std::vector<std::unique_ptr<Stream>> children) : children_(std::move(children)) {}
  void Seek(std::string_view target) override {
    for (auto& c : children_) c->Seek(target);
    Rebuild();
  }
  void Next() override {
    const std::string current(Key());
    while (!heap_.empty() && children_[heap_.front()]->Key() == current) {
      std::pop_heap(heap_.begin(), heap_.end(), Greater{this});
      const size_t i = heap_.back();
      heap_.pop_back();
      children_[i]->Next();
      if (children_[i]->Valid()) {
        heap_.push_back(i);
        std::push_heap(heap_.begin(), heap_.end(), Greater{this});
      }
    }
  }
  bool Valid() const override { return !heap_.empty(); }
  std::string_view Key() const override { return children_[heap_.front()]->Key(); }
  Status status() const override {
    for (const auto& c : children_) RETURN_IF_ERROR(c->status());
    return Status::Ok();
  }

 private:
  struct Greater {
    const UnionStream* self;
    bool operator()(size_t a, size_t b) const { return self->children_[a]->Key() > self->children_[b]->Key(); }
  };
  void Rebuild() {
    heap_.clear();
    for (size_t i = 0; i < children_.size(); ++i) {
      if (children_[i]->Valid()) heap_.push_back(i);
    }
    std::make_heap(heap_.begin(), heap_.end(), Greater{this});
  }
  std::vector<std::unique_ptr<Stream>> children_;
  std::vector<size_t> heap_;  //!< valid children, a min-heap by key
};

class IntersectStream final : public Stream {
 public:
  explicit IntersectStream(std::vector<std::unique_ptr<Stream>> children) : children_(std::move(children)) {}
  void Seek(std::string_view target) override {
    for (auto& c : children_) c->Seek(target);
    Align();
  }
  void Next() override {
    children_.front()->Next();
    Align();
  }
  bool Valid() const override { return valid_; }
  std::string_view Key() const override { return children_.front()->Key(); }
  Status status() const override {
    for (const auto& c : children_) RETURN_IF_ERROR(c->status());
    return Status::Ok();
  }

 private:
  //! Leapfrog: seeks the others to the first child's key, and the first to any greater key,
  //! until all stand on the same one.
  void Align() {
    while (true) {
      if (!children_.front()->Valid()) break;
      target_.assign(children_.front()->Key());
      bool aligned = true;
      for (size_t i = 1; i < children_.size() && aligned; ++i) {
        Stream& c = *children_[i];
        c.SeekForward(target_);
        if (!c.Valid()) {
          valid_ = false;
          return;
        }
        if (c.Key() > target_) {
          ahead_.assign(c.Key());
          children_.front()->SeekForward(ahead_);
          aligned = false;
        }
      }
      if (aligned) {
        valid_ = true;
        return;
      }
    }
    valid_ = false;
  }
  std::vector<std::unique_ptr<Stream>> children_;
  bool valid_ = false;
  std::string target_, ahead_;  // Align's keys, reused: a scan aligns once per candidate
};

}  // namespace

namespace {

//! Builds the stream of candidates for `node` in one graph: a superset of its matches, or
//! nullptr when the node alone does not narrow them (NOT, or an OR with such a branch). With
//! `predicate` (a term's encoding), the postings are that predicate's (kTextByPredicateRows) and
//! their keys s o; else the graph's (kTextRows), s p o.
class CoverBuilder {
 public:
  CoverBuilder(state::Store& store, const state::Snapshot* snap, const KeySpace& space, const std::string& graph,
               const std::string* predicate)
      : store_(store),
        snap_(snap),
        space_(space),
        postings_(predicate ? space.prefix + kTextByPredicateRows + graph + *predicate
                            : space.prefix + kTextRows + graph),
        words_(space.prefix + kTextReversedRows + graph) {}

  Result<std::unique_ptr<Stream>> Build(const Node& node) {
    switch (node.kind) {
      case Node::Kind::kWord:
        return Postings(node.word);
      case Node::Kind::kPrefix:  // the tokens of the postings that start so
        return Expand(postings_, node.word, false, node);
      case Node::Kind::kSuffix:  // the words of the graph's word list that end so
        return Expand(words_, Reversed(node.word), true, node);
      case Node::Kind::kNot:
        return std::unique_ptr<Stream>();
      case Node::Kind::kAnd: {
        std::vector<std::unique_ptr<Stream>> parts;
        for (const auto& c : node.children) {
          ASSIGN_OR_RETURN(auto s, Build(c));
          if (s) parts.push_back(std::move(s));
        }
        if (parts.size() <= 1) return parts.empty() ? std::unique_ptr<Stream>() : std::move(parts.front());
        return std::unique_ptr<Stream>(std::make_unique<IntersectStream>(std::move(parts)));
      }
      case Node::Kind::kOr: {
        std::vector<std::unique_ptr<Stream>> parts;
        for (const auto& c : node.children) {
          ASSIGN_OR_RETURN(auto s, Build(c));
          if (!s) return std::unique_ptr<Stream>();
          parts.push_back(std::move(s));
        }
        return std::unique_ptr<Stream>(std::make_unique<UnionStream>(std::move(parts)));
      }
    }
    return std::unique_ptr<Stream>();
  }

 private:
  std::unique_ptr<Stream> Postings(std::string_view token) {
    std::string base = postings_;
    AppendKeyString(token, &base);
    return std::make_unique<PrefixStream>(store_.NewIterator(space_.family, snap_), std::move(base));
  }

  //! The union of the postings of every token that starts with `start` among the rows under
  //! `base`: the postings themselves, or the word list, each word spelled backwards (`reversed`).
  Result<std::unique_ptr<Stream>> Expand(const std::string& base, const std::string& start, bool reversed,
                                         const Node& node) {
    std::vector<std::unique_ptr<Stream>> parts;
    auto it = store_.NewIterator(space_.family, snap_);
    it->Seek(base + start);
    std::string token;
    while (it->Valid() && it->key().starts_with(base + start)) {
      std::string_view rest = it->key().substr(base.size());
      if (!ReadKeyString(&rest, &token)) return Status::Corruption("undecodable free-text row key");
      if (parts.size() == kMaxWildcardTokens) {
        return Status::InvalidArgument("query: '" + ToString(node) + "' stands for more than " +
                                       std::to_string(kMaxWildcardTokens) + " words; make it longer");
      }
      parts.push_back(Postings(reversed ? Reversed(token) : token));
      std::string past = base;
      AppendKeyString(token, &past);
      it->Seek(PrefixEnd(past));
    }
    RETURN_IF_ERROR(it->status());
    if (parts.empty()) return std::unique_ptr<Stream>(std::make_unique<EmptyStream>());
    if (parts.size() == 1) return std::move(parts.front());
    return std::unique_ptr<Stream>(std::make_unique<UnionStream>(std::move(parts)));
  }

  state::Store& store_;
  const state::Snapshot* snap_;
  const KeySpace& space_;
  const std::string postings_;  //!< the postings' key prefix, before the token
  const std::string words_;     //!< the word list's key prefix
};

}  // namespace

Status TextReader::ScanGraph(const TextSearch& search, const std::string& graph, const Statement* after,
                             const GraphReader::Visitor& fn, bool* stopped) {
  // A search of one predicate reads that predicate's postings where the generation keeps them.
  std::string predicate;
  const bool by_predicate = search.predicate && by_predicate_.value_or(false);
  if (by_predicate) AppendTerm(*search.predicate, &predicate);
  CoverBuilder builder(store_, snapshot_, space_, graph, by_predicate ? &predicate : nullptr);
  ASSIGN_OR_RETURN(auto cover, builder.Build(search.query));
  const bool postings = cover != nullptr;  // keys are free-text rows' (long objects digested)
  const bool exact = postings && IsExactCover(search.query);
  if (!postings) {  // every statement of the graph is a candidate (e.g. "cat OR NOT dog")
    cover = std::make_unique<PrefixStream>(store_.NewIterator(space_.family, snapshot_),
                                           space_.prefix + static_cast<char>(Index::kSpo) + graph);
  }
  std::string start;
  if (after) {
    if (postings && by_predicate) {  // s o
      AppendTerm(after->subject, &start);
      AppendTextObject(after->object, &start);
    } else if (postings) {
      AppendTextStatement(*after, &start);
    } else {
      AppendTerm(after->subject, &start);
      AppendTerm(after->predicate, &start);
      AppendTerm(after->object, &start);
    }
  }
  cover->Seek(start);
  if (after && cover->Valid() && cover->Key() == start) cover->Next();
  Statement st;
  std::string_view graph_view = graph;
  if (!ReadGraph(&graph_view, &st.graph)) return Status::Corruption("undecodable graph");
  // Visits `st` when it matches; false when the scan is to stop (fn said so).
  auto visit = [&](bool verified) {
    if (!IsTextLiteral(st.object) || (search.predicate && st.predicate != *search.predicate)) return true;
    if (!verified && !Satisfies(search.query, Tokenize(st.object.value()))) return true;
    if (fn(st)) return true;
    *stopped = true;
    return false;
  };
  const bool keyed_s_o = postings && by_predicate;  // the predicate is the search's
  if (keyed_s_o) st.predicate = *search.predicate;
  for (; cover->Valid(); cover->Next()) {
    std::string_view rest = cover->Key();
    if (!ReadTerm(&rest, &st.subject) || (!keyed_s_o && !ReadTerm(&rest, &st.predicate))) {
      return Status::Corruption("undecodable free-text row key");
    }
    if (!postings || rest.empty() || rest.front() != kDigestedObject) {
      if (!ReadTerm(&rest, &st.object) || !rest.empty()) return Status::Corruption("undecodable free-text row key");
      if (!visit(exact)) return Status::Ok();
      continue;
    }
    // A long object, named by its digest: the statement's object is among the SPO rows of its
    // subject and predicate (several only if two digests collide; each is checked).
    const std::string digest(rest);
    std::string spo = space_.prefix + static_cast<char>(Index::kSpo) + graph;
    AppendTerm(st.subject, &spo);
    AppendTerm(st.predicate, &spo);
    auto it = store_.NewIterator(space_.family, snapshot_);
    for (it->Seek(spo); it->Valid() && it->key().starts_with(spo); it->Next()) {
      std::string_view object = it->key().substr(spo.size());
      if (object.size() <= kMaxInlineTextObject || ObjectDigest(object) != digest) continue;
      if (!ReadTerm(&object, &st.object) || !object.empty()) return Status::Corruption("undecodable statement key");
      if (!visit(false)) return Status::Ok();
    }
    RETURN_IF_ERROR(it->status());
  }
  return cover->status();
}

Status TextReader::Scan(const TextSearch& search, std::string_view cursor, const GraphReader::Visitor& fn) {
  if (search.predicate && !by_predicate_.has_value()) {
    ASSIGN_OR_RETURN(const IndexSet recorded, RecordedIndexes(store_));
    by_predicate_ = recorded.freetext_by_predicate;
  }
  std::string start_graph;  // graph encoding of the cursor
  Statement at;             // the cursor's statement
  if (!cursor.empty()) {
    std::string key;
    if (cursor.size() <= kMaxCursorChars) {
      auto decoded = Base64UrlDecode(cursor);
      if (decoded.ok()) key = std::move(decoded).value();
    }
    std::string_view in = key;
    if (key.empty() || !ReadGraph(&in, &at.graph)) return Status::InvalidArgument("bad cursor");
    start_graph = key.substr(0, key.size() - in.size());
    if (!ReadTerm(&in, &at.subject) || !ReadTerm(&in, &at.predicate) || !ReadTerm(&in, &at.object) || !in.empty()) {
      return Status::InvalidArgument("bad cursor");
    }
    if (!Matches(Pattern{std::nullopt, search.predicate, std::nullopt, search.graph}, at)) {
      return Status::InvalidArgument("cursor does not belong to this query");
    }
  }
  bool stopped = false;
  if (search.graph.kind != GraphSelector::Kind::kAll) {
    std::string graph;
    AppendGraph(search.graph.kind == GraphSelector::Kind::kNamed ? std::optional<Term>(search.graph.name)
                                                                   : std::nullopt,
                &graph);
    return ScanGraph(search, graph, cursor.empty() ? nullptr : &at, fn, &stopped);
  }
  // Every graph with statements, in order: found by skipping through the SPO rows.
  const std::string base = space_.prefix + static_cast<char>(Index::kSpo);
  auto it = store_.NewIterator(space_.family, snapshot_);
  it->Seek(base + start_graph);
  std::optional<Term> graph;
  while (it->Valid() && it->key().starts_with(base)) {
    std::string_view rest = it->key().substr(base.size());
    if (!ReadGraph(&rest, &graph)) return Status::Corruption("undecodable graph row key");
    const std::string encoded(it->key().substr(base.size(), it->key().size() - base.size() - rest.size()));
    const bool resume = !cursor.empty() && encoded == start_graph;
    RETURN_IF_ERROR(ScanGraph(search, encoded, resume ? &at : nullptr, fn, &stopped));
    if (stopped) return Status::Ok();
    it->Seek(PrefixEnd(base + encoded));
  }
  return it->status();
}

Result<Page> TextReader::Query(const TextSearch& search, size_t limit, std::string_view cursor) {
  Page page;
  ASSIGN_OR_RETURN(const bool more, FillPage(limit, &page, [&](const GraphReader::Visitor& fn) {
    return Scan(search, cursor, fn);
  }));
  if (more) {
    const Statement& last = page.statements.back();
    std::string key;
    AppendGraph(last.graph, &key);
    AppendTerm(last.subject, &key);
    AppendTerm(last.predicate, &key);
    AppendTerm(last.object, &key);
    page.next = Base64UrlEncode(key);
  }
  return page;
}

}  // namespace webindex::graph
