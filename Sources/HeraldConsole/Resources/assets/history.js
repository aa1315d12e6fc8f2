// History: the app's notifications, newest first, 25 a page; their counts come live over Server-Sent Events.
import { api, el, loadApps, time } from "/console/assets/console.js";

const $ = (id) => document.getElementById(id);
let app = null;
let stream = null;
const pages = [];  // the `before` cursor of each page shown; the first is null

function sum(object) { return Object.values(object ?? {}).reduce((total, count) => total + count, 0); }

/** The funnel targeted → accepted → delivered → displayed → opened, as bars scaled to the targeted devices. */
function funnel(report) {
  const stats = report.stats;
  const steps = [["targeted", stats.targeted], ["accepted", stats.accepted], ["delivered", stats.delivered],
    ["displayed", stats.displayed], ["opened", stats.opened]];
  const top = Math.max(1, stats.targeted);
  const drawing = svg("svg", { class: "funnel", viewBox: "0 0 100 29", preserveAspectRatio: "none", role: "img",
    "aria-label": steps.map(([name, count]) => `${name} ${count}`).join(", ") });
  steps.forEach(([name, count], index) => drawing.append(svg("rect", { class: `step ${name}`, x: 0, y: 6 * index,
    width: Math.round(100 * Math.min(count, top) / top), height: 5 })));
  return drawing;
}

function svg(tag, attributes) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

/** The reasons the provider gives up for, which a resend sends again. */
const gaveUpReasons = ["TooManyRequests", "InternalServerError", "ServiceUnavailable", "Shutdown", "Unknown", "ProviderError", "APNsUnreachable"];

/** Cancels what is left of a notification, after asking. */
async function cancel(report) {
  if (!window.confirm(`Cancel notification ${report.id}? What is not sent yet will never be.`)) return;
  const answer = await api("DELETE", `/v1/notifications/${encodeURIComponent(report.id)}?app=${encodeURIComponent(app.id)}`);
  $("live").textContent = answer.ok ? `Cancelled ${report.id}: ${answer.data.cancelled} deliveries will not be sent.` : answer.message;
}

/** Sends again what the provider gave up on. */
async function resend(report) {
  const answer = await api("POST", `/v1/notifications/${encodeURIComponent(report.id)}/resend?app=${encodeURIComponent(app.id)}`);
  $("live").textContent = answer.ok ? `Resent ${answer.data.resent} deliveries of ${report.id}.` : answer.message;
}

function row(report) {
  const stats = report.stats;
  const rejected = Object.entries(stats.rejected).map(([reason, count]) => `${reason} ${count}`).join(", ") || "0";
  const actions = Object.entries(stats.actions).map(([action, count]) => `${action || "open"} ${count}`).join(", ") || "0";
  // Content in several languages: its deliveries by language, as they were queued.
  const languages = report.languages
    ? el("div", { class: "languages" }, "Languages: " + Object.entries(report.languages)
      .sort(([a], [b]) => (a === "default") - (b === "default") || a.localeCompare(b))
      .map(([tag, count]) => `${tag} ${count}`).join(", "))
    : "";
  return el("tr", { "data-id": report.id },
    el("td", {}, time(report.createdAt)), el("td", {}, report.target, languages), el("td", {}, report.pushType),
    el("td", {}, report.state), el("td", {}, stats.targeted), el("td", {}, stats.queued), el("td", {}, stats.inFlight),
    el("td", {}, stats.accepted), el("td", {}, rejected), el("td", {}, stats.delivered), el("td", {}, stats.displayed),
    el("td", {}, stats.opened), el("td", {}, actions), el("td", {}, stats.replies),
    el("td", {}, funnel(report)),
    el("td", { class: "manage" }, el("button", { type: "button", "aria-label": `Why: ${report.id}`, onclick: () => showBreakdown(report) }, "Why"),
      report.state === "scheduled" || report.state === "sending"
        ? el("button", { type: "button", "aria-label": `Cancel: ${report.id}`, onclick: () => cancel(report) }, "Cancel") : "",
      Object.keys(stats.rejected).some((reason) => gaveUpReasons.includes(reason)) && report.state !== "cancelled"
        ? el("button", { type: "button", "aria-label": `Resend: ${report.id}`, onclick: () => resend(report) }, "Resend") : ""));
}

/** A notification's devices counted by verdict; each count lists its devices. */
async function showBreakdown(report) {
  const answer = await api("GET", `/v1/notifications/${encodeURIComponent(report.id)}/breakdown?app=${encodeURIComponent(app.id)}`);
  $("detail").hidden = false;
  $("detail-title").textContent = `Why: ${report.id}`;
  $("devices-title").hidden = true;
  $("deliveries").replaceChildren();
  if (!answer.ok) { $("breakdown").replaceChildren(el("li", { role: "alert" }, answer.message)); return; }
  const breakdown = answer.data;
  const items = breakdown.verdicts.map((entry) => el("li", {},
    el("span", { class: "count" }, String(entry.count)), " ", el("strong", {}, entry.verdict), ": ", entry.sentence,
    entry.reasons ? ` (${Object.entries(entry.reasons).map(([reason, count]) => `${reason} ${count}`).join(", ")})` : "", " ",
    el("button", { type: "button", onclick: () => showDevices(report, entry.verdict) }, `List ${entry.count} ${entry.verdict}`)));
  if (breakdown.note) items.push(el("li", { class: "note", role: "note" }, `Note: ${breakdown.note}`));
  if (breakdown.undecided) items.push(el("li", { class: "muted" }, `${breakdown.undecided} not decided yet (the queue, APNs or the device's report)`));
  $("breakdown").replaceChildren(...(items.length ? items : [el("li", {}, "No device was targeted.")]));
}

/** The devices of one verdict, each with its sentence and a link to its delivery log. */
async function showDevices(report, verdict) {
  const answer = await api("GET", `/v1/notifications/${encodeURIComponent(report.id)}/verdicts?app=${encodeURIComponent(app.id)}&verdict=${encodeURIComponent(verdict)}&limit=50`);
  $("devices-title").hidden = false;
  $("devices-title").textContent = `Devices: ${verdict}`;
  $("deliveries").replaceChildren(...(answer.ok ? answer.data.deliveries.map((delivery) => el("li", {},
    el("a", { href: `/console/delivery?apns-id=${encodeURIComponent(delivery.apnsID)}` }, delivery.channelID ? `channel ${delivery.channelID}` : `${delivery.token.slice(0, 16)}…`),
    ": ", delivery.verdict.sentence, delivery.verdict.next ? el("span", { class: "muted" }, ` Next: ${delivery.verdict.next}`) : ""))
    : [el("li", { role: "alert" }, answer.message)]));
}

function watch() {
  stream?.close();
  if (!app) { $("live").textContent = "No app yet: create one under Apps."; return; }
  const before = pages[pages.length - 1];
  const params = new URLSearchParams({ app: app.id, limit: "25" });
  if (before) params.set("before", before);
  stream = new EventSource(`/console/api/history/stream?${params}`);
  stream.onopen = () => { $("live").textContent = "Live: counts update as they change."; };
  // A stream the server refused (too many live views: a tab closed a moment ago still holds its place for a second
  // or two) is closed for good by the browser; it is opened again after a pause, as a lost one is by the browser.
  const opened = stream;
  stream.onerror = () => {
    $("live").textContent = "Reconnecting…";
    if (opened.readyState === EventSource.CLOSED) setTimeout(() => { if (stream === opened) watch(); }, 2000);
  };
  stream.addEventListener("problem", (event) => { $("live").textContent = event.data; });
  stream.onmessage = (event) => {
    const reports = JSON.parse(event.data);
    $("history").tBodies[0].replaceChildren(...(reports.length ? reports.map(row)
      : [el("tr", {}, el("td", { colspan: 16 }, "Nothing sent yet."))]));
    $("older").disabled = reports.length < 25;
    $("older").dataset.cursor = reports.length ? reports[reports.length - 1].createdAt : "";
    $("newer").disabled = pages.length <= 1;
    const wanted = new URLSearchParams(window.location.search).get("notification");
    const match = reports.find((report) => report.id === wanted);
    if (match && $("detail").hidden) showBreakdown(match);
  };
}

async function start() {
  const apps = await loadApps($("app"), (chosen) => { app = chosen; pages.length = 1; watch(); });
  app = apps.find((candidate) => candidate.id === $("app").value) ?? apps[0];
  pages.push(null);
  $("older").addEventListener("click", () => { pages.push($("older").dataset.cursor); watch(); });
  $("newer").addEventListener("click", () => { if (pages.length > 1) pages.pop(); watch(); });
  watch();
}

start();
