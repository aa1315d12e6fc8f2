// Tools: the device-token validator, the JWT validator and the payload linter.
import { api, el, say, loadApps } from "/console/assets/console.js";

const $ = (id) => document.getElementById(id);

function facts(container, object) {
  container.replaceChildren(el("dl", {}, Object.entries(object).flatMap(([name, value]) =>
    [el("dt", {}, name), el("dd", {}, typeof value === "object" && value !== null ? JSON.stringify(value) : String(value))])));
}

$("token-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const answer = await api("POST", "/console/api/tools/token", { app: $("app").value, token: $("token").value });
  if (!answer.ok) { say($("token-result"), answer.message); return; }
  facts($("token-result"), answer.data);
});

$("jwt-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const answer = await api("POST", "/console/api/tools/jwt", { app: $("app").value, jwt: $("jwt").value });
  if (!answer.ok) { say($("jwt-result"), answer.message); return; }
  facts($("jwt-result"), answer.data);
});

$("lint-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const answer = await api("POST", "/console/api/lint", { payload: $("lint-payload").value, pushType: $("lint-push-type").value });
  if (!answer.ok) { say($("lint"), answer.message); return; }
  const report = answer.data;
  $("lint").replaceChildren(el("p", {}, `${report.size} of ${report.maximumSize} bytes, push type ${report.pushType}: ${report.accepted ? "APNs would accept it" : "APNs would reject it"}`),
    el("ul", {}, report.findings.map((finding) => el("li", { class: finding.severity },
      `${finding.severity}: ${finding.location ? finding.location + ": " : ""}${finding.message}${finding.reason ? ` [${finding.status} ${finding.reason}]` : ""}`))));
});

loadApps($("app"));
