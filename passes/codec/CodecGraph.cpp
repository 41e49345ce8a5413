//===- CodecGraph.cpp - The marked graph of codec placement -----*- C++ -*-===//
//
// Algorithm numbers refer to the appendix of shared seed 000.
//
//===----------------------------------------------------------------------===//
#include "passes/codec/CodecGraph.h"

#include "dialects/nn/NNOps.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <deque>

using namespace mlir;

namespace raptor::codec {

SemanticsAttr toAttr(MLIRContext *context, const Sem &sem) {
  return SemanticsAttr::get(context, sem.id, sem.source, sem.target);
}

Sem fromAttr(SemanticsAttr attr) {
  return Sem{attr.getId(), attr.getSource(), attr.getTarget()};
}

IdGenerator::IdGenerator(Operation *root) {
  root->walk([&](Operation *op) {
    for (NamedAttribute attr : op->getAttrs())
      if (auto sem = dyn_cast<SemanticsAttr>(attr.getValue()))
        nextId = std::max(nextId, sem.getId() + 1);
  });
}

//===----------------------------------------------------------------------===//
// Ports
//===----------------------------------------------------------------------===//

StringRef PortModel::operatorName(Operation *op) {
  if (auto ports = dyn_cast<nn::PortOpInterface>(op))
    return ports.getAtenName();
  return op->getName().getStringRef();
}

std::string PortModel::inputPort(Operation *op, unsigned operand) {
  if (auto ports = dyn_cast<nn::PortOpInterface>(op))
    return ports.getInputPortName(operand);
  return "args[" + std::to_string(operand) + "]";
}

std::string PortModel::outputPort(Operation *op, unsigned result) {
  if (auto ports = dyn_cast<nn::PortOpInterface>(op))
    return ports.getOutputPortName(result);
  return op->getNumResults() == 1 ? "out" : "out[" + std::to_string(result) + "]";
}

const OperatorRule *PortModel::rule(Operation *op) const {
  if (!isa<nn::PortOpInterface>(op))
    return nullptr;
  return table.lookup(operatorName(op));
}

bool PortModel::computedByCompiler(Operation *op) const {
  if (!isa<nn::ConvolutionOp, nn::LinearOp, nn::MatmulOp>(op))
    return false;
  if (!known || knownBlock != op->getBlock()) {
    known = std::make_unique<nn::CompileTimeValues>(*op->getBlock());
    knownBlock = op->getBlock();
  }
  return llvm::all_of(op->getOperands(), [&](Value v) { return known->contains(v); });
}

bool PortModel::int8Variant(Operation *op) const {
  const OperatorRule *r = rule(op);
  return r && r->usesInt8(policy) && !computedByCompiler(op);
}

std::pair<Type, Type> PortModel::portTypes(Operation *op, StringRef port,
                                           Type element) const {
  const OperatorRule *r = rule(op);
  if (!int8Variant(op) || !isa<FloatType>(element) ||
      r->fp32Ports.contains(port))
    return {element, element};
  auto width = r->portBitWidths.find(port);
  return {element, IntegerType::get(element.getContext(),
                                    width == r->portBitWidths.end() ? 8 : width->second)};
}

//===----------------------------------------------------------------------===//
// Graph construction
//===----------------------------------------------------------------------===//

static Type elementOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

FailureOr<CodecGraph> CodecGraph::build(func::FuncOp func) {
  CodecGraph g;
  g.func = func;
  if (func.isExternal())
    return g;
  if (!func.getBody().hasOneBlock())
    return func.emitError("codec placement needs a function with a single block "
                          "(a dataflow graph)");
  Block &block = func.front();
  for (BlockArgument arg : block.getArguments()) {
    (void)arg;
    g.kinds.push_back(NodeKind::Input);
    g.ops.push_back(nullptr);
  }
  for (Operation &op : block) {
    g.nodeOf[&op] = g.kinds.size();
    g.kinds.push_back(isa<MarkInputOp>(op)    ? NodeKind::MarkInput
                      : isa<MarkOutputOp>(op) ? NodeKind::MarkOutput
                                              : NodeKind::Operator);
    g.ops.push_back(&op);
  }
  for (Operation &op : block) {
    if (op.getNumRegions() != 0)
      return op.emitError("codec placement does not handle ops with regions");
    unsigned head = g.nodeOf[&op];
    for (OpOperand &operand : op.getOpOperands()) {
      Value v = operand.get();
      if (!isa<RankedTensorType>(v.getType()))
        continue;
      unsigned tail;
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        tail = arg.getArgNumber();
      } else {
        auto it = g.nodeOf.find(v.getDefiningOp());
        if (it == g.nodeOf.end())
          return op.emitError("operand #") << operand.getOperandNumber()
                                           << " is defined outside the graph";
        tail = it->second;
      }
      g.edges.push_back(Edge{tail, head, &operand, Sem{}});
    }
  }
  // Counting sort of the edges by head and by tail keeps both adjacency
  // lists in edge order (operand order per head, use order per tail).
  size_t n = g.kinds.size();
  g.inBegin.assign(n + 1, 0);
  g.outBegin.assign(n + 1, 0);
  for (const Edge &e : g.edges) {
    ++g.inBegin[e.head + 1];
    ++g.outBegin[e.tail + 1];
  }
  for (size_t v = 0; v < n; ++v) {
    g.inBegin[v + 1] += g.inBegin[v];
    g.outBegin[v + 1] += g.outBegin[v];
  }
  g.inFlat.resize(g.edges.size());
  g.outFlat.resize(g.edges.size());
  std::vector<unsigned> inFill(g.inBegin.begin(), g.inBegin.end() - 1);
  std::vector<unsigned> outFill(g.outBegin.begin(), g.outBegin.end() - 1);
  for (unsigned i = 0, e = g.edges.size(); i < e; ++i) {
    g.inFlat[inFill[g.edges[i].head]++] = i;
    g.outFlat[outFill[g.edges[i].tail]++] = i;
  }
  return g;
}

static bool isMarker(NodeKind k) {
  return k == NodeKind::MarkInput || k == NodeKind::MarkOutput;
}

LogicalResult CodecGraph::checkMarked() {
  for (const Edge &e : edges)
    if (!isMarker(kinds[e.tail]) && !isMarker(kinds[e.head]))
      return e.operand->getOwner()->emitError("operand #")
             << e.operand->getOperandNumber()
             << " reaches this op without a codec marker; run "
                "raptor-insert-codec-markers first";
  return success();
}

//===----------------------------------------------------------------------===//
// Algorithms 7-11: semantics
//===----------------------------------------------------------------------===//

SmallVector<CodecGraph::EdgeBlock, 4> CodecGraph::portBlocks(unsigned v, const PortModel &ports) const {
  Operation *op = ops[v];
  const OperatorRule *rule = ports.rule(op);
  SmallVector<EdgeBlock, 4> blocks;
  llvm::SmallDenseMap<int, unsigned> shared;        // rule block -> blocks index
  llvm::SmallDenseMap<unsigned, unsigned> byResult; // trivial output ports
  auto sharedBlock = [&](int b) -> EdgeBlock & {
    auto [it, inserted] = shared.try_emplace(b, blocks.size());
    if (inserted)
      blocks.emplace_back();
    return blocks[it->second];
  };
  for (unsigned e : inEdges(v)) {
    int b = rule ? rule->inputBlock(ports.inputPort(op, edges[e].operand->getOperandNumber())) : -1;
    if (b < 0)
      blocks.emplace_back().incoming.push_back(e);
    else
      sharedBlock(b).incoming.push_back(e);
  }
  for (unsigned f : outEdges(v)) {
    unsigned r = cast<OpResult>(edges[f].operand->get()).getResultNumber();
    int b = rule ? rule->outputBlock(ports.outputPort(op, r)) : -1;
    if (b >= 0) {
      sharedBlock(b).outgoing.push_back(f);
      continue;
    }
    auto [it, inserted] = byResult.try_emplace(r, blocks.size());
    if (inserted)
      blocks.emplace_back();
    blocks[it->second].outgoing.push_back(f);
  }
  return blocks;
}

void CodecGraph::assignSemantics(const PortModel &ports, IdGenerator &ids) {
  MLIRContext *context = func.getContext();
  auto marker = [&](unsigned v) {
    Operation *op = ops[v];
    if (auto mi = dyn_cast<MarkInputOp>(op))
      return std::make_pair(fromAttr(mi.getPortIn()), fromAttr(mi.getPortOut()));
    auto mo = cast<MarkOutputOp>(op);
    return std::make_pair(fromAttr(mo.getPortIn()), fromAttr(mo.getPortOut()));
  };
  (void)context;
  for (unsigned v = 0, n = numNodes(); v < n; ++v) {
    switch (kinds[v]) {
    case NodeKind::MarkInput: {
      // Algorithm 8: forward a compatible upstream colour, else start one.
      Sem incoming = edges[inEdges(v).front()].sem;
      Sem port = marker(v).second;
      Sem s = incoming.compatible(port) ? incoming : port;
      for (unsigned f : outEdges(v))
        edges[f].sem = s;
      break;
    }
    case NodeKind::MarkOutput: {
      // Algorithm 9: an output marker forwards its colour.
      Sem s = edges[inEdges(v).front()].sem;
      for (unsigned f : outEdges(v))
        edges[f].sem = s;
      break;
    }
    case NodeKind::Input: {
      // A graph input: one output port in a trivial block.
      if (outEdges(v).empty())
        break;
      Type t = elementOf(edges[outEdges(v).front()].operand->get());
      Sem s{ids.next(), t, t};
      for (unsigned f : outEdges(v))
        edges[f].sem = s;
      break;
    }
    case NodeKind::Operator: {
      // Algorithms 10-11: per port block, inherit the single incoming
      // colour, else take the first port's (fresh) semantics.
      Operation *op = ops[v];
      SmallVector<EdgeBlock, 4> blocks = portBlocks(v, ports);
      for (EdgeBlock &block : blocks) {
        SmallVector<int64_t, 4> colours;
        for (unsigned e : block.incoming)
          if (!llvm::is_contained(colours, edges[e].sem.id))
            colours.push_back(edges[e].sem.id);
        Sem s;
        if (colours.size() == 1) {
          s = edges[block.incoming.front()].sem;
        } else if (!block.incoming.empty()) {
          OpOperand *first = edges[block.incoming.front()].operand;
          auto [src, dst] = ports.portTypes(
              op, ports.inputPort(op, first->getOperandNumber()), elementOf(first->get()));
          s = Sem{ids.next(), src, dst};
        } else {
          Value result = edges[block.outgoing.front()].operand->get();
          auto [src, dst] = ports.portTypes(
              op, ports.outputPort(op, cast<OpResult>(result).getResultNumber()),
              elementOf(result));
          s = Sem{ids.next(), src, dst};
        }
        for (unsigned e : block.incoming)
          edges[e].sem = s;
        for (unsigned f : block.outgoing)
          edges[f].sem = s;
      }
      break;
    }
    }
  }
}

void CodecGraph::assignLocalSemantics(const PortModel &ports) {
  auto portIn = [&](unsigned v) {
    Operation *op = ops[v];
    return fromAttr(isa<MarkInputOp>(op) ? cast<MarkInputOp>(op).getPortIn()
                                         : cast<MarkOutputOp>(op).getPortIn());
  };
  auto portOut = [&](unsigned v) {
    Operation *op = ops[v];
    return fromAttr(isa<MarkInputOp>(op) ? cast<MarkInputOp>(op).getPortOut()
                                         : cast<MarkOutputOp>(op).getPortOut());
  };
  for (Edge &e : edges) {
    if (kinds[e.tail] == NodeKind::MarkInput || kinds[e.tail] == NodeKind::MarkOutput)
      e.sem = portOut(e.tail);
    else
      e.sem = portIn(e.head);
  }
  // Ports in one block must share a semantics (a cat of differently scaled
  // codes is no INT8 cat): the block takes its first port's.
  for (unsigned v = 0, n = numNodes(); v < n; ++v) {
    if (kinds[v] != NodeKind::Operator)
      continue;
    for (const EdgeBlock &block : portBlocks(v, ports)) {
      if (block.incoming.size() + block.outgoing.size() < 2)
        continue;
      Sem s = block.incoming.empty() ? edges[block.outgoing.front()].sem : edges[block.incoming.front()].sem;
      for (unsigned e : block.incoming)
        edges[e].sem = s;
      for (unsigned f : block.outgoing)
        edges[f].sem = s;
    }
  }
}

LogicalResult CodecGraph::readSemantics() {
  for (Edge &e : edges) {
    std::optional<Sem> fromTail, fromHead;
    auto attrs = [](Operation *op) -> std::pair<SemanticsAttr, SemanticsAttr> {
      if (auto mi = dyn_cast<MarkInputOp>(op))
        return {mi.getEdgeInAttr(), mi.getEdgeOutAttr()};
      auto mo = cast<MarkOutputOp>(op);
      return {mo.getEdgeInAttr(), mo.getEdgeOutAttr()};
    };
    for (bool tail : {true, false}) {
      unsigned v = tail ? e.tail : e.head;
      if (!isMarker(kinds[v]))
        continue;
      auto [edgeIn, edgeOut] = attrs(ops[v]);
      SemanticsAttr a = tail ? edgeOut : edgeIn;
      if (!a)
        return ops[v]->emitError("codec marker carries no edge semantics; run "
                                 "raptor-assign-codec-semantics first");
      (tail ? fromTail : fromHead) = fromAttr(a);
    }
    if (!fromTail && !fromHead)
      return e.operand->getOwner()->emitError("operand #")
             << e.operand->getOperandNumber() << " has no codec marker at either end";
    if (fromTail && fromHead && fromTail->id != fromHead->id)
      return e.operand->getOwner()->emitError("inconsistent codec semantics: the edge "
                                              "from marker to marker has ids ")
             << fromTail->id << " and " << fromHead->id;
    e.sem = fromTail ? *fromTail : *fromHead;
  }
  return success();
}

void CodecGraph::writeSemantics() {
  MLIRContext *context = func.getContext();
  for (unsigned v = 0, n = numNodes(); v < n; ++v) {
    if (!isMarker(kinds[v]) || inEdges(v).empty())
      continue;
    SemanticsAttr edgeIn = toAttr(context, edges[inEdges(v).front()].sem);
    SemanticsAttr edgeOut = outEdges(v).empty() ? edgeIn : toAttr(context, edges[outEdges(v).front()].sem);
    if (auto mi = dyn_cast<MarkInputOp>(ops[v])) {
      mi.setEdgeInAttr(edgeIn);
      mi.setEdgeOutAttr(edgeOut);
    } else {
      auto mo = cast<MarkOutputOp>(ops[v]);
      mo.setEdgeInAttr(edgeIn);
      mo.setEdgeOutAttr(edgeOut);
    }
  }
}

//===----------------------------------------------------------------------===//
// Algorithms 12-13: subgraphs and absolute dominators (frontier method)
//===----------------------------------------------------------------------===//

std::vector<Subgraph> CodecGraph::induceSubgraphs() const {
  std::vector<Subgraph> subgraphs;
  llvm::DenseMap<int64_t, unsigned> byId;
  std::vector<unsigned> subgraphOfEdge(edges.size());
  for (auto [i, e] : llvm::enumerate(edges)) {
    auto [it, inserted] = byId.try_emplace(e.sem.id, subgraphs.size());
    if (inserted)
      subgraphs.push_back(Subgraph{e.sem, {}, {}, {}, -1, false});
    subgraphs[it->second].edges.push_back(i);
    subgraphOfEdge[i] = it->second;
  }
  // Per node, the in- and out-degree inside each subgraph it touches.
  auto degrees = [&](unsigned v) {
    llvm::SmallMapVector<unsigned, std::pair<unsigned, unsigned>, 4> d;
    for (unsigned e : inEdges(v))
      ++d[subgraphOfEdge[e]].first;
    for (unsigned f : outEdges(v))
      ++d[subgraphOfEdge[f]].second;
    return d;
  };
  // The frontier F of each subgraph is only ever compared with the in-edges
  // I of the node being visited, and F contains I then; so |F| suffices:
  // I ⊇ F  <=>  |I| = |F|.
  std::vector<size_t> frontier(subgraphs.size(), 0);
  for (unsigned v = 0, n = numNodes(); v < n; ++v)
    for (auto &[sg, d] : degrees(v)) {
      if (d.first == 0) {
        subgraphs[sg].entries.push_back(v);
        frontier[sg] += d.second;
      }
      if (d.second == 0)
        subgraphs[sg].exits.push_back(v);
    }
  for (Subgraph &h : subgraphs)
    if (h.entries.size() == 1)
      h.dominator = h.entries.front();
  for (unsigned v = 0, n = numNodes(); v < n; ++v)
    for (auto &[sg, d] : degrees(v)) {
      auto [inDegree, outDegree] = d;
      if (inDegree == 0)
        continue; // an entry: its out-edges are already in the frontier
      if (inDegree == frontier[sg]) {
        subgraphs[sg].dominator = v; // every entry-exit path passes here
        frontier[sg] = outDegree;
      } else if (outDegree != 0) {
        frontier[sg] = frontier[sg] - inDegree + outDegree;
      }
    }
  return subgraphs;
}

//===----------------------------------------------------------------------===//
// Algorithms 14-15: coalescing through the meta-graph
//===----------------------------------------------------------------------===//

unsigned CodecGraph::coalesce(std::vector<Subgraph> &subgraphs) {
  llvm::DenseMap<int64_t, unsigned> byId;
  for (auto [i, h] : llvm::enumerate(subgraphs))
    byId[h.sem.id] = i;
  struct MetaEdge {
    unsigned from, to;
    std::vector<unsigned> boundary; // codec markers
    bool alive = true;
  };
  std::vector<MetaEdge> meta;
  std::vector<std::vector<unsigned>> metaOut(subgraphs.size()), metaIn(subgraphs.size());
  llvm::DenseMap<std::pair<unsigned, unsigned>, unsigned> metaIndex;
  auto metaEdge = [&](unsigned from, unsigned to) -> MetaEdge & {
    auto [it, inserted] = metaIndex.try_emplace({from, to}, meta.size());
    if (inserted) {
      meta.push_back(MetaEdge{from, to, {}, true});
      metaOut[from].push_back(it->second);
      metaIn[to].push_back(it->second);
    }
    return meta[it->second];
  };
  // Algorithm 15: a marker whose in-edge and out-edges lie in different
  // subgraphs S, T, that exits S and enters T, is on the boundary S -> T.
  for (unsigned v = 0, n = numNodes(); v < n; ++v) {
    if (!isMarker(kinds[v]) || inEdges(v).empty())
      continue;
    unsigned s = byId[edges[inEdges(v).front()].sem.id];
    bool exitsS = llvm::none_of(outEdges(v), [&](unsigned f) { return byId[edges[f].sem.id] == s; });
    if (!exitsS)
      continue;
    llvm::SmallVector<unsigned, 2> targets;
    for (unsigned f : outEdges(v)) {
      unsigned t = byId[edges[f].sem.id];
      if (!llvm::is_contained(targets, t))
        targets.push_back(t);
    }
    for (unsigned t : targets)
      // v enters T: it has no in-edge in T (its only in-edge is in S).
      metaEdge(s, t).boundary.push_back(v);
  }
  // Topological order of the meta-graph (it is acyclic: Theorem 19).
  std::vector<unsigned> indegree(subgraphs.size(), 0), order;
  for (const MetaEdge &m : meta)
    ++indegree[m.to];
  std::deque<unsigned> ready;
  for (unsigned i = 0; i < subgraphs.size(); ++i)
    if (indegree[i] == 0)
      ready.push_back(i);
  while (!ready.empty()) {
    unsigned k = ready.front();
    ready.pop_front();
    order.push_back(k);
    for (unsigned m : metaOut[k])
      if (--indegree[meta[m].to] == 0)
        ready.push_back(meta[m].to);
  }
  std::vector<size_t> exitCount(subgraphs.size());
  for (auto [i, h] : llvm::enumerate(subgraphs))
    exitCount[i] = h.exits.size();
  // Algorithm 14: downstream first, merge S into its only downstream T
  // when they are compatible and every exit of S is on the S -> T boundary.
  unsigned merges = 0;
  for (unsigned s : llvm::reverse(order)) {
    SmallVector<unsigned, 2> candidates;
    for (unsigned m : metaOut[s]) {
      const MetaEdge &me = meta[m];
      if (me.alive && subgraphs[s].sem.compatible(subgraphs[me.to].sem) &&
          me.boundary.size() == exitCount[s])
        candidates.push_back(me.to);
    }
    if (candidates.size() != 1)
      continue;
    unsigned t = candidates.front();
    Subgraph &source = subgraphs[s], &target = subgraphs[t];
    for (unsigned e : source.edges) {
      edges[e].sem = target.sem;
      target.edges.push_back(e);
    }
    source.edges.clear();
    source.removed = true;
    for (unsigned m : metaIn[s]) {
      if (!meta[m].alive)
        continue;
      meta[m].alive = false;
      std::vector<unsigned> boundary = std::move(meta[m].boundary);
      MetaEdge &redirected = metaEdge(meta[m].from, t);
      redirected.boundary.insert(redirected.boundary.end(), boundary.begin(), boundary.end());
    }
    for (unsigned m : metaOut[s])
      meta[m].alive = false;
    ++merges;
  }
  return merges;
}

void CodecGraph::writeDominators(const std::vector<Subgraph> &subgraphs) {
  MLIRContext *context = func.getContext();
  StringRef name = CodecDialect::kDominatorOfAttrName;
  std::vector<SmallVector<int64_t, 2>> ids(numNodes());
  for (const Subgraph &h : subgraphs)
    if (!h.removed && h.dominator >= 0)
      ids[h.dominator].push_back(h.sem.id);
  for (unsigned v = 0, n = numNodes(); v < n; ++v) {
    llvm::sort(ids[v]);
    Attribute attr = ids[v].empty() ? Attribute() : DenseI64ArrayAttr::get(context, ids[v]);
    if (ops[v]) {
      if (attr)
        ops[v]->setAttr(name, attr);
      else
        ops[v]->removeAttr(name);
    } else if (attr) {
      func.setArgAttr(v, name, attr);
    } else {
      func.removeArgAttr(v, name);
    }
  }
}

} // namespace raptor::codec
