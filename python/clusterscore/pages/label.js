// The labelling page: one seed record at a time, its candidates as rows to tick when they
// are the seed's entity, records added by id; what is labelled is exported per labeller.

const SEEDS = DATA.seeds;
const store = new Store("label", () => ({ seeds: {}, at: 0 }));
let labeller = "";
let cursor = 0; // the candidate row the keys act on

function answer(k) {
  const s = store.state.seeds;
  if (!s[k]) s[k] = { ticked: [], added: [], done: false, note: "" };
  return s[k];
}

function labelledCount() {
  return SEEDS.filter((_, k) => answer(k).done).length;
}

// An earlier labelled seed whose entity holds this seed's record, if any (display only:
// truth_from_labels joins entities itself).
function heldBy(k) {
  const id = SEEDS[k].id;
  for (let o = 0; o < SEEDS.length; o++) {
    if (o === k || !answer(o).done) continue;
    const a = answer(o);
    if (a.added.includes(id) || a.ticked.some((r) => SEEDS[o].rows[r][0] === id)) return SEEDS[o].id;
  }
  return null;
}

function renderHead() {
  const head = byId("candidates").tHead.rows[0];
  head.replaceChildren(el("th", "same entity", "check"), el("th", "id"));
  for (const c of DATA.columns) head.append(el("th", c));
}

function render() {
  const done = labelledCount();
  byId("progress").textContent = labeller
    ? `${done.toLocaleString()} of ${SEEDS.length.toLocaleString()} seeds labelled · ${labeller}`
    : `${SEEDS.length.toLocaleString()} seed records to label`;
  byId("switch").hidden = !labeller;
  warnIfNotKept(store, "labels");
  if (!labeller) return;
  byId("work").hidden = false;
  const k = store.state.at;
  const a = answer(k);
  byId("position").textContent = `Seed ${k + 1} of ${SEEDS.length}${a.done ? " (labelled)" : ""}`;
  const held = heldBy(k);
  byId("status").textContent = held !== null
    ? `This record is already in the entity of seed ${held}: finish it as it is, or tick what that seed's entity missed.`
    : "";
  const body = byId("candidates").tBodies[0];
  body.replaceChildren();
  SEEDS[k].rows.forEach(([id, values], r) => {
    const tr = el("tr", undefined, r === 0 ? "seed" : "");
    const ticked = r === 0 || a.ticked.includes(r);
    if (ticked && r > 0) tr.classList.add("ticked");
    if (r === cursor) tr.classList.add("cursor");
    const box = el("input");
    box.type = "checkbox";
    box.checked = ticked;
    box.disabled = r === 0;
    box.setAttribute("aria-label", r === 0 ? "the seed" : `same entity: ${id}`);
    box.addEventListener("change", () => { cursor = r; toggle(r); });
    const check = el("td", undefined, "check");
    check.append(box);
    tr.append(check, el("td", id, "id"));
    for (const v of values) tr.append(v === null ? el("td", "", "blank") : el("td", v));
    body.append(tr);
  });
  for (const id of a.added) {
    const tr = el("tr", undefined, "ticked added");
    const remove = el("button", "remove");
    remove.addEventListener("click", () => { a.added = a.added.filter((x) => x !== id); save(); });
    const cellBtn = el("td", undefined, "check");
    cellBtn.append(remove);
    tr.append(cellBtn, el("td", id, "id"), el("td", "added by id", "blank-note"));
    body.append(tr);
  }
  if (document.activeElement !== byId("note")) byId("note").value = a.note;
}

function save() { store.save(); render(); }

function toggle(r) {
  if (r === 0) return;
  const a = answer(store.state.at);
  a.ticked = a.ticked.includes(r) ? a.ticked.filter((x) => x !== r) : [...a.ticked, r].sort((x, y) => x - y);
  save();
}

function move(by) {
  const n = SEEDS[store.state.at].rows.length;
  cursor = Math.min(n - 1, Math.max(0, cursor + by));
  render();
}

function finish() {
  const a = answer(store.state.at);
  a.note = byId("note").value.trim();
  a.done = true;
  const next = SEEDS.findIndex((_, k) => !answer(k).done);
  store.state.at = next >= 0 ? next : store.state.at;
  cursor = 0;
  save();
}

function previous() {
  store.state.at = Math.max(0, store.state.at - 1);
  cursor = 0;
  save();
}

function addById(text) {
  const id = text.trim();
  if (!id) return;
  const a = answer(store.state.at);
  const known = SEEDS[store.state.at].rows.findIndex(([rid]) => rid === id);
  if (known > 0 && !a.ticked.includes(known)) a.ticked = [...a.ticked, known].sort((x, y) => x - y);
  else if (known < 0 && !a.added.includes(id)) a.added.push(id);
  byId("add").value = "";
  save();
}

function exportLabels() {
  const rows = [];
  SEEDS.forEach((seed, k) => {
    const a = answer(k);
    if (!a.done) return;
    seed.rows.forEach(([id], r) => {
      rows.push([seed.id, id, r === 0 || a.ticked.includes(r) ? "yes" : "no", labeller, a.note]);
    });
    for (const id of a.added) rows.push([seed.id, id, "yes", labeller, a.note]);
  });
  download(`${fileSafe(DATA.name)}.labels.${fileSafe(labeller)}.csv`,
    csv(["seed", "item_id", "same_entity", "labeller", "note"], rows));
}

renderHead();
askName(store, (name) => { labeller = name; cursor = 0; render(); }, ["work"]);
byId("done").addEventListener("click", finish);
byId("back").addEventListener("click", previous);
byId("export").addEventListener("click", exportLabels);
byId("add-form").addEventListener("submit", (event) => { event.preventDefault(); addById(byId("add").value); byId("add").blur(); });
byId("note").dataset.leaveOnEnter = "";
byId("note").addEventListener("change", () => { answer(store.state.at).note = byId("note").value.trim(); store.save(); });

onKeys((event) => {
  if (!labeller) return false;
  const key = event.key.toLowerCase();
  const actions = {
    arrowdown: () => move(1), j: () => move(1), arrowup: () => move(-1), k: () => move(-1),
    " ": () => toggle(cursor), x: () => toggle(cursor), enter: finish, b: previous,
    arrowleft: previous, e: exportLabels, a: () => byId("add").focus(), n: () => byId("note").focus(),
  };
  if (!(key in actions)) return false;
  actions[key]();
  return true;
});

render();
