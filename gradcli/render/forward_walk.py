"""The walk-through's forward-mode walk: tangents flowing from the inputs to the output.

Beside the backward walk (`render/walkthrough.py`) on the same picture, a control switches
between the two. The forward walk's data is a forward-mode pass of the program
(`answers/forward_steps.py`: every leaf that requires grad given a tangent of ones, each
op's tangent as the engine computed it), mapped onto the picture's nodes. Its HTML, style and
script are one block of their own, placed after the backward walk's script: it moves its
controls and panel into the page, and while it is shown it takes the keys and the clicks
on nodes before the backward walk's handlers see them.
"""
from __future__ import annotations

import numpy as np

from .picture import summary
from .walkthrough import _json_script, _short, _text, step_controls


def forward_walk_of(run, of, model) -> dict:
    """The forward walk as the page's data: every leaf that requires grad (the inputs whose
    .grad the backward walk fills, a module's parameters too) given ones as its tangent;
    {"error": why} when it cannot be drawn on this picture."""
    from ..answers.forward_steps import forward_pass
    from ..answers.graphmodel import build
    from ..errors import GradcliError
    from ..lang.runs import tensor_output

    name, _ = tensor_output(run, of)
    try:
        fp = forward_pass(run, name)
        again = build(fp.output)
    except GradcliError as error:
        return {"error": f"the program's forward-mode run failed: {error}"}
    if [n.name for n in again.nodes] != [n.name for n in model.nodes]:
        return {"error": "the program's forward-mode run made another graph than this one"}
    inputs = []
    for n in model.nodes:
        if n.name == "AccumulateGrad" and n.variable and n.variable not in inputs:
            inputs.append(n.variable)
    return _data(model, again.ids, fp, name, inputs)


def _data(model, ids, fp, name, inputs) -> dict:
    from ..answers.optable import tangent_text
    from ..ops import OPS

    steps = []
    for s in fp.steps:
        node = ids.get(id(s.fn))
        if node is None:
            continue
        tangent = list(s.tangent) if isinstance(s.tangent, tuple) else s.tangent
        step = {"node": node, "name": s.node, "tangent": _text(tangent), "short": _short(tangent)}
        if s.variable is not None:
            step["leaf"] = s.variable
        else:
            rule = tangent_text(OPS[s.op]) if s.op in OPS else None
            step["op"] = s.op
            step["rule"] = rule["kind"] if rule else None
            step["formula"] = rule["formula"] if rule else None
            step["in"] = [{"k": k, "from": model.nodes[node].edges[k][0], "nr": nr, "tangent": _text(t),
                           "short": _short(t, edge=True)} for k, (nr, t) in enumerate(s.tangents_in)]
        steps.append(step)
    return {"steps": steps, "output": name, "inputs": inputs,
            "seed": "ones on " + (", ".join(inputs) if inputs else "every input"),
            "out_tangent": _text(fp.tangent), "out_short": None if fp.tangent is None else summary(fp.tangent),
            "out_value": None if fp.tangent is None else np.asarray(fp.tangent, dtype=float).tolist()}


def forward_html(forward: dict | None) -> str:
    """The forward walk's block of the page ('' when there is none)."""
    if forward is None:
        return ""
    return _BLOCK.replace("%FORWARD_CONTROLS%", step_controls("fwd-")).replace(
        "%FORWARD_DATA%", _json_script(forward))


_BLOCK = r"""<style>
#walk-modes { padding: 6px 16px; border-bottom: 1px solid #ddd; display: flex; gap: 8px; align-items: center; font-size: 14px; }
#walk-modes button { font-size: 14px; padding: 4px 12px; cursor: pointer; }
#walk-modes button.on { background: #2d3e50; color: #fff; }
#fwd-controls { padding: 8px 16px; border-bottom: 1px solid #ddd; display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
#fwd-controls button { font-size: 14px; padding: 4px 14px; cursor: pointer; }
#fwd-counter { font-weight: bold; min-width: 110px; }
#fwd-caption { font-family: monospace; font-size: 13px; color: #333; }
body.forward #controls, body.forward aside > *:not(#fwd-aside) { display: none; }
body:not(.forward) #fwd-controls, body:not(.forward) #fwd-aside { display: none; }
#fwd-aside pre { font-family: monospace; font-size: 12px; white-space: pre; overflow-x: auto; background: #f6f6f6; padding: 6px; max-height: 240px; overflow-y: auto; margin: 4px 0; }
g.gnode.fdone > path, g.gnode.fdone > polygon, g.gnode.fdone a > path { stroke: #1f5fbf; stroke-width: 2px; }
g.gnode.fcurrent > path, g.gnode.fcurrent > polygon, g.gnode.fcurrent a > path { stroke: #8a2be2; stroke-width: 4px; }
g.edge.fcarried > path { stroke: #1f5fbf; stroke-width: 2px; }
g.edge.fcarrying > path { stroke: #8a2be2; stroke-width: 3.5px; }
g.edge.fcarrying > polygon { fill: #8a2be2; stroke: #8a2be2; }
text.tanlabel { font-family: monospace; font-size: 10px; fill: #6a1fb0; font-weight: bold; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
</style>
<div id="walk-modes">Walk:
<button id="mode-backward" type="button" class="on">Backward: gradients, output to inputs</button>
<button id="mode-forward" type="button">Forward: tangents, inputs to output</button>
</div>
<div id="fwd-controls">
%FORWARD_CONTROLS%
</div>
<div id="fwd-aside">
<h2>Forward mode</h2>
<p>Forward mode runs the ops from the inputs to the output. Each input is given a tangent (here: ones),
and each op computes its result's tangent from its inputs' tangents by its tangent rule (J t),
so one pass gives the output's tangent: the Jacobian times the inputs' tangents.</p>
<h2>Output tangent</h2>
<pre id="fwd-out">not reached yet</pre>
<h2 id="fwd-node-title">Node</h2>
<div id="fwd-node-panel"><p>Click a node in the picture, or press Step.</p></div>
</div>
<script type="application/json" id="forward-data">%FORWARD_DATA%</script>
<script>
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("forward-data").textContent);
  var steps = data.steps || [], nodes = JSON.parse(document.getElementById("walk-data").textContent).nodes;
  var svg = document.querySelector("#picture svg");
  var position = 0, selected = null, timer = null, on = false;
  var stepOf = {};
  steps.forEach(function (s, i) { stepOf[s.node] = i; });
  function el(id) { return document.getElementById(id); }
  function esc(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }
  // the switch above the backward controls, the forward controls under them; the panel goes
  // into the aside only while forward is shown (the backward walk's panel is all it holds else)
  var controls = el("controls"), panel = el("fwd-aside");
  controls.parentNode.insertBefore(el("walk-modes"), controls);
  controls.parentNode.insertBefore(el("fwd-controls"), controls.nextSibling);
  if (data.error) {
    el("mode-forward").disabled = true;
    el("mode-forward").title = data.error;
    el("fwd-node-panel").innerHTML = "<p>" + esc(data.error) + "</p>";
  }
  function nodeEl(id) { return svg ? svg.querySelector("#n" + id) : null; }
  function edgeEl(id, k) { return svg ? svg.querySelector("#e" + id + "_" + k) : null; }
  function nodeName(id) {
    var n = nodes[id];
    return n.kind === "leaf" ? (n.variable || "leaf") : n.name;
  }

  function label(edge, text) {
    var path = edge.querySelector("path");
    if (!path || !path.getTotalLength) { return; }
    var length = path.getTotalLength(), p = path.getPointAtLength(length * 0.5);
    var t = document.createElementNS("http://www.w3.org/2000/svg", "text");
    t.setAttribute("class", "tanlabel");
    t.setAttribute("x", p.x - 4);
    t.setAttribute("y", p.y);
    t.setAttribute("text-anchor", "end");
    t.textContent = text.length > 42 ? text.slice(0, 40) + "..." : text;
    edge.appendChild(t);
  }

  function clear() {
    if (!svg) { return; }
    Array.prototype.forEach.call(svg.querySelectorAll("text.tanlabel"), function (t) { t.remove(); });
    Array.prototype.forEach.call(svg.querySelectorAll(".fdone, .fcurrent, .fcarried, .fcarrying"), function (g) {
      g.classList.remove("fdone", "fcurrent", "fcarried", "fcarrying");
    });
  }

  function render() {
    clear();
    if (!on) { return; }
    steps.forEach(function (s, i) {
      var g = nodeEl(s.node);
      if (g && i < position) { g.classList.add(i === position - 1 ? "fcurrent" : "fdone"); }
      (s.in || []).forEach(function (e) {
        var edge = edgeEl(s.node, e.k);
        if (!edge || e.from === null || i >= position) { return; }
        edge.classList.add(i === position - 1 ? "fcarrying" : "fcarried");
        if (i === position - 1 && e.short !== null) { label(edge, "tan " + e.short); }
      });
    });
    el("fwd-counter").textContent = "step " + position + " of " + steps.length;
    var cap;
    if (position === 0) {
      cap = "forward starts at the inputs with tangents " + data.seed;
    } else {
      var s = steps[position - 1];
      cap = s.leaf !== undefined ? s.leaf + ": tangent " + s.short
          : s.name + " (" + s.op + "): tangent out " + s.short;
    }
    var done = position === steps.length;
    if (done && steps.length) {
      cap += data.out_tangent === null ? " (forward is done: no tangent reached the output)"
                                       : " (forward is done: the output's tangent)";
    }
    el("fwd-caption").textContent = cap;
    el("fwd-out").textContent = done && data.out_tangent !== null ? data.out_tangent : "not reached yet";
    if (done && data.out_value !== null) { el("fwd-out").setAttribute("data-value", JSON.stringify(data.out_value)); }
    else { el("fwd-out").removeAttribute("data-value"); }
    el("fwd-back").disabled = position === 0;
    el("fwd-step").disabled = done;
    document.body.setAttribute("data-fposition", String(position));
    document.body.setAttribute("data-fdone", String(done));
  }

  function show(id) {
    var n = nodes[id], h = [];
    el("fwd-node-title").textContent = (n.kind === "leaf" ? (n.variable || "leaf") + " (an input)" : n.name) +
                                       (n.kind === "output" ? ": the output" : "");
    var i = stepOf[id];
    if (i === undefined) {
      h.push("<p>no tangent reached this node in the forward pass</p>");
      el("fwd-node-panel").innerHTML = h.join("\n");
      return;
    }
    var s = steps[i];
    if (s.op) {
      h.push("<p>op <b>" + esc(s.op) + "</b>, tangent rule: " + esc(s.rule || "none") + "</p>");
      if (s.formula) { h.push("<pre>" + esc(s.formula) + "</pre>"); }
    }
    if (i >= position) {
      h.push("<p>runs at step " + (i + 1) + "; press Step to get there</p>");
    } else if (s.leaf !== undefined) {
      h.push("<p><b>step " + (i + 1) + ": the tangent given to " + esc(s.leaf) + "</b></p><pre>" + esc(s.tangent) + "</pre>");
    } else {
      (s.in || []).forEach(function (e) {
        h.push("<p>in along edge " + e.k + " from " + (e.from === null ? "None" : esc(nodeName(e.from))) +
               (e.nr ? " (output " + e.nr + ")" : "") + "</p><pre>" +
               (e.tangent === null ? "no tangent (a constant)" : esc(e.tangent)) + "</pre>");
      });
      h.push("<p><b>step " + (i + 1) + ": tangent out</b></p><pre>" + esc(s.tangent) + "</pre>");
    }
    el("fwd-node-panel").innerHTML = h.join("\n");
  }

  function go(to) {
    position = Math.max(0, Math.min(steps.length, to));
    render();
    if (position > 0) { show(steps[position - 1].node); } else if (selected !== null) { show(selected); }
  }
  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; el("fwd-play").textContent = "Play"; }
  }
  function play() {
    if (timer !== null) { stop(); return; }
    if (position === steps.length) { go(0); }
    el("fwd-play").textContent = "Pause";
    timer = setInterval(function () { if (position >= steps.length) { stop(); return; } go(position + 1); }, 900);
  }
  function mode(forward) {
    if (forward === on || (forward && data.error)) { return; }
    on = forward;
    stop();
    el("reset").click();  // the backward walk back to its start: its marks and labels off the picture
    document.body.classList.toggle("forward", on);
    (on ? document.querySelector("aside") : document.body).appendChild(panel);
    document.body.setAttribute("data-mode", on ? "forward" : "backward");
    el("mode-forward").classList.toggle("on", on);
    el("mode-backward").classList.toggle("on", !on);
    go(0);
  }
  el("mode-forward").addEventListener("click", function () { mode(true); });
  el("mode-backward").addEventListener("click", function () { mode(false); });
  el("fwd-step").addEventListener("click", function () { go(position + 1); });
  el("fwd-back").addEventListener("click", function () { stop(); go(position - 1); });
  el("fwd-reset").addEventListener("click", function () { stop(); selected = null; go(0); });
  el("fwd-play").addEventListener("click", play);
  // while forward is shown, the keys and the clicks on nodes are its own (captured first)
  var keys = {ArrowRight: "step", Right: "step", ArrowLeft: "back", Left: "back", " ": "play",
              Spacebar: "play", Home: "reset", End: "end"};
  window.addEventListener("keydown", function (ev) {
    var action = keys[ev.key];
    if (!on || !action || ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) { return; }
    ev.preventDefault();
    ev.stopImmediatePropagation();
    if (action === "end") { stop(); go(steps.length); } else { el("fwd-" + action).click(); }
  }, true);
  if (svg) {
    svg.addEventListener("click", function (ev) {
      if (!on) { return; }
      var g = ev.target.closest ? ev.target.closest("g.gnode") : null;
      ev.stopPropagation();
      if (!g) { return; }
      selected = parseInt(g.id.slice(1), 10);
      show(selected);
    }, true);
  }
  document.body.setAttribute("data-mode", "backward");
  render();
  // `#fwd=N` or `#fwd=all`: show the forward walk and press Step that many times (tests)
  var m = /fwd=(\d+|all)/.exec(window.location.hash);
  if (m && !data.error) {
    mode(true);
    var n = m[1] === "all" ? steps.length : parseInt(m[1], 10);
    for (var k = 0; k < n && !el("fwd-step").disabled; k++) { el("fwd-step").click(); }
  }
})();
</script>
"""
