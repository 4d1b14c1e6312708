/* Dragon Farkle table page, the table's questions on the Play tab: the card that asks (the
   camera not sure of a roll, a Rally, teaching the camera) and the photo to mark: the dice
   the camera read drawn on its photo, a face picker for a tap, the unsure dice cut out. */
"use strict";

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
