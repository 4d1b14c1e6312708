/* Dragon Farkle table page, the History and Stats tabs: the steps of the game with their
   photos, the armies chart and the faces rolled. */
"use strict";

/* ---------- history and statistics: fetched while their tab is open (the live state
   carries only the newest step, so an update stays small however long the game) ---------- */
var full = null;          // {version, boot, history, stats} from /api/history
var fullLoading = false, fullAgain = false;
function historyShown() {
  return $("tab-history").classList.contains("active") || $("tab-stats").classList.contains("active");
}
function behind(st) { return !full || full.boot !== st.boot || full.version < st.version; }
function followHistory(st) {
  $("undo").disabled = !joined || !st.can_undo;
  if (historyShown() && behind(st)) loadHistory();
}
function loadHistory() {
  if (fullLoading) { fullAgain = true; return; }
  fullLoading = true;
  fetch("/api/history", {credentials: "same-origin"}).then(function (r) { return r.ok ? r.json() : null; }).then(function (d) {
    fullLoading = false;
    if (d && (!full || full.boot !== d.boot || d.version >= full.version)) full = d;
    if (full && S) { renderHistory(full); renderStats(S, full); }
    if (fullAgain) { fullAgain = false; if (S && historyShown() && behind(S)) loadHistory(); }
  }, function () { fullLoading = false; fullAgain = false; });
}

function renderHistory(d) {
  var ol = $("history"); ol.textContent = "";
  (d.history || []).slice().reverse().forEach(function (e) {
    var kids = [h("span", {"class": "src", title: "from the " + e.source}, [icon(e.source === "camera" ? "camera" : "hand")]),
      h("div", {"class": "txt"}, [h("div", {text: e.text}), e.events && e.events.length ? h("div", {"class": "ev", text: e.events.join(" · ")}) : null])];
    if (e.evidence) {
      kids.push(h("img", {src: "/api/evidence/" + e.seq + ".jpg", loading: "lazy", alt: "frame of step " + (e.seq + 1),
        onclick: function () { var z = $("zoom"); z.querySelector("img").src = this.src; if (z.showModal) z.showModal(); else window.open(this.src); }}));
    }
    ol.appendChild(h("li", {"data-seq": e.seq}, kids));
  });
  if (!(d.history || []).length) ol.appendChild(h("li", {"class": "muted", text: "No moves yet."}));
}

function svgText(attrs, text) { var t = svgEl("text", attrs); t.textContent = text; return t; }
function renderStats(st, d) {
  var chart = $("chart"); chart.textContent = "";
  var series = (d.stats && d.stats.armies) || [];
  var ps = players(st);
  if (series.length < 2 || !ps.length) { chart.appendChild(h("p", {"class": "muted", text: "The chart fills in as the game goes."})); }
  else {
    var W = 340, H = 170, P = 28, max = 5000;
    series.forEach(function (a) { ps.forEach(function (p) { max = Math.max(max, a[p.name] || 0); }); });
    var x = function (i) { return P + (W - P - 6) * i / (series.length - 1); }, y = function (v) { return H - 18 - (H - 30) * v / max; };
    var svg = svgEl("svg", {viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": "armies over the game"});
    [0, 0.5, 1].forEach(function (t) {
      var v = Math.round(max * t);
      svg.appendChild(svgEl("line", {x1: P, x2: W, y1: y(v), y2: y(v), stroke: "#3b2d63", "stroke-dasharray": "3 4"}));
      svg.appendChild(svgText({x: 2, y: y(v) + 4, fill: "#b3a7d1", "font-size": 9}, v >= 1000 ? (v / 1000) + "k" : String(v)));
    });
    svg.appendChild(svgEl("line", {x1: P, x2: W, y1: y(5000), y2: y(5000), stroke: "#ff8a3d", "stroke-opacity": ".6"}));
    ps.forEach(function (p, i) {
      var pts = series.map(function (a, k) { return x(k).toFixed(1) + "," + y(a[p.name] || 0).toFixed(1); }).join(" ");
      svg.appendChild(svgEl("polyline", {fill: "none", stroke: colorOf(st, p.name, i), "stroke-width": 2.5, "stroke-linejoin": "round", points: pts}));
    });
    svg.appendChild(svgText({x: W, y: H - 4, "text-anchor": "end", fill: "#b3a7d1", "font-size": 9}, "steps →"));
    chart.appendChild(svg);
    chart.appendChild(h("div", {"class": "legend"}, ps.map(function (p, i) {
      return h("span", null, [h("i", {"class": "swatch", style: "--pc:" + colorOf(st, p.name, i)}), p.name]);
    })));
  }
  var faces = $("faces"); faces.textContent = "";
  var counts = (d.stats && d.stats.faces) || {};
  var keys = ["1", "2", "3", "4", "5", "6", "blank", "dragon", "rally"];
  ps.forEach(function (p, i) {
    var c = counts[p.name]; if (!c) return;
    var total = 0; for (var f = 1; f <= 6; f++) total += c[String(f)] || 0;
    var top = Math.max.apply(null, keys.map(function (k) { return c[k] || 0; }).concat([1]));
    var bars = h("div", {"class": "facebars", style: "--pc:" + colorOf(st, p.name, i)});
    keys.forEach(function (k) { bars.appendChild(h("div", {"class": "b", style: "height:" + (100 * (c[k] || 0) / top) + "%"}, [h("em", {text: String(c[k] || 0)})])); });
    if (total) bars.appendChild(h("div", {"class": "expect", style: "bottom:" + (100 * total / 6 / top) + "%", title: "fair dice: 1 in 6"}));
    faces.appendChild(h("div", {"class": "facerow"}, [h("b", {text: p.name + " · " + total + " soldier dice"}), bars,
      h("div", {"class": "facelabels"}, keys.map(function (k) {
        return EVENT_ICON[k] ? h("span", null, [icon(EVENT_ICON[k], 16)]) : h("span", {text: k === "blank" ? "□" : k});
      }))]));
  });
  if (!faces.childNodes.length) faces.appendChild(h("p", {"class": "muted", text: "No rolls yet."}));
}
