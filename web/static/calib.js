/* Dragon Farkle table page: the camera calibration wizard (Table tab, joined phones).
   Uses the helpers of app.js (h, svgEl, icon, post, toast, title, COLORS, EVENT_ICON, S). */
"use strict";

/* ---------- calibration: frame the tray on the camera's picture ---------- */
var calibPoints = null, calibRotation = 0;
var CALIB_WAIT = 120000;  /* finding the tray or mapping the LEDs takes a while */
function renderCalib() {
  var box = $("calib");
  if (!joined) { box.hidden = true; return; }
  fetch("/api/calibration", {credentials: "same-origin"}).then(function (r) { return r.ok ? r.json() : null; }).then(function (c) {
    box.hidden = !c; box.textContent = "";
    if (!c) return;
    if (calibPoints === null) { calibPoints = c.tray ? c.tray.slice() : []; calibRotation = c.rotation || 0; }
    box.appendChild(h("div", {"class": "card-head"}, [h("h2", {text: "Camera calibration"}), h("span", {"class": "muted small", text: c.tray_set ? "tray framed" : "whole picture"})]));
    box.appendChild(h("p", {"class": "muted small", text: "Tap the corners of the dice tray on the picture, then save. The next roll is read inside the tray only."}));
    /* the picture's own shape, kept while it loads: the buttons below stay where they are */
    var wrap = h("div", {"class": "cam-wrap calib-wrap", style: c.frame ? "aspect-ratio: " + c.frame[0] + " / " + c.frame[1] : null});
    var img = h("img", {id: "calib-img", alt: "camera picture for framing the tray", src: "/stream/frame.jpg?calib=" + Date.now()});
    var svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 1 1"); svg.setAttribute("preserveAspectRatio", "none"); svg.setAttribute("class", "calib-svg");
    wrap.appendChild(img); wrap.appendChild(svg);
    function draw() {
      svg.textContent = "";
      var pts = calibPoints.filter(function (p) { return isFinite(p[0]) && isFinite(p[1]); });
      if (pts.length > 1) svg.appendChild(svgEl("polygon", {points: pts.map(function (p) { return (+p[0]) + "," + (+p[1]); }).join(" "),
        fill: "rgba(255,209,102,.18)", stroke: "#ffd166", "stroke-width": ".006"}));
      pts.forEach(function (p) { svg.appendChild(svgEl("circle", {cx: +p[0], cy: +p[1], r: ".015", fill: "#ff8a3d"})); });
      var found = c.event_last;  /* where the Event die was found in its last picture, to check */
      if (found) svg.appendChild(svgEl("rect", {x: found.box[0], y: found.box[1], width: found.box[2], height: found.box[3],
        fill: "none", stroke: found.sure ? "#4cc9f0" : "#ff5d5d", "stroke-width": ".008", "class": "event-found"}));
    }
    wrap.addEventListener("click", function (e) {
      var r = img.getBoundingClientRect();
      if (calibPoints.length >= 12) return;
      calibPoints.push([+((e.clientX - r.left) / r.width).toFixed(4), +((e.clientY - r.top) / r.height).toFixed(4)]); draw();
    });
    draw(); box.appendChild(wrap);
    var rot = h("button", {"class": "btn small", type: "button", text: "Rotate: " + calibRotation + "°", onclick: function () { calibRotation = (calibRotation + 90) % 360; rot.textContent = "Rotate: " + calibRotation + "°"; }});
    box.appendChild(h("div", {"class": "row", style: "margin-top:8px"}, [
      h("button", {"class": "btn small ghost", type: "button", text: "Clear", onclick: function () { calibPoints = []; draw(); }}), rot,
      h("button", {"class": "btn small primary", type: "button", text: "Save tray", onclick: function () {
        post("/api/calibration/tray", {points: calibPoints, rotation: calibRotation}, false, CALIB_WAIT).then(function () { toast("Calibration saved", true); calibPoints = null; renderCalib(); });
      }})]));
    box.appendChild(h("button", {"class": "btn small ghost", type: "button", style: "margin-top:6px",
      text: "Find the tray for me", onclick: function () {
        post("/api/calibration/find_tray", {}, false, CALIB_WAIT).then(function () { toast("Tray found: check the outline", true); calibPoints = null; renderCalib(); });
      }}));
    var used = {}, gameColors = (S && S.game && S.game.setup && S.game.setup.colors) || {};
    Object.keys(gameColors).forEach(function (n) { used[gameColors[n]] = true; });
    var colorSel = h("select", {name: "calib-color"}, Object.keys(COLORS).map(function (c) {
      return h("option", {value: c, text: title(c), selected: used[c] && c === Object.keys(used)[0] ? "selected" : null}); }));
    box.appendChild(h("h2", {style: "margin-top:14px", text: "Dice colours"}));
    box.appendChild(h("p", {"class": "muted small", text: "Put one player's six dice in the tray, apart from each other, choose their colour and tap Learn. This also measures how big dice look to the camera."}));
    box.appendChild(h("div", {"class": "joinform"}, [colorSel, h("button", {"class": "btn small", type: "button", text: "Learn", onclick: function () {
      post("/api/calibration/color", {name: colorSel.value}, false, CALIB_WAIT).then(function () { toast("Learned " + colorSel.value, true); renderCalib(); });
    }})]));
    box.appendChild(h("h2", {style: "margin-top:14px", text: "Event die"}));
    box.appendChild(h("p", {"class": "muted small", text: "Put the Event die alone in the tray with one face up and tap that face. Take four pictures of each face if you can (the more, the fewer rolls the table asks about), the die in another place in the tray each time, not near the edge of the picture."}));
    var counts = c.event_frames || {};
    box.appendChild(h("div", {"class": "seg"}, ["blank", "dragon", "rally"].map(function (f) {
      return h("button", {"class": "btn small", type: "button", onclick: function () {
        post("/api/calibration/event", {face: f}, false, CALIB_WAIT).then(function (r) { toast(r.event_die ? "Event die learned" : "Picture of " + f + " kept", true); renderCalib(); });
      }}, [EVENT_ICON[f] ? icon(EVENT_ICON[f], 16) : null, " " + title(f) + " (" + (counts[f] || 0) + ")"]);
    })));
    var last = c.event_last;
    if (last) {
      box.appendChild(h("p", {"class": (last.sure ? "muted" : "warn-text") + " small event-found-text", text:
        (last.sure ? "" : "The camera is not sure it found a die there. ") +
        "The box on the picture shows where the camera found the Event die in the last " + last.face +
        " picture. Not on the die? Forget that picture and take it again with the whole die in view."}));
      box.appendChild(h("button", {"class": "btn small ghost", type: "button", style: "margin-top:6px",
        text: "Forget the last picture", onclick: function () {
          post("/api/calibration/event/forget", {}, false, CALIB_WAIT).then(function () { toast("Last Event die picture forgotten", true); renderCalib(); });
        }}));
    }
    if (c.event_advice) box.appendChild(h("p", {"class": "warn-text small event-advice", text: c.event_advice}));
    if ((counts.blank || 0) + (counts.dragon || 0) + (counts.rally || 0) > 0) {
      box.appendChild(h("button", {"class": "btn small ghost", type: "button", style: "margin-top:6px",
        text: "Start the Event die's pictures again", onclick: function () {
          post("/api/calibration/event/restart", {}, false, CALIB_WAIT).then(function () { toast("Event die pictures forgotten", true); renderCalib(); });
        }}));
    }
    box.appendChild(h("h2", {style: "margin-top:14px", text: "Exposure"}));
    box.appendChild(h("p", {"class": "muted small", text: "With the table lit as for playing, lock the Pi camera's exposure, white balance and focus so dice colours and pips stay the same all evening."}));
    var lockBtn = h("button", {"class": "btn small", type: "button", text: c.camera_locked ? "Lock again" : "Lock exposure", onclick: function () {
      // Locking again measures the light first: a second or two.
      lockBtn.disabled = true; lockBtn.textContent = "Measuring the light…";
      post("/api/calibration/lock", {}, false, CALIB_WAIT).then(function () { toast("Exposure locked", true); renderCalib(); },
        function () { renderCalib(); });
    }});
    box.appendChild(lockBtn);
    box.appendChild(h("h2", {style: "margin-top:14px", text: "LEDs along the tray"}));
    box.appendChild(h("p", {"class": "muted small", text: "Empty the tray and keep the camera still: each tray LED lights in turn so the camera learns where it is (a few seconds)."}));
    var ledBtn = h("button", {"class": "btn small", type: "button", text: c.leds ? "Map again (" + c.leds + " mapped)" : "Map the LEDs", onclick: function () {
      ledBtn.disabled = true; ledBtn.textContent = "Mapping…";
      post("/api/calibration/leds", {}, false, CALIB_WAIT).then(function (r) { toast(r.leds + " LEDs mapped", true); renderCalib(); },
        function () { ledBtn.disabled = false; ledBtn.textContent = "Map the LEDs"; });
    }});
    box.appendChild(ledBtn);
    box.appendChild(h("div", {"class": "tags", style: "margin-top:10px"}, [
      h("span", {"class": "tag", text: c.colors.length ? "Dice colours: " + c.colors.join(", ") : "Dice colours: generic"}),
      h("span", {"class": "tag", text: c.die_side ? "Dice " + Math.round(c.die_side) + " px wide" : "Dice size: not measured"}),
      h("span", {"class": "tag", text: c.event_die ? "Event die learned" : "Event die: generic"}),
      h("span", {"class": "tag", text: "LEDs mapped: " + c.leds}),
      h("span", {"class": "tag", text: c.camera_locked ? "Exposure locked" : "Exposure automatic"})]));
    if (c.die_side_advice) box.appendChild(h("p", {"class": "warn-text small", text: c.die_side_advice}));
  }).catch(function () { box.hidden = true; });
}

