// The transcript of a run (shared by every page; see harness/view/transcript.py
// for the entries). Every text goes in through textContent; a long one is folded
// to its first lines, with its size on the button that shows it whole.
const TX_FOLD_CHARS = 1200, TX_FOLD_LINES = 16;

function txText(text) {
  const pre = document.createElement("pre");
  pre.className = "tx-text";
  const lines = text.split("\n");
  if (text.length <= TX_FOLD_CHARS && lines.length <= TX_FOLD_LINES) {
    pre.textContent = text;
    return [pre];
  }
  const head = lines.slice(0, TX_FOLD_LINES).join("\n").slice(0, TX_FOLD_CHARS);
  pre.textContent = head + " …";
  pre.dataset.folded = "1";
  const more = document.createElement("button");
  more.type = "button";
  more.className = "tx-more";
  const label = "show all (" + text.length.toLocaleString("en") + " chars, " + lines.length + " lines)";
  more.textContent = label;
  more.addEventListener("click", () => {
    const open = pre.dataset.folded === "1";
    pre.textContent = open ? text : head + " …";
    pre.dataset.folded = open ? "0" : "1";
    more.textContent = open ? "fold" : label;
  });
  return [pre, more];
}

function txEntry(entry) {
  const box = document.createElement("div");
  const head = document.createElement("div");
  head.className = "tx-head";
  const title = document.createElement("b");
  head.append(title);
  box.append(head);
  box.style.marginLeft = (entry.d || 0) * 22 + "px";
  box.dataset.type = entry.t;
  const kind = entry.t === "final" ? "final" : entry.t;
  box.className = "tx-entry tx-" + kind;
  if (entry.t === "msg") {
    box.classList.add("role-" + entry.role);
    title.textContent = entry.role;
  } else if (entry.t === "answer" || entry.t === "final") {
    title.textContent = entry.t === "final" ? "final answer" : "model";
    if (entry.model) head.append(String(entry.model));
  } else if (entry.t === "tool") {
    title.textContent = "tool result · " + entry.name;
    const flag = document.createElement("span");
    flag.className = "tx-flag " + (entry.err ? "err" : "ok");
    flag.textContent = entry.err ? "error" : entry.err === false ? "ok" : "no error flag";
    head.append(flag);
    if (entry.err) box.classList.add("err");
  } else if (entry.t === "mark") {
    box.classList.add("kind-" + entry.kind);
    title.textContent = entry.text;
    if (entry.detail) head.append(entry.detail);
    return box;
  } else if (entry.t === "judge") {
    box.classList.add("verdict-" + entry.verdict);
    title.textContent = "judge: " + entry.verdict;
    if (entry.model) head.append(String(entry.model));
  } else if (entry.t === "error") {
    title.textContent = "model call failed";
  }
  const text = entry.t === "mark" ? "" : entry.text;
  if (text === null || text === undefined) {
    box.append(Object.assign(document.createElement("div"), { className: "tx-none", textContent: "(no text stored)" }));
  } else if (text !== "" || !(entry.calls && entry.calls.length)) {
    box.append(...txText(text === "" ? "(empty)" : text));
  }
  for (const call of entry.calls || []) {
    const line = document.createElement("div");
    line.className = "tx-call";
    const name = document.createElement("span");
    name.className = "tx-name";
    name.textContent = "→ " + call.name;
    line.append(name, " " + call.args);
    box.append(line);
  }
  return box;
}

// tx: {entries, why}; extra: entries appended (a judge's verdict).
function renderTranscript(tx, extra) {
  const box = document.createElement("div");
  box.className = "tx";
  const entries = (tx && tx.entries) || [];
  if (!entries.length) {
    const none = document.createElement("p");
    none.className = "tx-none";
    none.textContent = "No transcript: " + ((tx && tx.why) || "nothing recorded");
    box.append(none);
  }
  const fragment = document.createDocumentFragment();
  for (const entry of entries.concat(extra || [])) fragment.append(txEntry(entry));
  box.append(fragment);
  return box;
}

// The traces and transcripts of a report come gzipped in base64 and are decoded
// on first use, so a page of a thousand runs opens without reading them.
let TX_STORE = null;
function txStore(packed) {
  if (!TX_STORE) {
    const bytes = Uint8Array.from(atob(packed), c => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    TX_STORE = new Response(stream).text().then(JSON.parse);
  }
  return TX_STORE;
}

function txFinal(tx) {
  const entries = (tx && tx.entries) || [];
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i].t === "final") return entries[i].text;
  }
  return null;
}
