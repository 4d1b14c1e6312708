/* Dragon Farkle table page: renders the table state, sends taps as game steps.
   Plain ES2017 for Chromium and Safari; no libraries, nothing from the internet. */
"use strict";

var S = null;            // the newest table state
var joined = false;      // this phone entered the table code
var entry = [];          // faces typed in the roll keypad
var entryEvent = "blank";
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

var stream = null;        // the live stream of table states
var polling = null;       // while the table refuses this page a stream (it serves as many as it can)
function connect() {
  var es = stream = new EventSource("/stream/events");
  es.addEventListener("state", function (e) { render(JSON.parse(e.data)); });
  es.onopen = function () { $("live").classList.add("on"); stopPolling(); };
  es.onerror = function () {
    $("live").classList.remove("on");
    if (es.readyState === EventSource.CLOSED) startPolling();  /* refused (503) or given up: look every 2 s */
  };
}
function pollState() {
  if (document.hidden) return;
  fetch("/api/state", {credentials: "same-origin"}).then(function (r) { return r.ok ? r.json() : null; })
    .then(function (st) { if (st) render(st); }, function () {});
}
function startPolling() { if (!polling) { polling = setInterval(pollState, 2000); pollState(); } }
function stopPolling() { clearInterval(polling); polling = null; }
/* A browser retries a dropped stream by itself, but gives up on some failures (a refusal,
   an answer that is not a stream) and may close it while the phone sleeps or the page sits
   in its back/forward cache: open it again then, and when the page is looked at again. */
function keepConnected() {
  if (!stream || stream.readyState !== EventSource.CLOSED || document.hidden) return;
  $("live").classList.remove("on");
  connect();
}
document.addEventListener("visibilitychange", keepConnected);
window.addEventListener("pageshow", keepConnected);

function setJoined(v) {
  var was = joined;
  joined = !!v;
  if (was === joined && $("join").firstChild) return;  /* as it was: the code and QR codes stay */
  var w = $("who");
  w.textContent = ""; w.appendChild(icon(joined ? "check" : "eye", 16));
  w.appendChild(document.createTextNode(joined ? " Playing" : " Watching · join"));
  w.classList.toggle("joined", joined);
  document.body.classList.toggle("is-joined", joined);
  renderJoin();
  if (S) render(S);
  if (was !== joined && $("tab-table").classList.contains("active")) renderCalib();  /* joined phones calibrate */
}

/* ---------- rendering ---------- */
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

function render(st) {
  if (!st || (S && st.boot === S.boot && st.version < S.version)) return;
  var prevPos = S && S.game && S.game.position;
  S = st;
  renderPlayers(st); renderTurn(st); renderPending(st); renderControls(st); renderCards(st);
  renderCamera(st); renderEntry(st); followHistory(st); renderSettings(st); renderNotice(st);
  if (st.game && prevPos && prevPos !== st.game.position) {
    $("turn").classList.remove("flash"); void $("turn").offsetWidth; $("turn").classList.add("flash");
  }
}

function renderPlayers(st) {
  var box = $("players"); box.textContent = "";
  players(st).forEach(function (p, i) {
    var goal = p.goal;
    var items = Array.isArray(p.items) ? p.items.length : (p.items || 0);
    var now = st.player === p.name && st.phase !== "game_over";
    var card = h("div", {"class": "player" + (now ? " now" : ""), style: "--pc:" + colorOf(st, p.name, i), "data-player": p.name}, [
      now ? h("span", {"class": "turn-flag", text: "TURN"}) : null,
      st.winner === p.name ? h("span", {"class": "turn-flag", text: "WINNER"}) : null,
      h("div", {"class": "name"}, [h("span", {"class": "swatch"}), h("span", {text: p.name})]),
      h("div", {"class": "army"}, [num(p.army), " ", h("small", {text: "soldiers"})]),
      h("div", {"class": "bar"}, [h("i", {style: "width:" + Math.min(100, 100 * (p.army || 0) / goal) + "%"})]),
      h("div", {"class": "tags"}, [
        p.in_keep ? h("span", {"class": "tag keep"}, [icon("castle", 12), " in the Keep"]) : null,
        p.companion ? h("span", {"class": "tag", text: title(p.companion)}) : null,
        items ? h("span", {"class": "tag item", text: "✦ " + items + " item" + (items > 1 ? "s" : "")}) : null
      ])
    ]);
    box.appendChild(card);
  });
}

function actionName(st) {
  var a = st.action || (st.turn && st.turn.action);
  return {recruit: "Recruit", brawl: "Brawl", final_battle: "Final Battle"}[a] || "";
}

function renderTurn(st) {
  var box = $("turn"); box.textContent = "";
  if (!st.game) {
    box.appendChild(h("p", {"class": "prompt", text: "No game yet."}));
    box.appendChild(h("p", {"class": "muted", text: "Open the Table tab to seat the players and start."}));
    return;
  }
  if (st.phase === "game_over") {
    box.appendChild(h("div", {"class": "victory"}, [icon("dragon", 44), h("div", null, [
      h("b", {text: (st.winner || st.player) + " defeated the dragon!"}),
      h("span", {"class": "muted small", text: "Start another game from the Table tab, or undo the last step."})])]));
  }
  var last = (st.history || [])[(st.history || []).length - 1];
  if (last && last.events && last.events.length) {
    var bad = (last.kinds || []).some(function (k) { return k === "farkle" || k === "army_wiped" || k === "dragon_ate"; });
    box.appendChild(h("div", {"class": "ribbon" + (bad ? " bad" : "")}, [h("span", {text: last.player ? last.player + ": " : ""}),
      h("span", {text: last.events.join(" · ")})]));
  }
  box.appendChild(h("p", {"class": "prompt", text: st.prompt || (st.player + ": " + st.phase)}));
  var meta = h("div", {"class": "meta"});
  var act = actionName(st);
  if (act) meta.appendChild(stat(act, "action"));
  if (st.phase !== "choose_action" && st.phase !== "game_over") {
    meta.appendChild(stat(num(st.turn_total), "this turn"));
    meta.appendChild(stat(st.dice_in_hand, "dice in hand"));
  }
  box.appendChild(meta);
  var brawl = st.brawl;
  if (brawl && (brawl.attacker || brawl.defender)) {
    var sa = brawl.attacker_score, sd = brawl.defender_score;
    if ((sa === null || sa === undefined) && st.roller === brawl.attacker) sa = st.turn_total;
    if ((sd === null || sd === undefined) && st.roller === brawl.defender) sd = st.turn_total;
    box.appendChild(h("div", {"class": "scoreboard"}, [
      h("div", null, [h("b", {text: sa === null || sa === undefined ? "…" : num(sa)}), h("span", {"class": "muted", text: brawl.attacker})]),
      h("div", {"class": "vs", text: "VS"}),
      h("div", null, [h("b", {text: sd === null || sd === undefined ? "…" : num(sd)}), h("span", {"class": "muted", text: brawl.defender})])
    ]));
  }
  var health = st.dragon_health || 3;
  if (act === "Final Battle" || st.damage) {
    var hp = h("div", {"class": "dragon-hp", title: "dragon damage"});
    for (var i = 0; i < health; i++) hp.appendChild(h("span", {"class": "hp" + (i < (st.damage || 0) ? " hit" : "")}, [icon("dragon", 30)]));
    hp.appendChild(h("span", {"class": "muted small", text: " damage " + (st.damage || 0) + " / " + health}));
    box.appendChild(hp);
  }
  var lr = lastRoll(st);
  if (lr && st.phase !== "choose_action") {
    var row = h("div", {"class": "lastroll"}, [h("span", {"class": "muted small", text: "Last roll"})]);
    lr.roll.forEach(function (f) { row.appendChild(die(f, true)); });
    if (lr.event) row.appendChild(eventDie(lr.event, true));
    if (st.farkle) row.appendChild(h("b", {style: "color:var(--bad)", text: " FARKLE"}));
    box.appendChild(row);
    var hist = st.history || [], end = hist[hist.length - 1];
    if (joined && end && end.source === "camera" && end.step.roll) {
      /* a disputed read: take it back and put the camera's faces in the keypad to fix */
      row.appendChild(h("button", {"class": "btn small ghost", type: "button", text: "Wrong read? Fix it", onclick: function () {
        var faces = end.step.roll.slice(), ev = end.step.event;
        post("/api/dispute", {}, true).then(function () {
          entry = faces; entryEvent = ev || "blank"; renderEntry(S);
          (S.pending ? $("pending") : $("entry")).scrollIntoView({behavior: "smooth"});  /* its photo to mark, if the table still has it */
        });
      }}));
    }
  }
}
function stat(v, label) { return h("div", {"class": "stat"}, [h("b", {text: String(v)}), h("span", {text: label})]); }
function lastRoll(st) {
  var lr = st.last_roll;
  if (lr && Array.isArray(lr.roll)) return {roll: lr.roll, event: lr.event};
  if (Array.isArray(lr)) return {roll: lr, event: st.last_event};
  return null;
}

function renderPending(st) {
  var box = $("pending"), p = st.pending;
  box.hidden = !p && !st.teaching; box.textContent = "";
  if (!p) {
    if (st.teaching) {  /* waiting for the next roll to teach with */
      box.appendChild(h("div", {"class": "card-head"}, [h("h2", null, [icon("camera"), " Teaching the camera"])]));
      box.appendChild(h("p", {text: "Roll your dice in the tray: each roll's photo comes up here to check and keep."}));
      box.appendChild(h("button", {"class": "btn ghost", type: "button", disabled: joined ? null : "disabled", text: "Stop teaching",
        onclick: function () { post("/api/teach", {on: false}); }}));
    }
    return;
  }
  var prop = p.proposal || {};
  var teach = p.kind === "teach";
  var fromCamera = teach || p.kind === "roll" || p.kind === "rally" || p.kind === "set_aside";
  box.appendChild(h("div", {"class": "card-head"}, [h("h2", null, [icon(fromCamera ? "camera" : "hand"),
    teach ? " Teaching the camera" : fromCamera ? " The camera is not sure" : " The table asks"])]));
  box.appendChild(h("p", {text: p.reason}));
  if (fromCamera) box.appendChild(photoToMark(p, st));
  var row = h("div", {"class": "row"});
  if ((p.kind === "roll" || teach) && prop.roll) {
    box.appendChild(faceRow("Read as", prop));
    /* with marks on the photo, the faces they make up are what is played (or kept) */
    var marked = p.photo_roll, play = marked || {roll: prop.roll, event: prop.event};
    if (marked) box.appendChild(faceRow("With your marks", marked, "photo-roll"));
  }
  if (teach) {
    row.appendChild(h("button", {"class": "btn good", type: "button", id: "keep-photo", disabled: joined ? null : "disabled",
      text: "✓ Keep this photo", onclick: function () {
        post("/api/teach/keep", {}).then(function (d) { if (d.said) toast(d.said, true); }, function () {});
      }}));
  }
  if (p.kind === "roll" && prop.roll) {
    var complete = play.event && play.roll.length === st.dice_in_hand;
    if (marked || !prop.disputed)  /* a read taken back as wrong is not offered as right */
      row.appendChild(h("button", {"class": "btn good", type: "button", disabled: !joined || !complete ? "disabled" : null,
        text: marked ? "✓ Play as marked" : "✓ That's right", onclick: function () {
          sendAll((prop.before || []).concat([{roll: play.roll, event: play.event}]));
        }}));
    row.appendChild(h("button", {"class": "btn", type: "button", disabled: joined ? null : "disabled", text: "✎ Correct it",
      onclick: function () {
        entry = play.roll.slice(0, st.dice_in_hand); entryEvent = play.event || "blank";
        renderEntry(S); $("entry").scrollIntoView({behavior: "smooth"});
      }}));
  }
  if (p.kind === "rally" && prop.set_aside) {
    row.appendChild(h("button", {"class": "btn good", type: "button", disabled: joined ? null : "disabled", text: "×2 Double",
      onclick: function () { send({set_aside: prop.set_aside, rally: "double"}); }}));
    row.appendChild(h("button", {"class": "btn", type: "button", disabled: joined ? null : "disabled", text: "✦ Magic Item",
      onclick: function () { send({set_aside: prop.set_aside, rally: "item"}); }}));
  }
  if (p.kind === "undo") {
    row.appendChild(h("button", {"class": "btn warn", type: "button", disabled: joined ? null : "disabled", text: "↶ Undo last step",
      onclick: function () { post("/api/undo", {}, true); }}));
  }
  row.appendChild(h("button", {"class": "btn ghost", type: "button", disabled: joined ? null : "disabled",
    text: p.kind === "notice" ? "OK" : teach ? "Skip" : "Dismiss",
    onclick: function () { post("/api/pending/dismiss", {}); }}));
  box.appendChild(row);
}
function faceRow(label, faces, id) {
  var row = h("div", {"class": "lastroll", id: id || null}, [h("span", {"class": "muted small", text: label})]);
  faces.roll.forEach(function (f) { row.appendChild(die(f, true)); });
  if (faces.event) row.appendChild(eventDie(faces.event, true));
  return row;
}

/* The camera's photo, clean, with the dice it read drawn on it (dashed and numbered: the
   ones it is not sure of). A tap on it asks what is there: a face for a box the camera
   read wrong or a die it missed, "no die" for a box that is none, or taking a mark back.
   Every phone sees the marks; the roll keypad starts from them ("Correct it"). */
var markAt = null;  /* {photo, x, y}: the tap waiting for its face */
var shownPhoto = null;  /* the question's <img>, kept across renders: no reload, no flicker */
function sendMark(x, y, face) {
  post("/api/pending/mark", {x: x, y: y, face: face}).then(function (d) { if (d.said) toast(d.said, true); }, function () { renderPending(S); });
}
function faceLabel(f) { return f == null ? "?" : typeof f === "number" ? String(f) : f.charAt(0).toUpperCase(); }
function photoToMark(p, st) {
  var src = "/api/evidence/pending.jpg?v=" + (p.photo || st.version);
  if (!shownPhoto || shownPhoto.getAttribute("src") !== src) shownPhoto = h("img", {src: src, alt: "what the camera saw"});
  var img = shownPhoto;
  img.onclick = null;
  if (!p.dice) return img;  /* no frame kept with this question: the picture as it is */
  var pic = h("div", {"class": "markpic"}, [img]), asked = 0;
  p.dice.forEach(function (d) {
    var b = d.box, kids = [h("b", {text: faceLabel(d.read)})];
    if (!d.sure && p.markable) kids.push(h("i", {text: String(++asked)}));
    pic.appendChild(h("span", {"class": "readbox" + (d.sure ? "" : " unsure"), role: "img",
      "aria-label": (d.sure ? "read as " : "not sure: read as ") + (d.read == null ? "unreadable" : d.read),
      style: "left:" + (100 * b[0]) + "%;top:" + (100 * b[1]) + "%;width:" + (100 * b[2]) + "%;height:" + (100 * b[3]) + "%"}, kids));
  });
  if (!p.markable) return pic;
  if (markAt && markAt.photo !== p.photo) markAt = null;
  function spot(x, y, cls, kids, label) {
    return h("span", {"class": "mark " + cls, style: "left:" + (100 * x) + "%;top:" + (100 * y) + "%", role: "img", "aria-label": label}, kids);
  }
  (p.marks || []).forEach(function (m) {
    if (m.kind === "not_die") pic.appendChild(spot(m.x, m.y, "not_die", null, "crossed out: no die"));
    else pic.appendChild(spot(m.x, m.y, m.kind, [h("b", {text: faceLabel(m.face)})],
      (m.kind === "missed" ? "a die the camera missed, showing " : "a die showing ") + m.face));
  });
  if (markAt) pic.appendChild(spot(markAt.x, markAt.y, "at", null, "your tap"));
  var out = h("div", null, [pic]);
  if (p.unsure && p.unsure.length) out.appendChild(unsureDice(p, src));
  if (joined) img.onclick = function (ev) {
    var r = img.getBoundingClientRect();
    markAt = {photo: p.photo, x: Math.min(1, Math.max(0, (ev.clientX - r.left) / r.width)), y: Math.min(1, Math.max(0, (ev.clientY - r.top) / r.height))};
    renderPending(S);
  };
  if (markAt) {
    var pick = h("div", {"class": "facepick", id: "facepick"}, [h("span", {"class": "muted small", text: "What is there?"})]);
    var at = markAt;  /* this picker's spot (markAt is cleared as soon as a face is picked) */
    var choose = function (face) {
      return function () {
        markAt = null; renderPending(S);  /* the picker closes at once */
        sendMark(at.x, at.y, face);
      };
    };
    [1, 2, 3, 4, 5, 6].forEach(function (f) { pick.appendChild(h("button", {type: "button", "data-face": f, "aria-label": "face " + f, onclick: choose(f)}, [die(f, true)])); });
    ["blank", "dragon", "rally"].forEach(function (f) { pick.appendChild(h("button", {type: "button", "data-face": f, "aria-label": "event " + f, onclick: choose(f)}, [eventDie(f, true)])); });
    pick.appendChild(h("button", {"class": "btn small ghost", type: "button", "data-face": "none", text: "No die", onclick: choose("none")}));
    pick.appendChild(h("button", {"class": "btn small ghost", type: "button", "data-face": "clear", text: "Take back", onclick: choose("clear")}));
    pick.appendChild(h("button", {"class": "btn small ghost", type: "button", text: "Cancel", onclick: function () { markAt = null; renderPending(S); }}));
    out.appendChild(pick);
  }
  out.appendChild(h("p", {"class": "muted small",
    text: "Teach the camera: tap a die it read wrong or missed and pick its face, or a box with no die in it." +
      (p.kind === "teach" ? "" : " The keypad then starts from the photo.")}));
  return out;
}

/* The dice the camera was not sure of, each cut from the photo with the faces it thinks
   likeliest: one tap marks the right one ("Other…" opens the full face picker on it). */
function unsureDice(p, src) {
  var size = p.photo_size || [640, 480], W = size[0], H = size[1], T = 64;
  var list = h("div", {"class": "unsure", id: "unsure"}, [h("span", {"class": "muted small",
    text: p.unsure.length === 1 ? "Which face is this die?" : "Which faces are these dice?"})]);
  p.unsure.forEach(function (u, k) {
    var side = 1.6 * Math.max(u.box[2] * W, u.box[3] * H, 8), z = T / side;
    var cut = h("span", {"class": "cut", role: "img", "aria-label": "die " + (k + 1) + " on the photo",
      style: "background-image:url('" + src + "');background-size:" + (W * z) + "px " + (H * z) + "px;" +
        "background-position:" + (-(u.x * W - side / 2) * z) + "px " + (-(u.y * H - side / 2) * z) + "px"});
    var row = h("div", {"class": "unsure-die", "data-die": k}, [h("b", {"class": "num", text: String(k + 1)}), cut]);
    var pick = function (face) {
      return function () {
        markAt = null;
        sendMark(u.x, u.y, face);
      };
    };
    u.choices.forEach(function (f) {
      row.appendChild(h("button", {type: "button", "class": "choice" + (u.marked === f ? " on" : ""), "data-face": f,
        disabled: joined ? null : "disabled", "aria-pressed": u.marked === f ? "true" : "false",
        "aria-label": "die " + (k + 1) + " shows " + f, onclick: pick(f)}, [die(f, true)]));
    });
    row.appendChild(h("button", {"class": "btn small ghost", type: "button", disabled: joined ? null : "disabled",
      text: u.marked === "none" ? "No die" : u.marked != null && u.choices.indexOf(u.marked) < 0 ? "Marked " + u.marked : "Other…",
      onclick: function () { markAt = {photo: p.photo, x: u.x, y: u.y}; renderPending(S); }}));
    list.appendChild(row);
  });
  return list;
}

function stepButton(step, st) {
  var label, cls = "btn", kids = null;
  if (step.action === "recruit") { kids = [icon("sword"), "Recruit"]; cls += " primary"; }
  else if (step.action === "brawl") kids = [icon("fist"), "Brawl " + step.target];
  else if (step.action === "final_battle") { kids = [icon("dragon"), "Final Battle"]; cls += " warn wide"; }
  else if (step.action === "roll") { kids = [icon("dice"), "Roll again"]; cls += " primary"; }
  else if (step.action === "stop") { kids = [icon("stop"), actionName(st) === "Recruit" ? "Stop · bank " + num(st.turn_total) : "Stop"]; cls += " good"; }
  else if (step.set_aside && step.rally) {
    var v = optionValue(st, step.set_aside);
    label = step.rally === "double" ? "× 2 → +" + num(2 * (v || 0)) : "Take a Magic Item";
    cls += step.rally === "double" ? " good small" : " small";
  }
  else if (step.set_aside) {
    cls += " opt wide";
    var faces = h("span", {"class": "faces"}); step.set_aside.forEach(function (f) { faces.appendChild(die(f, true)); });
    var tail = step.rally === "double" ? " × 2" : step.rally === "item" ? " + Magic Item" : "";
    var value = optionValue(st, step.set_aside);
    kids = [faces, h("span", {"class": "gain", text: (value !== null ? "+" + num(value) : "") + tail})];
  }
  else if (step.keep) label = "Keep " + (step.keep.length ? step.keep.map(title).join(", ") : "nothing");
  else if ("new_companion" in step) label = "🃏 Name the new Companion";
  else label = Object.keys(step).map(function (k) { return title(k) + " " + (typeof step[k] === "object" ? JSON.stringify(step[k]) : step[k]); }).join(" · ");
  var b = h("button", {"class": cls, type: "button", "data-step": JSON.stringify(step), disabled: joined ? null : "disabled",
    onclick: function () { var full = fill(step); if (full) send(full); }}, kids || [label]);
  if (!(step.set_aside && step.rally)) advise(b, adviceFor(st, step));
  else if (adviceFor(st, step) && adviceFor(st, step).best && adviceFor(st, step).step.rally === step.rally) b.classList.add("advised");
  return b;
}

function optionValue(st, dice) {
  var key = dice.join(","), found = null;
  (st.option_values || []).forEach(function (o) { if (o.dice && o.dice.join(",") === key) found = o.soldiers; });
  return found;
}
/* Steps that need numbers from the table (a card's die roll, a new companion) carry "needs". */
function fill(step) {
  var out = JSON.parse(JSON.stringify(step)), needs = out.needs || [];
  delete out.needs;
  for (var i = 0; i < needs.length; i++) {
    var k = needs[i];
    if (k === "new_companion") {
      var c = window.prompt("Which Companion card was drawn? (e.g. Hiccup, Ugh, Sidia, Tabby, Skree)");
      if (!c) return null; out[k] = c; continue;
    }
    var q = {roll: "What did the die show?", predict: "Which number did you name?", die: "Which face is re-rolled?"}[k] || k;
    var v = askFace(q); if (v === null) return null; out[k] = v;
  }
  return out;
}
function rallyRow(dice, st) {
  var faces = h("span", {"class": "faces"}); dice.forEach(function (f) { faces.appendChild(die(f, true)); });
  var value = optionValue(st, dice);
  var row = h("div", {"class": "rally-row wide"}, [h("div", {"class": "rally-head"}, [faces,
    h("span", {"class": "gain", text: value !== null ? "+" + num(value) : ""})])]);
  advise(row, adviceFor(st, {set_aside: dice}));
  row.appendChild(h("div", {"class": "choices"}));
  return row;
}
function renderControls(st) {
  var box = $("controls"); box.textContent = "";
  if (!st.game) return;
  if (!joined) box.appendChild(h("div", {"class": "watching"}, [icon("eye"), " You are watching. Enter the table code (Table tab) to play."]));
  var legal = (st.legal || []).filter(function (s) { return !s.use && !s.adjust; });
  if (st.phase === "set_aside" && legal.length) box.appendChild(h("div", {"class": "label", text: "Set aside (tap one)"}));
  var rallies = {};
  legal.forEach(function (s) {
    if (!s.set_aside || !s.rally) { box.appendChild(stepButton(s, st)); return; }
    var key = s.set_aside.join(",");   /* a Rally: one row per set-aside, then double or item */
    if (!rallies[key]) { rallies[key] = rallyRow(s.set_aside, st); box.appendChild(rallies[key]); }
    rallies[key].querySelector(".choices").appendChild(stepButton(s, st));
  });
  if (st.phase === "roll") box.appendChild(h("div", {"class": "label", text: "Roll " + st.dice_in_hand + " dice and the Event die in the tray, or type the roll below."}));
  adviceNotes(st, box, legal.concat((st.legal || []).filter(function (s) { return s.use; })));
}

/* ---------- the advisor: a small bar and one short figure per choice, the best one marked ---------- */
function adviceRows(st) { return (st.advice && st.advice.display) || []; }
function sameDice(a, b) { return !!a && !!b && a.join(",") === b.join(","); }
function matches(row, step) {
  var r = row.step;
  if (!r) return false;
  if (r.set_aside) return sameDice(r.set_aside, step.set_aside);
  if (r.use) return r.use === step.use;
  return !!r.action && r.action === step.action;
}
function adviceFor(st, step) {
  var found = null;
  adviceRows(st).forEach(function (row) { if (!found && matches(row, step)) found = row; });
  return found;
}
function adviceTitle(row) {
  var bits = [];
  if (row.farkle !== null && row.farkle !== undefined) bits.push("Farkle chance " + Math.round(100 * row.farkle) + "%");
  if (row.note) bits.push(row.note);
  return bits.join(" · ");
}
function advBar(row, plain) {
  var kids = [];
  if (row.fraction !== null && row.fraction !== undefined) {
    kids.push(h("i", {"class": "track"}, [h("b", {style: "width:" + Math.max(2, Math.min(100, 100 * row.fraction)).toFixed(1) + "%"})]));
  }
  kids.push(h("span", {"class": "fig", text: row.figure || row.value}));
  if (row.best && !plain) kids.push(h("span", {"class": "best", text: "best"}));
  return h("span", {"class": "adv" + (row.fraction === null || row.fraction === undefined ? " bare" : "")}, kids);
}
/* Put the row's bar inside a button (or a Rally row); the recommended one gets a gold ring. */
function advise(el, row) {
  if (!row) return;
  el.classList.add("has-adv");
  if (row.best) el.classList.add("advised");
  var t = adviceTitle(row); if (t) el.setAttribute("title", t);
  el.appendChild(advBar(row));
}
/* Advice that has no button of its own here: the Final Battle's odds, the roll to come, a card. */
function adviceNotes(st, box, legal) {
  adviceRows(st).forEach(function (row) {
    if (legal.some(function (s) { return matches(row, s); })) {
      if (!row.step || !row.step.use) return;   /* a card: its button is in the Cards panel */
    }
    if (row.step && row.step.use && !row.best) return;
    var label = row.step && row.step.action === "roll" ? "Rolling on" : row.label.charAt(0).toUpperCase() + row.label.slice(1);
    var note = h("div", {"class": "advice-note wide" + (row.best && row.step && row.step.use ? " advised" : ""), title: adviceTitle(row)},
      [h("span", {"class": "what", text: label}), advBar(row, !(row.step && row.step.use))]);
    if (row.note && !(row.step && row.step.use)) note.appendChild(h("span", {"class": "muted small sub", text: row.note}));
    box.appendChild(note);
  });
}

function renderCards(st) {
  var box = $("cards"); box.textContent = "";
  var uses = (st.legal || []).filter(function (s) { return s.use; });
  box.hidden = !st.game || st.phase === "game_over" || !joined;
  if (box.hidden) return;
  box.appendChild(h("h2", {text: "Cards & table adjustments"}));
  var row = h("div", {"class": "row"});
  uses.forEach(function (s) {
    var adv = adviceFor(st, s);
    row.appendChild(h("button", {"class": "btn small" + (adv && adv.best ? " advised" : ""), type: "button", disabled: joined ? null : "disabled",
      text: "Use " + title(s.use) + (s.player ? " (" + s.player + ")" : ""), onclick: function () { var full = fill(s); if (full) send(full); }}));
  });
  box.appendChild(row);
  box.appendChild(adjustForm(st));
}
function askFace(q) {
  var v = window.prompt(q + " (1-6)"); if (v === null) return null;
  var n = parseInt(v, 10); if (!(n >= 1 && n <= 6)) { toast("A die shows 1 to 6."); return null; }
  return n;
}
function adjustForm(st) {
  var names = players(st).map(function (p) { return p.name; });
  var kinds = {soldiers: "Add/remove soldiers", move_soldiers: "Move soldiers", gain_item: "Gain a Magic Item",
    discard_item: "Discard a Magic Item", reroll_die: "Re-roll one die", ignore_farkle: "Ignore the Farkle", ignore_dragon: "Ignore the Dragon face"};
  var f = h("form", {"class": "adjust"});
  var sel = h("select", {name: "adjust"}, Object.keys(kinds).map(function (k) { return h("option", {value: k, text: kinds[k]}); }));
  var card = h("input", {type: "text", name: "card", placeholder: "Card name as printed", required: "required"});
  var who = h("select", {name: "player"}, names.map(function (n) { return h("option", {value: n, text: n}); }));
  var to = h("select", {name: "to"}, names.map(function (n) { return h("option", {value: n, text: n}); }));
  var amount = h("input", {type: "tel", name: "amount", placeholder: "Soldiers, e.g. 300 or -200"});
  var item = h("input", {type: "text", name: "item", placeholder: "Item (optional)"});
  f.appendChild(h("details", null, [h("summary", {"class": "muted", text: "A card the companion does not know? Record what it did"}),
    h("label", {"class": "field", text: "What happened"}, [sel]), h("label", {"class": "field", text: "Card"}, [card]),
    h("label", {"class": "field", text: "Player (from)"}, [who]), h("label", {"class": "field", text: "To"}, [to]),
    h("label", {"class": "field", text: "Soldiers"}, [amount]), h("label", {"class": "field", text: "Item"}, [item]),
    h("button", {"class": "btn", type: "submit", disabled: joined ? null : "disabled", text: "Record adjustment"})]));
  f.addEventListener("submit", function (e) {
    e.preventDefault();
    var k = sel.value, step = {adjust: k, card: card.value};
    if (k === "soldiers" || k === "gain_item" || k === "discard_item") step.player = who.value;
    if (k === "move_soldiers") { step.from = who.value; step.to = to.value; }
    if (k === "soldiers" || k === "move_soldiers") step.amount = parseInt(amount.value, 10) || 0;
    if ((k === "gain_item" || k === "discard_item") && item.value) step.item = item.value;
    if (k === "reroll_die") { step.die = askFace("Which face is re-rolled?"); step.roll = askFace("What does it show now?"); if (!step.die || !step.roll) return; }
    send(step).then(function () { toast("Adjustment recorded", true); });
  });
  return f;
}

/* Start-up trouble the players should know of (a game set aside, a damaged database),
   on every tab until a new game starts. */
function renderNotice(st) {
  var n = $("notice");
  n.hidden = !st.notice;
  n.textContent = st.notice || "";
}

function renderCamera(st) {
  var cam = st.camera || {};
  $("cam-state").textContent = cam.mode === "camera" ? "● live" : "manual entry";
  var b = $("banner");
  b.hidden = cam.mode === "camera";
  b.className = "banner" + (cam.mode === "camera" ? "" : " info");
  b.textContent = cam.mode === "camera" ? "" : (cam.message || "No camera: type each roll.");
  var read = st.last_read, caption = $("cam-read");
  caption.hidden = !read;
  if (read) {
    var faces = (read.dice || []).map(function (d) { return d.value === null ? "?" : d.value; }).join(" ");
    caption.textContent = "Last read: " + (faces || "nothing") + " · " +
      (read.kind === "apply" ? "played" : read.kind === "ask" ? "asked the table" : read.reason);
  }
  /* typing is the main way in manual mode: put the keypad above the camera picture */
  var camCard = document.querySelector(".card.camera"), entryCard = $("entry");
  camCard.hidden = cam.mode !== "camera" && !$("cam").getAttribute("src");  /* no camera at all */
  if (cam.mode === "camera") camCard.parentNode.insertBefore(camCard, entryCard);
  else camCard.parentNode.insertBefore(entryCard, camCard);
}

function renderEntry(st) {
  var box = $("entry"); box.textContent = "";
  var canRoll = st.game && (st.phase === "roll" || (st.phase === "decide" && (st.legal || []).some(function (s) { return s.action === "roll"; })));
  box.hidden = !canRoll || !joined;
  if (box.hidden) return;
  var n = st.dice_in_hand;
  if (entry.length > n) entry = entry.slice(0, n);
  box.appendChild(h("div", {"class": "card-head"}, [h("h2", {text: "Type the roll"}), h("span", {"class": "muted small", text: entry.length + " / " + n + " dice"})]));
  var dice = h("div", {"class": "entry-dice", id: "entry-dice"});
  entry.forEach(function (f, i) { var d = die(f); d.addEventListener("click", function () { entry.splice(i, 1); renderEntry(S); }); dice.appendChild(d); });
  for (var k = entry.length; k < n; k++) dice.appendChild(h("span", {"class": "slot"}));
  box.appendChild(dice);
  var pad = h("div", {"class": "keypad"});
  [1, 2, 3, 4, 5, 6].forEach(function (f) {
    pad.appendChild(h("button", {type: "button", "data-face": f, "aria-label": "face " + f, onclick: function () {
      if (entry.length < n) { entry.push(f); renderEntry(S); }
    }}, [die(f)]));
  });
  box.appendChild(pad);
  var seg = h("div", {"class": "seg"});
  ["blank", "dragon", "rally"].forEach(function (ev) {
    var input = h("input", {type: "radio", name: "entry-event", value: ev, checked: ev === entryEvent ? "checked" : null,
      onchange: function () { entryEvent = ev; }});
    seg.appendChild(h("label", {"data-event": ev}, [input, h("span", null, [EVENT_ICON[ev] ? icon(EVENT_ICON[ev]) : null, " " + title(ev)])]));
  });
  box.appendChild(seg);
  var row = h("div", {"class": "row", style: "margin-top:8px"});
  row.appendChild(h("button", {"class": "btn ghost", type: "button", text: "Clear", onclick: function () { entry = []; renderEntry(S); }}));
  row.appendChild(h("button", {"class": "btn primary", id: "enter-roll", style: "flex:1", type: "button",
    disabled: joined && entry.length === n ? null : "disabled", text: "Enter roll",
    onclick: function () {
      // The keypad is cleared at once, so faces tapped for the next roll while this one is
      // on its way are kept (they used to be ignored, then wiped when the answer came); a
      // refused roll comes back to be corrected.
      var sent = entry.slice(), sentEvent = entryEvent;
      var steps = st.phase === "decide" ? [{action: "roll"}] : [];
      steps.push({roll: sent, event: sentEvent});
      entry = []; entryEvent = "blank"; renderEntry(S);
      sendAll(steps).catch(function () { entry = sent; entryEvent = sentEvent; renderEntry(S); });
    }}));
  box.appendChild(row);
}

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

/* ---------- table tab: settings ---------- */
function renderSettings(st) {
  var box = $("settings"); box.textContent = "";
  var on = !!(st.settings && st.settings.advisor);
  var input = h("input", {type: "checkbox", id: "advisor-switch", role: "switch", checked: on ? "checked" : null,
    disabled: joined ? null : "disabled", onchange: function () {
      var want = this.checked;
      post("/api/settings", {advisor: want}).then(function () { toast(want ? "Advisor on" : "Advisor off: play unaided", true); })
        .catch(function () { input.checked = !want; });
    }});
  box.appendChild(h("h2", {text: "Advisor"}));
  box.appendChild(h("label", {"class": "switch"}, [input, h("span", {"class": "knob", "aria-hidden": "true"}),
    h("span", {"class": "switch-text"}, [h("b", {text: "Show the odds"}),
      h("span", {"class": "muted small", text: "A small bar on each choice and the best one marked, for the whole table."})])]));
  var ph = st.photos;
  if (ph) {
    box.appendChild(h("h2", {style: "margin-top:14px", text: "Photos of your dice"}));
    box.appendChild(h("p", {"class": "muted small", text: (ph.kept === null ? "?" : ph.kept) + " of at most " + ph.limit +
      " kept in " + ph.folder + ": the rolls the camera was not sure of or misread, and those you taught it, with the faces you gave. They teach the reader your own dice. camera.keep_photos = 0 in the configuration file keeps none."}));
    box.appendChild(h("button", {type: "button", id: "teach", "class": "btn small" + (st.teaching ? " warn" : ""),
      disabled: joined ? null : "disabled", text: st.teaching ? "Stop teaching" : "Teach the camera",
      onclick: function () {
        post("/api/teach", {on: !st.teaching}).then(function (d) {
          if (d.teaching) { toast("Roll your dice in the tray: each roll's photo comes up on the Play tab", true); showTab("play"); }
        }, function () {});
      }}));
    box.appendChild(h("p", {"class": "muted small", text: st.teaching
      ? "Teaching: each roll in the tray comes up on the Play tab to check, mark and keep. The game waits."
      : "No game needed: roll your dice in the tray a few dozen times, check each photo and keep it. Then learn them."}));
    var learning = ph.learning;
    if (learning) {
      box.appendChild(h("button", {type: "button", id: "learn-dice", "class": "btn small",
        disabled: (joined && !learning.running) ? null : "disabled",
        text: learning.running ? "Learning your dice..." : "Learn our dice",
        onclick: function () { post("/api/dice/learn", {}).then(function () { toast("Learning your dice: the game goes on meanwhile", true); }); }}));
      box.appendChild(h("p", {"class": "muted small", id: "learn-dice-status",
        text: learning.lines.length ? learning.lines.join(" ") :
          "Refits the reader on the kept photos in a minute or two, and keeps the new weights only if they read the held-out fifth of the photos at least as well."}));
    }
  }
}

/* ---------- table tab: join, code, new game ---------- */
function renderJoin() {
  var box = $("join"); box.textContent = "";
  if (joined) {
    box.appendChild(h("h2", {text: "Table code"}));
    var code = h("div", {"class": "code", id: "code", text: "····"});
    box.appendChild(code);
    var wifi = h("div", {id: "wifi-join"});
    box.appendChild(wifi);
    box.appendChild(h("img", {"class": "qr", src: "/qr.svg?t=" + Date.now(), alt: "QR code: join this table"}));
    var hint = h("p", {"class": "muted small", style: "text-align:center", text: "Friends scan this (same Wi-Fi) to join and play."});
    box.appendChild(hint);
    fetch("/api/code", {credentials: "same-origin"}).then(function (r) { return r.json(); }).then(function (d) {
      if (d.pin) code.textContent = d.pin;
      if (!d.wifi) return;
      // The table's own Wi-Fi (scripts/pi-hotspot): join it first, then the table.
      wifi.appendChild(h("img", {"class": "qr", src: "/wifi.svg?t=" + Date.now(), alt: "QR code: join the Wi-Fi " + d.wifi}));
      wifi.appendChild(h("p", {"class": "muted small", style: "text-align:center", text: "1. Scan this to join the table's Wi-Fi “" + d.wifi + "”."}));
      hint.textContent = "2. Then scan this to open the table and play.";
    }, function () { setTimeout(renderJoin, 3000); });  /* the table out of reach: again when it is back */
    return;
  }
  box.appendChild(h("h2", {text: "Join the table"}));
  box.appendChild(h("p", {"class": "muted small", text: "Type the table code shown on a player's phone or printed by the companion. Without it you can watch."}));
  var input = h("input", {type: "tel", id: "pin", inputmode: "numeric", maxlength: "16", placeholder: "····", autocomplete: "one-time-code"});
  var f = h("form", {"class": "joinform"}, [input, h("button", {"class": "btn primary", type: "submit", text: "Join"})]);
  f.addEventListener("submit", function (e) { e.preventDefault(); join(input.value); });
  box.appendChild(f);
}
var tabTaps = 0;          // tabs the player opened: a join on its way does not override them
function join(code, since) {
  /* Joined: go to the game, unless there is none yet (the Table tab starts one) or the
     player opened a tab meanwhile ("since": the count of taps the join started from). */
  var taps = since === undefined ? tabTaps : since;
  return post("/api/join", {pin: code}).then(function () {
    toast("Joined: you can play", true);
    if (S && S.game && tabTaps === taps) showTab("play");
  });
}

function seatRow(i, name, color, companion) {
  var colorSel = h("select", {name: "color"}, Object.keys(COLORS).map(function (c) { return h("option", {value: c, text: title(c), selected: c === color ? "selected" : null}); }));
  var comp = h("select", {name: "companion", "class": "companion"}, COMPANIONS.map(function (c) { return h("option", {value: c, text: c ? title(c) : "No companion card", selected: c === companion ? "selected" : null}); }));
  var row = h("div", {"class": "seatrow"}, [h("input", {type: "text", name: "name", value: name, placeholder: "Player " + (i + 1), maxlength: "20"}), colorSel, comp]);
  return row;
}
function initSetup() {
  var seats = $("seats"), defaults = [["Jane", "red"], ["Joseph", "blue"]];
  defaults.forEach(function (d, i) { seats.appendChild(seatRow(i, d[0], d[1], "")); });
  $("add-seat").addEventListener("click", function () {
    var n = seats.children.length; if (n >= 5) { toast("Dragon Farkle seats 2 to 5 players."); return; }
    seats.appendChild(seatRow(n, "", Object.keys(COLORS)[n], ""));
  });
  $("setup").addEventListener("submit", function (e) {
    e.preventDefault();
    var setup = {players: [], colors: {}, companions: {}, table: this.table.value,
      dragon_health: parseInt(this.querySelector("input[name=health]:checked").value, 10)};
    Array.prototype.forEach.call(seats.children, function (row) {
      var name = row.querySelector("[name=name]").value.trim(); if (!name) return;
      setup.players.push(name);
      setup.colors[name] = row.querySelector("[name=color]").value;
      var c = row.querySelector("[name=companion]").value; if (c) setup.companions[name] = c;
    });
    if (S && S.game && S.phase !== "game_over" && !window.confirm("Start a new game? The current one stays in the history database.")) return;
    post("/api/games", setup).then(function () { toast("New game: good luck!", true); showTab("play"); });
  });
}

/* ---------- tabs, camera picture ---------- */
function showTab(name) {
  Array.prototype.forEach.call(document.querySelectorAll(".tab"), function (t) { t.classList.toggle("active", t.id === "tab-" + name); });
  Array.prototype.forEach.call(document.querySelectorAll(".tabs button"), function (b) { b.classList.toggle("active", b.getAttribute("data-tab") === name); });
  window.scrollTo(0, 0);
  if (name === "table") renderCalib();
  if ((name === "history" || name === "stats") && S) followHistory(S);
}
var lastTag = null;
function refreshFrame() {
  if (document.hidden || !$("tab-play").classList.contains("active")) return;
  fetch("/stream/frame.jpg", {cache: "no-cache"}).then(function (r) {
    if (r.status !== 200) return null;
    var tag = r.headers.get("ETag");
    if (tag && tag === lastTag) return null;
    lastTag = tag; return r.blob();
  }).then(function (b) {
    if (!b) return;
    var img = $("cam"), old = img.src;
    img.src = URL.createObjectURL(b); $("cam-empty").hidden = true;
    document.querySelector(".card.camera").hidden = false;
    if (old && old.slice(0, 5) === "blob:") URL.revokeObjectURL(old);
  }).catch(function () {});
}

function start() {
  Array.prototype.forEach.call(document.querySelectorAll(".tabs button"), function (b) {
    b.addEventListener("click", function () { tabTaps++; showTab(b.getAttribute("data-tab")); });
  });
  $("who").addEventListener("click", function () { tabTaps++; showTab("table"); });
  $("undo").addEventListener("click", function () { post("/api/undo", {}, true).then(function () { toast("Undone", true); }); });
  initSetup(); setJoined(false);
  var params = new URLSearchParams(location.search), code = params.get("code");
  (function first() {  /* the first state; tried again while the table is out of reach */
    fetch("/api/state", {credentials: "same-origin"}).then(function (r) { return r.json(); }).then(function (st) {
      setJoined(st.joined); render(st);
      if (!st.game) showTab("table");
      if (code && !st.joined) join(code, 0).catch(function () {});  /* a tab opened while the page loaded stays */
      if (code) history.replaceState(null, "", location.pathname);
    }, function () { setTimeout(first, 2000); });
  })();
  connect();
  setInterval(keepConnected, 5000);
  setInterval(refreshFrame, parseInt(document.body.getAttribute("data-frame-interval"), 10) || 700);
}
document.addEventListener("DOMContentLoaded", start);
