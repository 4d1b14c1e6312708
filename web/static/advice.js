/* Dragon Farkle table page, the advisor on the Play tab: a small bar and one short figure
   per choice, the best one marked. */
"use strict";

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
