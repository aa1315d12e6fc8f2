// Shared by every console page: the API with the session's CSRF token, safe element building (text only, never
// HTML), and the app picker.

export const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? "";

/** Calls the provider's API or the console's; answers {ok, status, data, message}. */
export async function api(method, path, body) {
  const headers = { "X-CSRF-Token": csrf };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method, headers, credentials: "same-origin",
      body: body === undefined ? undefined : (typeof body === "string" ? body : JSON.stringify(body)),
    });
  } catch (error) {
    return { ok: false, status: 0, data: null, message: `the console cannot reach the server: ${error}` };
  }
  if (response.status === 401 && !path.startsWith("/console/api/lint")) {
    // The session ended: the page keeps what it can (compose keeps its draft) and sign-in says why it asks again.
    window.dispatchEvent(new Event("herald:session-ended"));
    window.location.assign("/console/login?expired=1&back=" + encodeURIComponent(window.location.pathname));
  }
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  const error = data && data.error;
  const message = error
    ? `${error.status} ${error.code}${error.field ? ` (${error.field})` : ""}: ${error.message}`
    : (response.ok ? "" : `${response.status}: ${text}`);
  return { ok: response.ok, status: response.status, data, message };
}

/** An element with attributes and children (strings become text nodes, so nothing is ever parsed as HTML). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Shows `message` in `container` as an alert (an error) or a status (news). */
export function say(container, message, kind = "alert") {
  container.replaceChildren(message ? el("p", { role: kind, class: kind === "alert" ? "error" : "ok" }, message) : "");
}

/** Fills the app picker from /v1/apps and keeps the choice across pages; answers the apps. */
export async function loadApps(select, onChange) {
  const answer = await api("GET", "/v1/apps");
  const apps = answer.ok ? answer.data : [];
  select.replaceChildren(...apps.map((app) => el("option", { value: app.id }, `${app.name} (${app.bundleID})`)));
  const remembered = localStorage.getItem("herald.app");
  if (apps.some((app) => app.id === remembered)) select.value = remembered;
  select.addEventListener("change", () => {
    localStorage.setItem("herald.app", select.value);
    onChange?.(apps.find((app) => app.id === select.value));
  });
  return apps;
}

/** A time as the pages show it: local date and time with milliseconds. */
export function time(text) {
  if (!text) return "";
  const date = new Date(text);
  return `${date.toLocaleDateString()} ${date.toLocaleTimeString([], { hour12: false })}.${String(date.getMilliseconds()).padStart(3, "0")}`;
}
