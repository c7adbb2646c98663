/// The status page the `http` sink serves at `GET /` (contract §8): one self-contained document that
/// shows what a phone's network monitor shows — the path as a banner, the checks, the probes'
/// health and small plots of recent values — kept live from `/events` (Server-Sent Events).
///
/// The page loads nothing: no fonts, no images but `data:`, no other script or style than the one
/// inline `<script>` (`script`) and the one inline `<style>` (`style`), whose SHA-256 hashes the
/// sink puts in its Content-Security-Policy. So the page carries no `style=` attribute and no
/// inline event handler, and the script sets styles through classes only. Every text that comes
/// from the agent (check ids, messages from plug-ins, errors) enters the DOM through
/// `textContent` or an attribute, never as markup.
enum StatusPage {
    /// The one inline style sheet, light and dark (prefers-color-scheme).
    static let style = #"""
        :root {
          color-scheme: light dark;
          --bg: #f6f6f8; --fg: #1c1c1f; --muted: #62626a; --card: #ffffff; --line: #dcdce2;
          --ok: #1a7f37; --warning: #9a5b00; --unknown: #62626a; --critical: #c21f1f;
          --banner-ok: #dff3e4; --banner-off: #c21f1f; --banner-wait: #fff1d6;
          --s0: #0b63c4; --s1: #c2410c; --s2: #15803d; --s3: #7c3aed; --s4: #be185d; --s5: #0e7490;
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --bg: #111114; --fg: #ececf1; --muted: #a0a0aa; --card: #1b1b20; --line: #33333b;
            --ok: #4ade80; --warning: #fbbf24; --unknown: #a0a0aa; --critical: #f87171;
            --banner-ok: #14351f; --banner-off: #8f1717; --banner-wait: #3b2f12;
            --s0: #60a5fa; --s1: #fb923c; --s2: #4ade80; --s3: #c4b5fd; --s4: #f472b6; --s5: #22d3ee;
          }
        }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--fg);
               font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
        header { display: flex; flex-wrap: wrap; align-items: baseline; gap: .25rem 1rem;
                 max-width: 72rem; margin: 0 auto; padding: .9rem 1rem .5rem; }
        h1 { font-size: 1.15rem; margin: 0; }
        h2 { font-size: 1rem; margin: 0 0 .5rem; }
        #agent, #updated, .note, #path-detail, figcaption { color: var(--muted); font-size: .85rem; }
        #connection { margin-left: auto; font-size: .85rem; color: var(--muted); }
        #connection::before { content: ""; display: inline-block; width: .6em; height: .6em;
                              border-radius: 50%; margin-right: .4em; background: var(--unknown); }
        #connection[data-state="live"]::before { background: var(--ok); }
        #connection[data-state="reconnecting"], #connection[data-state="disconnected"] { color: var(--warning); font-weight: 600; }
        #connection[data-state="reconnecting"]::before, #connection[data-state="disconnected"]::before {
          background: var(--warning); animation: pulse 1s ease-in-out infinite alternate; }
        @keyframes pulse { from { opacity: 1; } to { opacity: .25; } }
        .path { max-width: 72rem; margin: 0 auto; padding: 0 1rem; }
        #banner { padding: .85rem 1rem; border-radius: .6rem; font-size: 1.15rem; font-weight: 650;
                  background: var(--banner-wait); }
        #banner[data-status="satisfied"] { background: var(--banner-ok); }
        #banner[data-status="unsatisfied"] { background: var(--banner-off); color: #fff; }
        #path-detail { margin: .3rem .1rem 0; min-height: 1.2em; }
        main { max-width: 72rem; margin: 0 auto; padding: 1rem; display: grid; gap: 1rem; }
        section { background: var(--card); border: 1px solid var(--line); border-radius: .6rem;
                  padding: .75rem 1rem; overflow-x: auto; }
        body[data-connection="reconnecting"] main, body[data-connection="disconnected"] main,
        body[data-connection="reconnecting"] #banner, body[data-connection="disconnected"] #banner { opacity: .55; }
        table { border-collapse: collapse; width: 100%; font-size: .9rem; }
        th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { color: var(--muted); font-weight: 600; font-size: .8rem; }
        tbody tr:last-child td { border-bottom: 0; }
        td.id { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .85rem; white-space: nowrap; }
        td.message, td.error { overflow-wrap: anywhere; }
        td.since { white-space: nowrap; }
        td.number { text-align: right; font-variant-numeric: tabular-nums; }
        .badge { display: inline-block; padding: 0 .55em; border: 1px solid currentColor; border-radius: 1em;
                 font-size: .78rem; font-weight: 650; color: var(--unknown); }
        [data-state="ok"] .badge, [data-state="running"] .badge { color: var(--ok); }
        [data-state="warning"] .badge, [data-state="restarting"] .badge { color: var(--warning); }
        [data-state="critical"] .badge, [data-state="failed"] .badge { color: var(--critical); }
        #plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); gap: 1rem; }
        figure { margin: 0; }
        figcaption { display: flex; justify-content: space-between; gap: .5rem; }
        figcaption strong { color: var(--fg); font-size: .9rem; }
        svg { display: block; width: 100%; height: 6rem; margin: .25rem 0; border-bottom: 1px solid var(--line); }
        svg .grid { stroke: var(--line); stroke-width: 1; vector-effect: non-scaling-stroke; }
        svg polyline { fill: none; stroke-width: 1.6; vector-effect: non-scaling-stroke;
                       stroke-linejoin: round; stroke-linecap: round; }
        .legend { list-style: none; margin: 0; padding: 0; font-size: .8rem; }
        .legend li { display: flex; gap: .4rem; align-items: baseline; }
        .legend .label { overflow-wrap: anywhere; }
        .legend .value { margin-left: auto; font-variant-numeric: tabular-nums; white-space: nowrap; }
        .swatch { display: inline-block; width: .8em; height: .25em; border-radius: .1em; background: currentColor;
                  transform: translateY(-.2em); }
        .s0 { stroke: var(--s0); color: var(--s0); } .s1 { stroke: var(--s1); color: var(--s1); }
        .s2 { stroke: var(--s2); color: var(--s2); } .s3 { stroke: var(--s3); color: var(--s3); }
        .s4 { stroke: var(--s4); color: var(--s4); } .s5 { stroke: var(--s5); color: var(--s5); }
        .legend .label, .legend .value { color: var(--fg); }
        .empty { color: var(--muted); font-size: .85rem; margin: .5rem 0; }
        footer { max-width: 72rem; margin: 0 auto; padding: 0 1rem 1.5rem; }
        """#

    /// The one inline script: reads `events` (relative, so the page works behind a path prefix)
    /// and keeps the DOM in step. Plain JavaScript, no eval, no markup from strings.
    static let script = #"""
        "use strict";
        (() => {
          const MAX_POINTS = \#(MetricHistory.capacity);   // samples kept for the plots, as the agent keeps them
          const KEPT_AFTER_MS = \#(MetricHistory.keptAfterMilliseconds);   // the soonest a sample is kept after the last, likewise
          const MAX_SERIES = 6;            // lines per plot (the palette's size)
          const RETRY_MS = 5000;           // a new EventSource after the browser gave up
          const $ = (id) => document.getElementById(id);
          const banner = $("banner"), pathDetail = $("path-detail"), connection = $("connection");
          const checksBody = $("checks").tBodies[0], probesBody = $("probes").tBodies[0];
          const rows = new Map();          // check id -> <tr>
          // Recent values, as the agent keeps them for `history`: a sample at least KEPT_AFTER_MS
          // after the one before, the last MAX_POINTS; plus the newest document's values, shown
          // until they settle.
          let settled = [];                // [{ at: ms, plots: { plot: { check id: { metric: number } } } }]
          let head = null;

          function el(tag, className, text) {
            const node = document.createElement(tag);
            if (className) node.className = className;
            if (text !== undefined && text !== null) node.textContent = String(text);
            return node;
          }
          function svgEl(tag, attributes) {
            const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
            for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
            return node;
          }
          function badge(text) { return el("span", "badge", text); }
          function clock(time) {   // the time of day, with the date when it is not today
            const date = new Date(time);
            if (isNaN(date)) return "";
            const today = date.toDateString() === new Date().toDateString();
            return date.toLocaleString(undefined, today ? { timeStyle: "medium" } : { dateStyle: "short", timeStyle: "medium" });
          }

          // The path banner: from every status document and every change event.
          function setPath(path) {
            if (!path || typeof path !== "object") return;
            const status = typeof path.status === "string" ? path.status : "unknown";
            banner.dataset.status = status;
            banner.textContent = typeof path.description === "string" ? path.description : status;
            if (typeof path.type !== "string") return;   // a change event's path has no details
            const parts = [];
            if (path.type !== "none") parts.push(path.type);
            if (path.interface) parts.push(String(path.interface));
            if (path.internet) parts.push("internet: " + path.internet);
            if (path.expensive === true) parts.push("metered");
            pathDetail.textContent = parts.join(" · ");
          }

          // The checks table: one row per check, in the document's order.
          function checkRow(id) {
            let row = rows.get(id);
            if (!row) {
              row = el("tr");
              row.dataset.check = id;
              row.append(el("td", "id", id), el("td", "state"), el("td", "message"), el("td", "since"));
              rows.set(id, row);
              checksBody.append(row);
            }
            return row;
          }
          function setCheck(row, state, message, since) {
            row.dataset.state = state;
            row.cells[1].replaceChildren(badge(state));
            row.cells[2].textContent = message;
            row.cells[3].textContent = clock(since);
            if (since) row.cells[3].title = String(since);
          }
          function setChecks(checks) {
            const seen = new Set();
            for (const check of checks) {
              if (!check || typeof check.id !== "string") continue;
              seen.add(check.id);
              const row = checkRow(check.id);
              setCheck(row, String(check.state), String(check.message ?? "") + (check.silenced === true ? " (silenced)" : ""), check.since);
              checksBody.append(row);
            }
            for (const [id, row] of rows) if (!seen.has(id)) { row.remove(); rows.delete(id); }
            $("checks-empty").hidden = rows.size > 0;
            const counts = {};
            for (const row of rows.values()) counts[row.dataset.state] = (counts[row.dataset.state] || 0) + 1;
            $("counts").textContent = ["critical", "unknown", "warning", "ok"]
              .filter((state) => counts[state]).map((state) => counts[state] + " " + state).join(" · ");
          }

          // The probes' health: rebuilt from every status document (a handful of rows).
          function setProbes(probes) {
            const rowsNow = [];
            for (const probe of Array.isArray(probes) ? probes : []) {
              if (!probe || typeof probe !== "object") continue;
              const row = el("tr");
              row.dataset.probe = String(probe.id);
              row.dataset.state = String(probe.state);
              const state = el("td");
              state.append(badge(probe.state));
              const duration = typeof probe.last_duration_ms === "number" ? probe.last_duration_ms.toFixed(1) + " ms" : "";
              row.append(el("td", "id", probe.id), el("td", "", probe.plugin), state, el("td", "", probe.isolation),
                el("td", "number", probe.restarts), el("td", "number", duration), el("td", "error", probe.last_error ?? ""));
              rowsNow.push(row);
            }
            probesBody.replaceChildren(...rowsNow);
            $("probes-empty").hidden = rowsNow.length > 0;
          }

          function sample(time, plots) {
            const at = Date.parse(time);
            return isNaN(at) || !plots || typeof plots !== "object" ? null : { at, plots };
          }
          function plotted() {
            const all = head && (!settled.length || head.at > settled[settled.length - 1].at) ? [...settled, head] : settled;
            return all.slice(-MAX_POINTS);
          }
          function addLive(entry) {
            if (!entry) return;
            head = entry;
            const last = settled[settled.length - 1];
            if (!last || entry.at - last.at >= KEPT_AFTER_MS) settled = [...settled, entry].slice(-MAX_POINTS);
          }

          const formatRate = (v) => {
            const units = ["b/s", "kb/s", "Mb/s", "Gb/s", "Tb/s"];
            let i = 0;
            while (Math.abs(v) >= 1000 && i < units.length - 1) { v /= 1000; i += 1; }
            return (v < 10 && i > 0 ? v.toFixed(1) : Math.round(v).toString()) + " " + units[i];
          };
          const formatMs = (v) => (v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : Math.round(v).toString()) + " ms";
          const formatPct = (v) => Math.round(v) + " %";

          // What each plot draws: the metrics the agent sorted into it, by what each plug-in
          // declared it to be (never by its name). [series, label, value] for one check's metrics.
          // Throughput and use: every one, labelled by its name when a check has several (a disk's
          // space and inodes are two measures: the fuller one drawn alone read as its space).
          // Latency: the check's largest (a request's total, the slowest echo).
          const numbers = (values) => Object.keys(values).filter((m) => typeof values[m] === "number" && isFinite(values[m]));
          const every = (unit) => (values) => {
            const names = numbers(values);
            return names.map((m) => [m, names.length > 1 ? m.replace(unit, "") : "", values[m]]);
          };
          const largest = (values) => {
            const names = numbers(values);
            return names.length ? [["largest", "", Math.max(...names.map((m) => values[m]))]] : [];
          };
          const plots = [
            { id: "plot-bandwidth", plot: "throughput", format: formatRate, ceiling: 0, pick: every(/_(bps|mbps|bytes_per_second)$/) },
            { id: "plot-latency", plot: "latency", format: formatMs, ceiling: 0, pick: largest },
            { id: "plot-disk", plot: "usage", format: formatPct, ceiling: 100, pick: every(/_(pct|percent|ratio)$/) },
          ];

          function drawPlots() {
            const points = plotted();
            for (const plot of plots) drawPlot(plot, points);
          }
          function drawPlot(plot, points) {
            const figure = $(plot.id);
            // A series missing from a sample (no reply, no rate) breaks its line there: a gap, not a guess.
            const series = new Map();
            points.forEach(({ at, plots }, index) => {
              const metrics = plots[plot.plot];
              if (!metrics || typeof metrics !== "object") return;
              for (const [check, values] of Object.entries(metrics)) {
                if (!values || typeof values !== "object") continue;
                for (const [metric, label, value] of plot.pick(values)) {
                  const key = check + "\u0000" + metric;
                  if (!series.has(key) && series.size >= MAX_SERIES) continue;
                  if (!series.has(key)) series.set(key, { label: label ? check + " " + label : check, lines: [], last: -2 });
                  const s = series.get(key);
                  if (s.last !== index - 1) s.lines.push([]);
                  s.lines[s.lines.length - 1].push([at, value]);
                  s.last = index;
                }
              }
            });
            const svg = figure.querySelector("svg"), legend = figure.querySelector(".legend");
            const empty = figure.querySelector(".empty"), scale = figure.querySelector(".scale");
            empty.hidden = series.size > 0;
            if (series.size === 0) { svg.replaceChildren(); legend.replaceChildren(); scale.textContent = ""; return; }
            const first = points[0].at, last = points[points.length - 1].at, span = Math.max(1, last - first);
            let top = plot.ceiling;
            if (!top) {
              for (const s of series.values()) for (const line of s.lines) for (const [, value] of line) top = Math.max(top, value);
              top = top > 0 ? top * 1.15 : 1;
            }
            const width = 300, height = 100;
            const x = (at) => ((at - first) / span * width).toFixed(1);
            const y = (value) => (height - Math.min(value, top) / top * (height - 4) - 2).toFixed(1);
            const nodes = [svgEl("line", { class: "grid", x1: 0, x2: width, y1: height / 2, y2: height / 2 })];
            const items = [];
            let index = 0;
            for (const s of series.values()) {
              const cls = "s" + index;
              for (const line of s.lines) {
                const drawn = line.length === 1 ? [line[0], line[0]] : line;   // a lone point: a dot
                nodes.push(svgEl("polyline", { class: cls, points: drawn.map(([at, v]) => x(at) + "," + y(v)).join(" ") }));
              }
              const newest = s.lines[s.lines.length - 1];
              const item = el("li");
              item.append(el("span", "swatch " + cls), el("span", "label", s.label),
                el("span", "value", s.last === points.length - 1 ? plot.format(newest[newest.length - 1][1]) : "–"));
              items.push(item);
              index += 1;
            }
            svg.replaceChildren(...nodes);
            legend.replaceChildren(...items);
            const minutes = Math.round(span / 60000);
            scale.textContent = "top " + plot.format(top) + " · " + (minutes >= 1 ? "last " + minutes + " min" : "last " + Math.round(span / 1000) + " s");
          }

          function onStatus(doc) {
            if (!doc || typeof doc !== "object") return;
            setPath(doc.path);
            setChecks(Array.isArray(doc.checks) ? doc.checks : []);
            setProbes(doc.probes);
            const agent = doc.agent || {};
            $("agent").textContent = [agent.name, agent.version && "pathwatch " + agent.version].filter(Boolean).join(" · ");
            $("updated").textContent = doc.time ? "updated " + clock(doc.time) : "";
            document.title = (doc.state ? doc.state + " · " : "") + (agent.name ? agent.name + " · " : "") + "Pathwatch";
          }
          function onPlot(entry) {
            if (!entry || typeof entry !== "object") return;
            addLive(sample(entry.at, entry.plots));
            drawPlots();
          }
          function onHistory(entries) {
            // The agent's own record replaces ours (on every connect, so a reconnect fills the gap).
            settled = (Array.isArray(entries) ? entries : []).map((entry) => entry && sample(entry.at, entry.plots))
              .filter(Boolean).sort((a, b) => a.at - b.at).slice(-MAX_POINTS);
            drawPlots();
          }
          function onChange(event) {
            if (!event || typeof event.check !== "string") return;
            setCheck(checkRow(event.check), String(event.to), String(event.message ?? "") + (event.silenced === true ? " (silenced)" : ""), event.at);
            $("checks-empty").hidden = true;
            setPath(event.path);
          }

          function setConnection(state, text) {
            connection.dataset.state = state;
            connection.textContent = text;
            document.body.dataset.connection = state;
          }
          function parsed(handler) {
            return (message) => {
              let value;
              try { value = JSON.parse(message.data); } catch { return; }
              handler(value);
            };
          }
          function connect() {
            const source = new EventSource("events");
            source.addEventListener("open", () => setConnection("live", "Live"));
            source.addEventListener("error", () => {
              if (source.readyState === EventSource.CLOSED) {
                setConnection("disconnected", "Disconnected, retrying");
                setTimeout(connect, RETRY_MS);
              } else {
                setConnection("reconnecting", "Reconnecting…");
              }
            });
            source.addEventListener("status", parsed(onStatus));
            source.addEventListener("history", parsed(onHistory));
            source.addEventListener("plot", parsed(onPlot));
            source.addEventListener("change", parsed(onChange));
          }
          setConnection("connecting", "Connecting…");
          connect();
        })();
        """#

    /// The whole document: `style` and `script` embedded exactly once each, nothing else inline.
    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <meta name="referrer" content="no-referrer">
        <title>Pathwatch</title>
        <link rel="icon" href="data:,">
        <style>\(style)</style>
        </head>
        <body>
        <header>
        <h1>Pathwatch</h1>
        <span id="agent"></span>
        <span id="connection" role="status" data-state="connecting">Connecting…</span>
        </header>
        <div class="path">
        <div id="banner" role="status" aria-live="polite" data-status="unknown">Waiting for the agent…</div>
        <div id="path-detail"></div>
        </div>
        <main>
        <section aria-labelledby="checks-title">
        <h2 id="checks-title">Checks <span id="counts" class="note"></span></h2>
        <table id="checks">
        <thead><tr><th>Check</th><th>State</th><th>Message</th><th>Since</th></tr></thead>
        <tbody></tbody>
        </table>
        <p id="checks-empty" class="empty">No checks yet.</p>
        </section>
        <section aria-labelledby="plots-title">
        <h2 id="plots-title">Recent values</h2>
        <div id="plots">
        <figure id="plot-bandwidth"><figcaption><strong>Bandwidth</strong><span class="scale"></span></figcaption>
        <svg viewBox="0 0 300 100" preserveAspectRatio="none" role="img" aria-label="Bandwidth"></svg>
        <p class="empty">No bandwidth probe reporting.</p><ul class="legend"></ul></figure>
        <figure id="plot-latency"><figcaption><strong>Latency</strong><span class="scale"></span></figcaption>
        <svg viewBox="0 0 300 100" preserveAspectRatio="none" role="img" aria-label="Latency"></svg>
        <p class="empty">No ping, reachability or connectivity probe reporting.</p><ul class="legend"></ul></figure>
        <figure id="plot-disk"><figcaption><strong>Disk use</strong><span class="scale"></span></figcaption>
        <svg viewBox="0 0 300 100" preserveAspectRatio="none" role="img" aria-label="Disk use"></svg>
        <p class="empty">No disk probe reporting.</p><ul class="legend"></ul></figure>
        </div>
        </section>
        <section aria-labelledby="probes-title">
        <h2 id="probes-title">Probes</h2>
        <table id="probes">
        <thead><tr><th>Probe</th><th>Plug-in</th><th>State</th><th>Isolation</th><th>Restarts</th><th>Last sample</th><th>Last error</th></tr></thead>
        <tbody></tbody>
        </table>
        <p id="probes-empty" class="empty">No probes reported yet.</p>
        </section>
        </main>
        <footer><span id="updated"></span></footer>
        <script>\(script)</script>
        </body>
        </html>

        """
}
