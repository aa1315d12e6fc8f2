// Channels: the app's broadcast channels (made and deleted at APNs through the provider), a broadcast to one, and
// the activity tokens its Live Activities registered.
import { api, el, say, loadApps, time } from "/console/assets/console.js";

const $ = (id) => document.getElementById(id);
let app = null;

/** A channel ID in a path: base64url, which the provider reads back as base64. */
const pathID = (id) => id.replaceAll("+", "-").replaceAll("/", "_");

async function refresh() {
  if (!app) { $("channels-caption").textContent = "No app yet: create one under Apps."; return; }
  const answer = await api("GET", `/v1/channels?app=${encodeURIComponent(app.id)}`);
  const channels = answer.ok ? answer.data.channels : [];
  $("channels-caption").textContent = answer.ok
    ? `${answer.data.count} of ${answer.data.limit} channels, oldest first.` : answer.message;
  $("channels").tBodies[0].replaceChildren(...(channels.length ? channels.map((channel) => el("tr", {},
    el("td", { class: "code" }, channel.id), el("td", {}, channel.name ?? ""),
    el("td", {}, channel.storagePolicy === 1 ? "Most Recent Message Stored" : "No Message Stored"),
    el("td", {}, time(channel.createdAt)),
    el("td", {}, el("button", { type: "button", onclick: () => remove(channel) }, "Delete"))))
    : [el("tr", {}, el("td", { colspan: 5 }, "No channels yet."))]));
  $("broadcast-channel").replaceChildren(...channels.map((channel) =>
    el("option", { value: channel.id }, `${channel.name ?? "(no name)"} · ${channel.id}`)));
  const tokens = await api("GET", `/v1/activities/tokens?app=${encodeURIComponent(app.id)}&limit=200`);
  $("tokens").tBodies[0].replaceChildren(...(tokens.ok && tokens.data.length ? tokens.data.map((token) => el("tr", {},
    el("td", {}, token.kind), el("td", {}, token.attributesType), el("td", {}, token.activityID ?? ""),
    el("td", {}, token.userID ?? ""), el("td", {}, String(token.priority10ThisHour),
      token.kind === "update" ? ` (${Math.max(0, 10 - token.priority10ThisHour)} of 10 left)` : ""),
    el("td", { class: "code" }, `${token.token.slice(0, 16)}…`,
      token.stale ? el("strong", { title: "not sent again since the device's app token was retired" }, " stale") : "")))
    : [el("tr", {}, el("td", { colspan: 6 }, tokens.ok ? "No activity has registered a token." : tokens.message))]));
}

async function remove(channel) {
  if (!window.confirm(`Delete channel ${channel.id} at APNs? Its ID is never made again.`)) return;
  const answer = await api("DELETE", `/v1/channels/${encodeURIComponent(pathID(channel.id))}?app=${encodeURIComponent(app.id)}`);
  say($("channel-result"), answer.ok ? `Deleted ${channel.id}.` : answer.message, answer.ok ? "status" : "alert");
  refresh();
}

$("new-channel").addEventListener("submit", async (event) => {
  event.preventDefault();
  const body = { storagePolicy: Number($("channel-policy").value) };
  if ($("channel-name").value.trim()) body.name = $("channel-name").value.trim();
  const answer = await api("POST", `/v1/channels?app=${encodeURIComponent(app.id)}`, body);
  say($("channel-result"), answer.ok ? `Created channel ${answer.data.id}.` : answer.message, answer.ok ? "status" : "alert");
  refresh();
});

$("broadcast").addEventListener("submit", async (event) => {
  event.preventDefault();
  let state;
  try { state = JSON.parse($("broadcast-state").value); } catch (error) {
    say($("broadcast-result"), `The content state is not JSON: ${error.message}`);
    return;
  }
  const keep = Number($("broadcast-expiration").value || "0");
  const body = {
    target: { channel: $("broadcast-channel").value },
    payload: { aps: { event: $("broadcast-event").value, timestamp: Math.floor(Date.now() / 1000), "content-state": state } },
    priority: Number($("broadcast-priority").value),
    expiration: keep > 0 ? Math.floor(Date.now() / 1000) + keep : 0,
  };
  const answer = await api("POST", `/v1/notifications?app=${encodeURIComponent(app.id)}`, body);
  say($("broadcast-result"), answer.ok
    ? `Queued as ${answer.data.id}; see it in History.` : answer.message, answer.ok ? "status" : "alert");
});

const apps = await loadApps($("app"), (chosen) => { app = chosen; refresh(); });
app = apps.find((candidate) => candidate.id === $("app").value) ?? apps[0] ?? null;
refresh();
