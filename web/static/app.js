/* Dragon Farkle table page, the shared part: the state every tab draws from, the icons and
   DOM helpers (no markup is ever parsed from strings), and talking to the table (post,
   send). Loaded first; every other script of the page uses these.
   Plain ES2017 for Chromium and Safari; no libraries, nothing from the internet.
   The page's scripts are plain <script> files sharing one global scope, in the order
   web/templates/index.html lists them; a name is declared in one of them only. */
"use strict";

var S = null;            // the newest table state
var joined = false;      // this phone entered the table code
var PALETTE = ["#ff6b6b", "#4dabf7", "#69db7c", "#ffd43b", "#b197fc", "#ffa94d"];
var COLORS = {red: "#ff5a5f", blue: "#4dabf7", green: "#51cf66", yellow: "#ffd43b", purple: "#b197fc",
  black: "#5c5470", white: "#f1f3f5", orange: "#ff922b", pink: "#f783ac", brown: "#b08968"};
var COMPANIONS = ["", "hiccup", "ugh", "sidia", "tabby", "skree"];
/* Small line icons, drawn as SVG elements (no emoji font or icon font needed on any phone;
   no markup parsed from strings: the page never builds HTML from data). */
var ICONS = {
  dice: [["rect", {x: 3, y: 3, width: 18, height: 18, rx: 4}], ["circle", {cx: 8, cy: 8, r: 1.3, fill: "currentColor"}],
    ["circle", {cx: 16, cy: 16, r: 1.3, fill: "currentColor"}], ["circle", {cx: 12, cy: 12, r: 1.3, fill: "currentColor"}]],
  scroll: [["path", {d: "M6 4h11a3 3 0 0 1 3 3v0H9v11a2 2 0 0 1-4 0V6a2 2 0 0 1 1-2z"}], ["path", {d: "M9 9h7M9 13h7M9 17h5"}]],
  chart: [["path", {d: "M4 20V4M4 20h16"}], ["path", {d: "M7 16l4-5 3 3 5-7"}]],
  castle: [["path", {d: "M4 21V8h3v3h3V8h4v3h3V8h3v13z"}], ["path", {d: "M10 21v-5a2 2 0 0 1 4 0v5"}]],
  dragon: [["path", {d: "M3 17c3-1 5-4 6-8 2 3 4 4 7 3-2-2-2-5 0-7 2 2 5 3 6 2-1 5-5 9-10 10 2 .5 4 0 6-1-3 3-8 5-12 4-1 0-2-1-3-3z", fill: "currentColor", stroke: "none"}]],
  flag: [["path", {d: "M6 21V4"}], ["path", {d: "M6 4h11l-2 4 2 4H6", fill: "currentColor"}]],
  camera: [["path", {d: "M4 8h3l2-3h6l2 3h3v11H4z"}], ["circle", {cx: 12, cy: 13, r: 3.5}]],
  hand: [["path", {d: "M8 13V6a1.5 1.5 0 0 1 3 0v5V4.5a1.5 1.5 0 0 1 3 0V11V6a1.5 1.5 0 0 1 3 0v8c0 4-2.5 7-6 7-2.5 0-4-1-5.5-3L4 14.5a1.6 1.6 0 0 1 2.4-2z"}]],
  sword: [["path", {d: "M14 4h6v6L9 21l-3-3z"}], ["path", {d: "M4 16l4 4M3 21l3-3"}]],
  fist: [["path", {d: "M6 10a2 2 0 0 1 4 0V8a2 2 0 0 1 4 0v1a2 2 0 0 1 4 0v5c0 4-3 7-7 7-3 0-5-2-5-5z"}]],
  stop: [["rect", {x: 5, y: 5, width: 14, height: 14, rx: 3}]],
  undo: [["path", {d: "M9 7L4 12l5 5"}], ["path", {d: "M4 12h10a6 6 0 0 1 0 12h-2", transform: "translate(0 -6)"}]],
  eye: [["path", {d: "M2 12s4-7 10-7 10 7 10 7-4 7-10 7S2 12 2 12z"}], ["circle", {cx: 12, cy: 12, r: 3}]],
  check: [["path", {d: "M4 12l5 5L20 6"}]]
};
var SVGNS = "http://www.w3.org/2000/svg";
function svgEl(tag, attrs, kids) {
  var el = document.createElementNS(SVGNS, tag);
  Object.keys(attrs || {}).forEach(function (k) { el.setAttribute(k, String(attrs[k])); });
  (kids || []).forEach(function (c) { el.appendChild(c); });
  return el;
}
function icon(name, size) {
  var span = document.createElement("span"), s = size || 20;
  span.className = "ico";
  span.appendChild(svgEl("svg", {viewBox: "0 0 24 24", width: s, height: s, fill: "none", stroke: "currentColor",
    "stroke-width": 2, "stroke-linecap": "round", "stroke-linejoin": "round", "aria-hidden": "true"},
    ICONS[name].map(function (part) { return svgEl(part[0], part[1]); })));
  return span;
}
var EVENT_ICON = {blank: "", dragon: "dragon", rally: "flag"};

function $(id) { return document.getElementById(id); }
function h(tag, attrs, kids) {
  var el = document.createElement(tag);
  if (attrs) Object.keys(attrs).forEach(function (k) {
    if (k === "text") el.textContent = attrs[k];
    else if (k === "style") { if (attrs[k]) el.style.cssText = attrs[k]; }  /* CSSOM: allowed by the page's CSP */
    else if (k.slice(0, 2) === "on") el.addEventListener(k.slice(2), attrs[k]);
    else if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) el.setAttribute(k, attrs[k]);
  });
  (kids || []).forEach(function (c) { if (c) el.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
  return el;
}
function title(id) { return String(id || "").replace(/_/g, " ").replace(/\b\w/g, function (c) { return c.toUpperCase(); }); }
function num(n) { return (n || 0).toLocaleString("en-US"); }

function die(face, small) {
  if (typeof face === "string" && isNaN(+face)) return eventDie(face, small);
  var d = h("span", {"class": "die f" + face + (small ? " sm" : ""), "aria-label": "die " + face, role: "img"});
  for (var i = 0; i < 9; i++) d.appendChild(h("i"));
  return d;
}
function eventDie(face, small) {
  var el = h("span", {"class": "eventdie " + face + (small ? " sm" : ""), title: face, role: "img", "aria-label": "event " + face});
  if (EVENT_ICON[face]) el.appendChild(icon(EVENT_ICON[face], small ? 16 : 24));
  return el;
}

/* ---------- talking to the table ---------- */
function toast(msg, ok) {
  var t = $("toast"); t.textContent = msg; t.className = "toast" + (ok ? " ok" : ""); t.hidden = false;
  clearTimeout(toast.timer); toast.timer = setTimeout(function () { t.hidden = true; }, ok ? 1800 : 4200);
}
var WAIT_MS = 10000;       // a tap's answer is awaited this long (the table drops taps older than 8 s)
function post(path, body, withPosition, waitMs) {
  var headers = {"Content-Type": "application/json"};
  if (withPosition && S && S.game) headers["X-Game-Position"] = S.game.position;
  var ctl = window.AbortController ? new AbortController() : null;
  var timer = ctl ? setTimeout(function () { ctl.abort(); }, waitMs || WAIT_MS) : null;
  return fetch(path, {method: "POST", headers: headers, body: JSON.stringify(body || {}), credentials: "same-origin",
                      signal: ctl ? ctl.signal : undefined})
    .then(function (r) {
      clearTimeout(timer);
      return r.json().catch(function () { return {error: "The table did not answer properly."}; }).then(function (data) {
        if (!r.ok) {
          if (r.status === 403 && path !== "/api/join") { setJoined(false); showTab("table"); }
          throw new Error(data.error || ("Error " + r.status));
        }
        if (data.joined !== undefined) setJoined(data.joined);
        if (data.version !== undefined) render(data);  /* a table state (not a calibration summary) */
        return data;
      });
    }, function () {  /* no answer at all, or none in time (the browser's own words differ: say it plainly) */
      clearTimeout(timer);
      throw new Error("The table did not answer: check this phone's Wi-Fi, then look at the game before tapping again.");
    })
    .catch(function (e) { toast(e.message); e.shown = true; throw e; });
}
/* A refusal is shown as a toast where it happens (post, above): the callers that have
   nothing more to do about it need not catch it, and it is no script error. */
window.addEventListener("unhandledrejection", function (e) {
  if (e.reason && e.reason.shown) e.preventDefault();
});
function send(step) { return post("/api/steps", step, true); }
function sendAll(steps) {  /* e.g. "roll again" then the roll: one after the other */
  return steps.reduce(function (p, s) { return p.then(function () { return send(s); }); }, Promise.resolve());
}

/* ---------- the players, as every tab shows them ---------- */
function players(st) {
  var names = (st.players || []).map(function (p) { return typeof p === "object" ? p.name : p; });
  var held = st.held_items || {}, comps = st.companions || {}, goal = st.keep_threshold || {};
  return names.map(function (n) {
    return {name: n, army: (st.army || {})[n] || 0, in_keep: (st.in_keep || []).indexOf(n) >= 0,
      items: held[n] || (st.items || {})[n] || 0, companion: comps[n] || null,
      goal: typeof goal === "object" ? goal[n] || 5000 : goal || 5000};
  });
}
function colorOf(st, name, i) {
  var colors = (st.game && st.game.setup && st.game.setup.colors) || {}, c = colors[name];
  if (typeof c === "string" && Object.prototype.hasOwnProperty.call(COLORS, c)) return COLORS[c];
  return typeof c === "string" && /^#[0-9a-fA-F]{3,8}$/.test(c) ? c : PALETTE[i % PALETTE.length];
}
