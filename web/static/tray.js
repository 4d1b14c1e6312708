/* Dragon Farkle table page, how a roll gets in on the Play tab: the Dice tray card (the
   camera's picture, refreshed while the tab is open, and its last read) and the keypad to
   type a roll by hand. */
"use strict";

var entry = [];          // faces typed in the roll keypad
var entryEvent = "blank";

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
