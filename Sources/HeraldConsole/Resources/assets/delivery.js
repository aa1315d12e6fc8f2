// Delivery log: one notification's whole life across the provider, the gateway and the device, on one timeline.
import { api, el, say, time } from "/console/assets/console.js";

const $ = (id) => document.getElementById(id);
let last = null;

/**
 * Where a step stands in the chain of causes (provider, gateway and APNs' answer, device, the device's reports). Steps
 * are ordered by time, and steps of the same millisecond by this, so a tie never puts an effect before its cause.
 */
const gatewayOrder = ["received", "rejected", "stored", "answered", "forwarded", "delivered", "replaced", "expired", "discarded"];

function rank(where, what) {
  if (where === "provider") return 0;
  if (where === "device → provider") return 3;
  if (where === "APNs") return 1 + gatewayOrder.indexOf("answered") / 10;
  if (where === "gateway") {
    const index = gatewayOrder.indexOf(what.split(/[: ]/)[0]);
    return 1 + (index < 0 ? gatewayOrder.length : index) / 10;
  }
  return 2; // a device
}

/** Every step known, as {at, where, what}, by time and, within a millisecond, by cause. */
function steps(trace) {
  const list = [];
  const add = (at, where, what) => {
    if (at) list.push({ at: new Date(typeof at === "number" ? at : at), where, what, rank: rank(where, what) });
  };
  const provider = trace.provider;
  if (provider) {
    add(provider.queuedAt, "provider", provider.channelID ? `queued for channel ${provider.channelID}` : `queued for device ${provider.token.slice(0, 16)}…`);
    if (provider.notBefore !== provider.queuedAt) add(provider.notBefore, "provider", "due (sendAt or a retry's time)");
    if (provider.state === "leased") add(provider.leaseUntil, "provider", `in flight (attempt ${provider.attempts}): the lease runs out now`);
    if (provider.answeredAt) {
      const answer = provider.status ? `${provider.status}${provider.reason ? " " + provider.reason : ""}` : provider.reason ?? provider.state;
      add(provider.answeredAt, "APNs", `answered ${answer} after attempt ${provider.attempts}${provider.apnsUniqueID ? `, apns-unique-id ${provider.apnsUniqueID}` : ""}`);
    }
    for (const report of provider.reports ?? []) {
      add(report.at, "device → provider", `${report.event}${report.action ? ` (${report.action})` : ""}${report.reply ? `: reply “${report.reply}”` : ""}`);
    }
  }
  for (const event of trace.gateway?.events ?? []) {
    add(event.time, "gateway", `${event.event}${event.detail ? `: ${event.detail}` : ""}${event["replaced-by"] ? ` by ${event["replaced-by"]}` : ""}`);
  }
  for (const device of trace.devices ?? []) {
    for (const event of device.events) {
      const what = event.event === "response"
        ? `${event.action === "default" ? "opened" : event.action === "dismiss" ? "dismissed" : `action ${event.action}`}${event.text ? `: reply “${event.text}”` : ""}`
        : `${event.event}${event.message ? `: ${event.message}` : ""}`;
      add(event.time, `device ${device.index + 1}`, what);
    }
  }
  list.sort((a, b) => a.at - b.at || a.rank - b.rank);
  return causal(list);
}

/** The step a step cannot come before: a device's report after the device's own event, a device's first step after
 * the gateway handed the push over. */
function causeOf(step, list) {
  const word = step.what.split(/[ :(]/)[0];
  const onDevice = (where) => /^device \d+$/.test(where);
  if (step.where === "device → provider") {
    return list.find((other) => onDevice(other.where) && other.what.split(/[ :(]/)[0] === word);
  }
  if (onDevice(step.where)) {
    return list.find((other) => other.where === "gateway" && /^(forwarded|delivered)/.test(other.what));
  }
  return undefined;
}

/**
 * Time order, then each step moved after its cause when its clock dated it earlier: the processes' clocks differ by
 * a little, and an effect shown before its cause reads wrong. The step keeps its own time and says how far before its
 * cause it was dated, so the skew is noted, not hidden.
 */
function causal(list) {
  const ordered = [...list];
  for (const step of list) {
    const cause = causeOf(step, ordered);
    if (!cause || cause === step) continue;
    const at = ordered.indexOf(step);
    const after = ordered.indexOf(cause);
    if (after < at) continue;
    ordered.splice(at, 1);
    ordered.splice(ordered.indexOf(cause) + 1, 0, step);
    const skew = cause.at - step.at;
    if (skew > 0) step.skew = `dated ${skew} ms before ${cause.where}'s ${cause.what.split(/[ :(]/)[0]}, its cause: each process stamps its own time`;
  }
  return ordered;
}

/** The verdict in one sentence, its next step, and what an undecided one waits for. */
function renderVerdict(verdict) {
  $("verdict").hidden = !verdict;
  if (!verdict) { $("verdict").replaceChildren(); return; }
  $("verdict").replaceChildren(
    el("h2", {}, "What became of it"),
    el("p", { class: "sentence" }, el("strong", {}, verdict.verdict), " — ", verdict.sentence),
    verdict.next ? el("p", {}, el("span", { class: "muted" }, "Next: "), verdict.next) : "",
    verdict.decided ? "" : el("p", { class: "muted" }, `Not decided yet: waiting for ${verdict.waitingFor}.`));
}

function render(trace) {
  renderVerdict(trace.verdict);
  const list = steps(trace);
  const items = list.map((step, index) => {
    const gap = index ? step.at - list[index - 1].at : 0;
    const shown = index ? (gap < 0 ? `${gap} ms` : `+${gap} ms`) : "start";
    return el("li", { class: `step ${step.where.split(" ")[0]}` },
      el("time", { datetime: step.at.toISOString() }, time(step.at.toISOString())),
      el("span", { class: "gap" }, shown),
      el("span", { class: "where" }, step.where),
      el("span", { class: "what" }, step.what, step.skew ? el("span", { class: "muted" }, ` (${step.skew})`) : ""));
  });
  $("timeline").replaceChildren(...items);
  const known = ["provider", "gateway"].filter((part) => trace[part]).concat(trace.devices?.length ? ["device"] : []);
  say($("problem"), `apns-id ${trace.apnsID}: ${list.length} steps from ${known.join(", ")}.`, "status");
}

async function lookUp(event) {
  event?.preventDefault();
  const params = new URLSearchParams();
  if ($("apns-id").value.trim()) params.set("apns-id", $("apns-id").value.trim());
  else params.set("apns-unique-id", $("apns-unique-id").value.trim());
  const answer = await api("GET", `/console/api/trace?${params}`);
  if (!answer.ok) { $("timeline").replaceChildren(); renderVerdict(null); last = null; $("download").disabled = true; say($("problem"), answer.message); return; }
  last = answer.data;
  $("download").disabled = false;
  render(last);
  history.replaceState(null, "", `/console/delivery?apns-id=${encodeURIComponent(last.apnsID)}`);
}

function download() {
  if (!last) return;
  const url = URL.createObjectURL(new Blob([JSON.stringify({ ...last, timeline: steps(last) }, null, 2)], { type: "application/json" }));
  const link = el("a", { href: url, download: `delivery-${last.apnsID}.json` });
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}

$("lookup").addEventListener("submit", lookUp);
$("download").addEventListener("click", download);
const query = new URLSearchParams(window.location.search);
if (query.get("apns-id")) { $("apns-id").value = query.get("apns-id"); lookUp(); }
else if (query.get("apns-unique-id")) { $("apns-unique-id").value = query.get("apns-unique-id"); lookUp(); }
