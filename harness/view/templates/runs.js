// Opening a run (shared by the report and compare pages): its trace in a frame
// built from the embedded trace page, or its transcript, in one modal.
// JSON placed in a <script> must not contain "<", ">", "&" or U+2028/9 raw.
function scriptJson(value) {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g,
    c => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

function htmlText(text) {
  return text.replace(/[&<>"]/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

// The run's transcript (from its replay trace or its cassette) goes with its trace.
function runTranscript(store, run) {
  const link = run && run.transcript;
  if (link && link.index !== undefined) return store.transcripts[link.index];
  return { entries: [], why: (link && link.missing) || "none recorded for this run" };
}

function judgeEntries(run) {
  if (!run || !run.judge) return [];
  return [{ t: "judge", d: 0, verdict: run.judge.verdict, text: run.judge.reason, model: run.judge.model }];
}

function showViewer(label, path) {
  document.getElementById("viewer-title").textContent = label;
  document.getElementById("viewer-path").textContent = path;
  document.getElementById("viewer").hidden = false;
}

async function openTrace(index, label, run) {
  const store = await txStore(DATA.packed);
  const trace = { ...store.traces[index], tx: runTranscript(store, run) };
  // The slot names come in the data (written here, they would be filled too);
  // function replacers, so that a "$&" in the data is not read as a pattern.
  const page = DATA.trace_page
    .replace(DATA.trace_slots.title, () => htmlText("harness trace " + trace.id.slice(0, 8)))
    .replace(DATA.trace_slots.data, () => scriptJson({ traces: [trace] }));
  document.getElementById("viewer-tx").hidden = true;
  const frame = document.getElementById("viewer-frame");
  frame.hidden = false;
  frame.srcdoc = page;
  showViewer(label, trace.source);
  document.body.dataset.openTrace = trace.id;
}

async function openTranscript(run, label) {
  const store = await txStore(DATA.packed);
  const started = performance.now();
  const pane = document.getElementById("viewer-tx");
  pane.replaceChildren(renderTranscript(runTranscript(store, run), judgeEntries(run)));
  document.getElementById("viewer-frame").hidden = true;
  pane.hidden = false;
  const shown = runTranscript(store, run);
  const changed = run.transcript.changed;
  showViewer(label, (shown.from || "") + (changed ? " — " + changed : ""));
  document.body.dataset.openTranscript = run.nodeid;
  document.body.dataset.transcriptMs = (performance.now() - started).toFixed(1);
}

// Two runs' transcripts side by side (the compare page's old and new).
async function openTranscriptPair(sides, label) {
  const store = await txStore(DATA.packed);
  const cols = document.createElement("div");
  cols.className = "tx-cols";
  for (const [title, run] of sides) {
    const col = document.createElement("div");
    col.dataset.side = title;
    const head = document.createElement("h4");
    head.textContent = title + (run ? " · " + run.verdict + (run.epoch ? " · epoch " + run.epoch : "") : "");
    col.append(head, run ? renderTranscript(runTranscript(store, run), judgeEntries(run))
                         : renderTranscript({ entries: [], why: "not run in this report" }, []));
    cols.append(col);
  }
  const pane = document.getElementById("viewer-tx");
  pane.replaceChildren(cols);
  document.getElementById("viewer-frame").hidden = true;
  pane.hidden = false;
  showViewer(label, "");
  document.body.dataset.openTranscript = "pair";
}

// A run's buttons: its transcript, then each of its traces (or why there is none).
function runLinks(run, caption, runName) {
  const made = [];
  const node = (tag, className, text) => {
    const found = document.createElement(tag);
    found.className = className;
    found.textContent = text;
    if (tag === "button") found.type = "button";
    made.push(found);
    return found;
  };
  if (run.transcript.index !== undefined) {
    const button = node("button", "tx-link", runName + "transcript");
    button.dataset.transcript = run.transcript.index;
    button.addEventListener("click", () => openTranscript(run, caption + " · " + runName + "transcript"));
    // The file is the run's own, but not the bytes it replayed (re-recorded since).
    if (run.transcript.changed) node("span", "tx-changed", "recording changed since the run").title = run.transcript.changed;
  } else {
    node("span", "trace-missing", runName + "no transcript").title = run.transcript.missing;
  }
  run.traces.forEach((link, position) => {
    const name = runName + "trace" + (run.traces.length > 1 ? " " + (position + 1) : "");
    if (link.index === undefined) {
      node("span", "trace-missing", name + ": missing").title = link.missing + "\n" + link.path;
      return;
    }
    const button = node("button", "trace-link", name);
    button.dataset.trace = link.index;
    button.title = link.path;
    button.addEventListener("click", () => openTrace(link.index, caption + " · " + name, run));
  });
  return made;
}

function closeTrace() {
  document.getElementById("viewer").hidden = true;
  document.getElementById("viewer-frame").removeAttribute("srcdoc");
  document.getElementById("viewer-tx").replaceChildren();
  delete document.body.dataset.openTrace;
  delete document.body.dataset.openTranscript;
}

document.getElementById("viewer-close").addEventListener("click", closeTrace);
document.addEventListener("keydown", event => { if (event.key === "Escape") closeTrace(); });
