"use strict";
// The live pages' shared script (inlined where a page says "// live.js"): the token, the
// address of a request, colours, the clock and the poll loop, at most once a second.
const TOKEN = new URLSearchParams(location.search).get("token") || "";
const q = (path, extra) => path + "?token=" + encodeURIComponent(TOKEN) + (extra || "");
const COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
const CONFIG = {displaylogo: false, responsive: true};
let version = -1, done = false, failures = 0;

function clock(s) {
  if (s === null || s === undefined) return "–";
  s = Math.round(s);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(r).padStart(2, "0");
}
function cell(row, text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  row.appendChild(td);
}
// The header every page shares: its title (`name`, then the run's title), the state badge
// and the message.
function drawHeader(st, name) {
  document.getElementById("title").textContent = name + (st.title ? " — " + st.title : "");
  const badge = document.getElementById("state");
  badge.textContent = st.state;
  badge.className = st.state;
  const msg = document.getElementById("message");
  msg.textContent = st.message || "";
  msg.className = st.state;
}
// Poll /state: drawStatus(status) every time, drawCharts(charts) when they changed; stop
// once the command has finished or was interrupted. `gone`: what to say when it stops answering.
async function poll(drawStatus, drawCharts, gone) {
  try {
    const r = await fetch(q("state", "&since=" + version), {cache: "no-store"});
    if (!r.ok) throw new Error("HTTP " + r.status);
    const d = await r.json();
    failures = 0;
    document.getElementById("conn").textContent = "";
    drawStatus(d.status);
    if (d.charts) { drawCharts(d.charts); version = d.status.version; }
    if (d.status.state === "finished" || d.status.state === "interrupted") done = true;
  } catch (e) {
    failures += 1;
    if (failures > 2) document.getElementById("conn").textContent =
      "no answer from distval (the command has ended?)" + (gone || "");
  }
  document.body.dataset.version = String(version);
  if (!done) setTimeout(() => poll(drawStatus, drawCharts, gone), 1000);
}
