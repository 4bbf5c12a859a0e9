"""`gradcli graph FILE -o walk.html`: backward, one step at a time, in the browser.

One self-contained HTML file: the picture's SVG inline, the steps of backward (the
data of `backward --steps`: each node run, the gradient in, the gradient out along
each edge, the accumulation into leaves) as JSON, and a small script that walks
them ("Step", "Back", "Play"). No network fetch, no CDN: it works from a file://
URL. The page steps by itself when its URL ends in `#steps=N` or `#steps=all`
(how the tests and the screenshot drive a headless browser).
"""
from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass

import numpy as np

from ..format import format_tensor
from .._tensor import Tensor
from . import jsonout
from .graphparts import shape_text
from .picture import summary

MAX_TEXT = 2000  # characters of a tensor written out in the page; longer ones are cut


@dataclass
class Walk:
    """What the page shows: the graph and the backward steps mapped onto its nodes."""

    model: object
    steps: list        # dicts, in the order backward ran the nodes
    seed: str          # the gradient backward started from, described
    leaf_grads: dict   # leaf name -> its .grad after backward (a JSON value)


def _array(g):
    if g is None:
        return None
    if isinstance(g, Tensor):
        return g._data
    if isinstance(g, (list, tuple)):  # a multi-output node: one gradient per output
        return [None if x is None else _array(x) for x in g]
    return np.asarray(g)


def _text(a) -> str | None:
    if a is None:
        return None
    if isinstance(a, list):
        return "(" + ", ".join("None" if x is None else _text(x) for x in a) + ")"
    text = format_tensor(a)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + " ..."


def _short(a, edge: bool = False) -> str | None:
    """A gradient in a few characters; on an edge of the picture only its values (a vector
    of at most 2) or its shape, so that labels stay apart: the rest is in the edge's tooltip
    and the node's panel."""
    if a is None:
        return None
    if isinstance(a, list):
        return ", ".join("None" if x is None else _short(x, edge) for x in a)
    if edge and (np.size(a) > 2 or np.ndim(a) > 1):
        return shape_text(np.shape(a))
    return summary(Tensor._make(a))


def walk_of(run, of, model) -> Walk:
    """Run backward on the run's output with steps, after `model` was built (it holds
    what the nodes saved, which backward frees). A non-scalar output starts from ones."""
    from ..answers.queries import run_backward
    from ..lang.runs import tensor_output

    _, out = tensor_output(run, of)
    scalar = out._data.size == 1
    result = run_backward(run, of, gradient=None if scalar else "ones", steps=True)
    steps = []
    leaves = {n.variable: n.id for n in model.nodes if n.name == "AccumulateGrad" and n.variable}
    for s in result.steps:
        node = model.ids.get(id(s.fn))
        if node is None:  # a leaf's AccumulateGrad made anew (the output is the leaf itself)
            node = leaves.get(s.variable)
        if node is None:
            continue
        grad_in = _array(s.grad_in)
        edges = []
        for k, (_, nr, g, _) in enumerate(s.edges):
            g = _array(g)
            edges.append({"k": k, "to": model.nodes[node].edges[k][0], "nr": int(nr),
                          "grad": _text(g), "short": _short(g, edge=True), "hover": _short(g)})
        step = {"node": node, "name": s.node, "grad_in": _text(grad_in), "short": _short(grad_in),
                "edges": edges}
        if s.variable is not None:
            step["leaf"] = s.variable
            grad = result.grads.get(s.variable)
            step["leaf_grad"] = _text(_array(grad)) if grad is not None else step["grad_in"]
        steps.append(step)
    leaf_grads = {name: jsonout.value(g) for name, g in result.grads.items() if g is not None}
    seed = "1 (the output is a scalar)" if scalar else "ones (the output is not a scalar)"
    return Walk(model, steps, seed, leaf_grads)


def _formulas() -> dict:
    """Backward node name -> the derivative rules of the op table, per input."""
    from ..ops import OPS

    table: dict = {}
    for op in OPS.values():
        if not op.differentiable:
            continue
        rules = [f"{i}: {f}" for i, f, r in zip(op.inputs, op.formulas, op.rules) if r is not None]
        table.setdefault(op.node, []).append({"op": op.name, "rules": rules})
    return table


def _node_data(walk: Walk) -> list:
    from .picture import node_kind

    model = walk.model
    formulas = _formulas()
    nodes = []
    for n in model.nodes:
        doc = {"id": n.id, "name": n.name, "kind": node_kind(model, n), "tensor": n.tensor,
               "variable": n.variable, "source": n.source, "line": model.source_line(n),
               "shape": None if n.shape is None else shape_text(n.shape),
               "edges": [[j, nr] for j, nr in n.edges]}
        if n.name == "AccumulateGrad":
            doc["formula"] = [{"op": "leaf", "rules": [f"{n.variable or 'leaf'}.grad += grad"]}]
        else:
            doc["formula"] = formulas.get(n.name) or [
                {"op": n.name, "rules": ["the backward of a custom autograd.Function, run as written"]}]
        doc["saved"] = [{"name": name, "shape": None if shape is None else shape_text(shape),
                         "value": summary(value)} for name, shape, value in n.saved or ()]
        if n.value is not None:
            doc["value"] = summary(n.value)
        nodes.append(doc)
    return nodes


# Inside <script>, the HTML tokenizer looks for `</script` and, after `<!--`, for `<script`
# (the "double escaped" state swallows the rest of the page): no `<`, `>` or `&` of a
# program's text may reach it, so each is written as its JSON escape (JSON.parse reads
# them back); U+2028/U+2029 end a string in older JavaScript.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                              "\u2028": "\\u2028", "\u2029": "\\u2029"})


def _json_script(doc) -> str:
    """JSON safe inside <script>: no `<`, `>`, `&` and no line separators, all escaped."""
    return json.dumps(doc, allow_nan=False, separators=(",", ":")).translate(_SCRIPT_SAFE)


def to_html(walk: Walk, svg: str, title: str) -> str:
    """The page: the picture, the controls, the node panel and the leaves' .grad."""
    data = {"nodes": _node_data(walk), "steps": walk.steps, "root": walk.model.root,
            "seed": walk.seed, "output": walk.model.output_name}
    leaves = []
    for n in walk.model.nodes:
        if n.name == "AccumulateGrad" and n.variable is not None and n.variable not in leaves:
            leaves.append((n.variable, n.shape))
    rows = "\n".join(
        f'<tr><td class="leafname">{html.escape(name)}</td><td>{html.escape(shape_text(shape) if shape is not None else "")}'
        f'</td><td class="leafgrad" data-leaf="{html.escape(name)}"><div class="val">None</div></td></tr>'
        for name, shape in leaves)
    parts = {"TITLE": html.escape(title), "SVG": svg, "LEAVES": rows, "DATA": _json_script(data),
             "LEAFGRADS": _json_script(walk.leaf_grads)}
    # one pass: a part that holds `%DATA%` (a source line in the picture) stays as written
    parts["FORWARD"] = getattr(walk, "forward_block", "")  # the forward walk's (forward_walk.py)
    parts["CONTROLS"] = step_controls("")
    return re.sub(r"%(TITLE|SVG|LEAVES|DATA|LEAFGRADS|FORWARD|CONTROLS)%", lambda m: parts[m[1]], _PAGE)


def step_controls(prefix: str) -> str:
    """A walk's buttons, step counter and caption, their ids under `prefix` (the forward
    walk's are `fwd-`)."""
    return (f'<button id="{prefix}back" type="button">&#9664; Back</button>\n'
            f'<button id="{prefix}step" type="button">Step &#9654;</button>\n'
            f'<button id="{prefix}play" type="button">Play</button>\n'
            f'<button id="{prefix}reset" type="button">Reset</button>\n'
            f'<span id="{prefix}counter"></span>\n'
            f'<span id="{prefix}caption"></span>')


_PAGE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>%TITLE%</title>
<style>
body { font-family: Helvetica, Arial, sans-serif; margin: 0; color: #222; }
header { padding: 10px 16px; background: #2d3e50; color: #fff; }
header h1 { font-size: 18px; margin: 0 0 4px 0; }
header p { margin: 0; font-size: 13px; color: #d0dae4; }
#controls { padding: 8px 16px; border-bottom: 1px solid #ddd; display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
#controls button { font-size: 14px; padding: 4px 14px; cursor: pointer; }
#counter { font-weight: bold; min-width: 110px; }
#caption { font-family: monospace; font-size: 13px; color: #333; }
main { display: flex; align-items: flex-start; }
#picture { flex: 1 1 auto; overflow: auto; padding: 8px; }
#picture svg { max-width: 100%; min-width: min(100%, 520px); height: auto; }
aside { flex: 0 0 clamp(380px, 40vw, 640px); min-width: 0; padding: 8px 14px; border-left: 1px solid #ddd; font-size: 13px; }
aside h2 { font-size: 15px; margin: 10px 0 6px 0; }
/* a number never breaks: each printed row stays one line, wider ones scroll sideways */
aside pre, .val { font-family: monospace; font-size: 12px; white-space: pre; overflow-x: auto; overflow-wrap: normal; word-break: normal; }
aside pre { background: #f6f6f6; padding: 6px; max-height: 240px; overflow-y: auto; margin: 4px 0; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
col.leafname { width: 24%; } col.leafshape { width: 14%; }
td, th { border-bottom: 1px solid #eee; padding: 3px 4px; text-align: left; vertical-align: top; overflow: hidden; }
td.leafname { overflow-wrap: anywhere; }
td.leafgrad.filled { background: #e3f6e3; }
.legend span { display: inline-block; padding: 0 6px; margin-right: 4px; border: 1px solid #999; border-radius: 4px; }
kbd { font-family: monospace; font-size: 12px; border: 1px solid #bbb; border-radius: 3px; padding: 0 4px; background: #f6f6f6; color: #222; }
g.gnode { cursor: pointer; }
g.gnode.done > path, g.gnode.done > polygon, g.gnode.done a > path { stroke: #2a8a2a; stroke-width: 2px; }
g.gnode.current > path, g.gnode.current > polygon, g.gnode.current a > path { stroke: #e02020; stroke-width: 4px; }
g.gnode.selected > path, g.gnode.selected a > path { stroke-dasharray: 6 3; }
g.edge.carried > path { stroke: #2a8a2a; stroke-width: 2px; }
g.edge.carrying > path { stroke: #e02020; stroke-width: 3.5px; }
g.edge.carrying > polygon { fill: #e02020; stroke: #e02020; }
g.edge > path { pointer-events: visibleStroke; }
text.gradlabel { font-family: monospace; font-size: 10px; fill: #1a6a1a; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
text.gradlabel.now { fill: #c01010; font-weight: bold; }
/* the gradients of earlier steps: on hover only, so that labels never pile up */
text.gradlabel.past { display: none; }
g.edge:hover > text.gradlabel.past { display: inline; }
</style>
</head>
<body>
<header>
<h1>%TITLE%</h1>
<p>Backward runs the nodes from the output down to the leaves. Each step takes the gradient that arrived at one node
and sends a gradient along each of its edges (next_functions); at a leaf it is added into .grad.
Click a node for its details. Keys: <kbd>&rarr;</kbd> step, <kbd>&larr;</kbd> back,
<kbd>space</kbd> play or pause, <kbd>Home</kbd> the first step, <kbd>End</kbd> the last.</p>
</header>
<div id="controls">
%CONTROLS%
<span class="legend"><span style="background:#ffd479">output</span><span style="background:#bfe0ff">leaf</span><span style="background:#e8f5e0">named tensor</span><span style="border-color:#e02020">current step</span><span style="border-color:#2a8a2a">done</span></span>
</div>
<main>
<div id="picture">
%SVG%
</div>
<aside>
<h2>Leaves: .grad</h2>
<table id="leaves"><colgroup><col class="leafname"><col class="leafshape"><col></colgroup>
<tr><th>leaf</th><th>shape</th><th>.grad</th></tr>
%LEAVES%
</table>
<h2 id="node-title">Node</h2>
<div id="node-panel"><p>Click a node in the picture, or press Step.</p></div>
</aside>
</main>
<script type="application/json" id="walk-data">%DATA%</script>
<script type="application/json" id="leaf-grads">%LEAFGRADS%</script>
<script>
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("walk-data").textContent);
  var finalGrads = JSON.parse(document.getElementById("leaf-grads").textContent);
  var steps = data.steps, nodes = data.nodes;
  var svg = document.querySelector("#picture svg");
  var position = 0;          // steps done
  var selected = null;       // node id shown in the panel
  var timer = null;
  var stepsOf = {};          // node id -> index of its step
  steps.forEach(function (s, i) { stepsOf[s.node] = i; });

  function el(id) { return document.getElementById(id); }
  if (svg) {  // room on the right for the gradient labels of the edges
    var box = svg.viewBox.baseVal;
    if (box && box.width) {
      svg.setAttribute("viewBox", [box.x, box.y, box.width + 120, box.height].join(" "));
      svg.setAttribute("width", (box.width) + "pt");
    }
    svg.style.overflow = "visible";
  }
  function nodeEl(id) { return svg ? svg.querySelector("#n" + id) : null; }
  function edgeEl(id, k) { return svg ? svg.querySelector("#e" + id + "_" + k) : null; }
  function esc(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function clearLabels() {
    if (!svg) { return; }
    Array.prototype.forEach.call(svg.querySelectorAll("text.gradlabel"), function (t) { t.remove(); });
  }

  // What a label must not cover: the nodes, the titles of the module boxes, the labels
  // placed before it. Boxes in the SVG's user units (every group shares graph0's transform).
  function obstacles() {
    var whole = svg.querySelector("g.graph");
    if (room === null && whole) { room = whole.getBBox(); }  // before any label is in it
    var boxes = [];
    Array.prototype.forEach.call(svg.querySelectorAll("g.node, g.cluster > text"), function (g) {
      boxes.push(g.getBBox());
    });
    return boxes;
  }
  var room = null;  // where labels may go: the drawing and the room added on its right
  function overlaps(b, boxes) {
    if (room && (b.x < room.x || b.y < room.y || b.x + b.width > room.x + room.width + 110 ||
                 b.y + b.height > room.y + room.height)) { return true; }
    for (var i = 0; i < boxes.length; i++) {
      var o = boxes[i];
      if (b.x < o.x + o.width + 1 && o.x < b.x + b.width + 1 &&
          b.y < o.y + o.height + 1 && o.y < b.y + b.height + 1) { return true; }
    }
    return false;
  }

  // The label of the gradient an edge carries, inside the edge's group (so that hovering the
  // edge shows a past one); with `boxes`, the first place along the edge, right or left of
  // it, where it covers nothing in `boxes` (then it joins them).
  function label(edge, k, text, cls, boxes) {
    var path = edge.querySelector("path");
    if (!path || !path.getTotalLength) { return null; }
    var length = path.getTotalLength();
    var t = document.createElementNS("http://www.w3.org/2000/svg", "text");
    t.setAttribute("class", "gradlabel " + cls);
    t.textContent = text.length > 42 ? text.slice(0, 40) + "..." : text;
    edge.appendChild(t);
    var leftward = path.getPointAtLength(length).x < path.getPointAtLength(0).x - 1;
    var spots = [k % 2 ? 0.4 : 0.6, 0.5, 0.3, 0.7, 0.2, 0.8];  // parallel edges: apart first
    function place(f, left, dy) {
      var p = path.getPointAtLength(length * f);
      t.setAttribute("x", left ? p.x - 4 : p.x + 4);
      t.setAttribute("text-anchor", left ? "end" : "start");
      t.setAttribute("y", p.y + dy);
    }
    place(spots[0], leftward, 0);
    if (boxes) {
      var fits = false, shifts = [0, -6, 6, -12, 12];
      for (var i = 0; i < spots.length && !fits; i++) {
        for (var side = 0; side < 2 && !fits; side++) {
          for (var s = 0; s < shifts.length && !fits; s++) {
            place(spots[i], side ? !leftward : leftward, shifts[s]);
            fits = !overlaps(t.getBBox(), boxes);
          }
        }
      }
      if (!fits) { place(spots[0], leftward, 0); }  // nowhere free: where it reads best
      boxes.push(t.getBBox());
    }
    return t;
  }

  // An edge's tooltip (Graphviz's <title>, "n0->n1"): the gradient it carried, once it has.
  function tooltip(edge, text) {
    var title = edge.querySelector("title");
    if (!title) { return; }
    if (!title.hasAttribute("data-graphviz")) { title.setAttribute("data-graphviz", title.textContent); }
    title.textContent = text === null ? title.getAttribute("data-graphviz") : text;
  }

  function render() {
    nodes.forEach(function (n) {
      var g = nodeEl(n.id);
      if (!g) { return; }
      var i = stepsOf[n.id];
      g.classList.toggle("done", i !== undefined && i < position - 1);
      g.classList.toggle("current", i !== undefined && i === position - 1);
      g.classList.toggle("selected", n.id === selected);
    });
    clearLabels();
    var boxes = svg && position > 0 ? obstacles() : null;
    steps.forEach(function (s, i) {
      s.edges.forEach(function (e) {
        var edge = edgeEl(s.node, e.k);
        if (!edge) { return; }
        var on = i < position && e.to !== null;
        var now = on && i === position - 1;
        edge.classList.toggle("carried", on && !now);
        edge.classList.toggle("carrying", now);
        var text = on && e.short !== null ? "grad " + e.short : null;
        tooltip(edge, text === null ? null : "grad " + e.hover + " (step " + (i + 1) + ")");
        // the current step's labels only; the earlier ones show when the edge is hovered
        if (text !== null) { label(edge, e.k, text, now ? "now" : "past", now ? boxes : null); }
      });
    });
    var filled = {};
    for (var i = 0; i < position; i++) {
      if (steps[i].leaf !== undefined) { filled[steps[i].leaf] = i; }
    }
    Array.prototype.forEach.call(document.querySelectorAll("td.leafgrad"), function (td) {
      var name = td.getAttribute("data-leaf");
      var cell = td.querySelector(".val");
      if (filled[name] !== undefined) {
        cell.textContent = steps[filled[name]].leaf_grad;
        td.setAttribute("data-value", JSON.stringify(finalGrads[name]));
        td.classList.add("filled");
      } else {
        cell.textContent = "None";
        td.removeAttribute("data-value");
        td.classList.remove("filled");
      }
    });
    el("counter").textContent = "step " + position + " of " + steps.length;
    var cap = "";
    if (position === 0) {
      cap = "backward starts at the output " + (data.output || "") + " with gradient " + data.seed;
    } else {
      var s = steps[position - 1];
      cap = s.leaf !== undefined ? s.leaf + ".grad += " + s.short
          : s.name + ": grad in " + s.short;
    }
    if (position === steps.length && steps.length) { cap += " (backward is done)"; }
    el("caption").textContent = cap;
    el("back").disabled = position === 0;
    el("step").disabled = position === steps.length;
    document.body.setAttribute("data-position", String(position));
    document.body.setAttribute("data-done", String(position === steps.length));
  }

  function show(id, pick) {
    if (pick) { selected = id; }
    var n = nodes[id];
    var title = n.kind === "leaf" ? (n.variable || "leaf") + " (AccumulateGrad)" : n.name;
    el("node-title").textContent = title + (n.kind === "output" ? ": the output" : "");
    var h = [];
    if (n.tensor) { h.push("<p>produces <b>" + esc(n.tensor) + "</b></p>"); }
    if (n.shape) { h.push("<p>shape " + esc(n.shape) + (n.value ? ", value " + esc(n.value) : "") + "</p>"); }
    if (n.source) { h.push("<p>made at " + esc(n.source) + (n.line ? ": <code>" + esc(n.line) + "</code>" : "") + "</p>"); }
    h.push("<p><b>derivative</b> (the gradient sent to each input, from the gradient in)</p>");
    n.formula.forEach(function (f) {
      h.push("<pre>" + (n.formula.length > 1 ? esc(f.op) + ": " : "") + f.rules.map(esc).join("\n") + "</pre>");
    });
    if (n.saved.length) {
      h.push("<p><b>saved for backward</b></p><pre>" + n.saved.map(function (s) {
        return esc(s.name) + (s.shape ? " " + esc(s.shape) : "") + ": " + esc(s.value);
      }).join("\n") + "</pre>");
    }
    var i = stepsOf[id];
    if (i === undefined) {
      h.push("<p>backward did not run this node</p>");
    } else if (i >= position) {
      h.push("<p>runs at step " + (i + 1) + "; press Step to get there</p>");
    } else {
      var s = steps[i];
      h.push("<p><b>step " + (i + 1) + ": gradient in</b></p><pre>" + esc(s.grad_in) + "</pre>");
      s.edges.forEach(function (e) {
        var to = e.to === null ? "None" : nodes[e.to].kind === "leaf" ? (nodes[e.to].variable || "leaf") : nodes[e.to].name;
        h.push("<p>out along edge " + e.k + " to " + esc(to) + (e.nr ? " (output " + e.nr + ")" : "") + "</p>" +
               "<pre>" + (e.grad === null ? "nothing (None)" : esc(e.grad)) + "</pre>");
      });
      if (s.leaf !== undefined) { h.push("<p>" + esc(s.leaf) + ".grad += the gradient in</p>"); }
    }
    el("node-panel").innerHTML = h.join("\n");
  }

  function go(to) {
    position = Math.max(0, Math.min(steps.length, to));
    render();
    if (position > 0) { show(steps[position - 1].node, false); }
    else if (selected !== null) { show(selected, false); }
  }
  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; el("play").textContent = "Play"; }
  }
  el("step").addEventListener("click", function () { go(position + 1); });
  el("back").addEventListener("click", function () { stop(); go(position - 1); });
  el("reset").addEventListener("click", function () { stop(); selected = null; go(0); });
  el("play").addEventListener("click", function () {
    if (timer !== null) { stop(); return; }
    if (position === steps.length) { go(0); }
    el("play").textContent = "Pause";
    timer = setInterval(function () {
      if (position >= steps.length) { stop(); return; }
      go(position + 1);
    }, 900);
  });
  // the keys: right and left arrows step and go back, space plays or pauses, Home and End
  // go to the first and the last step; with a modifier held, the browser's own
  var keys = {ArrowRight: "step", Right: "step", ArrowLeft: "back", Left: "back", " ": "play",
              Spacebar: "play", Home: "reset", End: "end"};
  document.addEventListener("keydown", function (ev) {
    var action = keys[ev.key];
    if (!action || ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) { return; }
    ev.preventDefault();  // space would also press the focused button, and scroll
    if (action === "end") { stop(); go(steps.length); }
    else { el(action).click(); }  // a disabled button ignores it
  });
  nodes.forEach(function (n) {
    var g = nodeEl(n.id);
    if (g) { g.addEventListener("click", function () { selected = n.id; render(); show(n.id, true); }); }
  });
  render();
  // `#steps=N` or `#steps=all`: press Step that many times (tests, screenshots)
  var m = /steps=(\d+|all)/.exec(window.location.hash);
  if (m) {
    var n = m[1] === "all" ? steps.length : parseInt(m[1], 10);
    for (var k = 0; k < n && !el("step").disabled; k++) { el("step").click(); }
  }
})();
</script>
%FORWARD%
</body>
</html>
"""
