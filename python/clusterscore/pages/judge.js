// The judging page: one pair at a time for the rater named at the start. A second copy of
// a replicated pair waits for a rater other than the one who judged its first copy.

const TASKS = DATA.tasks;
const store = new Store("judge", () => ({ verdicts: {}, history: {} }));
let rater = "";
let back = null; // while reviewing: a position in the rater's history, else null

function verdicts() { return store.state.verdicts; }
function history() {
  const h = store.state.history;
  if (!h[rater]) h[rater] = [];
  return h[rater];
}

// Whether the rater may judge task k: a second copy goes to another rater than the first's.
function offered(k) {
  const t = TASKS[k];
  if (t.copy === 1 || t.twin < 0) return true;
  const first = verdicts()[t.twin];
  return first !== undefined && first.r !== rater;
}

function next() {
  for (let k = 0; k < TASKS.length; k++) if (!(k in verdicts()) && offered(k)) return k;
  return -1;
}

function current() {
  if (back !== null) return history()[back];
  return next();
}

function counts() {
  let all = 0, mine = 0, held = 0;
  TASKS.forEach((t, k) => {
    const v = verdicts()[k];
    if (v !== undefined) { all++; if (v.r === rater) mine++; } else if (!offered(k)) held++;
  });
  return { all, mine, held };
}

function showPair(k) {
  const t = TASKS[k];
  const body = byId("pair").tBodies[0];
  body.replaceChildren();
  const row = (label, a, b, cls) => {
    const tr = el("tr", undefined, cls);
    tr.append(el("th", label));
    for (const v of [a, b]) tr.append(v === null ? el("td", "", "blank") : el("td", v));
    if (cls !== "id" && a !== b) tr.classList.add("differs");
    body.append(tr);
  };
  row("id", t.i, t.j, "id");
  DATA.columns.forEach((c, n) => row(c, t.a[n], t.b[n]));
  const given = verdicts()[k];
  byId("note").value = given && back !== null ? given.n : byId("note").value;
  for (const name of ["same", "different", "unsure"]) {
    byId(name).classList.toggle("chosen", back !== null && given !== undefined && given.v === name);
  }
}

function render() {
  const c = counts();
  const held = c.held ? ` · ${c.held.toLocaleString()} kept for another rater` : "";
  byId("progress").textContent = rater
    ? `${c.all.toLocaleString()} of ${TASKS.length.toLocaleString()} judged · ${rater}: ${c.mine.toLocaleString()}${held}`
    : `${TASKS.length.toLocaleString()} pairs to judge`;
  warnIfNotKept(store, "verdicts");
  byId("switch").hidden = !rater;
  if (!rater) return;
  const k = current();
  byId("work").hidden = k < 0;
  byId("done").hidden = k >= 0;
  if (k < 0) {
    byId("done-text").textContent = c.held
      ? `Every pair open to you is judged. The ${c.held.toLocaleString()} left repeat pairs you judged: another rater judges them.`
      : "Every pair is judged. Export your verdicts.";
    return;
  }
  byId("position").textContent = back !== null ? `reviewing your verdict ${back + 1} of ${history().length}` : "";
  showPair(k);
}

function judge(verdict) {
  const k = current();
  if (k < 0) return;
  const note = byId("note").value.trim();
  const known = k in verdicts();
  verdicts()[k] = { r: rater, v: verdict, n: note };
  if (!known) history().push(k);
  byId("note").value = "";
  if (back !== null) back = back + 1 < history().length ? back + 1 : null;
  store.save();
  render();
}

function goBack() {
  const h = history();
  if (!h.length) return;
  back = back === null ? h.length - 1 : Math.max(0, back - 1);
  render();
}

function undo() {
  const h = history();
  if (!h.length) return;
  const k = h.pop();
  delete verdicts()[k];
  back = null;
  store.save();
  render();
}

function exportVerdicts() {
  const rows = [];
  for (const k of history()) {
    const v = verdicts()[k];
    const t = TASKS[k];
    rows.push([t.i, t.j, t.copy, v.v, rater, v.n]);
  }
  download(`${fileSafe(DATA.name)}.verdicts.${fileSafe(rater)}.csv`,
    csv(["item_i", "item_j", "copy", "verdict", "rater", "note"], rows));
}

askName(store, (name) => { rater = name; back = null; render(); }, ["work", "done"]);
for (const name of ["same", "different", "unsure"]) byId(name).addEventListener("click", () => judge(name));
byId("back").addEventListener("click", goBack);
byId("back-done").addEventListener("click", goBack);
byId("undo").addEventListener("click", undo);
byId("export").addEventListener("click", exportVerdicts);
byId("export-done").addEventListener("click", exportVerdicts);
byId("note").dataset.leaveOnEnter = "";

onKeys((event) => {
  if (!rater) return false;
  const key = event.key.toLowerCase();
  const actions = { s: () => judge("same"), d: () => judge("different"), u: () => judge("unsure"),
    b: goBack, arrowleft: goBack, z: undo, e: exportVerdicts, n: () => byId("note").focus() };
  if (!(key in actions)) return false;
  actions[key]();
  return true;
});

render();
