/* Dragon Farkle table page, the Table tab: joining (the table code, the join QR codes),
   the settings (advisor, photos of your dice, teaching, learning) and the new-game form.
   The camera calibration wizard on this tab is calib.js. */
"use strict";

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
