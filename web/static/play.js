/* Dragon Farkle table page, the Play tab: the players' armies, the turn (prompt, brawl
   scores, dragon damage, last roll), the choices as buttons, and the Cards panel with its
   form for a card the companion does not know. */
"use strict";

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
