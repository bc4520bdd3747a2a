// The free-text query language of docs/graph.md: lexer, parser, and a query's meaning on a
// literal's tokens (Satisfies), the reference the index's evaluation (text_query.cc) answers.
#include "graph/text_query.h"

#include <algorithm>

#include "graph/text_index.h"

namespace webindex::graph {
namespace {

using Node = TextQueryNode;

// ---- the grammar ----

struct Lexeme {
  enum class Kind { kWord, kAnd, kOr, kNot, kOpen, kClose, kEnd };
  Kind kind = Kind::kEnd;
  std::string_view text;
  size_t offset = 0;  //!< byte offset in the query
};

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool IsDelimiter(char c) { return IsSpace(c) || c == '(' || c == ')' || c == '&' || c == '|'; }

std::vector<Lexeme> Lex(std::string_view q) {
  std::vector<Lexeme> out;
  size_t i = 0;
  while (i < q.size()) {
    const char c = q[i];
    if (IsSpace(c)) {
      ++i;
      continue;
    }
    const size_t start = i;
    auto add = [&](Lexeme::Kind kind, size_t length) {
      out.push_back({kind, q.substr(start, length), start});
      i += length;
    };
    if (c == '(') {
      add(Lexeme::Kind::kOpen, 1);
    } else if (c == ')') {
      add(Lexeme::Kind::kClose, 1);
    } else if (c == '&') {
      add(Lexeme::Kind::kAnd, q.compare(i, 2, "&&") == 0 ? 2 : 1);
    } else if (c == '|') {
      add(Lexeme::Kind::kOr, q.compare(i, 2, "||") == 0 ? 2 : 1);
    } else if (c == '!') {  // NOT where a word would start; inside a word it is punctuation
      add(Lexeme::Kind::kNot, 1);
    } else {
      size_t end = i;
      while (end < q.size() && !IsDelimiter(q[end])) ++end;
      const std::string_view word = q.substr(i, end - i);
      const Lexeme::Kind kind = word == "AND"   ? Lexeme::Kind::kAnd
                                : word == "OR"  ? Lexeme::Kind::kOr
                                : word == "NOT" ? Lexeme::Kind::kNot
                                                : Lexeme::Kind::kWord;
      add(kind, end - i);
    }
  }
  out.push_back({Lexeme::Kind::kEnd, {}, q.size()});
  return out;
}

class Parser {
 public:
  explicit Parser(std::string_view q) : q_(q), lexemes_(Lex(q)) {}

  Result<std::optional<Node>> Parse() {
    ASSIGN_OR_RETURN(auto root, ParseOr());
    const Lexeme& l = Peek();
    if (l.kind == Lexeme::Kind::kClose) return Error(l, "')' without a matching '('");
    if (l.kind != Lexeme::Kind::kEnd) return Error(l, "unexpected '" + std::string(l.text) + "'");
    return root;
  }

 private:
  const Lexeme& Peek() const { return lexemes_[at_]; }
  const Lexeme& Take() { return lexemes_[at_++]; }

  //! 1-based position in characters (code points) of a lexeme.
  size_t Column(const Lexeme& l) const {
    size_t column = 1;
    for (size_t i = 0; i < l.offset; ++i) column += (static_cast<unsigned char>(q_[i]) & 0xC0) != 0x80;
    return column;
  }
  Status Error(const Lexeme& l, const std::string& what) const {
    if (l.kind == Lexeme::Kind::kEnd) return Status::InvalidArgument("query: " + what + " at its end");
    return Status::InvalidArgument("query: " + what + " at character " + std::to_string(Column(l)));
  }

  static std::optional<Node> Combine(Node::Kind kind, std::vector<Node> parts) {
    if (parts.empty()) return std::nullopt;
    if (parts.size() == 1) return std::move(parts.front());
    Node n;
    n.kind = kind;
    n.children = std::move(parts);
    return n;
  }

  Result<std::optional<Node>> ParseOr() {
    std::vector<Node> parts;
    ASSIGN_OR_RETURN(auto first, ParseAnd());
    if (first) parts.push_back(std::move(*first));
    while (Peek().kind == Lexeme::Kind::kOr) {
      const Lexeme& op = Take();
      if (!StartsOperand(Peek().kind)) return Error(op, "'" + std::string(op.text) + "' needs a term after it");
      ASSIGN_OR_RETURN(auto next, ParseAnd());
      if (next) parts.push_back(std::move(*next));
    }
    return Combine(Node::Kind::kOr, std::move(parts));
  }

  static bool StartsOperand(Lexeme::Kind k) {
    return k == Lexeme::Kind::kWord || k == Lexeme::Kind::kNot || k == Lexeme::Kind::kOpen;
  }

  Result<std::optional<Node>> ParseAnd() {
    std::vector<Node> parts;
    ASSIGN_OR_RETURN(auto first, ParseUnary());
    if (first) parts.push_back(std::move(*first));
    while (true) {
      const Lexeme::Kind k = Peek().kind;
      if (k == Lexeme::Kind::kAnd) {
        const Lexeme& op = Take();
        if (!StartsOperand(Peek().kind)) return Error(op, "'" + std::string(op.text) + "' needs a term after it");
      } else if (!StartsOperand(k)) {
        break;  // side by side means AND
      }
      ASSIGN_OR_RETURN(auto next, ParseUnary());
      if (next) parts.push_back(std::move(*next));
    }
    return Combine(Node::Kind::kAnd, std::move(parts));
  }

  Result<std::optional<Node>> ParseUnary() {
    const Lexeme& l = Take();
    switch (l.kind) {
      case Lexeme::Kind::kNot: {
        if (!StartsOperand(Peek().kind)) return Error(l, "'" + std::string(l.text) + "' needs a term after it");
        ASSIGN_OR_RETURN(auto operand, ParseUnary());
        if (!operand) return std::optional<Node>();
        Node n;
        n.kind = Node::Kind::kNot;
        n.children.push_back(std::move(*operand));
        return std::optional<Node>(std::move(n));
      }
      case Lexeme::Kind::kOpen: {
        ASSIGN_OR_RETURN(auto inner, ParseOr());
        if (Peek().kind != Lexeme::Kind::kClose) {
          if (Peek().kind == Lexeme::Kind::kEnd) return Error(l, "'(' without a matching ')'");
          return Error(Peek(), "unexpected '" + std::string(Peek().text) + "'");
        }
        Take();
        return inner;
      }
      case Lexeme::Kind::kWord:
        return Term(l);
      case Lexeme::Kind::kClose:
        return Error(l, "')' without a matching '('");
      case Lexeme::Kind::kEnd:
        return Error(l, "a term is missing");
      default:
        return Error(l, "'" + std::string(l.text) + "' needs a term before it");
    }
  }

  Result<std::optional<Node>> Term(const Lexeme& l) {
    if (++terms_ > kMaxQueryTerms) {
      return Error(l, "more than " + std::to_string(kMaxQueryTerms) + " terms; a query has at most " +
                          std::to_string(kMaxQueryTerms));
    }
    std::string_view text = l.text;
    const bool prefix = text.size() > 1 && text.back() == '*';
    const bool suffix = text.size() > 1 && text.front() == '*';
    if (prefix) text.remove_suffix(1);
    if (suffix) text.remove_prefix(1);
    if (text.find('*') != std::string_view::npos || text.empty()) {
      return Error(l, "'" + std::string(l.text) + "': a wildcard is '*' at the start or the end of a word");
    }
    std::vector<std::string> words = Words(text);
    if (prefix || suffix) {
      if (words.size() != 1 || (prefix && suffix)) {
        return Error(l, "'" + std::string(l.text) + "': a wildcard term is one word with '*' at its start or its end");
      }
      Node n;
      n.kind = prefix ? Node::Kind::kPrefix : Node::Kind::kSuffix;
      n.word = std::move(words.front());
      return std::optional<Node>(std::move(n));
    }
    std::vector<Node> parts;
    for (auto& w : words) {
      if (IsStopWord(w)) continue;
      Node n;
      n.word = std::move(w);
      parts.push_back(std::move(n));
    }
    return Combine(Node::Kind::kAnd, std::move(parts));
  }

  std::string_view q_;
  std::vector<Lexeme> lexemes_;
  size_t at_ = 0;
  size_t terms_ = 0;
};

//! True when some word of `node` is looked for (under an even number of NOTs).
bool HasPositive(const Node& node, bool negated) {
  switch (node.kind) {
    case Node::Kind::kWord:
    case Node::Kind::kPrefix:
    case Node::Kind::kSuffix:
      return !negated;
    case Node::Kind::kNot:
      return HasPositive(node.children.front(), !negated);
    default:
      return std::any_of(node.children.begin(), node.children.end(),
                         [&](const Node& c) { return HasPositive(c, negated); });
  }
}

}  // namespace

Result<TextQueryNode> ParseTextQuery(std::string_view query) {
  if (query.find_first_not_of(" \t\n\r\f\v") == std::string_view::npos) {
    return Status::InvalidArgument("query: it is empty; give words to look for");
  }
  Parser parser(query);
  ASSIGN_OR_RETURN(auto root, parser.Parse());
  if (!root) {
    return Status::InvalidArgument(
        "query: no word is left to look for; stop words (the, of, and, ...) are not indexed");
  }
  if (!HasPositive(*root, false)) {
    return Status::InvalidArgument("query: it only excludes words; add a word to look for");
  }
  return std::move(*root);
}

bool Satisfies(const TextQueryNode& node, const std::vector<std::string>& tokens) {
  switch (node.kind) {
    case Node::Kind::kWord:
      return std::binary_search(tokens.begin(), tokens.end(), node.word);
    case Node::Kind::kPrefix: {
      auto it = std::lower_bound(tokens.begin(), tokens.end(), node.word);
      return it != tokens.end() && it->starts_with(node.word);
    }
    case Node::Kind::kSuffix:
      return std::any_of(tokens.begin(), tokens.end(), [&](const std::string& t) { return t.ends_with(node.word); });
    case Node::Kind::kAnd:
      return std::all_of(node.children.begin(), node.children.end(),
                         [&](const Node& c) { return Satisfies(c, tokens); });
    case Node::Kind::kOr:
      return std::any_of(node.children.begin(), node.children.end(),
                         [&](const Node& c) { return Satisfies(c, tokens); });
    case Node::Kind::kNot:
      return !Satisfies(node.children.front(), tokens);
  }
  return false;
}

std::string ToString(const TextQueryNode& node) {
  switch (node.kind) {
    case Node::Kind::kWord:
      return node.word;
    case Node::Kind::kPrefix:
      return node.word + "*";
    case Node::Kind::kSuffix:
      return "*" + node.word;
    case Node::Kind::kNot:
      return "(NOT " + ToString(node.children.front()) + ")";
    default: {
      std::string out = "(";
      for (size_t i = 0; i < node.children.size(); ++i) {
        if (i > 0) out += node.kind == Node::Kind::kAnd ? " AND " : " OR ";
        out += ToString(node.children[i]);
      }
      return out + ")";
    }
  }
}

Result<TextSearch> ParseTextSearch(std::string_view query, std::string_view predicate, std::string_view graph) {
  TextSearch search;
  ASSIGN_OR_RETURN(search.query, ParseTextQuery(query));
  ASSIGN_OR_RETURN(Pattern p, ParsePattern("", predicate, "", graph));
  search.predicate = std::move(p.predicate);
  search.graph = std::move(p.graph);
  return search;
}

}  // namespace webindex::graph
