// Compose: the fields and the raw JSON kept in sync, live lint as you type, send through the provider, exports.
import { api, el, say, loadApps } from "/console/assets/console.js";
import { languagesBody, languagesDraft, lintLanguages, restoreLanguages, setUpLanguages } from "/console/assets/compose-languages.js";

const $ = (id) => document.getElementById(id);
const form = $("compose");
let apps = [];
let app = null;
let simulators = [];
let syncing = false;
let lintTimer = null;
let sendFiles = { command: "herald", keyFiles: {}, caFiles: {} };

const fieldIDs = ["title", "subtitle", "body", "badge", "sound", "category", "thread-id", "mutable-content",
  "content-available", "interruption-level", "relevance-score", "media-url", "custom-data"];

/** The payload the fields describe. */
function payloadFromFields() {
  const aps = {};
  const alert = {};
  for (const key of ["title", "subtitle", "body"]) if ($(key).value) alert[key] = $(key).value;
  if (Object.keys(alert).length) aps.alert = alert;
  if ($("badge").value !== "") aps.badge = /^-?\d+$/.test($("badge").value) ? Number($("badge").value) : $("badge").value;
  if ($("sound").value) aps.sound = $("sound").value;
  if ($("category").value) aps.category = $("category").value;
  if ($("thread-id").value) aps["thread-id"] = $("thread-id").value;
  if ($("mutable-content").checked || $("media-url").value) aps["mutable-content"] = 1;
  if ($("content-available").checked) aps["content-available"] = 1;
  if ($("interruption-level").value) aps["interruption-level"] = $("interruption-level").value;
  if ($("relevance-score").value !== "") {
    const score = Number($("relevance-score").value);
    aps["relevance-score"] = Number.isNaN(score) ? $("relevance-score").value : score;
  }
  const payload = { aps };
  if ($("media-url").value) payload["media-url"] = $("media-url").value;
  const custom = $("custom-data").value.trim();
  say($("custom-data-findings"), "");
  if (custom) {
    try {
      const data = JSON.parse(custom);
      if (data && typeof data === "object" && !Array.isArray(data)) Object.assign(payload, data);
      else say($("custom-data-findings"), "custom data must be a JSON object, such as {\"orderID\": 17}");
    } catch (error) {
      say($("custom-data-findings"), `custom data is not JSON: ${error.message}`);
    }
  }
  return payload;
}

/** Fills the fields from a payload typed in the JSON editor. */
function fieldsFromPayload(payload) {
  const aps = payload.aps ?? {};
  const alert = typeof aps.alert === "string" ? { body: aps.alert } : (aps.alert ?? {});
  $("title").value = alert.title ?? "";
  $("subtitle").value = alert.subtitle ?? "";
  $("body").value = alert.body ?? "";
  $("badge").value = aps.badge ?? "";
  $("sound").value = typeof aps.sound === "string" ? aps.sound : "";
  ensureOption($("category"), aps.category ?? "");
  $("thread-id").value = aps["thread-id"] ?? "";
  $("mutable-content").checked = aps["mutable-content"] === 1;
  $("content-available").checked = aps["content-available"] === 1;
  $("interruption-level").value = aps["interruption-level"] ?? "";
  $("relevance-score").value = aps["relevance-score"] ?? "";
  $("media-url").value = payload["media-url"] ?? "";
  const custom = Object.fromEntries(Object.entries(payload).filter(([key]) => key !== "aps" && key !== "media-url"));
  $("custom-data").value = Object.keys(custom).length ? JSON.stringify(custom) : "";
}

function ensureOption(select, value) {
  if (value && ![...select.options].some((option) => option.value === value)) {
    select.append(el("option", { value }, `${value} (not a category of this app)`));
  }
  select.value = value;
}

function fieldsChanged() {
  if (syncing) return;
  syncing = true;
  $("payload").value = JSON.stringify(payloadFromFields(), null, 2);
  syncing = false;
  scheduleLint();
}

function payloadChanged() {
  if (syncing) return;
  say($("payload-findings"), "");
  try {
    const payload = JSON.parse($("payload").value);
    syncing = true;
    fieldsFromPayload(payload);
    syncing = false;
  } catch (error) {
    // The linter says what is wrong with the JSON; the fields keep their last good values.
  }
  scheduleLint();
}

/** The payload text as it will be sent: compact when it parses, else exactly as typed. */
function payloadText() {
  try { return JSON.stringify(JSON.parse($("payload").value)); } catch { return $("payload").value; }
}

function scheduleLint() {
  clearTimeout(lintTimer);
  lintTimer = setTimeout(lint, 120);
}

/** Where a finding belongs on the page. */
function fieldFor(location) {
  const map = {
    "apns-priority": "priority", "apns-expiration": "expiration", "apns-collapse-id": "collapse-id",
    "apns-id": "apns-id", "aps.alert.title": "title", "aps.alert.body": "body", "aps.badge": "badge",
    "aps.sound": "sound", "aps.category": "category",
  };
  return map[location] ?? "payload";
}

/** Lints `payload` (text) with the headers of the page. */
function lintRequest(payload) {
  return api("POST", "/console/api/lint", {
    payload, pushType: $("push-type").value, priority: $("priority").value,
    topic: app ? topicFor(app.bundleID, $("push-type").value) : "", expiration: $("expiration").value,
    collapseID: $("collapse-id").value, apnsID: $("apns-id").value,
  });
}

async function lint() {
  const answer = await lintRequest(payloadText());
  await lintLanguages(payloadText(), lintRequest);
  for (const node of document.querySelectorAll(".findings")) node.replaceChildren();
  if (!answer.ok) { say($("lint"), answer.message); return; }
  const report = answer.data;
  $("size").textContent = `${report.size} of ${report.maximumSize} bytes (push type ${report.pushType}${report.pushTypeInferred ? ", inferred" : ""})`;
  $("size").classList.toggle("over", report.size > report.maximumSize);
  const items = report.findings.map((finding) => {
    const text = `${finding.severity}: ${finding.location ? finding.location + ": " : ""}${finding.message}${finding.reason ? ` [${finding.status} ${finding.reason}]` : ""}`;
    const target = $(`${fieldFor(finding.location)}-findings`);
    target?.append(el("p", { class: finding.severity }, text));
    return el("li", { class: finding.severity }, text);
  });
  $("lint").replaceChildren(items.length
    ? el("ul", { "aria-label": "Lint findings" }, items)
    : el("p", { class: "ok" }, "No problems: APNs would accept this and iOS would show it as meant."));
}

function topicFor(bundleID, pushType) {
  const suffix = { voip: ".voip", complication: ".complication", fileprovider: ".pushkit.fileprovider",
    liveactivity: ".push-type.liveactivity", pushtotalk: ".voip-ptt" }[pushType];
  return suffix ? bundleID + suffix : bundleID;
}

/** The `target` object of the provider's API. */
function target() {
  const kind = $("target-kind").value;
  switch (kind) {
    case "device": return { token: $("target-device").value };
    case "token": return { token: $("target-token").value.trim() };
    case "tokens": return { tokens: $("target-tokens").value.split(/\s+/).filter(Boolean) };
    case "user": return { user: $("target-user").value.trim() };
    case "tags": return { tags: $("target-tags").value };
    default: return { all: true };
  }
}

function showTarget() {
  for (const node of document.querySelectorAll("[data-target]")) node.hidden = node.dataset.target !== $("target-kind").value;
}

/** The request body of POST /v1/notifications. */
function notificationBody() {
  let payload;
  try { payload = JSON.parse($("payload").value); } catch { payload = $("payload").value; }
  const body = { target: target(), payload, pushType: $("push-type").value };
  const priority = $("priority").value.trim();
  if (priority) body.priority = /^\d+$/.test(priority) ? Number(priority) : priority;
  const expiration = $("expiration").value.trim();
  if (expiration) body.expiration = /^\d+$/.test(expiration) ? Number(expiration) : expiration;
  if ($("collapse-id").value) body.collapseID = $("collapse-id").value;
  const languages = languagesBody();
  if (languages) body.languages = languages;
  return body;
}

async function send(event) {
  event.preventDefault();
  if (!app) { say($("result"), "Create an app first (Apps)."); return; }
  $("send").disabled = true;
  const answer = await api("POST", `/v1/notifications?app=${encodeURIComponent(app.id)}`, notificationBody());
  $("send").disabled = false;
  if (!answer.ok) { say($("result"), `Not sent. ${answer.message}`); return; }
  sessionStorage.removeItem(draftKey);
  const report = answer.data;
  const links = [el("a", { href: `/console/history?notification=${encodeURIComponent(report.id)}` }, "Open in History")];
  const deliveries = await api("GET", `/v1/notifications/${encodeURIComponent(report.id)}/deliveries?app=${encodeURIComponent(app.id)}&limit=1`);
  if (deliveries.ok && deliveries.data.length) {
    links.push(" · ", el("a", { href: `/console/delivery?apns-id=${encodeURIComponent(deliveries.data[0].apnsID)}` }, "Open its delivery log"));
  }
  $("result").replaceChildren(el("div", { role: "status", class: "ok" },
    el("p", {}, `Sent: notification ${report.id} to ${report.target}, ${report.stats.targeted} ${report.stats.targeted === 1 ? "delivery" : "deliveries"}.`),
    el("p", {}, links)));
}

function shellQuote(text) { return `'${String(text).replaceAll("'", "'\\''")}'`; }

function exportText(text) {
  $("export").value = text;
  navigator.clipboard?.writeText(text).catch(() => {});
}

function copyCurl() {
  if (!app) return;
  const origin = window.location.origin;
  const provider = [
    "# through the provider (its API key or the admin token in $HERALD_KEY)",
    `curl -X POST ${shellQuote(`${origin}/v1/notifications?app=${app.id}`)} \\`,
    `  -H "Authorization: Bearer $HERALD_KEY" -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuote(JSON.stringify(notificationBody()))}`,
  ];
  const host = app.endpoint.startsWith("https://") ? app.endpoint
    : (app.environment === "production" ? "https://api.push.apple.com" : "https://api.sandbox.push.apple.com");
  const token = target().token ?? "<device token>";
  const headers = [`-H 'apns-topic: ${topicFor(app.bundleID, $("push-type").value)}'`, `-H 'apns-push-type: ${$("push-type").value}'`];
  if ($("priority").value) headers.push(`-H ${shellQuote(`apns-priority: ${$("priority").value}`)}`);
  if ($("expiration").value) headers.push(`-H ${shellQuote(`apns-expiration: ${$("expiration").value}`)}`);
  if ($("collapse-id").value) headers.push(`-H ${shellQuote(`apns-collapse-id: ${$("collapse-id").value}`)}`);
  if ($("apns-id").value) headers.push(`-H ${shellQuote(`apns-id: ${$("apns-id").value}`)}`);
  const direct = [
    "# straight to APNs (a provider token signed with the app's .p8 in $JWT)",
    `curl --http2 -X POST ${shellQuote(`${host}/3/device/${token}`)} \\`,
    `  -H "authorization: bearer $JWT" ${headers.join(" ")} \\`,
    `  -d ${shellQuote(payloadText())}`,
  ];
  exportText(provider.join("\n") + "\n\n" + direct.join("\n"));
}

function copyHerald() {
  if (!app) return;
  const notes = [];
  const parts = [shellQuote(sendFiles.command) + " send", `--url ${shellQuote(app.endpoint)}`];
  const caFile = sendFiles.caFiles[app.endpoint];
  if (caFile) parts.push(`--ca-file ${shellQuote(caFile)}`);
  else if (app.hasCustomCA) notes.push("# the app trusts its own CA for this endpoint: add --ca-file with that CA's PEM file");
  parts.push(`--topic ${shellQuote(topicFor(app.bundleID, $("push-type").value))}`,
    `--token ${shellQuote(target().token ?? "<device token>")}`, `--push-type ${$("push-type").value}`);
  if (app.authentication.kind === "token") {
    const { teamID, keyID } = app.authentication;
    const keyFile = sendFiles.keyFiles[keyID];
    if (!keyFile) notes.push(`# put the path of the app's key file (AuthKey_${keyID}.p8) after --auth-key ${teamID}:${keyID}:`);
    parts.push(`--auth-key ${shellQuote(`${teamID}:${keyID}:${keyFile ?? `AuthKey_${keyID}.p8`}`)}`);
  } else {
    notes.push("# the app signs in with a certificate: add --cert FILE (and --cert-key KEY when the key is apart)");
  }
  if ($("priority").value) parts.push(`--priority ${shellQuote($("priority").value)}`);
  if ($("expiration").value) parts.push(`--expiration ${shellQuote($("expiration").value)}`);
  if ($("collapse-id").value) parts.push(`--collapse-id ${shellQuote($("collapse-id").value)}`);
  if ($("apns-id").value) parts.push(`--apns-id ${shellQuote($("apns-id").value)}`);
  parts.push("--payload -");
  exportText(notes.map((note) => note + "\n").join("") + `echo ${shellQuote(payloadText())} | \\\n  ${parts.join(" \\\n  ")}`);
}

function downloadAPNS() {
  let payload;
  try { payload = JSON.parse($("payload").value); } catch { say($("result"), "The payload is not JSON; fix it before downloading."); return; }
  const file = { "Simulator Target Bundle": app?.bundleID, ...payload };
  const url = URL.createObjectURL(new Blob([JSON.stringify(file, null, 2)], { type: "application/json" }));
  const link = el("a", { href: url, download: "notification.apns" });
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}

async function chooseApp(chosen) {
  app = chosen ?? null;
  $("environment").value = app ? app.environment : "";
  const categories = app ? await api("GET", `/v1/apps/${encodeURIComponent(app.id)}/categories`) : { ok: false };
  const config = categories.ok ? (categories.data.NotificationConfig ?? categories.data) : {};
  const names = Object.keys(config.UNNotificationCategory ?? {});
  const current = $("category").value;
  $("category").replaceChildren(el("option", { value: "" }, "(none)"), ...names.map((name) => el("option", { value: name }, name)));
  ensureOption($("category"), current);
  const tokens = [];
  for (const simulator of simulators) {
    for (const installed of simulator.apps ?? []) {
      if (app && installed.bundleID === app.bundleID && installed.token) {
        tokens.push(el("option", { value: installed.token }, `Device ${simulator.index + 1}: ${installed.bundleID} (${installed.token.slice(0, 12)}…)`));
      }
    }
  }
  $("target-device").replaceChildren(...tokens);
  if (!tokens.length && $("target-kind").value === "device") { $("target-kind").value = "all"; showTarget(); }
  scheduleLint();
}

const draftKey = "herald.compose.draft";
const draftFields = [...fieldIDs, "payload", "priority", "expiration", "collapse-id", "push-type", "target-kind", "target-token",
  "target-tokens", "target-user", "target-tags"];

/** Keeps what is being composed when the session ends, to put back after the new sign-in. */
function saveDraft() {
  const draft = { app: $("app").value };
  for (const id of draftFields) draft[id] = $(id).value;
  draft.languages = languagesDraft();
  sessionStorage.setItem(draftKey, JSON.stringify(draft));
}

function restoreDraft() {
  const text = sessionStorage.getItem(draftKey);
  if (!text) return false;
  sessionStorage.removeItem(draftKey);
  let draft;
  try { draft = JSON.parse(text); } catch { return false; }
  for (const id of draftFields) if (typeof draft[id] === "string") $(id).value = draft[id];
  restoreLanguages(draft.languages);
  showTarget();
  payloadChanged();
  say($("result"), "Your session had ended; what you were composing is back.");
  return true;
}

async function start() {
  window.addEventListener("herald:session-ended", saveDraft);
  // The example text, unless something was typed while the page was still loading.
  if (!$("title").value) $("title").value = "Hello";
  if (!$("body").value) $("body").value = "It is a beautiful day";
  const files = await api("GET", "/console/api/send-files");
  if (files.ok) sendFiles = files.data;
  const simulatorAnswer = await api("GET", "/console/api/simulators");
  simulators = simulatorAnswer.ok ? simulatorAnswer.data : [];
  apps = await loadApps($("app"), chooseApp);
  for (const id of fieldIDs) $(id).addEventListener("input", fieldsChanged);
  for (const id of ["priority", "expiration", "collapse-id", "apns-id", "push-type"]) $(id).addEventListener("input", scheduleLint);
  $("payload").addEventListener("input", payloadChanged);
  setUpLanguages(scheduleLint);
  $("target-kind").addEventListener("change", showTarget);
  form.addEventListener("submit", send);
  $("copy-curl").addEventListener("click", copyCurl);
  $("copy-herald").addEventListener("click", copyHerald);
  $("download-apns").addEventListener("click", downloadAPNS);
  showTarget();
  const draft = JSON.parse(sessionStorage.getItem(draftKey) ?? "{}");
  if (draft.app && apps.some((candidate) => candidate.id === draft.app)) $("app").value = draft.app;
  await chooseApp(apps.find((candidate) => candidate.id === $("app").value) ?? apps[0]);
  if (!restoreDraft()) fieldsChanged();
}

start();
