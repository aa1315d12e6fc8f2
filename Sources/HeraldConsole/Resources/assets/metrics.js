// Metrics: the server draws the charts (axes, units, APNs' outages); every 10 seconds the page is read again and
// its charts swapped in, so there is one drawing of them.
async function refresh() {
  const answer = await fetch(location.pathname, { headers: { accept: "text/html" } });
  if (!answer.ok) return;
  const fresh = new DOMParser().parseFromString(await answer.text(), "text/html").getElementById("metrics-live");
  const shown = document.getElementById("metrics-live");
  if (fresh && shown) shown.replaceWith(document.importNode(fresh, true));
}

setInterval(refresh, 10000);
