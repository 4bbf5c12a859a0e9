(function () {
  "use strict";
  function press(key) {
    document.dispatchEvent(new KeyboardEvent("keydown", {key: key, bubbles: true, cancelable: true}));
  }
  function position() { return parseInt(document.body.getAttribute("data-position"), 10); }
  function visible(el) { return getComputedStyle(el).display !== "none"; }
  function box(el) { var b = el.getBBox(); return [b.x, b.y, b.width, b.height]; }
  function lines(el) {  // line boxes the browser laid the text out in, and the text's own lines
    var r = document.createRange();
    r.selectNodeContents(el);
    var tops = {};
    Array.prototype.forEach.call(r.getClientRects(), function (b) { if (b.width > 0) { tops[Math.round(b.top)] = 1; } });
    var text = el.textContent.split("\n").filter(function (l) { return l.trim() !== ""; }).length;
    return [Object.keys(tops).length, text];
  }
  var out = {states: [], keys: []};
  function state() {
    var labels = Array.prototype.filter.call(document.querySelectorAll("text.gradlabel"), visible);
    var blocks = Array.prototype.slice.call(document.querySelectorAll("aside pre, aside .val"));
    return {position: position(), play: document.getElementById("play").textContent,
            labels: labels.map(function (t) { return {text: t.textContent, cls: t.getAttribute("class"), box: box(t)}; }),
            nodes: Array.prototype.map.call(document.querySelectorAll("g.node, g.cluster > text"), box),
            titles: Array.prototype.map.call(document.querySelectorAll("g.edge > title"), function (t) { return t.textContent; }),
            wraps: blocks.map(lines),
            white: blocks.map(function (b) { return getComputedStyle(b).whiteSpace; })};
  }
  press("Home");
  out.states.push(state());
  var n = JSON.parse(document.getElementById("walk-data").textContent).steps.length;
  for (var i = 0; i < n + 1; i++) { press("ArrowRight"); out.states.push(state()); }
  press("ArrowLeft"); out.keys.push(["ArrowLeft", position()]);
  press("ArrowLeft"); out.keys.push(["ArrowLeft", position()]);
  press("Home"); out.keys.push(["Home", position()]);
  press("End"); out.keys.push(["End", position()]);
  press("Home");
  press(" "); out.keys.push([" ", position(), document.getElementById("play").textContent]);
  setTimeout(function () {
    out.keys.push(["after 2.2 s", position()]);
    press(" "); out.keys.push([" ", position(), document.getElementById("play").textContent]);
    setTimeout(function () {
      out.keys.push(["after 2 s more", position()]);
      document.body.setAttribute("data-harness", JSON.stringify(out));
    }, 2000);
  }, 2200);
})();
