// citeloom's page: one more door over the HTTP API of `citeloom serve` (POST /answer, /query,
// /passage, /check, GET /projects, /file). Everything drawn from a document is put in as
// text (textContent, never innerHTML), so a paper's words cannot become markup or script.
"use strict";

const TOKEN_KEY = "citeloom-token";
let token = sessionStorage.getItem(TOKEN_KEY) || "";

function $(id) {
  return document.getElementById(id);
}

// An element with attributes and children; strings become text nodes, nulls are skipped.
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "onclick") node.addEventListener("click", value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

// ``node.append`` without the nulls and falses of optional parts (append would write "null").
function put(node, ...children) {
  node.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

function say(message) {
  $("status").textContent = message;
}

// The token from the URL's fragment (#token=...), taken out of the address bar at once: a
// fragment never reaches a server or a log, and is gone from the history entry too.
function tokenFromFragment() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (!fragment.has("token")) return false;
  token = fragment.get("token") || "";
  sessionStorage.setItem(TOKEN_KEY, token);
  fragment.delete("token");
  const rest = fragment.toString();
  history.replaceState(null, "", location.pathname + location.search + (rest ? "#" + rest : ""));
  return true;
}

function headers(json) {
  const out = json ? { "content-type": "application/json" } : {};
  if (token) out.authorization = "Bearer " + token;
  return out;
}

class ApiError extends Error {}

// Why the project list is empty: said in the list itself and on the status line.
function emptyProjects(why) {
  $("project").replaceChildren(el("option", { value: "", disabled: true, selected: true, text: why }));
}

function needToken(message) {
  const form = $("token-form");
  form.hidden = false;
  if (!$("project").value) emptyProjects("needs the server's token");
  $("token").focus();
  say(message);
}

// One call of the API: its JSON, or an ApiError with the server's own message.
async function api(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: headers(body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError("citeloom serve does not answer (stopped?): " + error.message);
  }
  let data = null;
  try {
    data = await response.json();
  } catch (error) {
    data = null;
  }
  if (response.status === 401) {
    needToken(
      token
        ? "The token was refused: enter the server's token to list the projects."
        : "This server needs its token (CITELOOM_SERVE_TOKEN): enter it below to list the projects.",
    );
    throw new ApiError((data && data.error) || "missing or wrong bearer token");
  }
  if (!response.ok) {
    throw new ApiError((data && data.error) || "HTTP " + response.status);
  }
  return data;
}

// ------------------------------------------------------------------ copying
function copyByHand(text) {
  const area = el("textarea", { "aria-hidden": "true", class: "offscreen" });
  area.value = text;
  document.body.append(area);
  area.select();
  let done = false;
  try {
    done = document.execCommand("copy");
  } catch (error) {
    done = false;
  }
  area.remove();
  return done;
}

// The clipboard API needs a secure context (loopback is one, http://other-host is not): the
// old copy command serves there. The copied text is kept on the page for scripts and tests.
async function copy(text, button) {
  let done = false;
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      done = true;
    } catch (error) {
      done = false;
    }
  }
  if (!done) done = copyByHand(text);
  document.body.dataset.copied = text;
  say(done ? "Copied " + text : "Could not copy; select the citation by hand: " + text);
  if (button) {
    const before = button.textContent;
    button.textContent = done ? "Copied" : "Copy failed";
    setTimeout(() => {
      button.textContent = before;
    }, 1500);
  }
}

function copyButton(label, text, what) {
  return el("button", {
    type: "button",
    class: "copy",
    "data-copy": text,
    "aria-label": what + " " + text,
    onclick: (event) => copy(text, event.currentTarget),
    text: label,
  });
}

// ------------------------------------------------------------------ the PDF at its page
function fileUrl(project, chunkId) {
  const query = new URLSearchParams({ project, chunk_id: chunkId });
  return "/file?" + query.toString();
}

function isPdf(source) {
  return /\.pdf$/i.test(source || "");
}

// A link to the stored file at PDF page `page` (the page index the browser's viewer counts,
// not the printed one). With a token the file is fetched with it and opened from memory: a
// link alone cannot carry the Authorization header.
function fileLink(project, chunkId, page, printed, source) {
  const pdf = source === undefined || isPdf(source);
  const fragment = pdf && page ? "#page=" + page : "";
  const href = fileUrl(project, chunkId) + fragment;
  let text = "Open file";
  if (pdf) text = printed ? "PDF at p. " + printed : page ? "PDF page " + page : "PDF";
  const link = el("a", {
    href,
    class: "file",
    target: "_blank",
    rel: "noopener",
    title: pdf && page ? "PDF page " + page + " in your browser's viewer" : null,
    text,
  });
  link.addEventListener("click", async (event) => {
    if (!token) return;
    event.preventDefault();
    const opened = window.open("", "_blank");
    try {
      const response = await fetch(fileUrl(project, chunkId), { headers: headers(false) });
      if (response.status === 401) {
        if (opened) opened.close();
        needToken("The token was refused: enter the server's token.");
        return;
      }
      if (!response.ok) {
        const data = await response.json().catch(() => null);
        throw new ApiError((data && data.error) || "HTTP " + response.status);
      }
      const blob = await response.blob();
      const file = URL.createObjectURL(blob);
      if (opened) opened.location.href = file + fragment;
      else location.href = file + fragment;
      setTimeout(() => URL.revokeObjectURL(file), 60000); // the viewer has read it by then
    } catch (error) {
      if (opened) opened.close();
      say(error.message);
    }
  });
  return link;
}

// Where a result opens: Zotero's own reader (with the researcher's highlights) when the
// paper was read from a Zotero data directory, else the stored file in the browser's viewer.
function openLink(project, chunkId, page, printed, source, zotero) {
  if (!zotero) return fileLink(project, chunkId, page, printed, source);
  return el("a", {
    href: zotero.open_pdf,
    class: "file zotero",
    title: "Zotero's reader at PDF page " + (page || 1),
    text: printed ? "In Zotero at p. " + printed : "In Zotero",
  });
}

// ------------------------------------------------------------------ what a result shows
function pages(start, end) {
  if (!start) return null;
  return end && end !== start ? "pp. " + start + "-" + end : "p. " + start;
}

// Who and when, the title, where: three parts that sit on one line where there is room and
// stack on a phone, the title cut to one line there (the whole title is its tooltip).
// Who and when from the fields the CLI and the TUI name them by, by their rule
// (entrypoints/result_text.py): "Ardel et al., 2023", "Ardel and Reyes, 2023".
function byline(item, where) {
  const names = (item.authors || []).map((a) => a.split(",")[0].trim()).filter(Boolean);
  const who = names.length > 2 ? names[0] + " et al." : names.join(" and ");
  const whoWhen = [who, item.year ? String(item.year) : null].filter(Boolean).join(", ");
  return el(
    "p",
    { class: "byline" },
    whoWhen ? el("span", { class: "who", text: whoWhen }) : null,
    item.title ? el("span", { class: "title", title: item.title, text: item.title }) : null,
    where ? el("span", { class: "where", text: where }) : null,
  );
}

// ------------------------------------------------------------------ what a score means
// One plain word for a set's confidence (0 to 1): from the project's floor the library seems
// to answer the question (the floor is tuned, docs/adr/0004), from 0.8 it clearly does.
const STRONG = 0.8;

function strength(confidence, floor) {
  if (confidence >= Math.max(STRONG, floor)) return "strong";
  if (confidence >= floor) return "fair";
  return "weak";
}

const MEANING = {
  strong: "the library clearly answers the question",
  fair: "the library seems to answer the question",
  weak: "the library does not seem to answer the question",
};

// The word, with what it means and the number behind it on hover. ``floor``: the project's
// (null for an answer, which is only given at or over its own floor).
function matchWord(confidence, floor) {
  const word = strength(confidence, floor === null ? 0 : floor);
  const from = floor === null ? "" : "; from " + floor.toFixed(2) + " (the project's floor) it seems to";
  return el("span", {
    class: "strength " + word,
    "data-strength": word,
    title: MEANING[word] + ": confidence " + confidence.toFixed(2) + " of 1" + from,
    text: word + " match",
  });
}

// A passage below the floor is a weaker match: not shown as an equal of the rest.
function isWeak(p, floor) {
  return typeof p.confidence === "number" && p.confidence < floor;
}

// Versions, supersession, retraction, errata, conflicts: the server's one-line banner.
function banner(item) {
  if (!item.banner) return null;
  const retracted = item.retracted ? " retracted" : "";
  return el("p", { class: "banner" + retracted, role: "note", text: item.banner });
}

function sectionLine(path) {
  return path && path.length ? el("p", { class: "section", text: "§ " + path.join(" › ") }) : null;
}

function readAround(project, chunkId, card) {
  const holder = el("div", { class: "context", tabindex: "-1", hidden: true });
  const button = el("button", {
    type: "button",
    class: "around",
    "aria-expanded": "false",
    text: "Read around",
  });
  button.addEventListener("click", async () => {
    if (button.getAttribute("aria-expanded") === "true") {
      holder.hidden = true;
      button.setAttribute("aria-expanded", "false");
      button.textContent = "Read around";
      return;
    }
    button.disabled = true;
    say("Reading around the passage…");
    try {
      const found = await api("POST", "/passage", { project, chunk_id: chunkId, context: 2 });
      holder.replaceChildren(
        ...found.before.map((p) => neighbour(project, p, "before")),
        neighbour(project, found.passage, "chosen"),
        ...found.after.map((p) => neighbour(project, p, "after")),
      );
      holder.hidden = false;
      button.setAttribute("aria-expanded", "true");
      button.textContent = "Hide neighbours";
      say(found.before.length + " passage(s) before, " + found.after.length + " after");
      holder.focus();
    } catch (error) {
      say(error.message);
    } finally {
      button.disabled = false;
    }
  });
  put(card, holder);
  return button;
}

function neighbour(project, p, where) {
  const place = { before: "Before", chosen: "This passage", after: "After" }[where];
  return el(
    "article",
    { class: "neighbour " + where, "data-chunk": p.chunk_id },
    el("p", { class: "meta" }, place + " · ", el("code", { text: p.label }), " ", copyButton("Copy", p.label, "Copy citation")),
    sectionLine(p.section_path),
    el("p", { class: "text", text: p.text }),
  );
}

function passageCard(project, p) {
  const card = el("li", { class: "card", "data-chunk": p.chunk_id });
  const where = [pages(p.page_label_start, p.page_label_end), p.page_start ? "PDF p. " + p.page_start : null]
    .filter(Boolean)
    .join(" · ");
  put(card, 
    el(
      "p",
      { class: "label" },
      el("code", { text: p.label }),
      " ",
      copyButton("Copy citation", p.label, "Copy citation"),
    ),
    byline(p, where),
    banner(p),
    p.kind === "note" ? el("p", { class: "banner", role: "note", text: "A note stored beside the paper, not the paper's words." }) : null,
    sectionLine(p.section_path),
    el("p", { class: "text", text: p.text }),
  );
  const actions = el("p", { class: "actions" }, readAround(project, p.chunk_id, card));
  if (p.kind !== "note") put(actions, " ", openLink(project, p.chunk_id, p.page_start, p.page_label_start, p.source, p.zotero));
  card.insertBefore(actions, card.querySelector(".context"));
  return card;
}

function quoteCard(project, c) {
  const card = el("li", { class: "card quote", "data-chunk": c.chunk_id });
  const quoted = "“" + c.quote + "” " + c.label;
  put(card, 
    el("blockquote", { text: c.quote }),
    el(
      "p",
      { class: "label" },
      el("code", { text: c.label }),
      " ",
      copyButton("Copy citation", c.label, "Copy citation"),
      " ",
      copyButton("Copy quote", quoted, "Copy quote with citation"),
    ),
    el("p", {
      class: c.verified ? "meta verified" : "meta",
      text: (c.verified ? "✓ verified on its page" : "not verified") + (c.page ? " · PDF p. " + c.page : ""),
    }),
    banner(c),
    sectionLine(c.section_path),
  );
  const actions = el("p", { class: "actions" }, readAround(project, c.chunk_id, card));
  if (c.kind !== "note") put(actions, " ", openLink(project, c.chunk_id, c.page, c.page_label, undefined, c.zotero));
  card.insertBefore(actions, card.querySelector(".context"));
  return card;
}

// ------------------------------------------------------------------ asking
function list(id) {
  return $(id)
    .value.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

function number(id) {
  const value = $(id).value.trim();
  return value === "" ? null : Number(value);
}

function filters() {
  const out = {};
  for (const key of ["tags", "collections", "citekeys"]) {
    const values = list(key);
    if (values.length) out[key] = values;
  }
  for (const key of ["year_from", "year_to"]) {
    const value = number(key);
    if (value !== null) out[key] = value;
  }
  const section = $("section").value.trim();
  if (section) out.section = section;
  return out;
}

function showError(id, message) {
  const box = $(id);
  box.textContent = message;
  box.hidden = !message;
}

async function ask(event) {
  event.preventDefault();
  const project = $("project").value;
  const question = $("question").value.trim();
  if (!question) {
    $("question").focus();
    return;
  }
  const within = filters();
  const topK = number("top_k");
  const query = { project, query: question, ...within };
  if (topK !== null) query.top_k = topK;
  const answerBody = { project, question };
  if (Object.keys(within).length) answerBody.within = within;
  showError("ask-error", "");
  $("ask-button").disabled = true;
  say("Asking " + project + "…");
  const answering = api("POST", "/answer", answerBody).then(showAnswer);
  const searching = api("POST", "/query", query).then((found) => showPassages(found));
  const results = await Promise.allSettled([answering, searching]);
  $("ask-button").disabled = false;
  const failed = results.find((r) => r.status === "rejected");
  if (failed) {
    showError("ask-error", failed.reason.message);
    say("");
  } else {
    say("Answered.");
  }
}

function showAnswer(answer) {
  const meta = [];
  if (answer.fallback) meta.push("No answer found in the library" + (answer.reason ? ": " + answer.reason : "."));
  else meta.push(answer.citations.length + " quote(s)");
  if (answer.absent && answer.absent.length) meta.push("Not in any document: " + answer.absent.join(", "));
  if (answer.note) meta.push(answer.note);
  const line = $("answer-meta");
  line.textContent = meta.join(" · ");
  // an answer is given only at or over the floor: its word says how clearly
  if (!answer.fallback) put(line, " · ", matchWord(answer.confidence, null));
  $("quotes").replaceChildren(...answer.citations.map((c) => quoteCard(answer.project, c)));
  $("answer").hidden = false;
}

function showPassages(found) {
  const floor = typeof found.min_confidence === "number" ? found.min_confidence : 0.5;
  // below the floor, a passage is a weaker match: folded away under the others, unless no
  // passage reaches the floor (then all of them are leads, and the line says so)
  const strong = found.answerable ? found.results.filter((p) => !isWeak(p, floor)) : found.results;
  const weaker = found.answerable ? found.results.filter((p) => isWeak(p, floor)) : [];
  const line = $("passages-meta");
  line.replaceChildren(strong.length + " passage(s)");
  if (found.results.length) put(line, " · ", matchWord(found.confidence, floor));
  if (!found.answerable && found.results.length) put(line, " · they may not answer the question: treat them as leads");
  if (found.note) put(line, " · " + found.note);
  const cards = strong.map((p) => passageCard(found.project, p));
  if (weaker.length) {
    const fold = el(
      "details",
      { class: "weaker" },
      el("summary", { text: weaker.length + " weaker match(es): they may not answer the question" }),
      el("ol", { class: "cards" }, ...weaker.map((p) => passageCard(found.project, p))),
    );
    for (const card of fold.querySelectorAll("li.card")) card.classList.add("weak");
    cards.push(el("li", { class: "fold" }, fold));
  }
  $("results").replaceChildren(...cards);
  $("passages").hidden = false;
}

// ------------------------------------------------------------------ checking a draft
function verdictCard(project, c) {
  const ok = c.verdict === "supported";
  const card = el("li", { class: "card verdict " + (ok ? "good" : "bad"), "data-verdict": c.verdict });
  put(card, 
    el(
      "p",
      { class: "label" },
      el("span", { class: "badge", text: c.verdict }),
      " ",
      el("code", { text: c.citation }),
      " ",
      el("span", { class: "meta", text: "line " + c.line + ", column " + c.column }),
    ),
    el("p", { class: "text", text: c.sentence }),
    c.message ? el("p", { class: "message", text: c.message }) : null,
    banner(c),
    ...c.notes.map((n) =>
      el("p", { class: "banner" + (n.severity === "warning" ? " retracted" : ""), role: "note", text: n.message }),
    ),
    ...c.differences.map((d) =>
      el("p", { class: "meta", text: d.kind + ": the draft says " + d.draft + (d.page ? ", the page says " + d.page : "") }),
    ),
  );
  const evidence = c.evidence;
  if (evidence) {
    put(card, 
      el(
        "div",
        { class: "evidence" },
        el("blockquote", { text: evidence.quote }),
        el(
          "p",
          { class: "label" },
          el("code", { text: evidence.label }),
          " ",
          copyButton("Copy citation", evidence.label, "Copy citation"),
          " ",
          openLink(project, evidence.chunk_id, evidence.page, evidence.page_label, undefined, evidence.zotero),
        ),
      ),
    );
  }
  return card;
}

async function check(event) {
  event.preventDefault();
  const draft = $("draft").value;
  if (!draft.trim()) {
    $("draft").focus();
    return;
  }
  const project = $("project").value;
  showError("check-error", "");
  $("check-button").disabled = true;
  say("Checking the draft against " + project + "…");
  try {
    const report = await api("POST", "/check", { project, draft, name: "draft" });
    const counts = Object.entries(report.counts)
      .filter(([, n]) => n)
      .map(([verdict, n]) => n + " " + verdict);
    $("check-meta").textContent =
      (report.citations.length ? counts.join(", ") : "No citation found in the draft") +
      (report.ok ? " · passes" : " · fails on " + report.fail_on.join(", "));
    $("checks").replaceChildren(...report.citations.map((c) => verdictCard(project, c)));
    $("verdicts").hidden = false;
    say("Checked " + report.citations.length + " citation(s).");
  } catch (error) {
    showError("check-error", error.message);
    say("");
  } finally {
    $("check-button").disabled = false;
  }
}

// ------------------------------------------------------------------ start
async function loadProjects() {
  const select = $("project");
  try {
    const { projects } = await api("GET", "/projects");
    const wanted = new URLSearchParams(location.search).get("project") || select.value;
    select.replaceChildren(
      ...projects.map((p) =>
        el("option", { value: p.project, text: p.project + " (" + p.documents + " documents)" }),
      ),
    );
    if (projects.some((p) => p.project === wanted)) select.value = wanted;
    if (!$("token-form").hidden) {
      $("token-form").hidden = true;
      $("question").focus(); // the token taken, back to the question
    }
    if (!projects.length) emptyProjects("no project configured");
    say(projects.length ? "" : "No project is configured: add one to citeloom.toml (citeloom init writes one).");
    document.body.dataset.ready = "true";
  } catch (error) {
    if (!$("token-form").hidden) return;
    emptyProjects("the server did not answer");
    say(error.message);
  }
}

function start() {
  tokenFromFragment();
  $("ask-form").addEventListener("submit", ask);
  $("check-form").addEventListener("submit", check);
  $("draft").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) $("check-form").requestSubmit();
  });
  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    token = $("token").value.trim();
    $("token").value = "";
    sessionStorage.setItem(TOKEN_KEY, token);
    loadProjects();
  });
  // a link with #token= followed in a tab already showing the page does not reload it
  window.addEventListener("hashchange", () => {
    if (tokenFromFragment()) loadProjects();
  });
  loadProjects();
  $("question").focus();
}

document.addEventListener("DOMContentLoaded", start);
