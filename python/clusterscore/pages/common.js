"use strict";
// Shared by the judging and labelling pages: the page's data, a store in the browser that
// survives a closed tab, CSV export with the project's spreadsheet rule, and text-only DOM.
// Nothing here decides a value an estimate depends on: the data arrive decided.

const DATA = JSON.parse(document.getElementById("page-data").textContent);
const ACTIVE = new RegExp(DATA.export.active);

function byId(id) { return document.getElementById(id); }

// An element with text content only: values from other people's files never become markup.
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

// The page's answers in localStorage, under a key of the data's own: one file's answers
// never mix with another's. save() reports whether the browser kept them.
class Store {
  constructor(kind, fresh) {
    this.key = `clusterscore:${kind}:${DATA.key}`;
    this.fresh = fresh;
    this.ok = true;
    let saved = null;
    try { saved = JSON.parse(localStorage.getItem(this.key) || "null"); } catch (e) { this.ok = false; }
    this.state = saved || fresh();
  }
  save() {
    try { localStorage.setItem(this.key, JSON.stringify(this.state)); this.ok = true; }
    catch (e) { this.ok = false; }
    return this.ok;
  }
  get last() { try { return localStorage.getItem("clusterscore:last-name") || ""; } catch (e) { return ""; } }
  set last(name) { try { localStorage.setItem("clusterscore:last-name", name); } catch (e) { /* kept in the page */ } }
}

// The person named at the start (rater, labeller): the form asks, the store remembers the
// last name, "change" asks again. onName(name) starts the work, onName("") ends it;
// `panels` are hidden meanwhile.
function askName(store, onName, panels) {
  const field = byId("rater");
  byId("who").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = field.value.trim();
    if (!name) return;
    store.last = name;
    if (document.activeElement) document.activeElement.blur(); // keys now act on the work
    byId("who").hidden = true;
    onName(name);
  });
  byId("switch").addEventListener("click", () => {
    for (const id of panels) byId(id).hidden = true;
    byId("who").hidden = false;
    field.value = "";
    field.focus();
    onName("");
  });
  field.value = store.last;
  field.focus();
}

// Said once the browser refuses to keep the answers (`what`: verdicts, labels).
function warnIfNotKept(store, what) {
  if (store.ok) return;
  const warning = byId("storage-warning");
  warning.hidden = false;
  warning.textContent = `This browser does not keep the ${what}: export before you close the page.`;
}

// One CSV cell: inert in a spreadsheet (the rule arrives with the data), quoted.
function cell(value) {
  let text = value === null || value === undefined ? "" : String(value);
  if (ACTIVE.test(text)) text = "'" + text;
  return '"' + text.replace(/"/g, '""') + '"';
}

function csv(header, rows) {
  return [header, ...rows].map((r) => r.map(cell).join(",")).join("\r\n") + "\r\n";
}

// A name safe in a file name: what people type as their name is not.
function fileSafe(name) {
  return name.normalize("NFKD").replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-.]+|-+$/g, "").slice(0, 60) || "rater";
}

function download(fileName, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const a = el("a");
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// Keys reach the page's handler unless a text field has the focus.
function onKeys(handler) {
  document.addEventListener("keydown", (event) => {
    const t = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && t.type !== "checkbox"))) {
      if (event.key === "Enter" || event.key === "Escape") {
        if (t.dataset.leaveOnEnter !== undefined) { event.preventDefault(); t.blur(); }
      }
      return;
    }
    if (handler(event)) event.preventDefault();
  });
}
