// Compose's languages: a tab per language (its title, subtitle and body; the alert fields are the default), each
// linted as the payload that language's devices get, sent as the notification's `languages`.
import { el, say } from "/console/assets/console.js";

const $ = (id) => document.getElementById(id);
/** The languages added, in order: `{tag, title, subtitle, body, findings}`. */
let languages = [];
let selected = -1;
let changed = () => {};
const textFields = ["title", "subtitle", "body"];

/** The alert one language gives (its fields that are not empty). */
function alertOf(language) {
  return Object.fromEntries(textFields.filter((key) => language[key]).map((key) => [key, language[key]]));
}

/** The `languages` of the notification's body; `undefined` for none. */
export function languagesBody() {
  const given = languages.filter((language) => Object.keys(alertOf(language)).length);
  return given.length ? Object.fromEntries(given.map((language) => [language.tag, alertOf(language)])) : undefined;
}

/** Lints each language's payload (the default `payloadText` with its alert) with `lintOne(text)`, an answer of
 * /console/api/lint; marks the tabs whose payload has problems. */
export async function lintLanguages(payloadText, lintOne) {
  let payload;
  try { payload = JSON.parse(payloadText); } catch { return; }
  for (const language of languages) {
    const alert = alertOf(language);
    if (!Object.keys(alert).length) { language.findings = ["warning: no text yet; its devices get the default"]; continue; }
    const localized = { ...payload, aps: { ...(payload.aps ?? {}), alert } };
    const answer = await lintOne(JSON.stringify(localized));
    language.findings = answer.ok
      ? answer.data.findings.map((finding) => `${finding.severity}: ${finding.location ? finding.location + ": " : ""}${finding.message}${finding.reason ? ` [${finding.status} ${finding.reason}]` : ""}`)
      : [`error: ${answer.message}`];
  }
  render();
}

function render() {
  $("language-tabs").replaceChildren(...languages.map((language, index) => {
    const problems = language.findings.some((text) => text.startsWith("error"));
    return el("button", {
      type: "button", role: "tab", id: `language-tab-${index}`, "aria-selected": index === selected ? "true" : "false",
      "aria-controls": "language-panel", class: problems ? "has-errors" : "", onclick: () => choose(index),
    }, problems ? `${language.tag} ⚠` : language.tag);
  }));
  const panel = $("language-panel");
  panel.hidden = selected < 0;
  if (selected < 0) return;
  const language = languages[selected];
  panel.setAttribute("aria-labelledby", `language-tab-${selected}`);
  for (const key of textFields) {
    $(`language-${key}`).value = language[key];
    $(`language-${key}-label`).textContent = `${key[0].toUpperCase()}${key.slice(1)} in ${language.tag}`;
  }
  $("language-findings").replaceChildren(...(language.findings.length
    ? language.findings.map((text) => el("p", { class: text.split(":")[0] }, text))
    : [el("p", { class: "ok" }, `No problems: the ${language.tag} payload would be accepted and shown as meant.`)]));
}

function choose(index) {
  selected = index;
  render();
}

function add() {
  const typed = $("language-tag").value.trim().replaceAll("_", "-");
  let tag;
  try { [tag] = Intl.getCanonicalLocales(typed); } catch { tag = undefined; }
  if (!typed || !tag) {
    say($("language-add-findings"), `"${typed}" is not a language tag: use one such as fr, zh-Hans or pt-BR.`);
    return;
  }
  if (languages.some((language) => language.tag.toLowerCase() === tag.toLowerCase())) {
    say($("language-add-findings"), `${tag} is there already.`);
    return;
  }
  say($("language-add-findings"), "");
  languages.push({ tag, title: "", subtitle: "", body: "", findings: [] });
  $("language-tag").value = "";
  choose(languages.length - 1);
  changed();
}

function remove() {
  if (selected < 0) return;
  languages.splice(selected, 1);
  selected = Math.min(selected, languages.length - 1);
  render();
  changed();
}

/** What a draft keeps of the languages. */
export function languagesDraft() {
  return JSON.stringify(languages.map(({ tag, title, subtitle, body }) => ({ tag, title, subtitle, body })));
}

/** Puts back the languages of a draft. */
export function restoreLanguages(text) {
  try {
    const restored = JSON.parse(text ?? "[]");
    if (Array.isArray(restored)) {
      languages = restored.filter((language) => typeof language?.tag === "string")
        .map((language) => ({ tag: language.tag, title: String(language.title ?? ""), subtitle: String(language.subtitle ?? ""), body: String(language.body ?? ""), findings: [] }));
    }
  } catch { languages = []; }
  selected = languages.length ? 0 : -1;
  render();
}

/** Wires the languages' controls; `onChange` runs after any change (to lint again). */
export function setUpLanguages(onChange) {
  changed = onChange;
  $("add-language").addEventListener("click", add);
  $("language-tag").addEventListener("keydown", (event) => { if (event.key === "Enter") { event.preventDefault(); add(); } });
  $("remove-language").addEventListener("click", remove);
  for (const key of textFields) {
    $(`language-${key}`).addEventListener("input", () => {
      if (selected < 0) return;
      languages[selected][key] = $(`language-${key}`).value;
      changed();
    });
  }
  render();
}
