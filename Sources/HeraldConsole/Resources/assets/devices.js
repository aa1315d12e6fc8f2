// Devices: each simulated device drawn as a notification center that updates live, and the provider's devices.
import { api, el, say, loadApps, time } from "/console/assets/console.js";

const $ = (id) => document.getElementById(id);
let app = null;
let lastToken = null;
/** Each phone's line that says what the last response did: outside the banners, which a response may remove. */
const feedback = new Map();

/** One phone: its apps' badges and its notifications grouped by thread. */
function phone(simulator) {
  const list = el("div", { class: "center", "aria-label": `Notifications on device ${simulator.index + 1}` });
  const badges = el("p", { class: "badges" });
  const pending = el("ul", { class: "pending", "aria-label": `Pending local notifications on device ${simulator.index + 1}` });
  const activities = el("ul", { class: "pending", "aria-label": `Live Activities on device ${simulator.index + 1}` });
  const widgets = el("ul", { class: "pending", "aria-label": `Widgets and controls on device ${simulator.index + 1}` });
  const said = el("div", { role: "status", class: "said", "aria-label": `Responses on device ${simulator.index + 1}` });
  feedback.set(simulator.index, said);
  const box = el("section", { class: "phone", "aria-label": `Device ${simulator.index + 1}` },
    el("h3", {}, `Device ${simulator.index + 1}`), el("p", { class: "muted" }, simulator.url), badges, said, list,
    el("h4", {}, "Pending local notifications"), pending, el("h4", {}, "Live Activities"), activities,
    el("h4", {}, "Widgets and controls"), widgets);
  if (simulator.error) { say(list, simulator.error); return box; }
  badges.textContent = (simulator.apps ?? []).map((installed) => `${installed.bundleID}: badge ${installed.badge}`).join(" · ");
  follow(simulator.index, list, (screen) => {
    render(list, simulator.index, screen.notifications);
    renderPending(pending, screen.pending);
    renderActivities(activities, screen.activities ?? []);
    renderWidgets(widgets, screen.widgets ?? []);
  });
  return box;
}

/** Follows one device's screen. A stream the server refused (too many live views open: a tab closed a moment ago
 *  still holds its place for a second or two) or lost is opened again after a pause. */
function follow(index, list, show) {
  const stream = new EventSource(`/console/api/simulators/${index}/stream`);
  stream.onmessage = (event) => show(JSON.parse(event.data));
  stream.addEventListener("problem", (event) => say(list, event.data));
  stream.onerror = () => {
    if (stream.readyState !== EventSource.CLOSED) return;
    say(list, "Reconnecting…");
    setTimeout(() => follow(index, list, show), 2000);
  };
}

function render(list, index, notifications) {
  const open = new Set([...list.querySelectorAll("details[open]")].map((node) => node.dataset.id));
  // A reply being typed survives the redraw a new notification causes, and keeps the focus.
  const typed = [...list.querySelectorAll("form.reply input")].filter((input) => input.value).map((input) => [input.id, input.value]);
  const focused = list.contains(document.activeElement) ? document.activeElement.id : "";
  const threads = new Map();
  for (const notification of notifications) {
    const key = notification.threadIdentifier || `${notification.bundleID}`;
    if (!threads.has(key)) threads.set(key, []);
    threads.get(key).push(notification);
  }
  const groups = [...threads.entries()].map(([thread, items]) => el("div", { class: "thread", "aria-label": `Thread ${thread}` },
    items.map((notification) => banner(index, notification, open.has(notification.id)))));
  list.replaceChildren(...(groups.length ? groups : [el("p", { class: "muted" }, "No notifications.")]));
  for (const [id, value] of typed) {
    const input = document.getElementById(id);
    if (input) input.value = value;
  }
  if (focused) document.getElementById(focused)?.focus();
}

/** What a pending request's trigger waits for, in words. */
function triggerText(trigger) {
  const again = trigger.repeats ? ", repeats" : "";
  if (trigger.kind === "timeInterval") return `after ${trigger.timeInterval} s${again}`;
  if (trigger.kind === "calendar") {
    const parts = Object.entries(trigger.dateMatching ?? {}).map(([name, value]) => `${name} ${value}`);
    return `calendar: ${parts.join(", ")}${again}`;
  }
  if (trigger.kind === "location" && trigger.region) {
    const region = trigger.region;
    const when = [region.notifyOnEntry ? "entering" : null, region.notifyOnExit ? "leaving" : null].filter(Boolean).join(" or ");
    return `location: ${when} ${region.identifier} (${region.latitude}, ${region.longitude}, ${region.radius} m)${again}`;
  }
  return trigger.kind;
}

function renderPending(list, pending) {
  list.replaceChildren(...(pending.length ? pending.map((request) => el("li", {},
    el("span", { class: "title" }, request.title || request.body || request.identifier), " ",
    el("span", { class: "muted" }, `${request.bundleID} · ${triggerText(request.trigger)}`,
      request.nextFireDate ? ` · next ${time(request.nextFireDate)}` : ""))) : [el("li", { class: "muted" }, "None.")]));
}

/** Each Live Activity: its type, state and content state, how it gets updates (its token or a channel), when a
 * scheduled one starts, and the last alert it showed. */
function renderActivities(list, activities) {
  list.replaceChildren(...(activities.length ? activities.map((activity) => el("li", {},
    el("span", { class: "title" }, `${activity.attributesType} ${activity.state}`), " ",
    el("span", { class: "code" }, JSON.stringify(activity.contentState)), " ",
    el("span", { class: "muted" }, `${activity.bundleID} · ${activity.channel ? `channel ${activity.channel}`
      : activity.pushToken ? `token ${activity.pushToken.slice(0, 12)}…` : "no push"}`
      + (activity.state === "pending" && activity.scheduledStart ? ` · starts ${time(activity.scheduledStart)}`
        : ` · started ${time(activity.startedAt)}`)),
    activity.alert ? el("p", { role: "alert", class: "activity-alert", "aria-label": `Alert of ${activity.attributesType}` },
      el("strong", {}, activity.alert.title), " ", activity.alert.body,
      el("span", { class: "muted" }, ` · ${activity.alert.sound ?? "default sound"} · ${time(activity.alert.shownAt)}`)) : ""))
    : [el("li", { class: "muted" }, "None.")]));
}

/** Each app's push-updated widget and control kinds: reloads in the last 24 hours against WidgetKit's budget. */
function renderWidgets(list, apps) {
  const kinds = apps.flatMap((app) => [
    ...app.widgets.map((kind) => ({ ...kind, what: "widget", bundleID: app.bundleID })),
    ...app.controls.map((kind) => ({ ...kind, what: "control", bundleID: app.bundleID }))]);
  list.replaceChildren(...(kinds.length ? kinds.map((kind) => el("li", {},
    el("span", { class: "title" }, `${kind.kind} (${kind.what})`), " ",
    el("span", { class: "muted" }, `${kind.bundleID} · ${kind.reloadsToday} of ${kind.budget} reloads in 24 h`
      + (kind.lastReload ? ` · last ${time(kind.lastReload)}` : "")
      + (kind.refused ? ` · ${kind.refused} refused: budget spent` : ""))))
    : [el("li", { class: "muted" }, "None.")]));
}

/** The name of an action's icon (iOS 15's UNNotificationActionIcon) as a small label before its title; none without one. */
function iconLabel(action) {
  if (!action.icon) return null;
  return el("span", { class: "icon", title: action.iconKind === "system" ? "SF Symbol" : "template image" }, `[${action.icon}] `);
}

/** A notification as the phone shows it; expanding it shows the content extension's view and the actions. */
function banner(index, notification, isOpen) {
  const titleID = `n-${index}-${notification.id}`;
  const attachmentURL = (attachment) =>
    `/console/api/simulators/${index}/notifications/${encodeURIComponent(notification.id)}/attachments/${encodeURIComponent(attachment.identifier)}`;
  const media = notification.attachments.map((attachment) => {
    if (/jpeg|png|gif/.test(attachment.type)) return el("img", { src: attachmentURL(attachment), alt: `Attachment ${attachment.identifier}`, class: "media" });
    if (/audio|mp3|aiff|wav/.test(attachment.type)) return el("audio", { src: attachmentURL(attachment), controls: true, "aria-label": `Attachment ${attachment.identifier}` });
    return el("video", { src: attachmentURL(attachment), controls: true, class: "media", "aria-label": `Attachment ${attachment.identifier}` });
  });
  const actions = el("div", { class: "actions" });
  const result = el("div", {});
  for (const action of notification.actions) {
    if (action.textInput) {
      const inputID = `${titleID}-${action.identifier}`;
      const input = el("input", { id: inputID, placeholder: action.textInputPlaceholder ?? "", "aria-label": action.textInputPlaceholder || action.title });
      const sendReply = async (event) => {
        event.preventDefault();
        await respond(index, notification, action.identifier, input.value, result);
      };
      actions.append(el("form", { class: "reply", onsubmit: sendReply },
        el("label", { for: inputID }, iconLabel(action), action.title), input,
        el("button", { type: "submit" }, action.textInputButtonTitle || "Send")));
    } else {
      actions.append(el("button", { type: "button", class: action.options.includes("destructive") ? "destructive" : "",
        onclick: () => respond(index, notification, action.identifier, undefined, result) }, iconLabel(action), action.title));
    }
  }
  actions.append(el("button", { type: "button", class: "quiet", onclick: () => respond(index, notification, "default", undefined, result) }, "Open"),
    el("button", { type: "button", class: "quiet", onclick: () => respond(index, notification, "dismiss", undefined, result) }, "Dismiss"));
  const view = notification.contentExtension;
  const extension = view ? el("div", { class: "extension", "aria-label": "Content extension" },
    view.title ? el("p", { class: "title" }, view.title) : null,
    view.body ? el("p", {}, view.body) : null,
    Object.entries(view.labels ?? {}).map(([name, value]) => el("p", { class: "label" }, `${name}: ${value}`))) : null;
  const details = el("details", { "data-id": notification.id, open: isOpen },
    el("summary", {}, "Expand"), extension, actions, result);
  return el("article", { class: "banner", "aria-labelledby": titleID },
    el("header", {}, el("span", { class: "app" }, notification.bundleID), el("time", {}, time(notification.date))),
    el("p", { class: "title", id: titleID }, notification.title || notification.body || "(no title)"),
    notification.subtitle ? el("p", { class: "subtitle" }, notification.subtitle) : null,
    el("p", { class: "body" }, notification.body),
    media, details);
}

async function respond(index, notification, action, text, result) {
  const answer = await api("POST", `/console/api/simulators/${index}/notifications/${encodeURIComponent(notification.id)}/respond`,
    text === undefined ? { action } : { action, text });
  if (!answer.ok) { say(result, answer.message || "the device refused the response"); return; }
  const link = notification.apnsID ? el("a", { href: `/console/delivery?apns-id=${encodeURIComponent(notification.apnsID)}` }, "its delivery log") : "";
  result.replaceChildren();
  feedback.get(index).replaceChildren(el("p", { class: "ok" },
    `Sent ${action === "default" ? "open" : action}${text !== undefined ? ` with “${text}”` : ""} through the device; see `, link));
}

async function loadDevices(more) {
  if (!app) return;
  const params = new URLSearchParams({ app: app.id, limit: "100" });
  if ($("filter-user").value) params.set("user", $("filter-user").value);
  if ($("filter-tag").value) params.set("tag", $("filter-tag").value);
  if ($("filter-active").value) params.set("active", $("filter-active").value === "active" ? "true" : "false");
  if (more && lastToken) params.set("after", lastToken);
  const answer = await api("GET", `/v1/devices?${params}`);
  const body = $("devices").tBodies[0];
  if (!more) body.replaceChildren();
  if (!answer.ok) { body.append(el("tr", {}, el("td", { colspan: 7, role: "alert" }, answer.message))); return; }
  lastToken = answer.data.length ? answer.data[answer.data.length - 1].token : null;
  $("more").disabled = answer.data.length < 100;
  for (const device of answer.data) {
    body.append(el("tr", {}, el("td", { class: "mono" }, device.token), el("td", {}, device.userID ?? ""),
      el("td", {}, device.tags.join(", ")), el("td", {}, device.active ? "yes" : "no"),
      el("td", {}, device.deactivationReason ?? ""), el("td", {}, device.timeZone ?? ""), el("td", {}, time(device.registeredAt))));
  }
}

async function start() {
  const simulators = await api("GET", "/console/api/simulators");
  $("simulators").replaceChildren(...(simulators.ok && simulators.data.length
    ? simulators.data.map(phone) : [el("p", { class: "muted" }, "No simulated devices: run herald up, or herald serve --device-api URL.")]));
  const apps = await loadApps($("app"), (chosen) => { app = chosen; loadDevices(false); });
  app = apps.find((candidate) => candidate.id === $("app").value) ?? apps[0];
  $("device-filter").addEventListener("submit", (event) => { event.preventDefault(); loadDevices(false); });
  $("more").addEventListener("click", () => loadDevices(true));
  loadDevices(false);
}

start();
