// Metrics: the provider's own counters over the last hour, drawn as small SVG charts.
import { api, el } from "/console/assets/console.js";

const svgNS = "http://www.w3.org/2000/svg";
function svg(tag, attributes) {
  const node = document.createElementNS(svgNS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

/** A line chart of `points` ({t, v}) titled `title`. */
function chart(title, unit, points) {
  const width = 560, height = 140, pad = 30;
  const max = Math.max(1e-9, ...points.map((point) => point.v));
  const t0 = points.length ? points[0].t : 0, t1 = points.length ? points[points.length - 1].t : 1;
  const x = (t) => pad + (width - 2 * pad) * ((t - t0) / Math.max(1, t1 - t0));
  const y = (v) => height - pad - (height - 2 * pad) * (v / max);
  const drawing = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `${title}: latest ${points.length ? points[points.length - 1].v.toFixed(2) : 0} ${unit}` });
  drawing.append(svg("line", { x1: pad, y1: height - pad, x2: width - pad, y2: height - pad, class: "axis" }));
  if (points.length > 1) drawing.append(svg("polyline", { points: points.map((point) => `${x(point.t)},${y(point.v)}`).join(" "), class: "line" }));
  const label = svg("text", { x: pad, y: 16, class: "label" });
  label.textContent = `max ${max.toFixed(2)} ${unit}`;
  drawing.append(label);
  return el("figure", { class: "chart" }, el("figcaption", {}, title), drawing);
}

async function draw() {
  const answer = await api("GET", "/console/api/metrics");
  if (!answer.ok) return;
  const samples = answer.data.map((sample) => ({ ...sample, t: new Date(sample.at).getTime() }));
  const rate = (key) => samples.slice(1).map((sample, index) => ({ t: sample.t, v: Math.max(0, (sample[key] - samples[index][key]) / ((sample.t - samples[index].t) / 1000)) }));
  const rejectedTotal = (sample) => Object.values(sample.rejected).reduce((a, b) => a + b, 0);
  const rejectedRate = samples.slice(1).map((sample, index) => ({ t: sample.t, v: Math.max(0, (rejectedTotal(sample) - rejectedTotal(samples[index])) / ((sample.t - samples[index].t) / 1000)) }));
  const latency = samples.slice(1).map((sample, index) => {
    const count = sample.latencyCount - samples[index].latencyCount;
    return { t: sample.t, v: count > 0 ? 1000 * (sample.latencySum - samples[index].latencySum) / count : 0 };
  });
  document.getElementById("charts").replaceChildren(
    chart("Notifications accepted by the API per second", "/s", rate("notifications")),
    chart("Sends accepted by APNs per second", "/s", rate("accepted")),
    chart("Sends rejected by APNs per second", "/s", rejectedRate),
    chart("Queue depth", "deliveries", samples.map((sample) => ({ t: sample.t, v: sample.queueDepth }))),
    chart("Mean send latency", "ms", latency));
  const last = samples[samples.length - 1];
  document.querySelector("#rejections tbody").replaceChildren(...Object.entries(last?.rejected ?? {}).map(([reason, count]) =>
    el("tr", {}, el("td", {}, reason), el("td", {}, count))));
}

draw();
setInterval(draw, 10000);
