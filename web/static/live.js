/* Dragon Farkle table page, the live connection and start-up: the state stream (or polling
   while the table refuses one), joining and leaving, render() handing each new state to
   every tab, switching tabs, and start() once the page has loaded. */
"use strict";

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

/* Start-up trouble the players should know of (a game set aside, a damaged database),
   on every tab until a new game starts. */
function renderNotice(st) {
  var n = $("notice");
  n.hidden = !st.notice;
  n.textContent = st.notice || "";
}

/* ---------- tabs, start-up ---------- */
function showTab(name) {
  Array.prototype.forEach.call(document.querySelectorAll(".tab"), function (t) { t.classList.toggle("active", t.id === "tab-" + name); });
  Array.prototype.forEach.call(document.querySelectorAll(".tabs button"), function (b) { b.classList.toggle("active", b.getAttribute("data-tab") === name); });
  window.scrollTo(0, 0);
  if (name === "table") renderCalib();
  if ((name === "history" || name === "stats") && S) followHistory(S);
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
