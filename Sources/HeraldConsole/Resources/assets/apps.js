// Apps: the apps and their public settings, new apps with a .p8 or .p12 upload, API keys, categories, and the webhook
// events not delivered (waiting for their next attempt, or dead after the last).
import { api, el, say, loadApps, time } from "/console/assets/console.js";

const $ = (id) => document.getElementById(id);
let apps = [];
let app = null;

function card(item) {
  return el("li", { class: "card" }, el("h3", {}, item.name),
    el("p", {}, `${item.bundleID} · ${item.environment} · ${item.endpoint}`),
    el("p", {}, item.authentication.kind === "token"
      ? `Token authentication: team ${item.authentication.teamID}, key ${item.authentication.keyID}`
        + (item.authentication.fingerprint ? ` (${item.authentication.fingerprint})` : "")
      : "Certificate authentication"),
    el("p", {}, `Publishable key (ships in the app): ${item.publishableKey}`),
    el("p", {}, `Webhook: ${item.webhookURL ?? "none"} · rate limit: ${item.rateLimit || "none"}`),
    el("p", {}, `Quiet hours: ${item.quietHours ? `${item.quietHours.start}–${item.quietHours.end} (${item.quietHours.action})` : "none"}`
      + ` · frequency caps: ${(item.frequencyCaps ?? []).map((cap) => `${cap.category} ${cap.limit} per ${cap.window} s per ${cap.per}`).join(", ") || "none"}`),
    item.pausedAt ? el("p", { class: "paused" }, `Paused since ${time(item.pausedAt)}: its notifications wait in the queue.`) : "",
    el("button", { type: "button", onclick: () => pauseOrResume(item) }, item.pausedAt ? `Resume ${item.name}` : `Pause ${item.name}`),
    " ", el("button", { type: "button", class: "destructive", onclick: () => deleteApp(item) }, `Delete ${item.name}`));
}

/** Deletes an app with its devices, notifications and history, after asking (the admin token only). */
async function deleteApp(item) {
  if (!window.confirm(`Delete ${item.name} (${item.bundleID}) with its devices, notifications and history? It cannot be undone.`)) return;
  const answer = await api("DELETE", `/v1/apps/${encodeURIComponent(item.id)}`);
  if (!answer.ok) { say($("app-result"), answer.message); return; }
  say($("app-result"), `Deleted ${item.name}: ${answer.data.devices} devices, ${answer.data.notifications} notifications, ${answer.data.deliveries} deliveries.`, "status");
  await refresh();
}

/** Pauses a sending app, or resumes a paused one. */
async function pauseOrResume(item) {
  const verb = item.pausedAt ? "resume" : "pause";
  const answer = await api("POST", `/v1/apps/${encodeURIComponent(item.id)}/${verb}`);
  if (!answer.ok) { say($("app-result"), answer.message); return; }
  const count = answer.data.deliveries;
  say($("app-result"), item.pausedAt ? `Resumed ${item.name}: ${count} deliveries are due now.`
    : `Paused ${item.name}: ${count} queued deliveries wait until it is resumed.`, "status");
  await refresh();
}

async function refresh() {
  const answer = await api("GET", "/v1/apps");
  apps = answer.ok ? answer.data : [];
  $("apps").replaceChildren(...apps.map(card));
}

async function choose(chosen) {
  app = chosen ?? null;
  if (!app) return;
  $("edit-webhook").value = app.webhookURL ?? "";
  $("edit-rate").value = app.rateLimit;
  $("edit-quiet").value = app.quietHours ? `${app.quietHours.start}-${app.quietHours.end}` : "";
  $("edit-quiet-action").value = app.quietHours?.action ?? "wait";
  $("edit-caps").value = app.frequencyCaps ? JSON.stringify(app.frequencyCaps) : "";
  $("edit-environment").value = app.environment;
  $("edit-team").value = app.authentication.teamID ?? "";
  $("edit-key-id").value = app.authentication.keyID ?? "";
  const categories = await api("GET", `/v1/apps/${encodeURIComponent(app.id)}/categories`);
  $("categories").value = categories.ok ? JSON.stringify(categories.data, null, 2) : "";
  preview();
  await Promise.all([showWebhooks(), showKeys(), showAudit()]);
}

/** The buttons each category shows, from the JSON being edited. */
function preview() {
  let config;
  try { config = JSON.parse($("categories").value || "{}"); } catch (error) { say($("categories-preview"), `Not JSON: ${error.message}`); return; }
  config = config.NotificationConfig ?? config;
  const actions = config.UNNotificationAction ?? {};
  const categories = Object.entries(config.UNNotificationCategory ?? {});
  $("categories-preview").replaceChildren(...categories.map(([name, category]) => el("div", { class: "preview" },
    el("p", { class: "title" }, name),
    (category.actions ?? []).map((id) => {
      const action = actions[id];
      if (!action) return el("p", { role: "alert", class: "error" }, `${id} is not defined under UNNotificationAction`);
      return action.textInputButtonTitle
        ? el("span", { class: "pill" }, `${action.title} ✎ ${action.textInputPlaceholder ?? ""} [${action.textInputButtonTitle}]`)
        : el("span", { class: "pill" }, action.title);
    }))));
}

function readFile(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    if (file.name.endsWith(".p12")) reader.readAsDataURL(file); else reader.readAsText(file);
  });
}

/** The `authentication` object for an uploaded key or certificate, or a message saying what is missing. */
async function credentials(file, teamID, keyID, password) {
  if (file.size > 64 * 1024) return { problem: `${file.name} is ${file.size} bytes; a key or certificate file is at most 64 KB.` };
  const contents = await readFile(file);
  return file.name.endsWith(".p12")
    ? { authentication: { kind: "certificate", pkcs12: String(contents).split(",")[1], password: password || undefined } }
    : { authentication: { kind: "token", teamID, keyID, privateKey: contents } };
}

async function createApp(event) {
  event.preventDefault();
  const file = $("new-key-file").files[0];
  if (!file) { say($("new-result"), "Choose the app's .p8 signing key or .p12 certificate."); return; }
  const made = await credentials(file, $("new-team").value, $("new-key-id").value, $("new-password").value);
  if (made.problem) { say($("new-result"), made.problem); return; }
  const body = { name: $("new-name").value, bundleID: $("new-bundle").value, environment: $("new-environment").value,
    authentication: made.authentication };
  if ($("new-endpoint").value) body.endpoint = $("new-endpoint").value;
  const answer = await api("POST", "/v1/apps", body);
  if (!answer.ok) { say($("new-result"), answer.message); return; }
  $("new-key-file").value = "";
  $("new-result").replaceChildren(el("div", { role: "status", class: "ok" },
    el("p", {}, `Created ${answer.data.app.name}. Its API key, shown this once:`),
    el("p", { class: "mono" }, answer.data.apiKey)));
  await refresh();
}

async function saveApp(event) {
  event.preventDefault();
  if (!app) return;
  const body = { webhookURL: $("edit-webhook").value, rateLimit: Number($("edit-rate").value || 0) };
  if ($("edit-environment").value !== app.environment) body.environment = $("edit-environment").value;
  const quiet = $("edit-quiet").value.trim();
  const [start, end] = quiet.split("-").map((part) => part.trim());
  body.quietHours = quiet ? { start: start ?? "", end: end ?? "", action: $("edit-quiet-action").value } : "";
  const caps = $("edit-caps").value.trim();
  try { body.frequencyCaps = caps ? JSON.parse(caps) : []; } catch (error) {
    say($("app-result"), `The frequency caps are not JSON: ${error.message}`);
    return;
  }
  const file = $("edit-key-file").files[0];
  if (file) {
    const made = await credentials(file, $("edit-team").value, $("edit-key-id").value, $("edit-password").value);
    if (made.problem) { say($("app-result"), made.problem); return; }
    body.authentication = made.authentication;
  }
  const answer = await api("PATCH", `/v1/apps/${encodeURIComponent(app.id)}`, body);
  if (!answer.ok) { say($("app-result"), answer.message); return; }
  $("edit-key-file").value = "";
  $("edit-password").value = "";
  const auth = answer.data.authentication;
  say($("app-result"), file && auth.fingerprint ? `Saved. The new key is ${auth.fingerprint}; it is not shown again.` : "Saved.", "status");
  await refresh();
  app = apps.find((item) => item.id === app.id) ?? app;
}

/** The app's API keys: each one's ID, scopes and age (never the key). A restricted key's session cannot list them. */
async function showKeys() {
  if (!app) return;
  const answer = await api("GET", `/v1/apps/${encodeURIComponent(app.id)}/keys`);
  if (!answer.ok) { $("api-keys").replaceChildren(el("li", {}, answer.message)); return; }
  $("api-keys").replaceChildren(...answer.data.map((key) => el("li", { class: "card" },
    el("p", { class: "mono" }, key.id),
    el("p", {}, `${key.restricted ? `only: ${key.scopes.join(", ")}` : "every scope"} · made ${time(key.createdAt)}`))));
}

async function createKey() {
  if (!app) return;
  const scopes = [...document.querySelectorAll("input[name=scope]:checked")].map((box) => box.value);
  const answer = await api("POST", `/v1/apps/${encodeURIComponent(app.id)}/keys`, scopes.length ? { scopes } : undefined);
  if (!answer.ok) { say($("app-result"), answer.message); return; }
  $("app-result").replaceChildren(el("div", { role: "status", class: "ok" },
    el("p", {}, `New API key ${answer.data.id} (${answer.data.restricted ? `only ${answer.data.scopes.join(", ")}` : "every scope"}), shown this once:`),
    el("p", { class: "mono" }, answer.data.apiKey)));
  await showKeys();
  await showAudit();
}

async function revokeKey(event) {
  event.preventDefault();
  const answer = await api("DELETE", `/v1/apps/${encodeURIComponent(app.id)}/keys/${encodeURIComponent($("key-id").value.trim())}`);
  say($("app-result"), answer.ok ? `Revoked ${$("key-id").value}.` : answer.message, answer.ok ? "status" : "alert");
  await showKeys();
  await showAudit();
}

/** The app's last 50 changes made with a secret: who (the key's ID or the admin, and whether through the console),
 * what, from where, when. */
async function showAudit() {
  if (!app) return;
  const answer = await api("GET", `/v1/audit?app=${encodeURIComponent(app.id)}&limit=50`);
  if (!answer.ok) { say($("audit-summary"), answer.message); return; }
  $("audit-summary").textContent = answer.data.length === 0 ? "No change recorded in the last 30 days."
    : `The last ${answer.data.length} change${answer.data.length === 1 ? "" : "s"} in 30 days, newest first.`;
  $("audit-entries").replaceChildren(...answer.data.map((entry) => el("li", { class: "card" },
    el("p", { class: "mono" }, `${entry.route} → ${entry.status}${entry.fields?.length ? ` (${entry.fields.join(", ")})` : ""}`),
    el("p", {}, `${entry.actor === "admin" ? "the admin token" : entry.keyID}${entry.console ? " (console)" : ""}`
      + ` from ${entry.address} · ${time(entry.at)}`))));
}

async function saveCategories(event) {
  event.preventDefault();
  const answer = await api("PUT", `/v1/apps/${encodeURIComponent(app.id)}/categories`, $("categories").value);
  say($("app-result"), answer.ok ? "Categories saved; devices fetch them on their next start." : answer.message, answer.ok ? "status" : "alert");
}

/** The app's webhook events not delivered yet: those waiting for another attempt and the dead ones, each with its
 * attempts and the last error; the dead ones can be retried. */
async function showWebhooks() {
  if (!app) return;
  const base = `/v1/apps/${encodeURIComponent(app.id)}/webhooks`;
  const [waiting, dead] = await Promise.all([api("GET", `${base}?limit=50`), api("GET", `${base}?state=dead&limit=50`)]);
  if (!waiting.ok || !dead.ok) { say($("webhooks-summary"), (waiting.ok ? dead : waiting).message); return; }
  const events = [...dead.data.events.map((event) => ({ ...event, dead: true })), ...waiting.data.events];
  $("webhooks-summary").textContent = events.length === 0 ? "Every event was delivered."
    : `${dead.data.events.length} dead (retry them once the receiver works), ${waiting.data.events.length} waiting for their next attempt`
      + (events.length >= 50 ? " (the first 50 of each)." : ".");
  $("webhook-events").replaceChildren(...events.map((event) => el("li", { class: "card" },
    el("p", { class: "mono" }, `${event.webhookID}${event.dead ? " · dead" : ""}`),
    el("p", {}, `${event.body?.event ?? "event"} ${event.body?.action ?? ""} → ${event.url}`),
    el("p", {}, `${event.attempts} attempt${event.attempts === 1 ? "" : "s"}; last error: ${event.lastError ?? "none"}`
      + (event.dead ? "" : ` · next attempt ${time(event.nextAttemptAt)}`)))));
  $("retry-webhooks").disabled = dead.data.events.length === 0;
}

/** Puts every dead webhook event of the app back in the outbox. */
async function retryWebhooks() {
  const answer = await api("POST", `/v1/apps/${encodeURIComponent(app.id)}/webhooks/retry`);
  say($("app-result"), answer.ok ? `${answer.data.retried} dead events will be sent again.` : answer.message, answer.ok ? "status" : "alert");
  await showWebhooks();
}

async function start() {
  await refresh();
  await loadApps($("app"), choose);
  await choose(apps.find((item) => item.id === $("app").value) ?? apps[0]);
  $("new-app").addEventListener("submit", createApp);
  $("edit-app").addEventListener("submit", saveApp);
  $("create-key").addEventListener("click", createKey);
  $("revoke-key").addEventListener("submit", revokeKey);
  $("categories-form").addEventListener("submit", saveCategories);
  $("categories").addEventListener("input", preview);
  $("refresh-webhooks").addEventListener("click", showWebhooks);
  $("refresh-audit").addEventListener("click", showAudit);
  $("retry-webhooks").addEventListener("click", retryWebhooks);
}

start();
