#include "graph/graph_json.h"

#include "codec/json_writer.h"

namespace webindex::graph {

std::string ToJson(const Page& page) {
  codec::JsonWriter w;
  w.BeginObject().Key("results").BeginArray();
  for (const auto& s : page.statements) {
    w.BeginObject();
    w.Key("s").String(ToNTriples(s.subject));
    w.Key("p").String(ToNTriples(s.predicate));
    w.Key("o").String(ToNTriples(s.object));
    w.Key("graph").String(s.graph ? ToNTriples(*s.graph) : "default");
    w.EndObject();
  }
  w.EndArray().Key("next");
  if (page.next) {
    w.String(*page.next);
  } else {
    w.Null();
  }
  w.EndObject();
  return w.Take();
}

}  // namespace webindex::graph
